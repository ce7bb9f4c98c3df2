"""The shared web layer without a browser: what the page's figures are built with (lines, scene
rows, sample columns, the energy axis), the live loop's frames and budgets, and a system that
fails while the others go on (dragging a body into a state: tests/js/drag.test.mjs)."""

from __future__ import annotations

import math

import pytest

from integrator_lab.core import DEFAULT_INTEGRATORS, INTEGRATORS, Runner, get_system
from integrator_lab.views import energy, energy_figures, live, scene
from integrator_lab.views.figures import DashboardConfig, build_dashboard, line_name


def test_figures_build_lines_only_for_what_is_shown():
    models = build_dashboard(DashboardConfig(integrators=("euler", "rk4")))
    panel = models.panels["spring"]
    assert set(panel.lines) == {("error", "euler"), ("error", "rk4")}
    assert set(panel.samples) == set(INTEGRATORS)
    config = DashboardConfig(integrators=("yoshida4",), energy_mode="breakdown", show_phase=True)
    panel = build_dashboard(config).panels["spring"]
    assert set(panel.lines) == {
        (kind, "yoshida4") for kind in ("total", "kinetic", "potential", "dissipated", "phase")
    }
    assert all(line.visible for line in panel.lines.values())
    assert panel.lines[("kinetic", "yoshida4")].name == line_name("spring", "kinetic", "yoshida4")
    # the energy plot's legend explains line styles only (the page has one integrator legend)
    assert {i.name for i in panel.legend.items if i.visible} == {
        "spring:legend-style:total",
        "spring:legend-style:kinetic",
        "spring:legend-style:potential",
        "spring:legend-style:dissipated",
    }
    # an integrator toggled off in the legend: its lines are made, but not shown
    hidden = DashboardConfig(integrators=("euler", "yoshida4"), show_phase=True, hidden=["euler"])
    panel = build_dashboard(hidden).panels["spring"]
    assert not panel.lines[("phase", "euler")].visible
    assert panel.lines[("phase", "yoshida4")].visible


def test_scene_rows_follow_the_system_and_the_integrators():
    cradle = get_system("cradle", balls=3)
    s = scene.Scene(cradle, ["euler", "rk4"])
    assert len(s.bodies["color"]) == 6
    frame = s.frame([cradle.initial_state()[0], None], 0.0)
    bodies = frame["bodies"]
    # the second lane has no state: it is drawn where it started, greyed (f columns)
    assert all(math.isfinite(x) for x in bodies["x"][:3]) and all(
        math.isnan(x) for x in bodies["x"][3:]
    )
    assert all(math.isnan(x) for x in bodies["fx"][:3]) and all(
        math.isfinite(x) for x in bodies["fx"][3:]
    )
    assert len(frame["links"]["x0"]) == 6 and len(frame["ghost_bodies"]["x"]) == 0
    pendulum = get_system("pendulum", theta0=0.5)
    p = scene.Scene(pendulum, ["euler"])
    f = p.frame([pendulum.initial_state()[0]], 0.0)
    ghost, rod = f["ghost_bodies"], f["ghost_links"]
    # the ghost hangs from its lane's pivot at the exact angle, L = 1 m
    assert ghost["x"][0] - rod["x0"][0] == pytest.approx(math.sin(0.5))
    assert ghost["y"][0] - rod["y0"][0] == pytest.approx(-math.cos(0.5))


def test_sample_columns_match_the_runner_batch():
    system = get_system("spring")
    runner = Runner(system, ["euler"], every=5)
    runner.advance(50)
    batch = runner.take_batch()
    cols = scene.sample_columns(
        batch["lanes"]["euler"],
        batch["stride"],
        1,
        runner.energy0,
        scene.error_scale(system, runner.energy0),
    )
    assert list(cols["t"]) == pytest.approx(
        [0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5]
    )
    assert cols["error"][0] == 0.0 and cols["log_gain"][0] == math.log10(energy.LOG_FLOOR)
    expected = (cols["total"][-1] - runner.energy0) / runner.energy0
    assert cols["error"][-1] == pytest.approx(expected)


