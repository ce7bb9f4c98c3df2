"""Every lesson (web/views/scenarios.py) says what the lab shows: each test runs the lesson's
own settings through the core, as the page and the dashboard do, and checks its sentences.

The expectations come from the lesson's text and from the maths of each method on the linear
oscillator (its per-step energy factor or the determinant of its step map), never from a
previous run's numbers."""

from __future__ import annotations

import csv
import io
import math
import subprocess
import sys

import pytest

from integrator_lab.core import Runner, get_system
from integrator_lab.views.scenarios import SCENARIOS, get_scenario, parse_query
from integrator_lab.views.scene import error_scale
from integrator_lab.views.shared import PANEL_SYSTEMS


def lesson_run(lesson_id: str, system: str, duration: float, **changes) -> tuple[Runner, list]:
    """Run ``system`` with the lesson's parameters, step and integrators for ``duration``
    s (``changes`` overrides the step: ``dt=``); returns the runner and the system."""
    settings = get_scenario(lesson_id).settings()
    assert system in settings["systems"]
    sys_ = get_system(system, **settings["params"].get(system, {}))
    dt = changes.get("dt", settings["dt"].get(system, sys_.recommended_dt))
    runner = Runner(sys_, settings["integrators"], dt, capacity=None)
    runner.advance(round(duration / dt))
    return runner, sys_


def errors(runner: Runner, system, name: str) -> list[tuple[float, float]]:
    """(t, signed relative energy error) of one integrator, as the energy plot draws it."""
    scale = error_scale(system, runner.energy0)
    lane = next(lane for lane in runner.lanes if lane.name == name)
    return [(s[0], (s[-1] - runner.energy0) / scale) for s in lane.history]


def lane(runner: Runner, name: str):
    return next(lane for lane in runner.lanes if lane.name == name)


def windows(series, n):
    """``series`` ((t, e) pairs) cut into ``n`` equal windows of values."""
    size = len(series) // n
    return [[e for _, e in series[i * size : (i + 1) * size]] for i in range(n)]


def test_every_lesson_is_a_valid_view():
    assert len(SCENARIOS) >= 6
    assert len({s.id for s in SCENARIOS}) == len(SCENARIOS)
    for s in SCENARIOS:
        settings = parse_query(s.query)
        assert settings["systems"], s.id
        assert set(settings["dt"]) <= set(settings["systems"]), s.id
        assert set(settings["params"]) <= set(settings["systems"]), s.id
        # "two sentences of what to look for"
        assert s.look_for.count(". ") + 1 >= 2, s.id
        for system in settings["systems"]:
            get_system(system, **settings["params"].get(system, {}))  # the core takes them


@pytest.mark.parametrize(
    "query",
    [
        "systems=moon",
        "integrators=euler,euler",
        "spring.dt=0",
        "spring.dt=nan",
        "play=yes",
        "spring.stiffness=-1",
        "cradle.contact=glue",
        "pendulum.nothing=1",
        "lesson=x",
        "speed=9",
    ],
)
def test_parse_query_refuses_what_the_page_refuses(query):
    with pytest.raises(ValueError) as info:
        parse_query(query)
    assert repr(query.split("=")[0]) in str(info.value)


def test_unknown_lesson_names_the_valid_ones():
    with pytest.raises(ValueError, match="rk4-loses"):
        get_scenario("nope")


def test_euler_blows_up():
    runner, spring = lesson_run("euler-blows-up", "spring", 20.0)
    dt, omega2 = runner.dt, spring.params["stiffness"] / spring.params["mass"]
    euler = errors(runner, spring, "euler")
    # explicit Euler multiplies the undamped oscillator's energy by 1 + w^2 dt^2 every step
    growth = (1 + euler[1][1]) / (1 + euler[0][1])
    assert growth == pytest.approx(1 + omega2 * dt * dt, rel=1e-9)
    assert all(b[1] > a[1] for a, b in zip(euler, euler[1:]))  # climbs above zero, always
    # "after about 6 s, it is marked diverged"
    assert 5.0 <= lane(runner, "euler").diverged_at <= 7.5
    assert lane(runner, "symplectic-euler").alive
    cradle_run, _ = lesson_run("euler-blows-up", "cradle", 10.0)
    assert lane(cradle_run, "euler").diverged_at is not None
    assert lane(cradle_run, "euler").diverged_at < 6.0  # "within a few seconds"
    assert lane(cradle_run, "symplectic-euler").alive


def test_symplectic_euler_keeps_energy_bounded():
    for system_name in ("pendulum", "spring"):
        runner, system = lesson_run("symplectic-bounded", system_name, 400.0)
        symplectic = windows(errors(runner, system, "symplectic-euler"), 8)
        rk4 = windows(errors(runner, system, "rk4"), 8)
        first = max(map(abs, symplectic[0]))
        for w in symplectic:
            assert min(w) < 0 < max(w)  # to both sides of zero
            assert max(map(abs, w)) <= first * 1.01  # the swings never grow
        # RK4: far smaller at first, then lower and lower, never back
        assert max(map(abs, rk4[0])) < first / 3
        for a, b in zip(rk4, rk4[1:]):
            assert max(b) < max(a) and min(b) < min(a)
        assert max(rk4[-1]) < min(rk4[0]) < 0


