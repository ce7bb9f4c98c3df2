"""``.. study-table::`` (docs/_ext/study_table.py): a bad option fails the build naming it."""

from __future__ import annotations

from pathlib import Path

import pytest
from docs_helpers import sphinx_build, write_project

EXT = Path(__file__).resolve().parents[2] / "docs" / "_ext"
CONF = f"import sys\nsys.path.insert(0, {str(EXT)!r})\nextensions.append('study_table')\n"


@pytest.mark.parametrize(
    "options, expected",
    [
        (":duration: 1\n   :runs: rk4 0.1", "options :system: and :duration: are required"),
        (":system: spring\n   :runs: rk4 0.1", "options :system: and :duration: are required"),
        (":system: spring\n   :duration: 1", "give exactly one of :runs:"),
        (":system: spring\n   :duration: 1\n   :runs: rk4 0.3", "does not divide the duration"),
        (":system: spring\n   :duration: 1\n   :runs: rk4", "expected 'INTEGRATOR DT'"),
        (":system: spring\n   :duration: 1\n   :runs: rk5 0.1", "unknown integrator 'rk5'"),
        (":system: spring\n   :duration: ten\n   :runs: rk4 0.1", "option :duration:"),
        (
            ":system: spring\n   :set: stiffness=-1\n   :duration: 1\n   :runs: rk4 0.1",
            "'stiffness'",
        ),
        (":system: spring\n   :duration: 1\n   :integrators: rk4\n   :points: 2", "'points'"),
    ],
    ids=[
        "no-system",
        "no-duration",
        "neither",
        "dt",
        "runs-syntax",
        "integrator",
        "duration",
        "parameter",
        "points",
    ],
)
def test_a_bad_option_stops_the_build_naming_it(tmp_path, options, expected):
    body = f"Some text.\n\n.. study-table::\n   {options}\n"
    src = write_project(tmp_path / "src", {"index": "", "orders": body}, conf=CONF)
    status, log = sphinx_build(src, tmp_path / "out")
    assert status == 1
    assert "orders.rst:6: ERROR: study-table: " in log and expected in log, log
    assert "Traceback" not in log


def test_a_table_of_points(tmp_path):
    body = ".. study-table::\n   :system: spring\n   :duration: 1\n   :runs: euler 0.5, rk4 0.1\n"
    src = write_project(tmp_path / "src", {"index": "", "orders": body}, conf=CONF)
    status, log = sphinx_build(src, tmp_path / "out")
    assert status == 0, log
    html = (tmp_path / "out" / "orders.html").read_text(encoding="utf-8")
    # ten RK4 steps of four stages each, two Euler steps of one
    assert "<td><p>40</p></td>" in html and "<td><p>2</p></td>" in html
