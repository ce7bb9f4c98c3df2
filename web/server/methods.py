"""The Panel dashboard's "Add your method": a user's integrator raced beside the built-ins.

As on the static page (``static/js/editor.js``), a method is written one of three ways: a
Butcher tableau in a grid, a splitting as a list of drifts and kicks
(:mod:`~integrator_lab.server.method_grid`), or Python code in a code editor (Panel's
``CodeEditor``: Ace, with line numbers and a monospace font, served by this server from
Panel's own files like every other script). The grid and the list give the definition that
their JSON would (``integrator-lab run --tableau/--splitting``), and every server accepts
them. Python code is different: it runs in the server's process, with the server's rights, and
nothing can confine it (:mod:`integrator_lab.core.usercode`), so a server runs it only when its
operator started it with ``integrator-lab serve --allow-code``; the page then says so in a
banner. Otherwise the editor says code is disabled and the core refuses it
(``Live(allow_code=False)``).
"""

from __future__ import annotations

import html
from collections.abc import Callable

import panel as pn

from integrator_lab.core.custom import MAX_CODE_CHARS, TEMPLATES
from integrator_lab.server.confinement import confinement
from integrator_lab.server.method_grid import (
    EntryError,
    SplittingList,
    TableauGrid,
    problem_field,
    splitting_cells,
    splitting_definition,
    tableau_cells,
    tableau_definition,
)
from integrator_lab.views import i18n

#: what the editor says about Python code on a server without --allow-code
CODE_DISABLED = i18n.text("method.code_disabled")
#: the kinds of method, by their labels' catalog keys (the static page's)
KIND_KEYS = {
    "editor.kind.tableau": "tableau",
    "editor.kind.splitting": "splitting",
    "editor.kind.python": "python",
}
KINDS = {i18n.text(key): kind for key, kind in KIND_KEYS.items()}
#: the longest code the editor takes (characters): the core's limit
MAX_TEXT_CHARS = MAX_CODE_CHARS
#: the code editor's frame and font size (Ace, in its shadow root)
CODE_CSS = (
    ":host { border: 1px solid #767676; border-radius: 4px; } .ace_editor { font-size: 14px; }"
    # the line numbers readable (Ace's grey has a contrast of 1.9 on white)
    " .ace_gutter-cell { color: #595959 !important; }"
)
#: Panel's warning text (#856404 on #fff3cd) darker: axe measured it below 4.5:1
WARNING_CSS = ":host(.alert-warning), :host(.alert-warning) p { color: #4d3800 !important; }"
#: the template each kind starts from
FIRST = {"tableau": "ralston", "splitting": "forest-ruth", "python": "euler-code"}


