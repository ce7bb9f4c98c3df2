"""A user's method that raises something other than an Exception (``sys.exit()`` raises
SystemExit, a BaseException) stops that method alone, as an ordinary exception does."""

from __future__ import annotations

import pytest

from integrator_lab.core import Runner, get_system
from integrator_lab.core.custom import definition_problems, parse_definition

EXITS = {
    "sys.exit": "import sys\n\n\ndef step(accel, q, v, t, dt):\n    sys.exit(3)\n",
    "own BaseException": (
        "class Out(BaseException):\n    pass\n\n\n"
        "def step(accel, q, v, t, dt):\n    raise Out('gone')\n"
    ),
    "GeneratorExit": "def step(accel, q, v, t, dt):\n    raise GeneratorExit\n",
}


@pytest.mark.parametrize("code", EXITS.values(), ids=EXITS.keys())
def test_a_step_that_exits_stops_that_method_alone_with_its_line(code):
    method = parse_definition({"kind": "python", "name": "quits", "code": code})
    system = get_system("spring")
    runner = Runner(system, ["velocity-verlet", method], 0.01)
    runner.advance(100)
    verlet, quits = runner.lanes
    assert quits.diverged_at == pytest.approx(0.01)  # its first step, dated by its end
    assert "(step 1, t = 0 s)" in quits.reason
    assert quits.reason.startswith(f"line {code.count(chr(10))}: ")
    assert verlet.diverged_at is None
    assert runner.time == pytest.approx(1.0)


def test_a_module_that_exits_while_loading_is_a_problem_with_its_line():
    problems = definition_problems(
        {"kind": "python", "name": "quits", "code": "import sys\nsys.exit('bye')\n"}
    )
    assert problems == ["line 2: SystemExit: bye"]