@pytest.mark.parametrize("name", ["euler", "implicit-euler"])
def test_sample_columns_sign_the_energy_error_gain_up_loss_down(name):
    """On the undamped oscillator x'' = -w^2 x, one explicit Euler step multiplies the energy
    by exactly 1 + w^2 dt^2 (x1 = x0 + v0 dt, v1 = v0 - w^2 x0 dt), one implicit Euler step
    divides it by exactly that (solve x1 = x0 + v1 dt, v1 = v0 - w^2 x1 dt): a gain, a loss."""
    k, dt = 15.0, 0.01
    system = get_system("spring", mass=1.0, stiffness=k, damping=0.0, x0=1.0, v0=0.0)
    runner = Runner(system, [name], dt, every=1)
    runner.advance(3)
    batch = runner.take_batch()
    energy0 = 0.5 * k  # at rest at x = 1 m
    assert runner.energy0 == pytest.approx(energy0, rel=1e-15)
    cols = scene.sample_columns(
        batch["lanes"][name], batch["stride"], 1, energy0, scene.error_scale(system, energy0)
    )
    factor = 1.0 + k * dt * dt
    for n in range(1, 4):
        exact = (factor if name == "euler" else 1.0 / factor) ** n - 1.0
        assert cols["error"][n] == pytest.approx(exact, rel=1e-9)
        # the log view: log10 of the largest |error| so far (here the last: it grows),
        # on the solid line for a gain, on the dashed one for a loss
        drawn, other = ("log_gain", "log_loss") if name == "euler" else ("log_loss", "log_gain")
        assert cols[drawn][n] == pytest.approx(math.log10(abs(exact)), rel=1e-9)
        if n > 1:  # the first loss is on both (the line changes style there, unbroken)
            assert math.isnan(cols[other][n])
    assert (cols["error"][1] > 0) == (name == "euler")


def test_signed_log_axis_mirrors_gains_and_losses_decade_by_decade():
    floor = scene.ERROR_FLOOR
    for k in range(-11, 3):
        up = scene.signed_log(10.0**k)
        assert up > 0 and scene.signed_log(-(10.0**k)) == -up
        assert scene.signed_log(10.0 ** (k + 1)) - up == pytest.approx(1.0)
    # within the floor (rounding, not the integrator) is drawn at the zero line
    assert scene.signed_log(floor) == 0.0 and scene.signed_log(-0.5 * floor) == 0.0
    assert scene.signed_log(0.0) == 0.0
    assert math.isnan(scene.signed_log(math.nan))


def test_energy_plot_has_the_axis_of_its_view_and_greys_log_scale_in_the_breakdown():
    def spring(**view):
        config = DashboardConfig(integrators=("euler", "rk4"), **view)
        models = build_dashboard(config)
        panel = models.panels["spring"]
        (exact,) = panel.energy_fig.select({"name": "spring:energy:exact-label"})
        return models, panel, exact

    models, panel, exact = spring(energy_mode="error")
    line = panel.lines[("error", "euler")]
    # the default: the signed error itself on a linear axis, ticks in percent
    assert line.glyph.y == "error"
    assert panel.energy_fig.yaxis[0].formatter.code == energy_figures.PERCENT_TICK_CODE
    # the zero line says "0 = exact" where zero is the exact motion's error: the linear view
    assert exact.visible
    assert not models.controls.log_scale.disabled
    _, panel, exact = spring(log_scale=True)
    assert panel.lines[("error", "euler")].glyph.y == "log_gain"  # the log view: its columns
    assert panel.lines[("loss", "euler")].visible
    assert panel.energy_fig.yaxis[0].formatter.code == energy_figures.LOG_TICK_CODE
    assert not exact.visible  # the log axis: its zero line is the floor of the errors drawn
    _, panel, exact = spring(energy_mode="breakdown")
    assert not exact.visible  # joules: zero is no energy
    # each integrator's total (K + P + dissipated) is drawn with its parts
    assert panel.lines[("total", "euler")].visible and panel.lines[("total", "rk4")].visible
    assert panel.lines[("total", "euler")].glyph.y == "total"
    breakdown = build_dashboard(DashboardConfig(energy_mode="breakdown"))
    assert breakdown.controls.log_scale.disabled
    assert "breakdown" in breakdown.controls.log_scale.html_attributes["title"]


def test_live_keeps_real_time_within_budget_and_slows_down_smoothly_beyond():
    # a budget no load can exhaust (50 times the wall time of a tick): whether this machine
    # keeps up at the real one is for the benchmarks, not a test
    lab = live.Live(budget=lambda: 50.0)
    for name in ("pendulum", "spring"):
        assert lab.configure(name, {}, None, DEFAULT_INTEGRATORS)["errors"] == []
    for _ in range(120):
        lab.tick(1 / 60)
    for name in ("pendulum", "spring"):
        assert lab.runs[name].runner.time == pytest.approx(2.0, abs=0.021)
    # a step costs more than the budget allows: every system gets the same share of it
    lab.budget = lambda: live.BUDGET_FRACTION  # the page's own budget
    for run in lab.runs.values():
        run.cost = 1.0  # s per step, absurdly slow
    before = {n: r.runner.time for n, r in lab.runs.items()}
    lab.advance(0.1)  # would be 5 pendulum steps and 10 spring steps
    for name, run in lab.runs.items():
        assert run.runner.time - before[name] == pytest.approx(run.dt)  # one step, no more
        assert run.runner.accumulator == 0.0  # the rest of the time is dropped


