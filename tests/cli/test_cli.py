"""The command line: output formats, listings, and exit status 2 with one line for bad input."""

from __future__ import annotations

import csv
import io
import json
import math
import subprocess
import sys

import pytest

from integrator_lab.core import INTEGRATORS, SYSTEMS
from integrator_lab.cli.main import main


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_document_shape_and_first_sample(capsys):
    code, out, err = run_cli(capsys, "run", "spring", "-i", "euler", "-i", "rk4",
                             "--duration", "1", "--every", "10", "--set", "damping=0")
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert doc["system"] == "spring" and doc["every"] == 10 and doc["duration"] == 1.0
    # every parameter present, defaults filled in
    assert set(doc["params"]) == {p.name for p in SYSTEMS["spring"].PARAMS}
    assert doc["params"]["damping"] == 0.0
    dt = doc["dt"]
    assert dt == SYSTEMS["spring"]().recommended_dt
    assert [r["integrator"] for r in doc["runs"]] == ["euler", "rk4"]
    for run in doc["runs"]:
        # first sample is the initial state, then every 10th step
        assert run["t"][0] == 0.0 and run["q"][0] == [1.0] and run["v"][0] == [0.0]
        assert run["t"][1] == pytest.approx(10 * dt, rel=1e-12)
        assert len(run["t"]) == 1 + math.ceil(1.0 / dt) // 10
        for key in ("kinetic", "potential", "dissipated", "total"):
            assert len(run[key]) == len(run["t"])
        assert run["diverged_at"] is None
        # total = kinetic + potential + dissipated in every sample
        for k, p, d, e in zip(run["kinetic"], run["potential"], run["dissipated"], run["total"]):
            assert e == pytest.approx(k + p + d, rel=1e-14)


def test_csv_columns_and_rows(capsys, tmp_path):
    path = tmp_path / "out.csv"
    code, out, err = run_cli(capsys, "run", "cradle", "--set", "balls=3", "--duration", "0.01",
                             "--format", "csv", "--output", str(path), "-i", "rk4")
    assert code == 0 and out == ""
    rows = list(csv.reader(io.StringIO(path.read_text())))
    assert rows[0] == (["integrator", "t", "q0", "q1", "q2", "v0", "v1", "v2",
                        "kinetic", "potential", "dissipated", "total"])
    assert all(r[0] == "rk4" for r in rows[1:])
    assert len(rows) == 1 + 1 + round(0.01 / SYSTEMS["cradle"](balls=3).recommended_dt)
    assert float(rows[1][2]) == -0.5  # the lifted ball starts pulled out to the left


def test_list_json_declares_every_parameter_and_integrator(capsys):
    code, out, _ = run_cli(capsys, "list", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert [s["name"] for s in data["systems"]] == list(SYSTEMS)
    for entry in data["systems"]:
        for p in entry["params"]:
            assert {"unit", "default", "accepted"} <= set(p)
        assert entry["recommended_dt"] > 0
    assert [i["name"] for i in data["integrators"]] == list(INTEGRATORS)
    for entry in data["integrators"]:
        assert entry["order"] >= 1 and entry["description"] and entry["reference"]


def test_list_text_mentions_everything(capsys):
    code, out, _ = run_cli(capsys, "list")
    assert code == 0
    for name in [*SYSTEMS, *INTEGRATORS]:
        assert name in out


def _bad_values(param):
    if param.kind == "choice":
        return ["no-such-choice"]
    bad = ["nan", "inf", "-inf", "abc", ""]
    if param.min is not None:
        bad.append(repr(param.min - 1) if not param.min_open else repr(param.min))
    if param.max is not None:
        bad.append(repr(param.max * 2 + 1))
    if param.kind == "int":
        bad.append("2.5")
    return bad


BAD_SETS = [(system, param.name, value)
            for system, cls in SYSTEMS.items() for param in cls.PARAMS
            for value in _bad_values(param)]


@pytest.mark.parametrize("system,name,value", BAD_SETS,
                         ids=[f"{s}-{n}-{v}" for s, n, v in BAD_SETS])
def test_bad_parameter_exits_2_naming_it(capsys, system, name, value):
    code, out, err = run_cli(capsys, "run", system, "--duration", "0.01",
                             "--set", f"{name}={value}")
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert f"'{name}'" in lines[0]
    param = next(p for p in SYSTEMS[system].PARAMS if p.name == name)
    assert param.accepted() in lines[0]


BAD_ARGS = {
    "unknown system": (["run", "galaxy", "--duration", "1"], "galaxy"),
    "unknown integrator": (["run", "spring", "--duration", "1", "-i", "verlet9"], "verlet9"),
    "unknown parameter": (["run", "spring", "--duration", "1", "--set", "color=red"], "color"),
    "zero duration": (["run", "spring", "--duration", "0"], "duration"),
    "nan duration": (["run", "spring", "--duration", "nan"], "duration"),
    "missing duration": (["run", "spring"], "duration"),
    "negative dt": (["run", "spring", "--duration", "1", "--dt", "-0.1"], "dt"),
    "infinite dt": (["run", "spring", "--duration", "1", "--dt", "inf"], "dt"),
    "text dt": (["run", "spring", "--duration", "1", "--dt", "fast"], "dt"),
    "every zero": (["run", "spring", "--duration", "1", "--every", "0"], "every"),
    "every text": (["run", "spring", "--duration", "1", "--every", "x"], "every"),
    "set without value": (["run", "spring", "--duration", "1", "--set", "mass"], "NAME=VALUE"),
    "bad format": (["run", "spring", "--duration", "1", "--format", "xml"], "format"),
    "duplicate integrator": (["run", "spring", "--duration", "1", "-i", "rk4", "-i", "rk4"],
                             "duplicates"),
    "too many steps": (["run", "spring", "--duration", "1e6", "--dt", "1e-6"], "steps"),
    "lifted more than balls": (["run", "cradle", "--duration", "1", "--set", "balls=2",
                                "--set", "lifted=3"], "lifted"),
    "unwritable output": (["run", "spring", "--duration", "0.1", "--output",
                           "/nonexistent-dir/x.json"], "--output"),
    "unknown command": (["fly"], "fly"),
}


@pytest.mark.parametrize("args,culprit", list(BAD_ARGS.values()), ids=list(BAD_ARGS))
def test_bad_arguments_exit_2_with_one_line(capsys, args, culprit):
    code, out, err = run_cli(capsys, *args)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and culprit in lines[0], err
    assert "Traceback" not in err


def test_console_entry_point_and_module_run_the_same_cli():
    done = subprocess.run([sys.executable, "-m", "integrator_lab", "run", "spring",
                           "--duration", "nan"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith("integrator-lab: error: argument --duration")
    assert "Traceback" not in done.stderr


def test_divergence_is_reported_and_trajectory_stops(capsys):
    # explicit Euler on a very stiff linear contact: the contact period pi sqrt(m_eff/k) is
    # ~0.5 ms, far below dt = 1 ms, so Euler's growth factor per step is >> 1
    code, out, err = run_cli(capsys, "run", "cradle", "-i", "euler", "-i", "rk45",
                             "--dt", "0.001", "--duration", "1", "--set", "contact=linear",
                             "--set", "stiffness=2e6")
    assert code == 0
    doc = json.loads(out)
    euler, reference = doc["runs"]
    assert euler["diverged_at"] is not None and euler["diverged_at"] < 1.0
    assert euler["t"][-1] <= euler["diverged_at"]
    assert all(math.isfinite(x) for x in euler["total"])
    assert reference["diverged_at"] is None and reference["t"][-1] == pytest.approx(1.0)
    assert "euler diverged at t =" in err
