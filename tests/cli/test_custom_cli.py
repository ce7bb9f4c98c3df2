"""Users' own methods on the command line: ``--tableau``, ``--splitting`` and
``--integrator-file`` for ``run`` and ``study``; every bad definition exits 2 with one line."""

from __future__ import annotations

import json

import pytest

from integrator_lab.cli.main import main
from integrator_lab.core.custom import TEMPLATES

RALSTON = json.dumps(
    {"name": "ralston", "a": [[0, 0], ["2/3", 0]], "b": ["1/4", "3/4"], "c": [0, "2/3"]}
)
FOREST_RUTH = json.dumps(
    {k: v for k, v in TEMPLATES["forest-ruth"]["definition"].items() if k != "kind"}
)
VERLET = """\
NAME = "my-verlet"


def step(accel, q, v, t, dt):
    a = accel(q, v, t)
    half = [u + 0.5 * dt * b for u, b in zip(v, a)]
    q_new = [x + dt * u for x, u in zip(q, half)]
    a_new = accel(q_new, half, t + dt)
    return q_new, [u + 0.5 * dt * b for u, b in zip(half, a_new)]
"""


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def verlet_file(tmp_path):
    path = tmp_path / "verlet.py"
    path.write_text(VERLET, encoding="utf-8")
    return path


def test_run_races_own_methods_beside_builtins_named_after_them(capsys, tmp_path, verlet_file):
    nameless = tmp_path / "leap_frog.py"
    nameless.write_text(VERLET.replace('NAME = "my-verlet"\n', ""), encoding="utf-8")
    code, out, err = run_cli(
        capsys,
        "run",
        "pendulum",
        "--duration",
        "1",
        "-i",
        "velocity-verlet",
        "--tableau",
        RALSTON,
        "--integrator-file",
        str(verlet_file),
        "--splitting",
        FOREST_RUTH,
        "--integrator-file",
        str(nameless),
    )
    assert code == 0 and err == ""
    runs = json.loads(out)["runs"]
    # built-ins first, then the own methods in command-line order; a file without NAME is
    # named after its stem
    assert [r["integrator"] for r in runs] == [
        "velocity-verlet",
        "ralston",
        "my-verlet",
        "forest-ruth",
        "leap_frog",
    ]
    builtin, mine = runs[0], runs[2]
    assert max(abs(a[0] - b[0]) for a, b in zip(builtin["q"], mine["q"])) <= 1e-12
    assert all(r["diverged_at"] is None for r in runs)


def test_own_methods_alone_run_without_the_defaults(capsys):
    code, out, _ = run_cli(capsys, "run", "spring", "--duration", "0.1", "--tableau", RALSTON)
    assert code == 0
    assert [r["integrator"] for r in json.loads(out)["runs"]] == ["ralston"]


def test_study_measures_the_order_of_own_methods(capsys, verlet_file):
    code, out, err = run_cli(
        capsys,
        "study",
        "spring",
        "--set",
        "damping=0",
        "--duration",
        "2",
        "--dt-max",
        "0.2",
        "--dt-min",
        "0.005",
        "--points",
        "6",
        "--tableau",
        RALSTON,
        "--splitting",
        FOREST_RUTH,
        "--integrator-file",
        str(verlet_file),
    )
    assert code == 0, err
    runs = {r["integrator"]: r for r in json.loads(out)["runs"]}
    assert runs["ralston"]["order"] == 2 and abs(runs["ralston"]["slope"] - 2) < 0.2
    assert runs["forest-ruth"]["order"] == 4 and abs(runs["forest-ruth"]["slope"] - 4) < 0.2
    # the file declares no ORDER: the slope is measured, nothing compared
    assert runs["my-verlet"]["order"] is None and abs(runs["my-verlet"]["slope"] - 2) < 0.2


def test_an_exception_in_a_step_is_reported_with_its_line(capsys, tmp_path):
    path = tmp_path / "fails.py"
    path.write_text(
        "def step(accel, q, v, t, dt):\n    if t > 0.5:\n        return 1 / 0\n    return q, v\n",
        encoding="utf-8",
    )
    code, out, err = run_cli(
        capsys, "run", "spring", "--duration", "1", "-i", "euler", "--integrator-file", str(path)
    )
    assert code == 0
    runs = {r["integrator"]: r for r in json.loads(out)["runs"]}
    assert runs["euler"]["diverged_at"] is None and runs["euler"]["t"][-1] == pytest.approx(1)
    assert runs["fails"]["diverged_at"] is not None
    assert "line 3: ZeroDivisionError: division by zero" in err


