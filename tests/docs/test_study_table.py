"""``.. study-table::`` (docs/_ext/study_table.py): a bad option fails the build naming it.

Each variant is a page of a project built once per run (docs_helpers.SharedProject): the
rejected ones of this module's own (so that the build's failure is theirs), the accepted one of
the project the directive tests share (``ACCEPTED``)."""

from __future__ import annotations

import pytest
from docs_helpers import ACCEPTED, EXT_CONF, SharedProject

#: name: (options, what the error says)
BAD = {
    "no-system": (
        ":duration: 1\n   :runs: rk4 0.1",
        "options :system: and :duration: are required",
    ),
    "no-duration": (
        ":system: spring\n   :runs: rk4 0.1",
        "options :system: and :duration: are required",
    ),
    "neither": (":system: spring\n   :duration: 1", "give exactly one of :runs:"),
    "dt": (":system: spring\n   :duration: 1\n   :runs: rk4 0.3", "does not divide the duration"),
    "runs-syntax": (":system: spring\n   :duration: 1\n   :runs: rk4", "expected 'INTEGRATOR DT'"),
    "integrator": (
        ":system: spring\n   :duration: 1\n   :runs: rk5 0.1",
        "unknown integrator 'rk5'",
    ),
    "duration": (":system: spring\n   :duration: ten\n   :runs: rk4 0.1", "option :duration:"),
    "parameter": (
        ":system: spring\n   :set: stiffness=-1\n   :duration: 1\n   :runs: rk4 0.1",
        "'stiffness'",
    ),
    "points": (":system: spring\n   :duration: 1\n   :integrators: rk4\n   :points: 2", "'points'"),
}
#: one page each, one build: it fails, each reported with its file, line and option
REJECTED = SharedProject("rejected-study-tables", EXT_CONF)
for _name, (_options, _) in BAD.items():
    REJECTED.add(f"orders/{_name}", f"Some text.\n\n.. study-table::\n   {_options}\n")

GOOD = ACCEPTED.add(
    "orders",
    ".. study-table::\n   :system: spring\n   :duration: 1\n   :runs: euler 0.5, rk4 0.1\n",
)


@pytest.mark.parametrize("name", BAD)
def test_a_bad_option_stops_the_build_naming_it(build_of, name):
    rejected = build_of(REJECTED)
    _, expected = BAD[name]
    assert rejected.status == 1
    [error] = rejected.errors(f"orders/{name}")
    assert f"orders/{name}.rst:6: ERROR: study-table: " in error and expected in error, error
    assert "Traceback" not in rejected.log


def test_a_table_of_points(accepted):
    html = (accepted.out / f"{GOOD}.html").read_text(encoding="utf-8")
    # ten RK4 steps of four stages each, two Euler steps of one
    assert "<td><p>40</p></td>" in html and "<td><p>2</p></td>" in html
