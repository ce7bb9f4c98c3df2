"""The Panel dashboard served by ``integrator-lab serve``, driven through headless Chromium.

Checks go through the data the page receives (the Bokeh sources) and through the server's
``/status`` endpoint; expected numbers come from physics (periods, the energy growth of
explicit Euler) or from the command line, never from the dashboard's own output.
"""

from __future__ import annotations

import csv
import io
import math
import subprocess
import sys
import time
from urllib.parse import urlsplit

import pytest
from conftest import (
    MESSAGE_JS,
    VISIBLE_JS,
    my_session,
    read,
    requests_elsewhere,
    samples,
    set_widget,
    sim_time,
    type_into,
    wait_until,
)

from integrator_lab.views.shared import DT_SLIDER_STEPS, csv_columns

pytestmark = pytest.mark.browser

DEFAULT_INTEGRATORS = ("euler", "symplectic-euler", "velocity-verlet", "rk4")


def upward_zero_crossings(t, q):
    """Times where q crosses zero going up, by linear interpolation between samples."""
    out = []
    for i in range(1, len(q)):
        if q[i - 1] < 0.0 <= q[i]:
            out.append(t[i - 1] + (t[i] - t[i - 1]) * (-q[i - 1]) / (q[i] - q[i - 1]))
    return out


def measured_period(page, system, integrator, periods=2):
    def enough():
        data = samples(page, system, integrator)
        crossings = upward_zero_crossings(data["t"], data["q"])
        return crossings if len(crossings) > periods else None

    crossings = wait_until(enough, timeout=20, what=f"{periods} periods of {system}")
    return (crossings[-1] - crossings[0]) / (len(crossings) - 1)


def spring_period(k, m=1.0, b=0.1):
    return 2 * math.pi / math.sqrt(k / m - (b / (2 * m)) ** 2)


# -- tests ------------------------------------------------------------------------------------
def test_dashboard_loads_and_streams_in_all_three_panels(new_page):
    page = new_page()
    first = {}
    for system in ("pendulum", "cradle", "spring"):
        for integrator in DEFAULT_INTEGRATORS:
            data = wait_until(
                lambda: (d := samples(page, system, integrator))["t"] and d,
                what=f"samples of {system}/{integrator}",
            )
            assert data["t"][0] == 0.0
        first[system] = read(page, f"{system}:scene:bodies", ("x", "y"))
    for system in ("pendulum", "cradle", "spring"):
        # the animation moves and the samples keep coming
        wait_until(
            lambda: read(page, f"{system}:scene:bodies", ("x", "y")) != first[system],
            what=f"{system}'s bodies to move",
        )
        wait_until(lambda: samples(page, system, "rk4")["t"][-1] > 0.5, what=f"{system} at 0.5 s")
        t = samples(page, system, "rk4")["t"]
        assert t == sorted(t)
        assert sim_time(page, system) > 0.5
    # unselected integrators get no data
    assert samples(page, "spring", "yoshida4")["t"] == []
    assert page.errors == []