def test_live_falls_back_to_defaults_only_when_nothing_runs_yet():
    # a page opened from a link with settings the core refuses: the defaults run
    lab = live.Live()
    result = lab.configure("cradle", {"balls": 3, "lifted": 4}, 1e-3, ["euler"])
    (error,) = result["errors"]
    assert error.startswith("Newton's cradle: ") and "at most 'balls'" in error
    assert error.endswith("; using the defaults.")
    assert result["layout"]["params"]["balls"] == 5
    result = lab.configure("spring", {}, 7.0, ["euler"])
    assert "'dt'" in result["errors"][0]
    assert result["layout"]["dt"] == get_system("spring").recommended_dt
    with pytest.raises(ValueError, match="integrators"):
        lab.set_integrators(["euler", "nope"])


def test_live_keeps_the_running_simulation_when_new_settings_are_refused():
    lab = live.Live()
    assert lab.configure("cradle", {"balls": 3}, 1e-3, ["euler"])["errors"] == []
    lab.tick(0.05)
    running = lab.runs["cradle"]
    t0 = running.runner.time
    assert t0 > 0
    result = lab.configure("cradle", {"balls": 3, "lifted": 4}, 1e-3, ["euler"])
    (error,) = result["errors"]
    assert "at most 'balls'" in error and error.endswith("; kept the settings in force.")
    assert result["layout"] is None and result["system"] == "cradle"
    assert result["kept"] == {"params": dict(running.system.params), "dt": 1e-3}
    assert result["kept"]["params"]["balls"] == 3
    # the same simulation goes on, from where it was
    assert lab.runs["cradle"] is running
    lab.tick(0.05)
    assert running.runner.time > t0
    # an invalid time step is refused the same way
    result = lab.configure("cradle", {"balls": 3}, -1.0, ["euler"])
    assert result["layout"] is None and "'dt'" in result["errors"][0]
    assert lab.runs["cradle"] is running


def test_live_frames_carry_divergence_and_stay_bounded():
    lab = live.Live()
    lab.configure("cradle", {"stiffness": 1e6}, 1e-3, ["euler", "velocity-verlet"])
    lab.speed = 4.0
    frames = [lab.tick(0.1) for _ in range(20)]  # 8 s of simulated time
    last = frames[-1]["cradle"]
    assert 0.0 < last["diverged"]["euler"] < 1.0
    assert "velocity-verlet" not in last["diverged"]
    run = lab.runs["cradle"]
    for lane in run.runner.lanes:
        assert len(lane.history) <= live.RUNNER_CAPACITY
        assert len(lane.pending) == 0  # taken by the frames
    counts = dict(last["lanes"])
    layout = run.layout()
    size = (
        len(scene.BODY_COLUMNS) * len(layout["bodies"]["color"])
        + len(scene.LINK_COLUMNS) * len(layout["links"]["color"])
        + len(scene.GHOST_BODY_COLUMNS) * len(layout["ghost_bodies"]["w"])
        + len(scene.GHOST_LINK_COLUMNS) * layout["n_ghost_links"]
        + len(scene.SAMPLE_COLUMNS) * sum(counts.values())
    )
    assert len(last["data"]) == size


def test_legend_and_tooltip_show_the_order_with_damping():
    """The views take the order from the core's declaration, with the lower order under
    velocity-dependent forces where it drops (yoshida4), and nothing more where it does not."""
    label = scene.integrator_label("yoshida4")
    assert label == "yoshida4 · 4th order (2nd if damped) · symplectic"
    assert scene.integrator_label("rk4") == "rk4 · 4th order"
    assert "order 4 (2 with velocity-dependent forces such as damping)" in (
        scene.integrator_about("yoshida4")
    )
    assert "order 4, not symplectic" in scene.integrator_about("rk4")


# -- one system's failure stops neither the page nor the other systems ----------------------
def _three_systems():
    # no compute budget: these tests are about a failure staying with its system, and a
    # loaded machine would otherwise give each system fewer steps than the wall time asks
    lab = live.Live(budget=lambda: 1e9)
    for name in ("pendulum", "cradle", "spring"):
        assert lab.configure(name, {}, None, ["euler", "rk4"])["errors"] == []
    lab.tick(0.0, force=True)
    return lab


