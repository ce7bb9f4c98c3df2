"""The Panel dashboard's Butcher-tableau grid and splitting list ("Add your method").

Two small components drawn in the page by their own JavaScript (Panel's ``ReactiveHTML``: no
file to fetch, the code travels with the document), as the static page's editor draws them
(``static/js/editor.js``): a grid of text fields for ``c``, the strictly lower triangular ``a``
and ``b`` with a button to add and one to remove a stage, and a numbered list of drifts and
kicks with their weights. Every field is named (``aria-label``) by the entry it holds, as the
core names it in its messages (``a[1][0]``, ``b[0]``, ``sequence[2]``).

What travels is text, cell by cell; :func:`tableau_definition` and
:func:`splitting_definition` turn it into the definition the core takes (the same dict the JSON
of ``integrator-lab run --tableau/--splitting`` gives), after :func:`entry` has checked that
each cell is a number at all (an empty cell, a letter: a message naming the cell). Whatever
else is wrong (a row that does not sum to its ``c``, an entry out of range) the core says.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import panel as pn
import param

from integrator_lab.core.custom import MAX_ENTRY_CHARS, MAX_SEQUENCE, MAX_STAGES

#: what a cell may hold for the editor to pass it on: an integer, a decimal (with an exponent)
#: or a fraction such as 2/3; the core checks the rest (range, exponent, denominators)
NUMBER = re.compile(r"[-+]?(?:\d+\s*/\s*\d+|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)")
#: a decimal with this many significant digits or more is a float's digits (as the template's
#: Forest-Ruth weights): the core checks floats with a tolerance, exact decimals exactly
FLOAT_DIGITS = 13

# -- cells <-> definitions ---------------------------------------------------------------------


def cell_text(value: object) -> str:
    """What a cell shows for an entry of a definition (a number or a string)."""
    return (
        value if isinstance(value, str) else repr(value) if isinstance(value, float) else str(value)
    )


class EntryError(ValueError):
    """A cell that holds no number; ``field`` is the entry as the core names it."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


def entry(text: object, field: str, say: Callable[..., str], shown: str = "") -> object:
    """The entry the core takes for a cell's ``text``: an int for an integer, a float for a
    decimal of :data:`FLOAT_DIGITS` significant digits or more, else the text itself (exact:
    ``"2/3"``, ``"0.75"``). :class:`EntryError` naming the cell (``shown``, else ``field``)
    for an empty cell or one that holds no number. Anything but text (a client can send
    anything) goes to the core as it is."""
    if not isinstance(text, str):
        return text
    value = text.strip()
    if not value:
        raise EntryError(say("method.entry.empty", field=shown or field), field)
    if len(value) > MAX_ENTRY_CHARS:
        return value  # the core says how long it may be
    if not NUMBER.fullmatch(value):
        raise EntryError(say("method.entry.bad", field=shown or field, got=value), field)
    if "/" in value:
        return value.replace(" ", "")
    if re.fullmatch(r"[-+]?\d+", value):
        return int(value)
    mantissa = re.split(r"[eE]", value)[0]
    digits = re.sub(r"\D", "", mantissa).lstrip("0")
    return float(value) if len(digits) >= FLOAT_DIGITS else value


def tableau_cells(definition: dict) -> dict[str, Any]:
    """The grid's value for a tableau definition: ``{"a": rows, "b": [...], "c": [...]}`` as
    text."""
    return {
        "a": [[cell_text(x) for x in row] for row in definition["a"]],
        "b": [cell_text(x) for x in definition["b"]],
        "c": [cell_text(x) for x in definition["c"]],
    }


def splitting_cells(definition: dict) -> list[list[str]]:
    """The list's value for a splitting definition: ``[[kind, weight as text], ...]``."""
    return [[kind, cell_text(w)] for kind, w in definition["sequence"]]


def _sized(value: object, limit: int) -> bool:
    return isinstance(value, list) and len(value) <= limit


def tableau_definition(name: str, cells: object, say: Callable[..., str]) -> dict:
    """The tableau definition of the grid's ``cells`` (see :func:`entry`). A shape no grid
    draws (only a client of its own sends one) goes to the core as it is: it names what is
    wrong before it looks at any entry."""
    if not isinstance(cells, dict):
        return {"kind": "tableau", "name": name, "a": cells, "b": None, "c": None}
    a, b, c = cells.get("a"), cells.get("b"), cells.get("c")
    if _sized(b, MAX_STAGES) and _sized(c, MAX_STAGES) and _sized(a, MAX_STAGES):
        assert isinstance(a, list) and isinstance(b, list) and isinstance(c, list)
        if all(_sized(row, MAX_STAGES) for row in a):
            c = [entry(x, f"c[{i}]", say) for i, x in enumerate(c)]
            a = [
                [entry(x, f"a[{i}][{j}]", say) for j, x in enumerate(row)]
                for i, row in enumerate(a)
            ]
            b = [entry(x, f"b[{i}]", say) for i, x in enumerate(b)]
    return {"kind": "tableau", "name": name, "a": a, "b": b, "c": c}


