"""The live loop both dashboards share refuses a definition beyond the core's bounds with a
message and keeps running (issue 24, item 15: a 1e400 entry passed validation and then raised
OverflowError in the Panel server's periodic callback, a traceback per tick)."""

from __future__ import annotations

import pytest

from integrator_lab.views.live import Live

HUGE = [
    {
        "kind": "tableau",
        "name": "huge",
        "a": [[0, 0], ["1e400", 0]],
        "b": [1, 0],
        "c": [0, "1e400"],
    },
    {"kind": "splitting", "name": "huge", "sequence": [["drift", "1e400"], ["kick", 1]]},
    {
        "kind": "tableau",
        "name": "slow",
        "a": [[0, 0], ["1e10000000", 0]],
        "b": [1, 0],
        "c": [0, "1e10000000"],
    },
]


@pytest.mark.parametrize("definition", HUGE, ids=["tableau-1e400", "splitting-1e400", "1e1e7"])
def test_an_entry_beyond_the_bounds_is_a_message_and_the_others_run_on(definition):
    lab = Live()
    lab.configure("spring", {}, None, ["rk4"])
    result = lab.set_method(definition)
    assert result["method"] is None and result["results"] == []
    assert result["problems"] and "expected a number in" in result["problems"][0]
    frame = lab.tick(0.05, force=True)["spring"]
    assert [name for name, _ in frame["lanes"]] == ["rk4"]
    assert not frame["diverged"] and not frame["failed"]