def test_rk4_loses_energy_at_a_quarter_second():
    runner, spring = lesson_run("rk4-loses", "spring", 60.0)
    assert runner.dt == 0.25
    assert spring.params["stiffness"] == 15 and spring.params["mass"] == 1  # Fiedler's spring
    y = math.sqrt(15.0) * 0.25
    # RK4's factor on x' = i w x is R(i y) = 1 - y^2/2 + y^4/24 + i (y - y^3/6): the energy
    # is multiplied by |R|^2 each step
    factor = (1 - y**2 / 2 + y**4 / 24) ** 2 + (y - y**3 / 6) ** 2
    assert 0.98 < factor < 0.995  # "about 1 % every step"
    rk4 = errors(runner, spring, "rk4")
    for (_, a), (_, b) in zip(rk4, rk4[1:]):
        assert (1 + b) == pytest.approx((1 + a) * factor, rel=1e-9)
    assert rk4[-1][1] < -0.5
    verlet = windows(errors(runner, spring, "velocity-verlet"), 6)
    for w in verlet:
        assert max(w) > -1e-3  # back at zero in every window
        assert min(w) == pytest.approx(min(verlet[0]), rel=0.02)  # the same dip: no drift
        assert min(w) < -0.05  # a visible dip


def test_implicit_euler_damps():
    for system_name in ("pendulum", "spring"):
        runner, system = lesson_run("implicit-damps", system_name, 20.0)
        implicit = errors(runner, system, "implicit-euler")
        assert all(b[1] <= a[1] for a, b in zip(implicit, implicit[1:]))
        assert implicit[-1][1] < -0.99  # "towards -100 %"
        midpoint = [e for _, e in errors(runner, system, "implicit-midpoint")]
        bound = 1e-3 if system_name == "pendulum" else 1e-12
        assert max(map(abs, midpoint)) < bound


def test_stiffer_cradle_needs_a_smaller_dt():
    settings = get_scenario("stiff-cradle").settings()
    default = get_system("cradle")
    stiff = get_system("cradle", **settings["params"]["cradle"])
    assert settings["params"]["cradle"]["stiffness"] == 1000 * default.params["stiffness"]
    assert settings["dt"]["cradle"] == default.recommended_dt == 0.001  # "the old 1 ms step"
    assert stiff.recommended_dt == pytest.approx(5e-5)
    runner, _ = lesson_run("stiff-cradle", "cradle", 2.0)
    for each in runner.lanes:
        assert each.diverged_at is not None and each.diverged_at < 1.0, each.name
    fine, _ = lesson_run("stiff-cradle", "cradle", 2.0, dt=stiff.recommended_dt)
    assert all(each.alive for each in fine.lanes)


def test_damping_per_step_like_game_engine_drag():
    settings = get_scenario("damping-per-step").settings()
    b, dt = settings["params"]["spring"]["damping"], settings["dt"]["spring"]
    runner, spring = lesson_run("damping-per-step", "spring", 4.0)
    m = spring.params["mass"]
    # the determinant of symplectic Euler's step map is 1 - b dt / m: measure it on the core
    step = runner.lanes[0].integrator.step
    (q0, v0) = ([0.3], [0.2])

    def stepped(q, v):
        out = step(spring, q, v, 0.0, 0.0, dt)
        return out[0][0], out[1][0]

    h = 1e-6
    base = stepped(q0, v0)
    dq = [(a - c) / h for a, c in zip(stepped([q0[0] + h], v0), base)]
    dv = [(a - c) / h for a, c in zip(stepped(q0, [v0[0] + h]), base)]
    assert dq[0] * dv[1] - dq[1] * dv[0] == pytest.approx(1 - b * dt / m, rel=1e-5)
    # mechanical energy against the exact ghost's: the area factor (1 - b dt/m) per step
    # against the exact exp(-b dt/m) leaves symplectic Euler ((1 - b dt/m) e^(b dt/m))^(t/dt)
    # of it, "half" at t = 3 s; RK4 keeps the exact energy
    predicted = ((1 - b * dt / m) * math.exp(b * dt / m)) ** (3.0 / dt)
    assert 0.4 < predicted < 0.6
    for name, expected in (("symplectic-euler", predicted), ("rk4", 1.0)):
        ratios = []
        for sample in lane(runner, name).history:
            if 2.5 <= sample[0] <= 3.5:  # a period around t = 3 s (the ratio wobbles in phase)
                q, v = spring.exact(sample[0])
                ratios.append((sample[-4] + sample[-3]) / sum(spring.energy(q, v)))
        mean = sum(ratios) / len(ratios)
        assert mean == pytest.approx(expected, rel=0.15 if expected != 1.0 else 0.02), name
    # the note's drag numbers: Unity's factor 1 - k dt gives F/(m k) (1 - k dt), true drag F/(m k)
    for model, dt_, expected in (
        ("unity", 0.1, 19.0),
        ("unity", 0.01, 19.9),
        ("linear", 0.1, 20.0),
    ):
        drag = get_system("drag", model=model)
        assert drag.params["force"] / (drag.params["mass"] * drag.params["drag"]) == 20.0
        run = Runner(drag, ["symplectic-euler"], dt_, capacity=2)
        run.advance(round(30.0 / dt_))
        assert run.lanes[0].v[0] == pytest.approx(expected, rel=1e-4)


def test_the_drag_command_in_the_note_runs():
    text = get_scenario("damping-per-step").look_for
    command = text.split("`")[1]
    assert command.startswith("integrator-lab run drag")
    args = command.split()[1:] + ["--every", "300", "--format", "csv"]
    out = subprocess.run(
        [sys.executable, "-m", "integrator_lab", *args], capture_output=True, text=True, check=True
    )
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    final = [row for row in rows if float(row["t"]) == pytest.approx(30.0)]
    assert final  # every integrator's sample at t = 30 s: the terminal velocity of the note
    for row in final:
        assert float(row["state_v0"]) == pytest.approx(19.0, rel=1e-4), row["integrator"]


def test_lessons_show_panel_systems_only():
    for s in SCENARIOS:
        assert set(s.settings()["systems"]) <= set(PANEL_SYSTEMS)