def splitting_definition(name: str, steps: object, say: Callable[..., str]) -> dict:
    """The splitting definition of the list's ``steps`` (``[[kind, weight], ...]``)."""
    if _sized(steps, MAX_SEQUENCE):
        assert isinstance(steps, list)
        sequence: list[object] = []
        for i, step in enumerate(steps):
            if isinstance(step, list) and len(step) == 2:
                shown = say("method.step.field", n=i + 1, index=i)
                sequence.append([step[0], entry(step[1], f"sequence[{i}]", say, shown)])
            else:
                sequence.append(step)
        steps = sequence
    return {"kind": "splitting", "name": name, "sequence": steps}


def problem_field(problem: str) -> str:
    """The entry a problem of the core names first (``a[1][0]``, ``sequence[2]``), or ""."""
    found = re.match(r"((?:[abc]|sequence)(?:\[\d+\])+):", problem)
    return found.group(1) if found else ""


# -- the components ---------------------------------------------------------------------------
# Plain Panel widgets: a custom HTML component (JSComponent, ReactiveHTML) laid the page out
# before the dashboard's figures were ready (a page error in BokehJS at every update).
#: an entry's field: monospace, as the code (inside the widget's shadow root)
ENTRY_CSS = "input.bk-input { font-family: ui-monospace, Menlo, Consolas, monospace; }"
#: a cell's name (its entry, ``a[1][0]``): read out by a screen reader, not drawn (the grid's
#: headers show it)
HIDDEN_LABEL_CSS = (
    "label { position: absolute; width: 1px; height: 1px; overflow: hidden; "
    "clip-path: inset(50%); white-space: nowrap; }"
)
#: the field a message named
INVALID_CSS = "input.bk-input { border: 2px solid #c01c28; background: #fff0f0; }"
CELL_WIDTH = 110


class _Entries:
    """Text fields by the entry they hold (``a[1][0]``), each keeping what was typed last
    (``value_input`` as it is typed, ``value`` on Enter; a client may send either)."""

    def __init__(self) -> None:
        self.fields: dict[str, pn.widgets.TextInput] = {}
        self.typed: dict[str, object] = {}
        self.invalid = ""

    def field(self, name: str, text: str, disabled: bool = False) -> pn.widgets.TextInput:
        slug = re.sub(r"\W+", "-", name).strip("-")  # a[1][0] -> a-1-0
        widget = pn.widgets.TextInput(
            label=name,
            value=text,
            value_input=text,
            placeholder=name,  # what names it (static/js/widgetnames.js) and shows when empty
            disabled=disabled,
            width=CELL_WIDTH,
            margin=(2, 3),
            stylesheets=self._css(name, name == self.invalid),
            css_classes=["il-entry", f"il-entry-{slug}"],
        )
        self.fields[name] = widget
        self.typed[name] = text

        def typed(*events: param.parameterized.Event) -> None:
            # param calls a watcher of two parameters with both events when both changed
            # in one batch (the browser sent what was typed and, on leaving the field, the
            # value): what is typed is then the newer
            new = {event.name: event.new for event in events}
            self.typed[name] = new.get("value_input", new.get("value"))

        widget.param.watch(typed, ["value", "value_input"])
        return widget

    def _css(self, name: str, invalid: bool) -> list[str]:
        hidden = [] if name.startswith("sequence") else [HIDDEN_LABEL_CSS]  # (titled)
        return [ENTRY_CSS, *hidden, *([INVALID_CSS] if invalid else [])]

    def text(self, name: str) -> object:
        return self.typed.get(name, "0")

    def mark(self, name: str) -> None:
        """Show the field ``name`` as the one to fix ("": none)."""
        for key in {self.invalid, name} - {""}:
            widget = self.fields.get(key)
            if widget is not None:
                widget.stylesheets = self._css(key, key == name)
        self.invalid = name


