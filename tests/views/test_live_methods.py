"""The live loop both dashboards share (``views.live.Live``) with a user's own method.

Run in CPython: the worker of the static page runs this same code in Pyodide.
"""

from __future__ import annotations

import pytest

from integrator_lab.core.custom import TEMPLATES
from integrator_lab.views.live import Live
from integrator_lab.views.scene import INTEGRATOR_COLORS

SYSTEMS = ("pendulum", "cradle", "spring")
BUILTINS = ["euler", "rk4"]

FAILS_AT_100 = """NAME = "fails"
calls = 0


def step(accel, q, v, t, dt):
    global calls
    calls += 1
    if calls == 100:
        return q, v[0] / 0
    a = accel(q, v, t)
    return [x + dt * u for x, u in zip(q, v)], [u + dt * b for u, b in zip(v, a)]
"""


def live(**options):
    lab = Live(**options)
    for name in SYSTEMS:
        lab.configure(name, {}, None, BUILTINS)
    return lab


def test_a_tableau_races_on_every_system_in_a_colour_of_its_own():
    lab = live()
    result = lab.set_method(TEMPLATES["ralston"]["definition"])
    assert result["problems"] == [] and result["method"]["order"] == 2
    for entry in result["results"]:
        layout = entry["layout"]
        assert layout["integrators"] == [*BUILTINS, "ralston"]
        assert layout["colors"]["ralston"] not in INTEGRATOR_COLORS.values()
        assert "order 2" in layout["labels"]["ralston"]
    frames = lab.tick(0.05, force=True)
    assert [name for name, _ in frames["spring"]["lanes"]] == [*BUILTINS, "ralston"]
    # a change of integrators keeps it; None removes it
    lab.set_integrators(["velocity-verlet"])
    assert lab.runs["spring"].integrators == ["velocity-verlet", "ralston"]
    lab.set_method(None)
    assert all(run.integrators == ["velocity-verlet"] for run in lab.runs.values())


def test_a_bad_definition_changes_nothing_and_names_its_line():
    lab = live()
    code = "NAME = 'x'\ndef step(accel, q, v, t, dt)\n    return q, v\n"
    result = lab.set_method({"kind": "python", "code": code})
    assert result["method"] is None and result["results"] == []
    assert result["problems"][0].startswith("line 2: SyntaxError")
    assert all(run.integrators == BUILTINS for run in lab.runs.values())


def test_code_is_refused_where_it_is_not_allowed_and_data_is_not():
    lab = live(allow_code=False)
    refused = lab.set_method(TEMPLATES["euler-code"]["definition"])
    assert "not allowed" in refused["problems"][0]
    assert lab.set_method(TEMPLATES["forest-ruth"]["definition"])["method"]["order"] == 4


def test_an_exception_at_step_100_stops_that_method_alone_with_its_line():
    lab = Live()
    lab.configure("spring", {}, None, BUILTINS)
    lab.set_method({"kind": "python", "code": FAILS_AT_100})
    dt = lab.runs["spring"].dt
    runner = lab.runs["spring"].runner
    runner.advance(150)
    lanes = {lane.name: lane for lane in runner.lanes}
    assert lanes["fails"].diverged_at == pytest.approx(100 * dt)
    assert lanes["fails"].reason.startswith("line 9: ZeroDivisionError")
    assert "step 100" in lanes["fails"].reason
    assert lanes["euler"].diverged_at is None and lanes["rk4"].diverged_at is None
    assert runner.time == pytest.approx(150 * dt)
