"""``.. stability-figure::``, ``.. stability-table::`` and ``.. area-figure::``
(docs/_ext/geometry_figures.py): drawn from the core at build time; a bad option fails the
build naming it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from docs_helpers import sphinx_build, write_project

EXT = Path(__file__).resolve().parents[2] / "docs" / "_ext"
CONF = f"import sys\nsys.path.insert(0, {str(EXT)!r})\nextensions.append('geometry_figures')\n"


@pytest.mark.parametrize(
    "directive, options, expected",
    [
        ("stability-figure", ":system: spring", "option :integrators: is required"),
        ("stability-figure", ":integrators: rk5", "unknown integrator 'rk5'"),
        ("stability-figure", ":integrators: rk4\n   :dt: 0.1", "options :dt: and :set: need"),
        ("stability-figure", ":integrators: rk4\n   :system: spring\n   :dt: -1", ":dt:"),
        ("area-figure", ":system: spring\n   :integrators: rk4\n   :dt: 0.1", ":steps:"),
        (
            "area-figure",
            ":system: spring\n   :set: mass=0\n   :integrators: rk4\n   :dt: 0.1\n   :steps: 5",
            "'mass'",
        ),
    ],
    ids=["no-integrators", "unknown", "dt-without-system", "negative-dt", "steps", "param"],
)
def test_a_bad_option_stops_the_build_naming_it(tmp_path, directive, options, expected):
    body = f"Some text.\n\n.. {directive}::\n   {options}\n"
    src = write_project(tmp_path / "src", {"index": "", "geometry": body}, conf=CONF)
    status, log = sphinx_build(src, tmp_path / "out")
    assert status == 1
    assert f"geometry.rst:6: ERROR: {directive}: " in log and expected in log, log
    assert "Traceback" not in log


def test_figures_and_table(tmp_path):
    body = (
        ".. stability-figure::\n   :integrators: rk4, velocity-verlet\n   :system: spring\n"
        "   :set: damping=0\n   :dt: 0.6, 0.8\n\n"
        ".. stability-table::\n   :integrators: rk4, implicit-euler\n\n"
        ".. area-figure::\n   :system: spring\n   :set: damping=0\n   :integrators: euler\n"
        "   :dt: 0.1\n"
        "   :steps: 10\n"
    )
    src = write_project(tmp_path / "src", {"index": "", "geometry": body}, conf=CONF)
    status, log = sphinx_build(src, tmp_path / "out")
    assert status == 0, log
    html = (tmp_path / "out" / "geometry.html").read_text(encoding="utf-8")
    assert html.count('class="geometry-panel"') == 2
    # hw = 0.6 sqrt(15) = 2.32 and 3.10: inside RK4's region (2 sqrt 2 = 2.83) only at 0.6 s,
    # outside Verlet's (2) at both: one stable pair of dots, three unstable pairs
    assert len(re.findall(r"dt = 0\.6 s: stable", html)) == 2
    assert len(re.findall(r"dt = 0\.\d s: unstable", html)) == 6
    assert "<td>2.828</td><td>−2.785</td><td>no</td>" in html
    assert "<code>1 / (1 - z)</code>" in html and "<td>∞</td>" in html
    # explicit Euler's ring after 10 steps: (1 + 0.15)^10 = 4.05
    assert "euler ×4.05" in html
