"""The command line: output formats (a table on a terminal, JSON and CSV for programs),
listings, and exit status 2 with one line for bad input."""

from __future__ import annotations

import csv
import io
import json
import math
import subprocess
import sys
from decimal import Decimal

import pytest
from cli_tables import on_a_terminal, table_rows

from integrator_lab.cli import main as cli
from integrator_lab.cli.main import main, run_csv_columns
from integrator_lab.core import INTEGRATORS, SYSTEMS, simulate, simulate_many


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_document_shape_and_first_sample(capsys):
    code, out, err = run_cli(
        capsys,
        "run",
        "spring",
        "-i",
        "euler",
        "-i",
        "rk4",
        "--duration",
        "1",
        "--every",
        "10",
        "--set",
        "damping=0",
    )
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
    code, out, err = run_cli(
        capsys,
        "run",
        "cradle",
        "--set",
        "balls=3",
        "--duration",
        "0.01",
        "--format",
        "csv",
        "--output",
        str(path),
        "-i",
        "rk4",
    )
    assert code == 0 and out == ""
    rows = list(csv.reader(io.StringIO(path.read_text())))
    # the state's columns cannot be read as parameters (the spring's parameter v0 is its
    # initial velocity): state_q*, state_v*
    assert rows[0] == (
        [
            "integrator",
            "t",
            "state_q0",
            "state_q1",
            "state_q2",
            "state_v0",
            "state_v1",
            "state_v2",
            "kinetic",
            "potential",
            "dissipated",
            "total",
            "energy_error",
        ]
    )
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


def test_list_shows_the_declared_labels(capsys):
    """Text and JSON name every parameter as the core declares it for people (Param.title:
    label, symbol, unit), beside the name that ``--set`` takes."""
    code, out, _ = run_cli(capsys, "list")
    assert code == 0
    lines = out.splitlines()
    for cls in SYSTEMS.values():
        for p in cls.PARAMS:
            assert any(line.split()[:1] == [p.name] and f" {p.title};" in line for line in lines), (
                cls.name,
                p.name,
                p.title,
            )
    assert "initial angle θ₀ (rad)" in out and "gravity g (m/s²)" in out
    code, out, _ = run_cli(capsys, "list", "--format", "json")
    data = {s["name"]: {p["name"]: p for p in s["params"]} for s in json.loads(out)["systems"]}
    for cls in SYSTEMS.values():
        for p in cls.PARAMS:
            entry = data[cls.name][p.name]
            assert (entry["label"], entry["symbol"], entry["title"]) == (
                p.label,
                p.symbol,
                p.title,
            )


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


BAD_SETS = [
    (system, param.name, value)
    for system, cls in SYSTEMS.items()
    for param in cls.PARAMS
    for value in _bad_values(param)
]


@pytest.mark.parametrize(
    "system,name,value", BAD_SETS, ids=[f"{s}-{n}-{v}" for s, n, v in BAD_SETS]
)
def test_bad_parameter_exits_2_naming_it(capsys, system, name, value):
    code, out, err = run_cli(
        capsys, "run", system, "--duration", "0.01", "--set", f"{name}={value}"
    )
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
    "duplicate integrator": (
        ["run", "spring", "--duration", "1", "-i", "rk4", "-i", "rk4"],
        "duplicates",
    ),
    "too many steps": (["run", "spring", "--duration", "1e6", "--dt", "1e-6"], "steps"),
    "lifted more than balls": (
        ["run", "cradle", "--duration", "1", "--set", "balls=2", "--set", "lifted=3"],
        "lifted",
    ),
    "unwritable output": (
        ["run", "spring", "--duration", "0.1", "--output", "/nonexistent-dir/x.json"],
        "--output",
    ),
    "unknown command": (["fly"], "fly"),
    "no sessions": (["serve", "--no-show", "--max-sessions", "0"], "--max-sessions"),
    "sessions per client past the range": (
        ["serve", "--no-show", "--max-sessions-per-client", "1001"],
        "--max-sessions-per-client",
    ),
}


@pytest.mark.parametrize("args,culprit", list(BAD_ARGS.values()), ids=list(BAD_ARGS))
def test_bad_arguments_exit_2_with_one_line(capsys, args, culprit):
    code, out, err = run_cli(capsys, *args)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and culprit in lines[0], err
    assert "Traceback" not in err