def test_widgets_change_the_computation(new_page, server):
    page = new_page()
    set_widget(page, "il-integrators", ["euler", "rk4"])
    # the spring: stiffer, undamped, finer step (typed into the inputs)
    type_into(page, "il-spring-damping", 0)
    type_into(page, "il-spring-stiffness", 60)
    type_into(page, "il-spring-dt", 0.005)
    k, dt = 60.0, 0.005

    wait_until(
        lambda: my_session(server, page)["systems"]["spring"]["dt"] == dt,
        what="the server to take all three settings",
    )

    def energy_follows_euler():
        # explicit Euler on an undamped oscillator: each step multiplies the energy by
        # exactly 1 + (k/m) dt^2; data of the earlier settings do not fit
        data = samples(page, "spring", "euler")
        return len(data["t"]) > 30 and all(
            total == pytest.approx(0.5 * k * (1 + k * dt * dt) ** round(t / dt), rel=1e-9)
            for t, total in zip(data["t"], data["total"])
        )

    wait_until(energy_follows_euler, what="euler's energy to grow as (1 + k dt^2)^n")
    assert measured_period(page, "spring", "rk4") == pytest.approx(
        spring_period(k, b=0.0), rel=0.01
    )
    # the other integrators are gone, the chosen ones run on every system
    assert samples(page, "spring", "velocity-verlet")["t"] == []
    assert samples(page, "cradle", "rk4")["t"]

    # the server agrees about what this session runs
    mine = my_session(server, page)
    assert mine["systems"]["spring"]["params"]["stiffness"] == k
    assert mine["systems"]["spring"]["dt"] == dt
    assert mine["integrators"] == ["euler", "rk4"]

    # another integrator appears in the data
    set_widget(page, "il-integrators", ["rk4", "yoshida4"])
    wait_until(lambda: len(samples(page, "pendulum", "yoshida4")["t"]) > 5, what="yoshida4 samples")

    # speed: the session runs at twice the wall clock, its simulation clocks faster than real
    # time (how close to 2 a loaded machine lets them come: the server benchmark measures it)
    set_widget(page, "il-speed", 2.0)
    wait_until(lambda: my_session(server, page)["speed"] == 2.0, what="speed 2 in the session")
    wait_until(
        lambda: all(n["rtf"] > 1.0 for n in my_session(server, page)["systems"].values()),
        what="every system faster than real time",
    )

    # pause: time stands still; step: exactly one time step more
    page.locator(".il-playing button").click()
    wait_until(lambda: not my_session(server, page)["playing"], what="pause")

    def times():
        systems = my_session(server, page)["systems"]
        return {name: numbers["time"] for name, numbers in systems.items()}

    before = times()
    time.sleep(0.3)  # the behaviour: paused, no time passes in the session over a while
    assert times() == before
    page.locator(".il-step button").click()
    wait_until(lambda: times()["spring"] != before["spring"], what="one step")
    after = times()
    dts = {name: numbers["dt"] for name, numbers in my_session(server, page)["systems"].items()}
    for system in after:
        assert after[system] == pytest.approx(before[system] + dts[system], abs=1e-12)

    # reset: back to t = 0
    page.locator(".il-reset button").click()
    wait_until(lambda: sim_time(page, "cradle") == 0.0, what="reset")
    assert samples(page, "cradle", "rk4")["t"] == [0.0]
    assert page.errors == []


def test_energy_error_is_signed_gain_up_loss_down_and_log_scale_greys_in_breakdown(new_page):
    """Undamped spring: explicit Euler multiplies the energy by exactly 1 + (k/m) dt^2 each
    step, implicit Euler divides it by that: their error lines are drawn above and below 0."""
    page = new_page()
    set_widget(page, "il-integrators", ["euler", "implicit-euler"])
    type_into(page, "il-spring-damping", 0)
    k, dt = 15.0, 0.01  # the spring's defaults

    def follows(name, factor):
        data = samples(page, "spring", name)
        return len(data["t"]) > 60 and all(
            error == pytest.approx(factor ** round(t / dt) - 1, rel=1e-9)
            for t, error in zip(data["t"], data["error"])
        )

    wait_until(lambda: follows("euler", 1 + k * dt * dt), what="euler's gain, undamped")
    wait_until(lambda: follows("implicit-euler", 1 / (1 + k * dt * dt)), what="the loss")
    for name, sign in (("euler", 1.0), ("implicit-euler", -1.0)):
        column = page.evaluate(
            "(name) => Bokeh.documents[0].get_model_by_name(name).glyph.y.field",
            f"spring:line:error:{name}",
        )
        drawn = read(page, f"spring:samples:{name}", [column])[column]
        assert len(drawn) > 60 and all(math.copysign(1.0, y) == sign for y in drawn[1:]), name
    checkbox = page.locator(".il-log_scale input")
    assert checkbox.is_enabled()
    page.get_by_role("button", name="Energy breakdown").click()
    wait_until(lambda: not checkbox.is_enabled(), what="Log scale to grey out")
    page.locator(".il-log_scale-tip").wait_for(state="visible")
    wait_until(
        lambda: page.evaluate(
            "() => { const m = Bokeh.documents[0].get_model_by_name('spring:line:total:euler');"
            " return m != null && m.visible; }"
        ),
        what="the totals",
    )
    page.get_by_role("button", name="Energy error").click()
    wait_until(lambda: checkbox.is_enabled(), what="Log scale back")
    assert page.errors == []


