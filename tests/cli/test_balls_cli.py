"""The ball box on the command line: a run, its listing, and a count out of range refused."""

from __future__ import annotations

import json

from integrator_lab.cli.main import main
from integrator_lab.core import SYSTEMS


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_run_balls_writes_every_centre_and_the_energies(capsys):
    code, out, err = run_cli(
        capsys,
        "run",
        "balls",
        "-i",
        "symplectic-euler",
        "--duration",
        "0.5",
        "--every",
        "50",
        "--set",
        "count=3",
        "--format",
        "json",
    )
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert doc["system"] == "balls" and doc["params"]["count"] == 3
    assert doc["dt"] == SYSTEMS["balls"](count=3).recommended_dt
    (run,) = doc["runs"]
    assert run["diverged_at"] is None
    assert all(len(q) == 6 for q in run["q"])  # x0, y0, x1, y1, x2, y2
    # they fell: at 0.5 s from rest the lowest start (0.5 m up) has landed
    assert run["potential"][-1] < run["potential"][0]
    assert run["t"][-1] == 0.5


def test_list_shows_every_balls_parameter_with_its_range(capsys):
    code, out, _ = run_cli(capsys, "list")
    assert code == 0
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("  balls: "))
    lines = lines[start + 1 : start + 1 + len(SYSTEMS["balls"].PARAMS)]
    for p in SYSTEMS["balls"].PARAMS:
        line = next(line for line in lines if line.split()[:1] == [p.name] and p.title in line)
        assert p.accepted() in line
    assert "an integer in [1, 40]" in out  # the count


def test_a_count_of_41_exits_2_naming_count_and_its_range(capsys):
    code, out, err = run_cli(capsys, "run", "balls", "--duration", "0.1", "--set", "count=41")
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [
        "integrator-lab: error: balls parameter 'count': got '41', expected an integer in [1, 40]"
    ]


def test_a_box_narrower_than_a_ball_exits_2_naming_the_width(capsys):
    code, out, err = run_cli(
        capsys, "run", "balls", "--duration", "0.1", "--set", "radius=0.5", "--set", "width=0.5"
    )
    assert code == 2 and out == ""
    assert "'width'" in err and "[1, 10] m" in err
