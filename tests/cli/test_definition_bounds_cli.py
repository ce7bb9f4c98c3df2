"""A definition whose entries lie beyond the float range exits 2 with one line naming the
entry (issue 24, item 5: a 59-line OverflowError traceback before)."""

from __future__ import annotations

import json

import pytest

from integrator_lab.cli.main import main

HUGE_TABLEAU = {"name": "huge", "a": [[0, 0], ["1e400", 0]], "b": [1, 0], "c": [0, "1e400"]}
HUGE_SPLITTING = {
    "name": "huge",
    "sequence": [["drift", "1e400"], ["kick", 1], ["drift", "-1e400"]],
}


@pytest.mark.parametrize(
    ("option", "data"), [("--tableau", HUGE_TABLEAU), ("--splitting", HUGE_SPLITTING)]
)
def test_the_cli_refuses_1e400_with_one_line_and_exit_2(capsys, option, data):
    text = json.dumps(data)
    code = main(["run", "spring", "--duration", "0.02", option, text])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "got '1e400'" in err, err