def _hint(text: str) -> pn.pane.HTML:
    """A line of explanation in the editor (escaped: plain text)."""
    return pn.pane.HTML(
        f'<p class="il-method-hint">{html.escape(text)}</p>',
        margin=(0, 10),
        sizing_mode="stretch_width",
    )


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
        firsts = {kind: TEMPLATES[key]["definition"] for kind, key in FIRST.items()}
        self.kind = pn.widgets.Select(
            label=_("method.kind"),
            options={_(key): kind for key, kind in KIND_KEYS.items()},
            value="tableau",
            width=300,
            css_classes=["il-method-kind"],
        )
        self.template = pn.widgets.Select(
            label=_("method.start_from"),
            options={_("method.a_template"): "", **{t["title"]: k for k, t in TEMPLATES.items()}},
            width=220,
            css_classes=["il-method-template"],
        )
        # a tableau's and a splitting's name (Python code names itself: NAME = "...")
        self._names = {kind: firsts[kind]["name"] for kind in ("tableau", "splitting")}
        self.name = pn.widgets.TextInput(
            label=_("editor.name"),
            value=self._names["tableau"],
            max_length=40,
            width=220,
            css_classes=["il-method-name"],
        )
        self.code = pn.widgets.CodeEditor(
            value=firsts["python"]["code"],
            language="python",
            theme="github_light_default",
            height=300,
            sizing_mode="stretch_width",
            margin=(5, 10),
            # a frame round the field, and the code as large as the page's
            stylesheets=[CODE_CSS],
            css_classes=["il-method-code"],
        )
        self.grid = TableauGrid(
            value=tableau_cells(firsts["tableau"]),
            texts={
                "stages": _("editor.stages"),
                "add_stage": _("method.add_stage"),
                "remove_stage": _("method.remove_stage"),
            },
        )
        self.steps = SplittingList(
            value=splitting_cells(firsts["splitting"]),
            texts={
                "move": _("method.step.move", n="{n}"),
                "weight": _("method.step.weight", n="{n}"),
                "remove_step": _("method.step.remove", n="{n}"),
                "remove": _("editor.remove"),
                "add_step": _("editor.add_step"),
                "drift": _("method.drift"),
                "kick": _("method.kick"),
            },
        )

        def part(kind: str, *objects) -> pn.Column:
            return pn.Column(
                _hint(_(f"editor.{kind}.hint")),
                *objects,
                visible=kind == "tableau",
                sizing_mode="stretch_width",
                css_classes=[f"il-method-{kind}"],
            )

        code_label = pn.pane.HTML(
            f'<p class="il-method-code-label"><strong>{html.escape(_("editor.code"))}</strong></p>',
            margin=(0, 10),
        )
        self.parts = {
            "tableau": part("tableau", self.grid.layout),
            "splitting": part("splitting", self.steps.layout),
            "python": part("python", code_label, self.code),
        }
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
            stylesheets=[WARNING_CSS],
            css_classes=["il-method-status"],
        )
        #: what the status says, and the systems the method stopped on since (tell_stopped)
        self._said, self._stops = "", []
        self.banner = pn.pane.Alert(
            _("method.code_banner" if confinement().confined else "method.code_banner_unconfined")
            if allow_code
            else "",
            alert_type="warning",
            visible=allow_code,
            sizing_mode="stretch_width",
            stylesheets=[WARNING_CSS],
            css_classes=["il-allow-code"],
        )
        self.kind.param.watch(self._kind_changed, "value")
        self.template.param.watch(lambda event: self._template_chosen(event.new), "value")
        self.run.on_click(lambda event: self._run())
        self.remove.on_click(lambda event: self.on_run(None))

    def _text(self, key: str, **values) -> str:
        return i18n.text(key, self.lang, **values)

    def _kind_changed(self, event) -> None:
        # each kind keeps its own name: a splitting does not run as "ralston"
        if event.old in self._names:
            self._names[event.old] = self.name.value
        if event.new in self._names:
            self.name.value = self._names[event.new]
        self.name.visible = event.new != "python"
        for kind, column in self.parts.items():
            column.visible = kind == event.new
        if event.new == "python" and not self.allow_code:
            self.say(self._text("method.code_disabled"), "warning")

    def _template_chosen(self, key: str) -> None:
        if not key:
            return
        definition = TEMPLATES[key]["definition"]
        kind = definition["kind"]
        if kind == "tableau":
            self.grid.value = tableau_cells(definition)
        elif kind == "splitting":
            self.steps.value = splitting_cells(definition)
        else:
            self.code.value = definition["code"]
        if kind in self._names:
            self._names[kind] = definition["name"]
        if self.kind.value == kind and kind in self._names:
            self.name.value = definition["name"]
        self.kind.value = kind
        self.template.value = ""

    def definition(self) -> dict:
        """The definition in the editor as the core takes it; ``ValueError`` names the cell
        that holds no number (or says the code is too long: a client can send any text)."""
        kind = self.kind.value
        if kind == "python":
            code = self.code.value
            if not isinstance(code, str) or len(code) > MAX_TEXT_CHARS:
                size = len(code) if isinstance(code, str) else 0
                raise ValueError(f"code: {size} characters, expected at most {MAX_TEXT_CHARS}")
            return {"kind": "python", "code": code}
        name = self.name.value.strip() if isinstance(self.name.value, str) else self.name.value
        if kind == "tableau":
            return tableau_definition(name, self.grid.value, self._text)
        return splitting_definition(name, self.steps.value, self._text)

    def _run(self) -> None:
        if self.kind.value == "python" and not self.allow_code:
            self.say(self._text("method.code_disabled"), "warning")
            return
        try:
            definition = self.definition()
        except ValueError as exc:
            self._mark(exc.field if isinstance(exc, EntryError) else "")
            self.say(self._text("method.not_running", problems=str(exc)), "danger")
            return
        self._mark("")
        self.on_run(definition)

    def _mark(self, field: str) -> None:
        """Show ``field`` (``a[1][0]``, ``sequence[2]``) as the entry to fix ("": none)."""
        sequence = field.startswith("sequence")
        self.grid.mark("" if sequence else field)
        self.steps.mark(field if sequence else "")

    def say(self, text: str, kind: str = "light") -> None:
        self._said, self._stops = text, []
        self.status.object = html.escape(text)  # it may quote what the user typed
        self.status.alert_type = kind

    def tell_stopped(self, text: str) -> None:
        """Add that the method stopped on a system (``editor.stopped``) under what the status
        said (its order, as the static page keeps its order above its problems)."""
        self._stops.append(text)
        said = [self._said, *self._stops]
        self.status.object = "\n\n".join(html.escape(line) for line in said if line)
        self.status.alert_type = "danger"

    def show_result(self, result: dict) -> None:
        """What :meth:`Live.set_method` answered: the method's order, or every problem."""
        if result["problems"]:
            problems = " ".join(result["problems"])  # the core's words
            self._mark(problem_field(result["problems"][0]))
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
            _hint(self._text("method.intro")),
            # stacked on a phone
            pn.FlexBox(self.template, self.kind, self.name, flex_wrap="wrap"),
            *self.parts.values(),
            pn.Row(self.run, self.remove),
            self.status,
            title=self._text("editor.title"),
            collapsed=False,
            sizing_mode="stretch_width",
            css_classes=["il-method"],
        )
