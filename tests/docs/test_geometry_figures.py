"""``.. stability-figure::``, ``.. stability-table::`` and ``.. area-figure::``
(docs/_ext/geometry_figures.py): drawn from the core at build time; a bad option fails the
build naming it.

Each variant is a page of a project built once per run (docs_helpers.SharedProject): the
rejected ones of this module's own (so that the build's failure is theirs), the accepted one of
the project the directive tests share (``ACCEPTED``)."""

from __future__ import annotations

import re

import pytest
from docs_helpers import ACCEPTED, EXT_CONF, SharedProject

#: name: (directive, options, what the error says)
BAD = {
    "no-integrators": ("stability-figure", ":system: spring", "option :integrators: is required"),
    "unknown": ("stability-figure", ":integrators: rk5", "unknown integrator 'rk5'"),
    "dt-without-system": (
        "stability-figure",
        ":integrators: rk4\n   :dt: 0.1",
        "options :dt: and :set: need",
    ),
    "negative-dt": (
        "stability-figure",
        ":integrators: rk4\n   :system: spring\n   :dt: -1",
        ":dt:",
    ),
    "steps": ("area-figure", ":system: spring\n   :integrators: rk4\n   :dt: 0.1", ":steps:"),
    "param": (
        "area-figure",
        ":system: spring\n   :set: mass=0\n   :integrators: rk4\n   :dt: 0.1\n   :steps: 5",
        "'mass'",
    ),
}
#: one page each, one build: it fails, each reported with its file, line and option
REJECTED = SharedProject("rejected-geometry-figures", EXT_CONF)
for _name, (_directive, _options, _) in BAD.items():
    REJECTED.add(f"geometry/{_name}", f"Some text.\n\n.. {_directive}::\n   {_options}\n")

GOOD = ACCEPTED.add(
    "geometry",
    ".. stability-figure::\n   :integrators: rk4, velocity-verlet\n   :system: spring\n"
    "   :set: damping=0\n   :dt: 0.6, 0.8\n\n"
    ".. stability-table::\n   :integrators: rk4, implicit-euler\n\n"
    ".. area-figure::\n   :system: spring\n   :set: damping=0\n   :integrators: euler\n"
    "   :dt: 0.1\n"
    "   :steps: 10\n",
)


@pytest.mark.parametrize("name", BAD)
def test_a_bad_option_stops_the_build_naming_it(build_of, name):
    rejected = build_of(REJECTED)
    directive, _, expected = BAD[name]
    assert rejected.status == 1
    [error] = rejected.errors(f"geometry/{name}")
    assert f"geometry/{name}.rst:6: ERROR: {directive}: " in error and expected in error, error
    assert "Traceback" not in rejected.log


def test_figures_and_table(accepted):
    html = (accepted.out / f"{GOOD}.html").read_text(encoding="utf-8")
    assert html.count('class="geometry-panel"') == 2
    # hw = 0.6 sqrt(15) = 2.32 and 3.10: inside RK4's region (2 sqrt 2 = 2.83) only at 0.6 s,
    # outside Verlet's (2) at both: one stable pair of dots, three unstable pairs
    assert len(re.findall(r"dt = 0\.6 s: stable", html)) == 2
    assert len(re.findall(r"dt = 0\.\d s: unstable", html)) == 6
    assert "<td>2.828</td><td>−2.785</td><td>no</td>" in html
    assert "<code>1 / (1 - z)</code>" in html and "<td>∞</td>" in html
    # explicit Euler's ring after 10 steps: (1 + 0.15)^10 = 4.05
    assert "euler ×4.05" in html
