"""The Panel dashboard's direct manipulation (issue 14, as on the static page, tests/site/
test_drag_page.py): dragging the pendulum's bob sets θ₀ (Bokeh's pan events, handled in
Python), the run restarts from there at t = 0; a cradle drag past the declared lift angle
is clamped and says so. Targets come from the drawing's physics (the bob at L (sin θ, −cos θ)
from its pivot, the middle of its lane's bar) mapped to pixels through the scene's frame."""

from __future__ import annotations

import math

import pytest
from conftest import MESSAGE_JS, my_session, samples, set_widget, sim_time, wait_until

pytestmark = pytest.mark.browser

MAP_JS = """(system) => {
    const doc = Bokeh.documents[0];
    const view = Bokeh.index.query_one((v) => v.model && v.model.name === `${system}:scene`);
    const box = view.el.getBoundingClientRect();
    const bodies = doc.get_model_by_name(`${system}:scene:bodies`).data;
    const fixtures = doc.get_model_by_name(`${system}:scene:fixtures`).data;
    const xr = doc.get_model_by_name(`${system}:scene:x_range`);
    return {
        left: box.left + view.frame.bbox.left, top: box.top + view.frame.bbox.top,
        x0: view.frame.x_scale.compute(0), y0: view.frame.y_scale.compute(0),
        kx: view.frame.x_scale.compute(1) - view.frame.x_scale.compute(0),
        ky: view.frame.y_scale.compute(1) - view.frame.y_scale.compute(0),
        pixel: Math.abs(xr.end - xr.start) / view.frame.bbox.width,
        // a lane stopped (diverged) is drawn greyed, in the fx, fy columns
        x: Array.from(bodies.x, (v, i) => (Number.isFinite(v) ? v : bodies.fx[i])),
        y: Array.from(bodies.y, (v, i) => (Number.isFinite(v) ? v : bodies.fy[i])),
        bar: { x0: Array.from(fixtures.x0), x1: Array.from(fixtures.x1),
               y0: Array.from(fixtures.y0) },
    };
}"""
VALUE_JS = """(cls) => {
    for (const model of Bokeh.documents[0].all_models) {
        if (model.css_classes && model.css_classes.includes(cls)) return model.value;
    }
    return null;
}"""


def _px(m, x, y):
    return (m["left"] + m["x0"] + m["kx"] * x, m["top"] + m["y0"] + m["ky"] * y)


def _drag(page, m, start, end):
    (x0, y0), (x1, y1) = _px(m, *start), _px(m, *end)
    page.mouse.move(x0, y0)
    page.mouse.down()
    # BokehJS starts a pan only after a move of several pixels at once: jump 10 px first
    d = math.hypot(x1 - x0, y1 - y0)
    page.mouse.move(x0 + 10 * (x1 - x0) / d, y0 + 10 * (y1 - y0) / d)
    page.mouse.move(x1, y1, steps=8)
    page.mouse.up()


def _slow(page, system, server):
    set_widget(page, "il-speed", 0.1)  # a body moves less than a pixel while it is grabbed
    wait_until(lambda: my_session(server, page)["speed"] == 0.1, what="speed 0.1 in the session")
    page.locator(f".il-{system}-theta0, .il-{system}-angle").first.scroll_into_view_if_needed()
    page.evaluate(
        "(s) => Bokeh.index.query_one((v) => v.model && v.model.name === `${s}:scene`)"
        ".el.scrollIntoView({block: 'center'})",
        system,
    )  # at once (no smooth scrolling): the drag's coordinates are those of the page now


def _paused(page, server, system):
    """Pause, and wait until the page shows the paused run's last frame: the bodies the page
    shows are then where the server's run has them (the server takes the body under the
    pointer as its last updates placed it; a loaded machine lags the page further behind
    than those, and the drag's target is read from the page)."""
    page.get_by_role("button", name="Pause").click()
    wait_until(lambda: not my_session(server, page)["playing"], what="the pause")
    server_time = my_session(server, page)["systems"][system]["time"]
    wait_until(
        lambda: abs(sim_time(page, system) - server_time) < 0.006,
        what="the page to show the paused run's last frame",
    )


def test_dragging_the_pendulum_bob_sets_theta0_and_restarts_from_there(new_page, server):
    page = new_page()
    _slow(page, "pendulum", server)
    _paused(page, server, "pendulum")
    m = page.evaluate(MAP_JS, "pendulum")
    length = page.evaluate(VALUE_JS, "il-pendulum-length")
    pivot = ((m["bar"]["x0"][0] + m["bar"]["x1"][0]) / 2, m["bar"]["y0"][0])
    bob = (m["x"][0], m["y"][0])
    # half a radian on the side the bob is not: a drag long enough to be a pan for Bokeh
    target = -0.5 if math.atan2(bob[0] - pivot[0], pivot[1] - bob[1]) > 0 else 0.5
    end = (pivot[0] + length * math.sin(target), pivot[1] - length * math.cos(target))
    _drag(page, m, bob, end)
    tolerance = 2 * m["pixel"] / length
    wait_until(
        lambda: abs(page.evaluate(VALUE_JS, "il-pendulum-theta0") - target) <= tolerance,
        what="theta0 to follow the drag",
    )
    theta0 = page.evaluate(VALUE_JS, "il-pendulum-theta0")

    def restarted():
        s = samples(page, "pendulum", "rk4")
        return s["t"] and s["t"][0] == 0 and s["q"][0] == pytest.approx(theta0, abs=1e-12)

    wait_until(restarted, what="the run to restart from the dragged angle")
    assert page.evaluate(VALUE_JS, "il-pendulum-omega0") == 0
    assert page.evaluate(MESSAGE_JS) is None
    assert page.errors == []


