"""``integrator-lab stability`` and ``integrator-lab area``: the documents and tables, the numbers
that mathematics fixes in them, and exit status 2 with one line naming the argument for bad
input."""

from __future__ import annotations

import csv
import io
import json
import math

import pytest
from cli_tables import table_headers, table_rows

from integrator_lab.cli.main import main
from integrator_lab.core import simulate


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
    # times at the step's precision: 3 * 0.1 is 0.30000000000000004 in floating point
    assert [row[1] for row in rows[1:6]] == ["0.0", "0.1", "0.2", "0.3", "0.4"]


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


# -- for people: the tables; area's --duration ------------------------------------------------
def test_stability_table_gives_the_limits_and_each_verdict(capsys):
    """The undamped spring (omega = sqrt(15)) at dt = 0.6 s: h omega = 2.32. The limits on
    the imaginary axis are 2 sqrt 2 for RK4, 2 for velocity Verlet, 0 for explicit Euler;
    a run says the same as the verdict: Verlet's and Euler's diverge, RK4's does not."""
    code, out, err = run_cli(
        capsys,
        *("stability", "rk4", "velocity-verlet", "euler", "rk45"),
        *("--system", "spring", "--set", "damping=0", "--dt", "0.6", "--format", "table"),
    )
    assert code == 0 and err == ""
    assert table_headers(out) == [
        "integrator",
        "kind",
        "imaginary limit",
        "real limit",
        "A-stable",
        "verdict",
    ]
    rows = table_rows(out)
    limits = {"rk4": 2 * math.sqrt(2), "velocity-verlet": 2.0, "euler": 0.0}
    for name, limit in limits.items():
        assert float(rows[name][1]) == pytest.approx(limit, abs=5e-4)
    assert math.sqrt(15) * 0.6 == pytest.approx(float(out.split("±")[1].split("i")[0]), 1e-3)
    verdicts = {name: row[4] for name, row in rows.items()}
    assert verdicts["rk45"].startswith("—")
    for name in limits:
        run = simulate("spring", name, dt=0.6, duration=120, damping=0)
        assert verdicts[name] == ("stable" if run.diverged_at is None else "unstable"), name
    assert verdicts["rk4"] == "stable" and verdicts["velocity-verlet"] == "unstable"
    # without a system: the limits, no verdict
    code, out, _ = run_cli(capsys, "stability", "rk4", "--format", "table")
    assert "verdict" not in table_headers(out) and list(table_rows(out)) == ["rk4"]


def test_area_table_gives_the_ratio_theory_gives(capsys):
    """The undamped spring is linear: a ring's area is multiplied by det M each step,
    1 + (h omega)^2 for explicit Euler, exactly 1 for velocity Verlet (symplectic). The table
    prints four significant digits."""
    code, out, err = run_cli(
        capsys,
        *("area", "spring", "--set", "damping=0", "-i", "euler", "-i", "velocity-verlet"),
        *("--dt", "0.1", "--duration", "3", "--format", "table"),
    )
    assert code == 0 and err == ""
    rows = table_rows(out)
    assert rows["euler"][0] == "3.0" and rows["euler"][2] == "—"
    assert float(rows["euler"][1]) == pytest.approx((1 + 15 * 0.01) ** 30, rel=5e-4)
    assert float(rows["velocity-verlet"][1]) == pytest.approx(1.0, abs=5e-4)


def test_area_duration_is_whole_steps(capsys):
    """--duration T takes the whole steps of dt that cover T (the last may overshoot): the
    document of --steps N, N = ceil(T / dt)."""
    args = ["area", "spring", "-i", "euler", "--dt", "0.05"]
    code, by_duration, _ = run_cli(capsys, *args, "--duration", "1")
    code2, by_steps, _ = run_cli(capsys, *args, "--steps", "20")
    assert code == code2 == 0 and by_duration == by_steps
    code, out, _ = run_cli(capsys, *args, "--duration", "1.01")
    doc = json.loads(out)
    assert doc["steps"] == 21 and doc["runs"][0]["t"][-1] == pytest.approx(1.05, rel=1e-12)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--duration", "0"], "argument --duration: got '0', expected a finite number > 0"),
        (["--duration", "-1"], "argument --duration: got '-1', expected a finite number > 0"),
        (["--duration", "nan"], "argument --duration: got 'nan', expected a finite number > 0"),
        (["--duration", "soon"], "argument --duration: got 'soon'"),
        # 10,000,000 steps of the spring's recommended 0.01 s at most
        (
            ["--duration", "1e9"],
            "argument --duration: got 1e+09 s, expected a time in (0, 100000] s",
        ),
        (["--duration", "1e300"], "expected a time in (0, 100000] s"),
        (
            ["--duration", "1", "--steps", "5"],
            "argument --steps: not allowed with argument --duration",
        ),
        ([], "one of the arguments --steps --duration is required"),
        (["--duration", "5e4", "--points", "200"], "argument --duration: steps x points"),
    ],
)
def test_area_bad_duration_exits_2_naming_it(capsys, args, message):
    code, out, err = run_cli(capsys, "area", "spring", *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err, err
