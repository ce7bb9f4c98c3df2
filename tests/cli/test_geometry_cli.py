"""``integrator-lab stability`` and ``integrator-lab area``: the documents, the numbers that
mathematics fixes in them, and exit status 2 with one line naming the argument for bad input."""

from __future__ import annotations

import csv
import io
import json
import math

import pytest

from integrator_lab.cli.main import main


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_stability_json(capsys):
    code, out, err = run_cli(
        capsys, "stability", "rk4", "implicit-euler", "--system", "spring", "--dt", "0.5"
    )
    assert code == 0 and err == ""
    doc = json.loads(out)
    rk4, implicit = doc["methods"]
    assert rk4["integrator"] == "rk4"
    assert rk4["imaginary_limit"] == pytest.approx(2 * math.sqrt(2), rel=1e-10)
    assert rk4["real_limit"] == pytest.approx(-2.7853, abs=5e-5)
    assert rk4["a_stable"] is False
    assert implicit["a_stable"] is True and implicit["imaginary_limit"] is None
    assert all(len(p) == 2 for p in rk4["boundary"])
    # the spring's points: dt (-b/2m +/- i sqrt(k/m - (b/2m)^2)), b = 0.1, k = 15, m = 1
    im = 0.5 * math.sqrt(15 - 0.05**2)
    assert sorted(doc["points"]) == [pytest.approx([-0.025, -im]), pytest.approx([-0.025, im])]


def test_stability_gives_each_methods_verdict_on_the_system(capsys):
    """The undamped spring (omega = sqrt(15)) at dt = 0.6 s: h omega = 2.32, inside RK4's
    interval (2 sqrt 2) and implicit Euler's (all), outside velocity Verlet's (2); rk45
    subdivides its steps, so no fixed-step verdict speaks for it (null)."""
    code, out, err = run_cli(
        capsys,
        *("stability", "rk4", "implicit-euler", "velocity-verlet", "rk45"),
        *("--system", "spring", "--set", "damping=0", "--dt", "0.6"),
    )
    assert code == 0 and err == ""
    verdicts = {m["integrator"]: m["stable"] for m in json.loads(out)["methods"]}
    assert verdicts == {
        "rk4": True,
        "implicit-euler": True,
        "velocity-verlet": False,
        "rk45": None,
    }
    code, out, err = run_cli(
        capsys, "stability", "rk4", "--system", "spring", "--dt", "0.6", "--format", "csv"
    )
    rows = list(csv.DictReader(io.StringIO(out)))
    assert {row["stable"] for row in rows if row["row"] == "boundary"} == {"true"}
    # without --system there is no verdict to give
    code, out, err = run_cli(capsys, "stability", "rk4")
    assert "stable" not in json.loads(out)["methods"][0]


def test_stability_of_a_users_tableau_and_csv(capsys):
    tableau = '{"name": "mine", "a": [[0, 0], ["1/2", 0]], "b": [0, 1], "c": [0, "1/2"]}'
    code, out, _ = run_cli(capsys, "stability", "midpoint", "--tableau", tableau, "--format", "csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    mine = [(r["re"], r["im"]) for r in rows if r["integrator"] == "mine"]
    builtin = [(r["re"], r["im"]) for r in rows if r["integrator"] == "midpoint"]
    assert mine and mine == builtin
    assert {r["imaginary_limit"] for r in rows} == {"0.0"}


def test_area_json_and_csv(capsys):
    args = ["area", "spring", "--set", "damping=0", "-i", "euler", "-i", "velocity-verlet"]
    code, out, _ = run_cli(capsys, *args, "--dt", "0.1", "--steps", "4")
    assert code == 0
    euler, verlet = json.loads(out)["runs"]
    gain = 1 + 15 * 0.01  # 1 + (h omega)^2 per step
    assert euler["area_ratio"] == pytest.approx([gain**k for k in range(5)], rel=1e-12)
    assert verlet["area_ratio"] == pytest.approx([1.0] * 5, rel=1e-12)
    code, out, _ = run_cli(capsys, *args, "--dt", "0.1", "--steps", "4", "--format", "csv")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["integrator", "t", "area_ratio"] and len(rows) == 11


@pytest.mark.parametrize(
    "args, message",
    [
        (["stability"], "argument INTEGRATOR: expected at least one"),
        (["stability", "nope"], "unknown integrator 'nope'"),
        (["stability", "rk4", "--dt", "0.1"], "argument --system: required"),
        (["stability", "rk4", "--system", "spring", "--dt", "-1"], "argument --dt"),
        (["stability", "rk4", "--system", "spring", "--set", "mass=0"], "'mass'"),
        (["area", "spring", "--steps", "0"], "argument --steps: got '0'"),
        (["area", "spring", "--steps", "5", "--radius", "2"], "argument --radius: got '2'"),
        (["area", "spring", "--steps", "5", "--radius", "nan"], "[1e-06, 1]"),
        (["area", "spring", "--steps", "5", "--points", "4"], "argument --points: got '4'"),
        (["area", "spring", "--steps", "5", "--dt", "inf"], "argument --dt"),
        (["area", "nowhere", "--steps", "5"], "unknown system 'nowhere'"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, args, message):
    code, out, err = run_cli(capsys, *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err
