"""``integrator-lab study``: the JSON and CSV documents, the table for people, the progress bar
on a terminal only, and exit status 2 with one line naming the option for bad input."""

from __future__ import annotations

import csv
import io
import json
import os
import pty
import subprocess
import sys

import pytest
from cli_tables import drain, on_a_terminal, table_headers, table_rows

from integrator_lab.cli.main import main
from integrator_lab.core import SYSTEMS

QUICK = ["--duration", "2", "--dt-max", "0.5", "--dt-min", "0.002", "--points", "8"]


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_document(capsys):
    code, out, err = run_cli(capsys, "study", "spring", "-i", "rk4", "-i", "yoshida4", *QUICK)
    assert code == 0
    doc = json.loads(out)
    assert doc["system"] == "spring" and doc["duration"] == 2.0
    assert set(doc["params"]) == {p.name for p in SYSTEMS["spring"].PARAMS}
    assert doc["reference"] == {"method": "exact"}
    assert [r["integrator"] for r in doc["runs"]] == ["rk4", "yoshida4"]
    for run in doc["runs"]:
        n = len(run["dt"])
        assert n == 8 and run["dt"][0] == 0.5 and run["dt"][-1] == 0.002
        for key in ("error", "energy_error", "evaluations", "seconds", "excluded", "steps"):
            assert len(run[key]) == n, key
        for dt, steps in zip(run["dt"], run["steps"]):
            assert dt == 2.0 / steps
        lo, hi = run["slope_range"]
        assert 0.002 <= lo < hi <= 0.5
    rk4, yoshida = doc["runs"]
    assert rk4["order"] == 4 and abs(rk4["slope"] - 4) <= 0.15 and rk4["note"] is None
    # on the damped spring Yoshida's method is second order: the document compares with 2
    # and says why; stderr holds nothing (no note; not a terminal: no progress bar)
    assert yoshida["order"] == 2 and "4 without" in yoshida["order_note"]
    assert abs(yoshida["slope"] - 2) <= 0.15 and yoshida["order_matches"] is True
    assert err == ""


def test_default_integrators_are_every_fixed_step_one(capsys):
    code, out, _ = run_cli(capsys, "study", "spring", "--set", "damping=0", *QUICK)
    assert code == 0
    names = [r["integrator"] for r in json.loads(out)["runs"]]
    assert names == [
        "euler",
        "symplectic-euler",
        "velocity-verlet",
        "leapfrog",
        "midpoint",
        "heun",
        "rk4",
        "implicit-euler",
        "implicit-midpoint",
        "yoshida4",
    ]


def test_csv_rows_and_output_file(capsys, tmp_path):
    path = tmp_path / "study.csv"
    code, out, _ = run_cli(
        capsys, "study", "spring", "-i", "euler", *QUICK, "--format", "csv", "--output", str(path)
    )
    assert code == 0 and out == ""
    rows = list(csv.DictReader(io.StringIO(path.read_text())))
    assert len(rows) == 8 and all(r["integrator"] == "euler" for r in rows)
    first = rows[0]
    # explicit Euler at dt = 0.5 s on the spring (omega dt = 1.9) blows up: excluded, no error
    assert float(first["dt"]) == 0.5 and first["excluded"] != ""
    assert first["excluded"].split(":")[0] in ("unstable", "diverged")
    fitted = [r for r in rows if r["excluded"] == ""]
    assert len(fitted) >= 3 and all(float(r["error"]) < 1 for r in fitted)
    assert int(rows[-1]["evaluations"]) == int(rows[-1]["steps"]) == 1000


def test_progress_bar_only_on_a_terminal(tmp_path):
    # stderr a pseudo-terminal: the bar is drawn there, and the JSON still goes to stdout
    controller, terminal = pty.openpty()
    done = subprocess.run(
        [sys.executable, "-m", "integrator_lab", "study", "spring", "-i", "rk4", *QUICK],
        stdout=subprocess.PIPE,
        stderr=terminal,
        timeout=120,
    )
    os.close(terminal)
    drawn = drain(controller)
    assert done.returncode == 0 and json.loads(done.stdout)["runs"][0]["integrator"] == "rk4"
    assert b"[########################################] 100%" in drawn


