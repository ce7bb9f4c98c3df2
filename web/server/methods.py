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

from integrator_lab.core.custom import TEMPLATES

#: what the banner of a server started with --allow-code says
CODE_BANNER = (
    "This server runs Python code sent by its visitors (it was started with "
    "integrator-lab serve --allow-code): anyone who can open this page can run any code on "
    "this machine, with the server's rights."
)
#: what the editor says about Python code on a server without --allow-code
CODE_DISABLED = (
    "Python code is disabled on this server: it would run visitors' code on the server's "
    "machine. Tableaux and splittings work; its operator can allow code with "
    "integrator-lab serve --allow-code."
)
KINDS = {
    "Butcher tableau (JSON)": "tableau",
    "Splitting (JSON)": "splitting",
    "Python code": "python",
}


def template_text(definition: dict) -> str:
    """What the editor shows for a definition: the code, or the JSON (without ``kind``)."""
    if definition["kind"] == "python":
        return definition["code"]
    rows = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in definition.items() if k != "kind"]
    return "{\n" + ",\n".join(rows) + "\n}"


class MethodEditor:
    """The widgets of the editor; ``on_run(definition or None)`` is called by Run/Remove.
    ``banner`` (shown only with --allow-code) goes at the top of the page."""

    def __init__(self, allow_code: bool, on_run: Callable[[dict | None], None]) -> None:
        self.allow_code = allow_code
        self.on_run = on_run
        self.kind = pn.widgets.Select(
            label="Kind", options=KINDS, value="tableau", width=220, css_classes=["il-method-kind"]
        )
        self.template = pn.widgets.Select(
            label="Start from",
            options={"(a template)": "", **{t["title"]: key for key, t in TEMPLATES.items()}},
            width=220,
            css_classes=["il-method-template"],
        )
        self.text = pn.widgets.TextAreaInput(
            label="Your method",
            value=template_text(TEMPLATES["ralston"]["definition"]),
            height=240,
            sizing_mode="stretch_width",
            css_classes=["il-method-text"],
        )
        self.run = pn.widgets.Button(
            label="Run", color="primary", width=90, css_classes=["il-method-run"]
        )
        self.remove = pn.widgets.Button(label="Remove", width=90, css_classes=["il-method-remove"])
        self.status = pn.pane.Alert(
            "Start from a template, or write a method, and press Run.",
            alert_type="light",
            sizing_mode="stretch_width",
            css_classes=["il-method-status"],
        )
        self.banner = pn.pane.Alert(
            CODE_BANNER,
            alert_type="warning",
            visible=allow_code,
            sizing_mode="stretch_width",
            css_classes=["il-allow-code"],
        )
        self.kind.param.watch(lambda event: self._kind_changed(), "value")
        self.template.param.watch(lambda event: self._template_chosen(event.new), "value")
        self.run.on_click(lambda event: self._run())
        self.remove.on_click(lambda event: self.on_run(None))

    def _kind_changed(self) -> None:
        if self.kind.value == "python" and not self.allow_code:
            self.say(CODE_DISABLED, "warning")

    def _template_chosen(self, key: str) -> None:
        if key:
            definition = TEMPLATES[key]["definition"]
            self.kind.value = definition["kind"]
            self.text.value = template_text(definition)
            self.template.value = ""

    def definition(self) -> dict:
        """The definition in the editor as the core takes it; ``ValueError`` says what is
        wrong with its JSON."""
        kind = self.kind.value
        if kind == "python":
            return {"kind": "python", "code": self.text.value}
        try:
            data = json.loads(self.text.value)
        except json.JSONDecodeError as exc:
            raise ValueError(f"line {exc.lineno}: not JSON: {exc.msg}") from None
        if not isinstance(data, dict):
            raise ValueError("expected a JSON object with name and a, b, c or sequence")
        return {**data, "kind": kind}

    def _run(self) -> None:
        if self.kind.value == "python" and not self.allow_code:
            self.say(CODE_DISABLED, "warning")
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
            self.say("Not running: " + " ".join(result["problems"]), "danger")
        elif result["method"] is None:
            self.say("No method of yours is running.")
        else:
            method = result["method"]
            self.say(
                f"{method['name']} runs on every panel in its own colour: "
                f"{method['order_text']}. {method['summary']}.",
                "success",
            )

    def panel(self) -> pn.Card:
        return pn.Card(
            pn.FlexBox(self.template, self.kind, flex_wrap="wrap"),  # stacked on a phone
            self.text,
            pn.Row(self.run, self.remove),
            self.status,
            title="Add your method",
            collapsed=False,
            sizing_mode="stretch_width",
            css_classes=["il-method"],
        )