def test_view_options_switch_plots(new_page):
    page = new_page()
    assert page.evaluate(VISIBLE_JS, "spring:line:error:rk4")
    assert not page.evaluate(VISIBLE_JS, "spring:phase")
    page.get_by_role("button", name="Energy breakdown").click()
    # the pointer rests on the button, whose hint shows after a moment: the hint must not
    # cover the checkboxes next to it (Panel's default, to the right, covered them)
    page.locator(".bk-Tooltip").first.wait_for(state="visible")
    wait_until(
        lambda: page.evaluate(
            "() => { const m = Bokeh.documents[0].get_model_by_name('spring:line:kinetic:rk4');"
            " return m != null && m.visible; }"
        ),
        what="the breakdown view",
    )
    assert not page.evaluate(VISIBLE_JS, "spring:line:error:rk4")
    # (the default wait: on this 2-core machine the dashboard at 1500x1000 keeps the page's
    # thread busy painting, and each step of a click waits for it)
    page.locator(".il-show_phase input").check()
    wait_until(lambda: page.evaluate(VISIBLE_JS, "spring:phase"), what="the phase plot")
    page.locator(".il-show_exact input").uncheck()
    wait_until(
        lambda: not page.evaluate(VISIBLE_JS, "pendulum:phase:exact-renderer"),
        what="the ghost to hide",
    )
    assert page.errors == []


def test_rejected_settings_show_a_message(new_page, server):
    page = new_page()
    type_into(page, "il-cradle-balls", 3)
    wait_until(
        lambda: len(read(page, "cradle:scene:bodies", ("x",))["x"]) == 3 * 4,
        what="a cradle of three balls",
    )
    type_into(page, "il-cradle-lifted", 5)  # within the widget's bounds, more than balls
    # the core's own message, shown in the page
    message = wait_until(lambda: page.evaluate(MESSAGE_JS), what="a message")
    assert "lifted" in message and "at most" in message
    assert page.locator(".il-message").is_visible()
    # the running simulation goes on with its last good settings
    t0 = sim_time(page, "cradle")
    wait_until(lambda: sim_time(page, "cradle") > t0 + 0.2, what="the cradle to go on")
    assert len(read(page, "cradle:scene:bodies", ("x",))["x"]) == 3 * 4
    # a good value clears the message
    type_into(page, "il-cradle-lifted", 2)
    wait_until(lambda: page.evaluate(MESSAGE_JS) is None, what="the message to go")
    # out-of-range input never reaches the core: the spinner refuses it, and so does the
    # declared parameter behind it for an open bound
    type_into(page, "il-spring-dt", 7)
    type_into(page, "il-pendulum-length", 0)  # length > 0 m
    wait_until(
        lambda: page.locator(".il-pendulum-length input").input_value() == "1",
        what="the length input to be reset",
    )
    mine = my_session(server, page)
    assert mine["systems"]["cradle"]["params"]["balls"] == 3
    assert mine["systems"]["spring"]["dt"] == 0.01
    assert mine["systems"]["pendulum"]["params"]["length"] == 1.0
    # an emptied input gets a message saying what is accepted
    type_into(page, "il-spring-dt", "")
    message = wait_until(
        lambda: (m := page.evaluate(MESSAGE_JS)) and "dt" in m and m, what="a message about dt"
    )
    assert "0.5" in message
    type_into(page, "il-spring-dt", 0.02)
    wait_until(lambda: page.evaluate(MESSAGE_JS) is None, what="the message to go")
    assert page.errors == []