@pytest.mark.parametrize(
    "args, culprit",
    [
        (["--duration", "0"], "--duration"),
        (["--duration", "nan"], "--duration"),
        (["--duration", "-1"], "--duration"),
        ([], "--duration"),
        (["--duration", "1", "--dt-max", "2"], "--dt-max"),
        (["--duration", "1", "--dt-max", "inf"], "--dt-max"),
        (["--duration", "1", "--dt-max", "0.1", "--dt-min", "0.1"], "--dt-min"),
        (["--duration", "1", "--dt-min", "0"], "--dt-min"),
        (["--duration", "1", "--points", "2"], "--points"),
        (["--duration", "1", "--points", "61"], "--points"),
        (["--duration", "1", "--points", "ten"], "--points"),
        (["--duration", "1", "--dt-max", "0.5", "--dt-min", "0.2", "--points", "5"], "--points"),
        (["--duration", "1e7"], "--dt-min"),
        (["--duration", "1", "-i", "rk5"], "--integrator"),
        (["--duration", "1", "-i", "rk4", "-i", "rk4"], "--integrator"),
        (["--duration", "1", "--set", "stiffness=-1"], "'stiffness'"),
        (["--duration", "1", "--set", "colour=red"], "'colour'"),
        (["--duration", "1", "--set", "mass"], "--set"),
        (["--duration", "1", "--format", "xml"], "--format"),
    ],
)
def test_bad_input_exits_2_with_one_line_naming_it(capsys, args, culprit):
    code, out, err = run_cli(capsys, "study", "spring", *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("integrator-lab: error: ")
    assert culprit in err
    assert "Traceback" not in err


def test_bad_system_and_unwritable_output_exit_2(capsys, tmp_path):
    code, _, err = run_cli(capsys, "study", "planet", "--duration", "1")
    assert code == 2 and "planet" in err and err.count("\n") == 1
    code, _, err = run_cli(
        capsys,
        "study",
        "spring",
        "-i",
        "rk4",
        *QUICK,
        "--output",
        str(tmp_path / "missing" / "out.json"),
    )
    assert code == 2 and "--output" in err and err.count("\n") == 1


# -- for people: the table -------------------------------------------------------------------
def test_table_gives_the_fitted_slope_beside_the_declared_order(capsys):
    """On the smooth spring the error falls as dt^p, p the method's order: each fitted slope
    lies within 0.15 of it, the table says they agree, and its slope is the document's."""
    args = ["study", "spring", "-i", "euler", "-i", "rk4", "-i", "yoshida4", *QUICK]
    code, out, err = run_cli(capsys, *args, "--format", "table")
    assert code == 0 and err == ""
    assert table_headers(out) == ["integrator", "declared order", "fitted slope", "agrees"]
    rows = table_rows(out)
    # yoshida4 is fourth order, second with velocity-dependent forces (the spring's damping):
    # the table compares with 2, marks it and says why below
    assert rows == {
        "euler": ["1", rows["euler"][1], "yes"],
        "rk4": ["4", rows["rk4"][1], "yes"],
        "yoshida4": ["2*", rows["yoshida4"][1], "yes"],
    }
    assert "* yoshida4: order 2 with velocity-dependent forces (4 without)" in out
    assert "not smooth" not in out
    code, document, _ = run_cli(capsys, *args, "--format", "json")
    for run in json.loads(document)["runs"]:
        shown = float(rows[run["integrator"]][1])
        assert shown == round(run["slope"], 2)
        assert abs(shown - run["order"]) <= 0.15


def test_table_says_once_why_the_cradle_shows_no_order(capsys):
    """The cradle's contacts are not smooth: one note above the table says so (instead of one
    per method on stderr), and no slope is compared with an order."""
    code, out, err = run_cli(
        capsys,
        *("study", "cradle", "-i", "euler", "-i", "rk4", "--duration", "0.2", "--points", "5"),
        *("--format", "table"),
    )
    assert code == 0 and err == ""
    note = out[: out.index("integrator  ")]
    assert note.count("not smooth") == 1 and SYSTEMS["cradle"].not_smooth in " ".join(note.split())
    assert out.count("not smooth") == 1
    assert [row[2] for row in table_rows(out).values()] == ["—", "—"]


def test_a_terminal_gets_the_table():
    code, shown, err = on_a_terminal("study", "spring", "-i", "rk4", *QUICK)
    assert code == 0 and err == ""  # stderr is a pipe here: no progress bar
    assert list(table_rows(shown)) == ["rk4"] and "{" not in shown
