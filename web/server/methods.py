"""The Panel dashboard's "Add your method": a user's integrator raced beside the built-ins.

A tableau or a splitting is data (JSON, as ``integrator-lab run --tableau/--splitting`` takes
it) and every server accepts it. Python code is different: it runs in the server's process,
with the server's rights, and nothing can confine it (:mod:`integrator_lab.core.usercode`),
so a server runs it only when its operator started it with ``integrator-lab serve
--allow-code``; the page then says so in a banner. Otherwise the editor says code is disabled
and the core refuses it (``Live(allow_code=False)``).
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable

import panel as pn

from integrator_lab.core.custom import MAX_CODE_CHARS, TEMPLATES
from integrator_lab.views import i18n

#: what the banner of a server started with --allow-code says
CODE_BANNER = i18n.text("method.code_banner")
#: what the editor says about Python code on a server without --allow-code
CODE_DISABLED = i18n.text("method.code_disabled")
#: the kinds of method, by their labels' catalog keys
KIND_KEYS = {
    "method.kind.tableau": "tableau",
    "method.kind.splitting": "splitting",
    "editor.kind.python": "python",
}
KINDS = {i18n.text(key): kind for key, kind in KIND_KEYS.items()}
#: the longest text the editor takes (characters): the core's limit for code, and far more
#: than any tableau or splitting needs
MAX_TEXT_CHARS = MAX_CODE_CHARS


def template_text(definition: dict) -> str:
    """What the editor shows for a definition: the code, or the JSON (without ``kind``)."""
    if definition["kind"] == "python":
        return definition["code"]
    rows = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in definition.items() if k != "kind"]
    return "{\n" + ",\n".join(rows) + "\n}"


class MethodEditor:
    """The widgets of the editor; ``on_run(definition or None)`` is called by Run/Remove.
    ``banner`` (shown only with --allow-code) goes at the top of the page."""

    def __init__(
        self,
        allow_code: bool,
        on_run: Callable[[dict | None], None],
        lang: str = i18n.DEFAULT_LANGUAGE,
    ) -> None:
        self.allow_code = allow_code
        self.on_run = on_run
        self.lang = lang  # the dashboard's: texts from the catalog (views.i18n)
        _ = self._text
        self.kind = pn.widgets.Select(
            label=_("method.kind"),
            options={_(key): kind for key, kind in KIND_KEYS.items()},
            value="tableau",
            width=220,
            css_classes=["il-method-kind"],
        )
        self.template = pn.widgets.Select(
            label=_("method.start_from"),
            options={_("method.a_template"): "", **{t["title"]: k for k, t in TEMPLATES.items()}},
            width=220,
            css_classes=["il-method-template"],
        )
        self.text = pn.widgets.TextAreaInput(
            label=_("editor.your_method"),
            value=template_text(TEMPLATES["ralston"]["definition"]),
            height=240,
            sizing_mode="stretch_width",
            css_classes=["il-method-text"],
        )
        self.run = pn.widgets.Button(
            label=_("editor.run"), color="primary", width=90, css_classes=["il-method-run"]
        )
        self.remove = pn.widgets.Button(
            label=_("editor.remove"), width=90, css_classes=["il-method-remove"]
        )
        self.status = pn.pane.Alert(
            _("method.ready"),
            alert_type="light",
            sizing_mode="stretch_width",
            css_classes=["il-method-status"],
        )
        self.banner = pn.pane.Alert(
            _("method.code_banner"),
            alert_type="warning",
            visible=allow_code,
            sizing_mode="stretch_width",
            css_classes=["il-allow-code"],
        )
        self.kind.param.watch(lambda event: self._kind_changed(), "value")
        self.template.param.watch(lambda event: self._template_chosen(event.new), "value")
        self.run.on_click(lambda event: self._run())
        self.remove.on_click(lambda event: self.on_run(None))

    def _text(self, key: str, **values) -> str:
        return i18n.text(key, self.lang, **values)

    def _kind_changed(self) -> None:
        if self.kind.value == "python" and not self.allow_code:
            self.say(self._text("method.code_disabled"), "warning")

    def _template_chosen(self, key: str) -> None:
        if key:
            definition = TEMPLATES[key]["definition"]
            self.kind.value = definition["kind"]
            self.text.value = template_text(definition)
            self.template.value = ""

    def definition(self) -> dict:
        """The definition in the editor as the core takes it; ``ValueError`` says what is
        wrong with its JSON (or its length: a client can send any text)."""
        if not isinstance(self.text.value, str) or len(self.text.value) > MAX_TEXT_CHARS:
            size = len(self.text.value) if isinstance(self.text.value, str) else 0
            raise ValueError(f"your method: {size} characters, expected at most {MAX_TEXT_CHARS}")
        kind = self.kind.value
        if kind == "python":
            return {"kind": "python", "code": self.text.value}
        try:
            data = json.loads(self.text.value)
        except json.JSONDecodeError as exc:
            raise ValueError(f"line {exc.lineno}: not JSON: {exc.msg}") from None
        except (ValueError, RecursionError) as exc:  # e.g. an integer of 5,000 digits
            raise ValueError(f"not usable JSON: {exc}") from None
        if not isinstance(data, dict):
            raise ValueError("expected a JSON object with name and a, b, c or sequence")
        return {**data, "kind": kind}

    def _run(self) -> None:
        if self.kind.value == "python" and not self.allow_code:
            self.say(self._text("method.code_disabled"), "warning")
            return
        try:
            definition = self.definition()
        except ValueError as exc:
            self.say(str(exc), "danger")
            return
        self.on_run(definition)

    def say(self, text: str, kind: str = "light") -> None:
        self.status.object = html.escape(text)  # it may quote what the user typed
        self.status.alert_type = kind

    def show_result(self, result: dict) -> None:
        """What :meth:`Live.set_method` answered: the method's order, or every problem."""
        if result["problems"]:
            problems = " ".join(result["problems"])  # the core's words
            self.say(self._text("method.not_running", problems=problems), "danger")
        elif result["method"] is None:
            self.say(self._text("editor.none"))
        else:
            method = result["method"]
            text = self._text(
                "editor.runs",
                name=method["name"],
                order=method["order_text"],
                summary=method["summary"],
            )
            self.say(text, "success")

    def panel(self) -> pn.Card:
        return pn.Card(
            pn.FlexBox(self.template, self.kind, flex_wrap="wrap"),  # stacked on a phone
            self.text,
            pn.Row(self.run, self.remove),
            self.status,
            title=self._text("editor.title"),
            collapsed=False,
            sizing_mode="stretch_width",
            css_classes=["il-method"],
        )