BAD_TABLEAU = [
    (
        '{"name": "x", "a": [[0, 0], ["2/3", 0]], "b": ["1/4", "3/4"], "c": [0, "1/2"]}',
        "a[1][0]: row 1 of a sums to 2/3 but c[1] = 1/2",
    ),
    ('{"name": "x", "a": [[0, 1], [1, 0]], "b": [0.5, 0.5], "c": [0, 1]}', "a[0][1]: must be 0"),
    ('{"name": "x", "a": [[0, 0], [1, 0]], "b": [0.5, 0.6], "c": [0, 1]}', "b: sums to"),
    ('{"name": "rk4", "a": [[0]], "b": [1], "c": [0]}', "name: 'rk4' is the built-in"),
    ('{"a": [[0]], "b": [1], "c": [0]}', "name: missing"),
    ('{"name": "x", "a": [[0]], "b": [1]}', "c: missing"),
    ('{"name": "x", "a": [[0]], "b": ["one"], "c": [0]}', "b[0]: got 'one'"),
    ('{"name": "x", "kind": "splitting", "a": [[0]], "b": [1], "c": [0]}', "kind: got"),
    ('{"name": "x", "a": [[0]], "b": [1], "c": [0], "extra": 1}', "extra: unknown key"),
    ('{"name": "x", "a": [[0]]', "not valid JSON"),
    ("[1, 2]", "got list, expected"),
]
BAD_SPLITTING = [
    (
        '{"name": "x", "sequence": [["kick", 1], ["drift", 0.5]]}',
        "sequence: the drift weights sum to 1/2, expected 1",
    ),
    ('{"name": "x", "sequence": [["kick", 1], ["hop", 1]]}', "sequence[1]: kind 'hop'"),
    ('{"name": "x", "sequence": [["kick", 1], ["drift", 1], ["kick", 0]]}', "sequence[2]"),
    ('{"name": "x", "sequence": "kick drift"}', "sequence: got str"),
    ('{"name": "x"}', "sequence: missing"),
]
BAD_FILES = [
    ("syntax.py", "def step(accel, q, v, t, dt)\n    return q, v\n", "line 1: SyntaxError"),
    ("nostep.py", "x = 1\n", "step: not defined"),
    ("args.py", "def step(q, v):\n    return q, v\n", "line 1: step must take five"),
    (
        "clash.py",
        "NAME = 'Euler'\ndef step(accel, q, v, t, dt):\n    return q, v\n",
        "NAME: 'Euler' is the built-in integrator 'euler'",
    ),
    (
        "order.py",
        "ORDER = 'two'\ndef step(accel, q, v, t, dt):\n    return q, v\n",
        "ORDER: got 'two'",
    ),
    ("crash.py", "import math\nmath.sqrt(-1)\n", "line 2: ValueError: math domain error"),
    ("notes.txt", "def step(accel, q, v, t, dt):\n    return q, v\n", "expected a Python file"),
    ("multi.py", "raise RuntimeError('first\\nsecond')\n", "line 1: RuntimeError: first second"),
]


def _assert_one_line_exit_2(capsys, args, expected):
    code, out, err = run_cli(capsys, *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("integrator-lab: error: argument "), err
    assert expected in err, err


@pytest.mark.parametrize(("text", "expected"), BAD_TABLEAU)
@pytest.mark.parametrize("command", ["run", "study"])
def test_bad_tableau_exits_2_with_one_line(capsys, command, text, expected):
    _assert_one_line_exit_2(
        capsys,
        [command, "spring", "--duration", "1", "--tableau", text],
        f"--tableau: {expected}" if not expected.startswith("not") else expected,
    )


@pytest.mark.parametrize(("text", "expected"), BAD_SPLITTING)
def test_bad_splitting_exits_2_with_one_line(capsys, text, expected):
    _assert_one_line_exit_2(
        capsys,
        ["run", "spring", "--duration", "1", "--splitting", text],
        f"--splitting: {expected}",
    )


@pytest.mark.parametrize(("filename", "code", "expected"), BAD_FILES, ids=[f[0] for f in BAD_FILES])
def test_bad_integrator_file_exits_2_with_one_line(capsys, tmp_path, filename, code, expected):
    path = tmp_path / filename
    path.write_text(code, encoding="utf-8")
    _assert_one_line_exit_2(
        capsys, ["run", "spring", "--duration", "1", "--integrator-file", str(path)], expected
    )


def test_missing_integrator_file_exits_2_with_one_line(capsys, tmp_path):
    _assert_one_line_exit_2(
        capsys,
        ["run", "spring", "--duration", "1", "--integrator-file", str(tmp_path / "absent.py")],
        "cannot read",
    )


def test_two_methods_of_one_name_exit_2_with_one_line(capsys, verlet_file):
    code, out, err = run_cli(
        capsys,
        "run",
        "spring",
        "--duration",
        "1",
        "--integrator-file",
        str(verlet_file),
        "--integrator-file",
        str(verlet_file),
    )
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "duplicates" in err and "my-verlet" in err
