"""What Python says about the parameters a visitor types (core Param.validate; the wording of
views.i18n: expected, span, param_name), as JSON on stdout with the page data the build
embeds: the ground truth of tests/js/params.test.mjs, which asks the page's own code
(static/js/params.js) the same questions.

Not a pytest module (its name does not match test_*.py); run by the Node test.
"""

from __future__ import annotations

import json
import sys

from integrator_lab.core import SYSTEMS
from integrator_lab.site.build import page_data
from integrator_lab.views import i18n, shared
from integrator_lab.views.figures import DashboardConfig

#: what a visitor may type into a field (or put in a link)
TYPED = [
    "1",
    "1.5",
    "-2",
    "+3",
    ".5",
    "5.",
    "1e3",
    "1E-3",
    "  2 ",
    "",
    " ",
    "abc",
    "1,5",
    "1.2.3",
    "inf",
    "-inf",
    "nan",
    "Infinity",
    "1_0",
    "0x10",
    "1e400",
    "-0",
    "3.0",
    "2e0",
    "1e",
    "e3",
    "--1",
    "+-1",
    "١",
    "0.1 ",
    "\t4",
    "7.000000001",
    "1d",
]


def answers(p) -> list:
    typed = list(TYPED)
    for end in (p.min, p.max):
        if end is not None:
            typed += [repr(end), repr(end * 1.0000001 + 1e-9), repr(end * 0.9999999 - 1e-9)]
    out = []
    for raw in typed:
        try:
            value = p.validate(raw)
        except ValueError:
            value = None
        out.append([raw, value])
    return out


def main() -> None:
    cases = []
    for system in shared.PANEL_SYSTEMS:
        for p in SYSTEMS[system].PARAMS:
            words = {
                lang: {
                    "expected": i18n.expected(p, lang),
                    "span": i18n.span(p, lang),
                    "name": i18n.param_name(system, p, lang),
                }
                for lang in ("en", "ja")
            }
            cases.append({"system": system, "name": p.name, "words": words, "typed": answers(p)})
    json.dump(
        {"pageData": page_data(DashboardConfig()), "cases": cases, "dragNotes": drag_notes()},
        sys.stdout,
    )


def drag_notes() -> list:
    """What a drag past the ranges says (views.i18n.drag_note), for each parameter a drag
    sets (static/js/dragmath.js ``pointerParams``), past either end (to a value %g shortens), alone
    and two of a system's together, in English and in Japanese."""
    dragged = {
        "pendulum": ["theta0", "omega0"],
        "cradle": ["angle", "lifted"],
        "spring": ["x0", "v0"],
    }
    out = []
    for system, names in dragged.items():
        declared = {p.name: p for p in SYSTEMS[system].PARAMS}
        past_max, past_min = [], []
        for name in names:
            p = declared[name]  # (every dragged parameter is bounded at both ends)
            step = 1 if p.kind == "int" else (abs(p.max) or 1.0) / 3
            past_max.append((p, p.max + step, p.max))
            past_min.append((p, p.min - step, p.min))
        picks = [[one] for one in past_max + past_min] + [past_max]  # alone, then together
        for clamped in picks:
            out.append(
                {
                    "system": system,
                    "clamped": [[p.name, value, kept] for p, value, kept in clamped],
                    "note": {lang: i18n.drag_note(system, clamped, lang) for lang in ("en", "ja")},
                }
            )
    return out


if __name__ == "__main__":
    main()