def test_a_cradle_drag_past_the_declared_angle_is_clamped_and_says_so(new_page, server):
    page = new_page()
    _slow(page, "cradle", server)
    _paused(page, server, "cradle")
    m = page.evaluate(MAP_JS, "cradle")
    length = page.evaluate(VALUE_JS, "il-cradle-length")
    radius = page.evaluate(VALUE_JS, "il-cradle-radius")
    # the bar reaches one ball's width beyond the first pivot
    first = m["bar"]["x0"][0] + 2 * radius
    pivot_y = m["bar"]["y0"][0]
    wanted = 2.0  # rad: above the horizontal, beyond the declared 0 to 1.5
    end = (first - 0.5 * length * math.sin(wanted), pivot_y - 0.5 * length * math.cos(wanted))
    _drag(page, m, (m["x"][0], m["y"][0]), end)
    wait_until(lambda: page.evaluate(VALUE_JS, "il-cradle-angle") == 1.5, what="the clamp")
    wait_until(lambda: page.evaluate(MESSAGE_JS), what="the message")
    text = page.evaluate(MESSAGE_JS)
    # said as the static page says it (views.i18n drag_note)
    assert "lift angle θ₀" in text and "outside 0–1.5 rad" in text and "set to 1.5 rad" in text
    assert page.evaluate(VALUE_JS, "il-cradle-lifted") == 1
    assert page.errors == []


def test_a_held_body_pauses_only_its_own_system():
    """In Python, with Bokeh's own pan events: while the pendulum's bob is held its run
    waits (at t = 0, the dragged state); the spring and the cradle go on."""
    from bokeh import events

    from integrator_lab.server.app import Dashboard

    board = Dashboard()
    try:
        board._update(0.0)
        run = board.runs["pendulum"]
        scene, length = run.scene, run.system.params["length"]
        theta = run.system.params["theta0"]
        (px, py), (ox, oy) = scene.geometry.pivots[0], scene.offsets[0]
        # the bob at L (sin θ, −cos θ) from its pivot, in lane 0
        bob = (px + ox + length * math.sin(theta), py + oy - length * math.cos(theta))
        fig = board.panels["pendulum"].scene_fig
        fig._trigger_event(events.PanStart(fig, x=bob[0], y=bob[1]))
        fig._trigger_event(events.Pan(fig, x=bob[0] + 0.05, y=bob[1]))
        assert board._drag is not None
        before = {name: board.runs[name].runner.time for name in ("spring", "cradle")}
        for _ in range(6):
            board._update(0.05)
        assert board.runs["pendulum"].runner.time == 0.0
        for name, t in before.items():
            assert board.runs[name].runner.time > t + 0.1, name
        fig._trigger_event(events.PanEnd(fig, x=bob[0] + 0.05, y=bob[1]))
        for _ in range(3):
            board._update(0.05)
        assert board.runs["pendulum"].runner.time > 0.0
    finally:
        board.stop()


def test_a_press_takes_the_body_where_the_page_drew_it_not_where_the_run_has_since_moved_it():
    """In Python: the page shows an update a round trip and a paint old. A press on the bob
    where the last update sent put it takes the bob, though the run has swung it on since
    (hit-tested against the run as it is now, the press missed a swinging bob)."""
    from bokeh import events

    from integrator_lab.server.app import Dashboard
    from integrator_lab.views.drag import GRAB_PX

    board = Dashboard()
    try:
        run = board.runs["pendulum"]
        scene, length = run.scene, run.system.params["length"]
        (px, py), (ox, oy) = scene.geometry.pivots[0], scene.offsets[0]

        def bob():  # lane 0's bob at L (sin θ, −cos θ) from its pivot
            theta = run.runner.lanes[0].q[0]
            return (px + ox + length * math.sin(theta), py + oy - length * math.cos(theta))

        for _ in range(5):
            board._update(0.05)  # sent: the page draws these
        drawn = bob()
        pixel = board._drag_pixel("pendulum")
        # the run goes on, no update sent yet, until the bob is far from where it was drawn
        # (a tick takes as many steps as its time budget allows: fewer on a loaded machine)
        for _ in range(200):
            board._update(0.05, show=False)
            if math.dist(drawn, bob()) > 2 * GRAB_PX * pixel:
                break
        assert math.dist(drawn, bob()) > 2 * GRAB_PX * pixel  # far apart on the screen
        fig = board.panels["pendulum"].scene_fig
        fig._trigger_event(events.PanStart(fig, x=drawn[0], y=drawn[1]))
        assert board._drag is not None and board._drag["lane"] == 0, board._drag
    finally:
        board.stop()