class TableauGrid(_Entries):
    """A Butcher tableau's grid, as on the page: ``c`` down the left, the strictly lower
    triangular ``a`` (the upper part greyed out, zero), ``b`` along the bottom; a button adds a
    stage, one removes the last. :attr:`value` is ``{"a": rows, "b": [...], "c": [...]}``."""

    def __init__(self, value: dict[str, Any], texts: dict[str, str]) -> None:
        super().__init__()
        self.texts = texts
        self.count = pn.pane.HTML("", margin=(8, 10, 0, 10), css_classes=["il-grid-stages"])
        self.add = pn.widgets.Button(
            label=texts["add_stage"], width=150, css_classes=["il-grid-add"]
        )
        self.remove = pn.widgets.Button(
            label=texts["remove_stage"], width=190, css_classes=["il-grid-remove"]
        )
        self.add.on_click(lambda event: self._resize(+1))
        self.remove.on_click(lambda event: self._resize(-1))
        self.box = pn.GridBox(ncols=2, css_classes=["il-grid"])
        self.layout = pn.Column(
            pn.FlexBox(self.count, self.add, self.remove, flex_wrap="wrap"),
            # a wide tableau scrolls sideways (on a phone)
            pn.Column(self.box, sizing_mode="stretch_width", styles={"overflow-x": "auto"}),
            sizing_mode="stretch_width",
        )
        self.value = value

    @property
    def stages(self) -> int:
        return sum(1 for name in self.fields if name.startswith("b["))

    @property
    def value(self) -> dict[str, Any]:
        s = self.stages
        return {
            "a": [
                [self.text(f"a[{i}][{j}]") if j < i else "0" for j in range(s)] for i in range(s)
            ],
            "b": [self.text(f"b[{i}]") for i in range(s)],
            "c": [self.text(f"c[{i}]") for i in range(s)],
        }

    @value.setter
    def value(self, cells: dict[str, Any]) -> None:
        self._build(cells["a"], cells["b"], cells["c"])

    def _resize(self, change: int) -> None:
        s = self.stages + change
        if not 1 <= s <= MAX_STAGES:
            return
        old = self.value
        a = [
            [(old["a"][i][j] if i < s - change and j < s - change else "0") for j in range(s)]
            for i in range(s)
        ]
        b = [old["b"][i] if i < s - change else "0" for i in range(s)]
        c = [old["c"][i] if i < s - change else "0" for i in range(s)]
        self._build(a, b, c)

    def _build(self, a: list, b: list, c: list) -> None:
        s = len(b)
        self.fields, self.typed = {}, {}

        def head(text: str, top: int = 2) -> pn.pane.HTML:
            return pn.pane.HTML(
                f'<div style="text-align:center;color:#444">{text}</div>',
                width=CELL_WIDTH,
                margin=(top, 3, 2, 3),
            )

        objects: list = [head("c \\ a"), *(head(str(j + 1)) for j in range(s))]
        for i in range(s):
            objects.append(self.field(f"c[{i}]", str(c[i])))
            for j in range(s):
                text = str(a[i][j]) if j < i and i < len(a) and j < len(a[i]) else "0"
                objects.append(self.field(f"a[{i}][{j}]", text, disabled=j >= i))
        objects.append(head("b", top=10))
        objects.extend(self.field(f"b[{j}]", str(b[j])) for j in range(s))
        self.box.ncols = s + 1
        self.box.objects = objects
        self.count.object = f"{self.texts['stages']}: <strong>{s}</strong>"
        self.add.disabled = s >= MAX_STAGES
        self.remove.disabled = s <= 1


class SplittingList(_Entries):
    """A splitting's steps, as on the page: each a drift or a kick and its weight, with a
    button that removes it; one more adds a step. :attr:`value` is ``[[kind, weight], ...]``."""

    def __init__(self, value: list[list[str]], texts: dict[str, str]) -> None:
        super().__init__()
        self.texts = texts
        self.moves: list[pn.widgets.Select] = []
        self.rows = pn.Column(css_classes=["il-steps"])
        self.add = pn.widgets.Button(
            label=texts["add_step"], width=150, css_classes=["il-steps-add"]
        )
        self.add.on_click(lambda event: self._add())
        self.layout = pn.Column(self.rows, self.add, sizing_mode="stretch_width")
        self.value = value

    @property
    def value(self) -> list[list[object]]:
        return [[m.value, self.text(f"sequence[{i}]")] for i, m in enumerate(self.moves)]

    @value.setter
    def value(self, steps: list[list[str]]) -> None:
        self.fields, self.typed, self.moves = {}, {}, []
        rows = []
        for i, (kind, weight) in enumerate(steps[:MAX_SEQUENCE]):
            n = i + 1
            move = pn.widgets.Select(
                label=self.texts["move"].format(n=n),
                options={self.texts["drift"]: "drift", self.texts["kick"]: "kick"},
                value="kick" if kind == "kick" else "drift",
                width=100,
                margin=(5, 4),
                css_classes=["il-step-move"],
            )
            self.moves.append(move)
            weight_field = self.field(f"sequence[{i}]", str(weight))
            weight_field.label = self.texts["weight"].format(n=n)
            weight_field.width = 170
            weight_field.margin = (5, 4)
            drop = pn.widgets.Button(
                label=self.texts["remove"],
                width=70,
                margin=(24, 4, 5, 4),
                css_classes=["il-step-remove"],
            )
            drop.on_click(lambda event, i=i: self._remove(i))
            rows.append(pn.FlexBox(move, weight_field, drop, flex_wrap="wrap"))
        self.rows.objects = rows
        self.add.disabled = len(steps) >= MAX_SEQUENCE

    def _add(self) -> None:
        if len(self.moves) < MAX_SEQUENCE:
            self.value = [*self.value, ["drift", "0"]]  # type: ignore[list-item]

    def _remove(self, index: int) -> None:
        steps = self.value
        del steps[index]
        self.value = steps  # type: ignore[assignment]