def test_console_entry_point_and_module_run_the_same_cli():
    done = subprocess.run(
        [sys.executable, "-m", "integrator_lab", "run", "spring", "--duration", "nan"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("integrator-lab: error: argument --duration")
    assert "Traceback" not in done.stderr


def test_divergence_is_reported_and_trajectory_stops(capsys):
    # explicit Euler on a very stiff linear contact: the contact period pi sqrt(m_eff/k) is
    # ~0.5 ms, far below dt = 1 ms, so Euler's growth factor per step is >> 1
    code, out, err = run_cli(
        capsys,
        "run",
        "cradle",
        "-i",
        "euler",
        "-i",
        "rk45",
        "--dt",
        "0.001",
        "--duration",
        "1",
        "--set",
        "contact=linear",
        "--set",
        "stiffness=2e6",
    )
    assert code == 0
    doc = json.loads(out)
    euler, reference = doc["runs"]
    assert euler["diverged_at"] is not None and euler["diverged_at"] < 1.0
    assert euler["t"][-1] <= euler["diverged_at"]
    assert all(math.isfinite(x) for x in euler["total"])
    assert reference["diverged_at"] is None and reference["t"][-1] == pytest.approx(1.0)
    assert "euler diverged at t =" in err


# -- streaming output ---------------------------------------------------------------------------
STREAM_CASES = [
    ("spring", ["euler", "rk4"], {}, 10.0, 1, None),
    ("cradle", ["euler", "rk45", "yoshida4", "implicit-euler"], {}, 1.0, 3, None),
    ("pendulum", ["heun", "leapfrog", "implicit-midpoint"], {"theta0": "2.5"}, 20.0, 7, 0.05),
    ("drag", ["euler", "symplectic-euler"], {"model": "unity"}, 3.0, 1, None),
    # both diverge at ~0.28 s: their runs stop there
    ("cradle", ["euler", "rk4"], {"contact": "linear", "stiffness": "2e6"}, 0.5, 1, 0.001),
]


def api_document(system_name, names, params, duration, every, dt):
    """The document the CLI promises, built from the Python API: header and each result's
    ``to_dict()``, through ``json.dumps`` (the shape of the README's "Command line")."""
    system, results = simulate_many(
        system_name, names, duration=duration, every=every, dt=dt, **params
    )
    doc = {
        "system": system.name,
        "params": system.params,
        "dt": results[0].dt,
        "duration": duration,
        "every": every,
        "runs": [r.to_dict() for r in results],
    }
    return json.dumps(doc, allow_nan=False) + "\n", results


def step_decimals(dt):
    """The decimals of the time step as written: 0.001 -> 3."""
    return max(0, -Decimal(repr(dt)).as_tuple().exponent)


def api_csv(results):
    """The CSV the CLI promises, from the Python API: times at the step's precision, the
    energy error relative to |E(0)|, or to the system's energy scale where E(0) = 0 (the
    drag starts at rest)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(run_csv_columns(results[0].system.ndof))
    for r in results:
        energy0 = r.total[0]
        scale = abs(energy0) or r.system.energy_scale()
        for i, t in enumerate(r.t):
            writer.writerow(
                [
                    r.integrator,
                    repr(round(t, step_decimals(r.dt))),
                    *map(repr, r.q[i]),
                    *map(repr, r.v[i]),
                    repr(r.kinetic[i]),
                    repr(r.potential[i]),
                    repr(r.dissipated[i]),
                    repr(r.total[i]),
                    repr((r.total[i] - energy0) / scale),
                ]
            )
    return out.getvalue()


@pytest.mark.parametrize("chunk", [4096, 5])
@pytest.mark.parametrize("case", range(len(STREAM_CASES)))
def test_streamed_output_is_bitwise_the_python_api(capsys, monkeypatch, tmp_path, case, chunk):
    """JSON and CSV, to stdout and to a file, equal byte for byte what simulate_many gives,
    whether the samples come in one chunk or in many (chunk = 5 samples)."""
    monkeypatch.setattr(cli, "STREAM_SAMPLES", chunk)
    system, names, params, duration, every, dt = STREAM_CASES[case]
    expected_json, results = api_document(system, names, params, duration, every, dt)
    args = ["run", system, "--duration", str(duration), "--every", str(every)]
    args += ["--dt", str(dt)] if dt else []
    args += [a for n in names for a in ("-i", n)]
    args += [a for k, v in params.items() for a in ("--set", f"{k}={v}")]
    code, out, _ = run_cli(capsys, *args)
    assert code == 0 and out == expected_json
    path = tmp_path / "out.csv"
    code, out, _ = run_cli(capsys, *args, "--format", "csv", "--output", str(path))
    assert code == 0 and out == ""
    assert path.read_text(encoding="utf-8") == api_csv(results)


PEAK_RSS = """
import resource, sys
from integrator_lab.cli.main import main
code = main(sys.argv[1:])
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
raise SystemExit(code)
"""


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_memory_stays_flat_whatever_the_duration(tmp_path, fmt):
    """Peak memory (RSS of a fresh interpreter) of a 1,000 s and a 20,000 s spring run agree
    within 10 %: samples go to the output as they are made (20x the samples held in memory
    cost ~0.25 GB per 100,000 samples before)."""
    peaks = []
    for duration in ("1000", "20000"):
        out = tmp_path / f"run.{fmt}"
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                PEAK_RSS,
                "run",
                "spring",
                "-i",
                "symplectic-euler",
                "--duration",
                duration,
                "--every",
                "10",
                "--format",
                fmt,
                "--output",
                str(out),
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert done.returncode == 0, done.stderr
        peaks.append(int(done.stdout))
        assert out.stat().st_size > 1000 * int(duration)  # ~100 bytes for each of 100/s samples
        out.unlink()
    assert peaks[1] <= 1.10 * peaks[0], peaks


def test_unwritable_output_is_refused_before_running(tmp_path):
    """A missing directory: exit 2 and one line at once, not after a 10-million-step run of
    four integrators (over a minute; the check takes well under the 60 s allowed)."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "integrator_lab.cli.main",
            "run",
            "spring",
            "--duration",
            "100000",
            "--output",
            str(tmp_path / "missing" / "out.json"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("integrator-lab: error: argument --output")


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_full_disk_exits_2_with_one_line(fmt):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "integrator_lab.cli.main",
            "run",
            "spring",
            "--duration",
            "100",
            "--format",
            fmt,
            "--output",
            "/dev/full",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr == (
        "integrator-lab: error: argument --output: cannot write "
        "'/dev/full': No space left on device\n"
    )


def test_full_disk_on_standard_output_exits_2_with_one_line():
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "integrator_lab.cli.main", "run", "spring", "--duration", "100"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "No space left on device" in done.stderr


def test_astronomical_step_count_is_a_usage_error(capsys):
    """1e308 s at dt = 1e-10 s is 1e318 steps: an infinite float, which int() cannot take."""
    code, out, err = run_cli(capsys, "run", "spring", "--duration", "1e308", "--dt", "1e-10")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("integrator-lab: error: 'duration'/'dt'")
    code, out, err = run_cli(capsys, "run", "spring", "--duration", "1e300", "--dt", "1e-5")
    assert code == 2 and len(err) < 200  # the count is written short: 1e+305, not 306 digits
    assert "1e+305" in err
    with pytest.raises(ValueError, match="'duration'/'dt'"):
        simulate("spring", "euler", duration=1e308, dt=1e-10)


def test_list_shows_the_order_with_velocity_dependent_forces(capsys):
    """yoshida4 is fourth order only for forces of the positions alone; the listing says so
    (text and JSON), from the core's declaration, and says nothing of the kind for rk4."""
    code, out, _ = run_cli(capsys, "list", "--format", "json")
    entries = {i["name"]: i for i in json.loads(out)["integrators"]}
    assert (entries["yoshida4"]["order"], entries["yoshida4"]["order_velocity_dependent"]) == (4, 2)
    assert (entries["rk4"]["order"], entries["rk4"]["order_velocity_dependent"]) == (4, 4)
    code, out, _ = run_cli(capsys, "list")
    line = next(x for x in out.splitlines() if x.strip().startswith("yoshida4"))
    assert "order 4 (2 with velocity-dependent forces such as damping)" in line
    line = next(x for x in out.splitlines() if x.strip().startswith("rk4"))
    assert "order 4," in line


# -- for people: the table, times at the step's precision ---------------------------------------
def rk4_gain(z):
    """RK4's amplification factor R(z) = 1 + z + z^2/2 + z^3/6 + z^4/24."""
    return 1 + z + z**2 / 2 + z**3 / 6 + z**4 / 24


def test_table_energy_error_is_what_theory_gives(capsys):
    """The undamped spring (omega^2 = k/m = 15) is linear: a step multiplies the complex
    amplitude x + i v/omega by R(-i omega h), so after n steps the energy is exactly
    |R|^(2n) E(0) (explicit Euler: R = 1 + z, a gain of (1 + (omega h)^2)^n; RK4 a loss
    of order n (omega h)^6 / 72). The table prints three significant digits: 0.5 % at most."""
    dt, steps = 0.1, 20
    code, out, err = run_cli(
        capsys,
        *("run", "spring", "--set", "damping=0", "-i", "rk4", "-i", "euler"),
        *("--dt", str(dt), "--duration", str(dt * steps), "--format", "table"),
    )
    assert code == 0 and err == ""
    rows = table_rows(out)
    z = -1j * math.sqrt(15.0) * dt
    theory = {
        "rk4": abs(rk4_gain(z)) ** (2 * steps) - 1,
        "euler": abs(1 + z) ** (2 * steps) - 1,
    }
    assert theory["rk4"] < 0 < theory["euler"]
    for name, expected in theory.items():
        t, error, diverged = rows[name]
        assert t == "2.0" and diverged == "—"
        assert float(error) == pytest.approx(expected, rel=5e-3), name


def test_table_diverged_at_is_simulates(capsys):
    """Explicit Euler on a stiff linear contact diverges (see above): the table says when,
    at the step's precision, as simulate() has it; rk45 does not."""
    settings = {"contact": "linear", "stiffness": "2e6"}
    code, out, err = run_cli(
        capsys,
        *("run", "cradle", "-i", "euler", "-i", "rk45", "--dt", "0.001", "--duration", "0.5"),
        *(a for k, v in settings.items() for a in ("--set", f"{k}={v}")),
        "--format",
        "table",
    )
    assert code == 0 and err == ""  # the table says it: no note on stderr
    rows = table_rows(out)
    euler = simulate("cradle", "euler", dt=0.001, duration=0.5, **settings)
    assert euler.diverged_at is not None
    when, reason = rows["euler"][2].split(" ", 1)
    assert float(when) == pytest.approx(euler.diverged_at, abs=1e-12)
    assert len(when.split(".")[1]) <= 3 and reason == f"({euler.reason})"
    assert float(rows["euler"][0]) == pytest.approx(euler.t[-1], abs=1e-12)
    assert rows["rk45"][0] == "0.5" and rows["rk45"][2] == "—"


def test_times_are_written_at_the_steps_precision(capsys):
    """48 steps of 0.1 s end at 4.800000000000001 s in floating point: CSV, table and the
    divergence note say 4.8."""
    assert 48 * 0.1 != 4.8
    args = ["run", "spring", "-i", "rk4", "--dt", "0.1", "--duration", "4.8"]
    code, out, _ = run_cli(capsys, *args, "--format", "csv")
    times = [row[1] for row in csv.reader(io.StringIO(out))][1:]
    assert times[-1] == "4.8" and times[3] == "0.3"  # 3 * 0.1 = 0.30000000000000004
    assert all(len(t.split(".")[1]) <= 1 for t in times)
    code, out, _ = run_cli(capsys, *args, "--format", "table")
    assert table_rows(out)["rk4"][0] == "4.8"
    code, out, err = run_cli(
        capsys, "run", "spring", "-i", "euler", "--dt", "0.1", "--duration", "9"
    )
    assert "euler diverged at t = 3.6 s" in err


def test_csv_energy_error_is_explicit_eulers_gain(capsys):
    """The undamped spring under explicit Euler: E grows by exactly 1 + (omega h)^2 a step,
    so the energy_error column reads (1 + 15 h^2)^n - 1 at step n."""
    code, out, _ = run_cli(
        capsys,
        *("run", "spring", "--set", "damping=0", "-i", "euler", "--dt", "0.05"),
        *("--duration", "1", "--format", "csv"),
    )
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 21
    for n, row in enumerate(rows):
        assert float(row["energy_error"]) == pytest.approx(
            (1 + 15 * 0.05**2) ** n - 1, rel=1e-12, abs=1e-15
        )


def test_a_terminal_gets_the_table_and_a_pipe_the_json():
    args = ["run", "spring", "-i", "euler", "-i", "rk4", "--dt", "0.1", "--duration", "4.8"]
    code, shown, err = on_a_terminal(*args)
    assert code == 0 and err == ""
    rows = table_rows(shown)
    assert list(rows) == ["euler", "rk4"]
    assert rows["rk4"][0] == "4.8" and rows["euler"][2].startswith("3.6 ")
    assert len(shown) < 1000  # not 50 kB of JSON
    # not a terminal: today's JSON, so scripts keep working; --format chooses on a terminal
    piped = subprocess.run(
        [sys.executable, "-m", "integrator_lab", *args], capture_output=True, text=True, timeout=120
    )
    assert piped.returncode == 0
    assert [r["integrator"] for r in json.loads(piped.stdout)["runs"]] == ["euler", "rk4"]
    code, shown, _ = on_a_terminal(*args, "--format", "json")
    assert code == 0 and json.loads(shown)["dt"] == 0.1


def test_table_names_the_energy_scale_when_the_start_has_none(capsys):
    """The drag starts at rest at the origin: E(0) = 0, so the error is relative to the
    system's characteristic energy, and the table says which."""
    code, out, _ = run_cli(
        capsys, "run", "drag", "-i", "euler", "--duration", "1", "--format", "table"
    )
    assert code == 0
    result = simulate("drag", "euler", duration=1)
    assert result.total[0] == 0.0
    scale = result.system.energy_scale()
    assert f"/ {scale:g} J (the system's energy scale)" in out
    expected = (result.total[-1] - result.total[0]) / scale
    assert float(table_rows(out)["euler"][1]) == pytest.approx(expected, rel=5e-3)
    code, out, _ = run_cli(
        capsys, "run", "spring", "-i", "euler", "--duration", "1", "--format", "table"
    )
    assert "(E(t) - E(0)) / |E(0)|" in out