def _raise_after(method, t_fail, exc):
    """``method`` of one system instance, raising ``exc`` once time passes ``t_fail``."""

    def failing(*args):
        t = args[-1]
        if t > t_fail:
            raise exc
        return method(*args)

    return failing


def _sample_count(frame):
    return sum(n for _, n in frame["lanes"])


def test_an_exact_solution_that_raises_hides_only_that_ghost():
    lab = _three_systems()
    spring = lab.runs["spring"]
    # the faulty dependency: this one instance's exact solution overflows after 0.1 s
    spring.system.exact = _raise_after(spring.system.exact, 0.1, OverflowError("math range error"))
    frames = [lab.tick(0.05) for _ in range(10)]
    for name, run in lab.runs.items():
        assert run.runner.time >= 0.4, name  # every system goes on
        assert run.failure is None
    last = frames[-1]["spring"]
    [alert] = last["alerts"]
    assert alert.startswith("Damped spring: the exact solution failed at t = ")
    assert "OverflowError: math range error" in alert
    assert frames[-1]["pendulum"]["alerts"] == [] and frames[-1]["cradle"]["alerts"] == []
    # the ghost's coordinates are NaN (Bokeh skips them), every sample is finite
    frame = spring.scene.frame([spring.system.initial_state()[0]] * 2, spring.runner.time)
    assert all(math.isnan(x) for x in frame["ghost_bodies"]["x"])
    assert len(frame["ghost_bodies"]["x"]) == len(spring.scene.ghost_bodies["w"]) == 2
    for f in frames:
        data = f["spring"]["data"][-len(scene.SAMPLE_COLUMNS) * _sample_count(f["spring"]) :]
        at = 0
        for _, n in f["spring"]["lanes"]:
            cols = {}
            for c in scene.SAMPLE_COLUMNS:
                cols[c] = data[at : at + n]
                at += n
            for c, values in cols.items():
                if c not in ("log_gain", "log_loss"):
                    assert all(math.isfinite(x) for x in values), c
            # the log view's two lines: NaN in one where the other draws (views.energy)
            assert all(
                math.isfinite(g) or math.isfinite(lo)
                for g, lo in zip(cols["log_gain"], cols["log_loss"])
            )
    # Reset tries the exact solution again
    del spring.system.exact
    lab.reset()
    assert lab.tick(0.01, force=True)["spring"]["alerts"] == []


def test_a_system_whose_forces_raise_stops_alone_and_says_why():
    lab = _three_systems()
    spring = lab.runs["spring"]
    # an error the runner does not treat as a divergence (it is not arithmetic)
    error = RuntimeError("the forces went wrong")
    spring.system.forces = _raise_after(spring.system.forces, 0.2, error)
    if spring.system.scalar_forces is not None:  # the one-coordinate fast path
        spring.system.scalar_forces = _raise_after(spring.system.scalar_forces, 0.2, error)
    frames = [lab.tick(0.05) for _ in range(12)]
    stopped = spring.runner.time
    assert 0.2 <= stopped < 0.3
    for name in ("pendulum", "cradle"):
        assert lab.runs[name].runner.time >= 0.55, name
    failed = [f["spring"] for f in frames if "spring" in f and f["spring"]["failed"]]
    assert len(failed) == 1  # said once, then the stopped system sends nothing
    [alert] = failed[0]["alerts"]
    assert alert.startswith(f"Damped spring stopped at t = {stopped:.4g} s: ")
    assert "RuntimeError: the forces went wrong" in alert
    assert failed[0]["lanes"] == [] and len(failed[0]["data"]) == 0
    # a forced frame (after a change) repeats the reason; Step leaves the stopped one alone
    lab.step()
    assert lab.runs["spring"].runner.time == stopped
    assert lab.tick(0.0, force=True)["spring"]["alerts"] == [alert]
    # a new configuration runs again
    assert lab.configure("spring", {}, None)["errors"] == []
    lab.tick(0.05)
    assert lab.runs["spring"].runner.time > 0.0 and lab.runs["spring"].failure is None


def test_a_system_whose_drawing_raises_stops_alone():
    lab = _three_systems()
    pendulum = lab.runs["pendulum"]
    pendulum.system.drawing = lambda q: {}["x"]  # a KeyError while drawing
    frames = lab.tick(0.05)
    assert frames["pendulum"]["failed"]
    assert "drawing its frame failed (KeyError: 'x')" in frames["pendulum"]["alerts"][0]
    for _ in range(4):
        frames = lab.tick(0.05)
    assert "pendulum" not in frames and lab.runs["spring"].runner.time >= 0.25