def test_download_is_the_command_lines_csv(new_page, tmp_path):
    page = new_page()
    wait_until(lambda: sim_time(page, "spring") > 1.0, what="1 s of simulation")
    with page.expect_download() as info:
        page.locator(".il-spring-download button").click()
    path = tmp_path / "spring.csv"
    info.value.save_as(path)
    rows = list(csv.reader(path.read_text().splitlines()))
    assert rows[0] == csv_columns(1)
    body = rows[1:]
    last_t = min(max(float(r[1]) for r in body if r[0] == name) for name in DEFAULT_INTEGRATORS)
    # the same run from the command line: same core, same samples, same digits
    dt = 0.01
    every = 2  # the dashboard keeps about 60 samples per simulated second
    cli = subprocess.run(
        [
            sys.executable,
            "-m",
            "integrator_lab.cli.main",
            "run",
            "spring",
            "--duration",
            f"{last_t:.6f}",
            "--dt",
            str(dt),
            "--every",
            str(every),
            "--format",
            "csv",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    expected = list(csv.reader(io.StringIO(cli.stdout)))
    assert expected[0] == rows[0]
    for name in DEFAULT_INTEGRATORS:
        mine = [r for r in body if r[0] == name and float(r[1]) <= last_t]
        theirs = [r for r in expected[1:] if r[0] == name and float(r[1]) <= last_t]
        assert len(mine) > 30 and mine == theirs, name


def test_two_sessions_do_not_affect_each_other(new_page, server):
    stiff, default = new_page(), new_page()
    type_into(stiff, "il-spring-stiffness", 60)

    def run_with(page, k):
        # the samples are those of a run with stiffness k: from x0 = 1 m at rest, E0 = k/2
        data = samples(page, "spring", "rk4")
        return bool(data["t"]) and data["t"][0] == 0 and data["total"][0] == pytest.approx(k / 2)

    # the change reaches the server and comes back as a new run (a busy machine delays it;
    # until then the plot still holds the samples of k = 15)
    wait_until(lambda: run_with(stiff, 60.0), what="the stiff session's new run")
    default.locator(".il-playing button").click()  # pause only the second one
    wait_until(lambda: not my_session(server, default)["playing"], what="the second to pause")
    paused_at = my_session(server, default)["systems"]["pendulum"]["time"]
    assert measured_period(stiff, "spring", "rk4") == pytest.approx(spring_period(60.0), rel=0.01)
    assert sim_time(stiff, "pendulum") > paused_at or sim_time(stiff, "pendulum") > 2.0
    default.locator(".il-playing button").click()
    assert run_with(default, 15.0)
    assert measured_period(default, "spring", "rk4") == pytest.approx(spring_period(15.0), rel=0.01)
    stiffnesses = sorted(
        s["systems"]["spring"]["params"]["stiffness"] for s in server.status()["sessions"]
    )
    assert 15.0 in stiffnesses and 60.0 in stiffnesses


def test_closing_sessions_stops_their_callbacks(browser, server, new_page):
    # sessions of earlier tests end within about a second of their tab closing
    wait_until(lambda: server.status()["callbacks"] == 0, what="earlier sessions to end")
    first, second = new_page(), new_page()
    wait_until(lambda: server.status()["callbacks"] == 2, what="two live callbacks")
    first.context.close()
    wait_until(lambda: server.status()["callbacks"] == 1, what="the first session to end")
    t = sim_time(second, "spring")
    wait_until(lambda: sim_time(second, "spring") > t + 0.2, what="the second to go on")
    second.context.close()
    wait_until(lambda: server.status()["callbacks"] == 0, what="the second session to end")


def test_no_request_leaves_localhost(new_page, server, requests_seen, tmp_path):
    page = new_page()
    # what loads more of the page: the other views, a download
    page.get_by_role("button", name="Energy breakdown").click()
    # (the default wait: on this 2-core machine the dashboard at 1500x1000 keeps the page's
    # thread busy painting, and each step of a click waits for it)
    page.locator(".il-show_phase input").check()
    wait_until(lambda: page.evaluate(VISIBLE_JS, "spring:phase"), what="the phase plot")
    with page.expect_download() as info:
        page.locator(".il-spring-download button").click()
    info.value.save_as(tmp_path / "spring.csv")
    assert any(urlsplit(url).path.endswith(".js") for url in requests_seen), requests_seen
    assert requests_elsewhere(requests_seen, server.port) == []


def test_server_log_has_no_traceback(new_page, server):
    page = new_page()
    type_into(page, "il-spring-stiffness", 60)
    wait_until(
        lambda: my_session(server, page)["systems"]["spring"]["params"]["stiffness"] == 60.0,
        what="the new stiffness",
    )
    label = my_session(server, page)["session"]
    page.context.close()
    wait_until(
        lambda: all(s["session"] != label for s in server.status()["sessions"]),
        what="the session to end",
    )
    # this test's session and those of any test of the module run before it
    log = server.log()
    assert "Traceback" not in log and "ERROR" not in log, log


def test_time_step_slider_and_buttons(new_page, server):
    """As on the static page: ×2 / ÷2 double and halve the running step, stop at the ends of
    the accepted range with a message naming it, and the slider runs over log10(dt) (its
    middle is the geometric mean of the range's ends); the recommended step is marked."""
    from integrator_lab.core import get_system
    from integrator_lab.views.shared import DT_RANGE

    lo, hi = DT_RANGE
    recommended = get_system("spring").recommended_dt
    page = new_page()

    def running_dt():
        return my_session(server, page)["systems"]["spring"]["dt"]

    double, half = (
        page.locator(".il-spring-dt-double button"),
        page.locator(".il-spring-dt-half button"),
    )
    double.click()
    wait_until(lambda: running_dt() == 2 * recommended, what="dt doubled")
    wait_until(
        lambda: page.locator(".il-spring-dt input").input_value() == f"{2 * recommended:g}",
        what="the field to show it",
    )
    half.click()
    wait_until(lambda: running_dt() == recommended, what="dt halved")
    type_into(page, "il-spring-dt", 0.4)
    wait_until(lambda: running_dt() == 0.4, what="dt 0.4")
    double.click()
    wait_until(lambda: running_dt() == hi, what="dt at the end of its range")
    message = wait_until(lambda: page.evaluate(MESSAGE_JS), what="a message")
    assert "Damped spring, time step dt: 0.8 s is outside " in message
    assert f"[{lo:g}, {hi:g}] s" in message

    # the slider: the mark of the recommended step, then a drag to the middle of its track
    slider = page.locator(".il-pendulum-dt-slider")
    slider.scroll_into_view_if_needed()  # the mouse only reaches what is in the window
    base = slider.locator(".noUi-base")
    box, handle = base.bounding_box(), slider.locator(".noUi-handle").bounding_box()
    mark = base.evaluate("(el) => parseFloat(getComputedStyle(el, '::after').left)")
    span = math.log10(hi) - math.log10(lo)
    pendulum_recommended = get_system("pendulum").recommended_dt
    expected = box["width"] * (math.log10(pendulum_recommended) - math.log10(lo)) / span
    assert abs(mark - expected) <= 1.0, (mark, expected)
    y = handle["y"] + handle["height"] / 2
    page.mouse.move(handle["x"] + handle["width"] / 2, y)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2, y, steps=8)
    page.mouse.up()
    dt = wait_until(
        lambda: (
            (d := my_session(server, page)["systems"]["pendulum"]["dt"]) != pendulum_recommended
            and d
        ),
        what="the drag to set the pendulum's dt",
    )
    step = span / DT_SLIDER_STEPS
    assert abs(math.log10(dt) - math.log10(math.sqrt(lo * hi))) <= step + span / box["width"], dt
    assert page.errors == []
