"""Direct manipulation on the static page, in Chromium on the real built site: dragging the
pendulum's bob, the spring's mass or a cradle ball sets the system's initial state (as the
core declares it), pauses the run while the pointer is down, restarts it from there at t = 0
on release and puts the new state in the URL; a drag beyond a declared range is clamped and
says so.

Targets are computed from the physics of the drawing (pendulum: the bob at L (sin θ, −cos θ)
from its pivot; spring: the mass drawn at its displacement x; cradle: ball k at
L (−sin θ, −cos θ) from its own pivot when lifted by θ) and mapped to pixels through the
scene's ranges and frame, as the scene tests do; the tolerance is what one pixel means.

The tests share one booted page per set of browser options and boot (``shared_page``: the
desktop, the phone, Japanese), reset before each; every drag is released before its test ends."""

from __future__ import annotations

import math
import time
from urllib.parse import parse_qs, urlsplit

import pages
import pytest

site = pages.site
shared_page = pages.shared_page
shared_pages = pages.shared_pages

pytestmark = pytest.mark.browser

# data <-> page pixels of a system's scene, and the scene's bodies and pivot bars
_MAP_JS = """(system) => {
    const lab = window.integratorLab;
    const view = Bokeh.index.query_one((v) => v.model && v.model.name === `${system}:scene`);
    const box = view.el.getBoundingClientRect();
    const xr = lab.model(`${system}:scene:x_range`);
    const bodies = lab.model(`${system}:scene:bodies`).data;
    const fixtures = lab.model(`${system}:scene:fixtures`).data;
    const list = (a) => Array.from(a || []);
    return {
        left: box.left + view.frame.bbox.left, top: box.top + view.frame.bbox.top,
        x0: view.frame.x_scale.compute(0), y0: view.frame.y_scale.compute(0),
        kx: view.frame.x_scale.compute(1) - view.frame.x_scale.compute(0),
        ky: view.frame.y_scale.compute(1) - view.frame.y_scale.compute(0),
        pixel: Math.abs(xr.end - xr.start) / view.frame.bbox.width,
        x: list(bodies.x), y: list(bodies.y), integrator: list(bodies.integrator),
        bar: { x0: list(fixtures.x0), x1: list(fixtures.x1), y0: list(fixtures.y0) },
    };
}"""


def _scene(page, system):
    return page.js(_MAP_JS, system)


def _px(m, x, y):
    return (m["left"] + m["x0"] + m["kx"] * x, m["top"] + m["y0"] + m["ky"] * y)


def _drag(page, m, start, end, steps=12, release=True):
    mouse = page.page.mouse
    mouse.move(*_px(m, *start))
    mouse.down()
    mouse.move(*_px(m, *end), steps=steps)
    if release:
        mouse.up()


def _query(page):
    return parse_qs(urlsplit(page.page.url).query)


def _wait_restarted(page, system, names, param, sign=1):
    """Until every integrator of ``system`` has samples of the new run: from t = 0, its
    first q the dragged ``param`` of the page state (times ``sign``)."""
    page.wait(f"""(() => {{
        const lab = window.integratorLab;
        const q0 = {sign} * lab.state().params[{system!r}][{param!r}];
        return {list(names)!r}.every((n) => {{
            const s = lab.samples({system!r}, n);
            return s.t.length >= 2 && s.t[0] === 0 && Math.abs(s.q[0] - q0) < 1e-12;
        }});
    }})()""")


def _open(shared_page, query, **options):
    # at a tenth of real time a body moves less than a pixel between reading where it is
    # and pressing on it
    page = shared_page(query + "&speed=0.1", viewport=(1440, 900), **options)
    page.wait_live()
    page.wait_samples(5, [query.split("systems=")[1].split("&")[0]])
    return page


def test_dragging_the_pendulum_bob_sets_theta0_pauses_and_restarts_from_there(shared_page):
    page = _open(shared_page, "?systems=pendulum")
    m = _scene(page, "pendulum")
    length = page.js("window.integratorLab.state().params.pendulum.length")
    # lane 0's pivot: the middle of its bar (the bar spans the pivot ± a bob's width)
    pivot = ((m["bar"]["x0"][0] + m["bar"]["x1"][0]) / 2, m["bar"]["y0"][0])
    bob = (m["x"][0], m["y"][0])
    target = 0.5
    end = (pivot[0] + length * math.sin(target), pivot[1] - length * math.cos(target))
    _drag(page, m, bob, end, release=False)
    # while the pointer is down the run waits and every lane's bob shows the dragged angle
    page.settle()  # the worker has the hold: a frame it sent before has landed
    held = page.sim_time("pendulum")
    time.sleep(0.6)  # the behaviour: held, the run waits over a while
    assert page.sim_time("pendulum") == held
    mid = _scene(page, "pendulum")
    tolerance = 2 * m["pixel"] / length  # rad: two pixels at the bob's radius
    for k in range(len(mid["x"])):
        lane_pivot = ((mid["bar"]["x0"][k] + mid["bar"]["x1"][k]) / 2, mid["bar"]["y0"][k])
        angle = math.atan2(mid["x"][k] - lane_pivot[0], -(mid["y"][k] - lane_pivot[1]))
        assert abs(angle - target) <= tolerance, mid["integrator"][k]
    # no hover tooltip over the body in hand
    assert page.page.locator(".bk-Tooltip:visible, .bk-tooltip:visible").count() == 0
    page.page.screenshot(path=str(pages.ARTIFACTS / "drag-pendulum-mid.png"))
    page.page.mouse.up()
    names = page.js("window.integratorLab.state().integrators")
    _wait_restarted(page, "pendulum", names, "theta0")
    state = page.js("window.integratorLab.state()")
    theta0 = state["params"]["pendulum"]["theta0"]
    assert abs(theta0 - target) <= tolerance
    assert state["params"]["pendulum"]["omega0"] == 0
    assert float(_query(page)["pendulum.theta0"][0]) == theta0
    # every integrator starts from the dragged angle, at rest, at t = 0
    for name in names:
        s = page.samples("pendulum", name)
        assert s["t"][0] == 0 and s["q"][0] == pytest.approx(theta0, abs=1e-12), name
        assert s["v"][0] == 0, name
    assert page.status()["running"]
    page.wait("window.integratorLab.status().systems.pendulum.simTime > 0.05")
    page.page.screenshot(path=str(pages.ARTIFACTS / "drag-pendulum-after.png"))
    assert page.messages() == []
    assert page.errors == []


def test_a_held_body_pauses_only_its_own_system(shared_page):
    page = shared_page("?systems=pendulum,spring&speed=0.1", viewport=(1440, 900))
    page.wait_live()
    page.wait_samples(5, ["pendulum", "spring"])
    m = _scene(page, "pendulum")
    length = page.js("window.integratorLab.state().params.pendulum.length")
    pivot = ((m["bar"]["x0"][0] + m["bar"]["x1"][0]) / 2, m["bar"]["y0"][0])
    end = (pivot[0] + length * math.sin(0.4), pivot[1] - length * math.cos(0.4))
    _drag(page, m, (m["x"][0], m["y"][0]), end, release=False)
    page.settle()  # the worker has the hold and the preview's new run
    held, spring = page.sim_time("pendulum"), page.sim_time("spring")
    page.wait_sim_time_past({"spring": spring}, by=0.03)  # the spring goes on meanwhile
    # the held body's system waits; the spring goes on (0.1 × real time: ~0.1 s in 1 s)
    assert page.sim_time("pendulum") == held
    assert page.sim_time("spring") > spring + 0.03
    assert page.status()["running"]
    page.page.mouse.up()
    page.wait("window.integratorLab.status().systems.pendulum.simTime > 0.05")
    assert page.messages() == []
    assert page.errors == []


def test_dragging_the_spring_mass_sets_x0_from_its_rest_position(shared_page):
    page = _open(shared_page, "?systems=spring")
    m = _scene(page, "spring")
    start = (m["x"][0], m["y"][0])
    target = 0.4  # m: the mass is drawn at its displacement x from rest
    _drag(page, m, start, (target, start[1]))
    names = page.js("window.integratorLab.state().integrators")
    _wait_restarted(page, "spring", names, "x0")
    state = page.js("window.integratorLab.state()")
    x0 = state["params"]["spring"]["x0"]
    assert abs(x0 - target) <= 2 * m["pixel"]
    assert state["params"]["spring"]["v0"] == 0
    assert float(_query(page)["spring.x0"][0]) == x0
    for name in names:
        s = page.samples("spring", name)
        assert s["t"][0] == 0 and s["q"][0] == pytest.approx(x0, abs=1e-12), name
    assert page.messages() == []
    assert page.errors == []


def _cradle_pivots(m, lane, balls, radius):
    """The pivots of a cradle lane: evenly spaced along its bar, which reaches one ball's
    width beyond the first and the last pivot."""
    first, last = m["bar"]["x0"][lane] + 2 * radius, m["bar"]["x1"][lane] - 2 * radius
    return [first + k * (last - first) / (balls - 1) for k in range(balls)], m["bar"]["y0"][lane]


def test_dragging_a_cradle_ball_lifts_it_and_the_balls_to_its_left(shared_page):
    page = _open(shared_page, "?systems=cradle")
    m = _scene(page, "cradle")
    params = page.js("window.integratorLab.state().params.cradle")
    balls, length = params["balls"], params["length"]
    xs, pivot_y = _cradle_pivots(m, 0, balls, params["radius"])
    target = 0.7  # rad, to the left
    ball = 1  # the second from the left: it and the first are lifted
    start = (m["x"][ball], m["y"][ball])
    end = (xs[ball] - length * math.sin(target), pivot_y - length * math.cos(target))
    _drag(page, m, start, end)
    names = page.js("window.integratorLab.state().integrators")
    _wait_restarted(page, "cradle", names, "angle", -1)
    state = page.js("window.integratorLab.state()")["params"]["cradle"]
    assert state["lifted"] == 2
    assert abs(state["angle"] - target) <= 2 * m["pixel"] / length
    query = _query(page)
    assert query["cradle.lifted"] == ["2"] and float(query["cradle.angle"][0]) == state["angle"]
    for name in names:
        assert page.samples("cradle", name)["t"][0] == 0, name
    assert page.messages() == []
    assert page.errors == []


def test_a_drag_beyond_the_declared_range_is_clamped_and_says_so(shared_page):
    page = _open(shared_page, "?systems=cradle")
    m = _scene(page, "cradle")
    params = page.js("window.integratorLab.state().params.cradle")
    balls, length = params["balls"], params["length"]
    xs, pivot_y = _cradle_pivots(m, 0, balls, params["radius"])
    # above the horizontal: 2 rad, beyond the declared 0 to 1.5 rad (half the string's
    # length out, so the point stays in the first lane)
    wanted = 2.0
    end = (xs[0] - 0.5 * length * math.sin(wanted), pivot_y - 0.5 * length * math.cos(wanted))
    _drag(page, m, (m["x"][0], m["y"][0]), end)
    page.wait("window.integratorLab.state().params.cradle.angle === 1.5")
    page.wait(
        "document.querySelectorAll('#il-messages li, .il-panel-note:not([hidden])').length > 0"
    )
    text = " ".join(page.messages())
    assert "lift angle θ₀" in text and "outside 0–1.5 rad" in text and "set to 1.5 rad" in text
    assert _query(page)["cradle.angle"] == ["1.5"]
    assert page.errors == []


def test_on_a_phone_a_finger_drags_the_bob_and_a_swipe_off_the_bodies_scrolls(shared_page):
    page = shared_page(
        "?systems=pendulum&speed=0.1", viewport=(390, 844), has_touch=True, is_mobile=True
    )
    page.wait_live()
    page.wait_samples(3, ["pendulum"])
    # the page at its top: the phone's first screen holds the scene under the sticky bar
    # (scrolled further, the bob would be under the bar or out of view)
    page.js("window.scrollTo(0, 0)")
    page.js(pages.NEXT_FRAMES_JS)
    assert page.js("scrollY") == 0
    m = _scene(page, "pendulum")
    length = page.js("window.integratorLab.state().params.pendulum.length")
    pivot = ((m["bar"]["x0"][0] + m["bar"]["x1"][0]) / 2, m["bar"]["y0"][0])
    target = -0.8
    end = _px(m, pivot[0] + length * math.sin(target), pivot[1] - length * math.cos(target))
    start = _px(m, m["x"][0], m["y"][0])
    cdp = page.context.new_cdp_session(page.page)

    def touch(kind, *points):
        points = [{"x": x, "y": y} for x, y in points]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    touch("touchStart", start)
    for k in range(1, 11):
        touch("touchMove", tuple(a + (b - a) * k / 10 for a, b in zip(start, end)))
    touch("touchEnd")
    page.wait("window.integratorLab.state().params.pendulum.theta0 < 0")
    assert page.js("scrollY") == 0  # the finger, moving up, moved the bob, not the page
    theta0 = page.js("window.integratorLab.state().params.pendulum.theta0")
    assert abs(theta0 - target) <= 2 * m["pixel"] / length
    assert float(_query(page)["pendulum.theta0"][0]) == theta0
    # a swipe up from an empty part of the scene (above the first lane's bar) scrolls
    x, y = _px(m, pivot[0], pivot[1] + 0.2 * length)
    touch("touchStart", (x, y))
    for k in range(1, 11):
        touch("touchMove", (x, y - 20 * k))
    touch("touchEnd")
    page.wait("scrollY > 0")
    assert page.js("window.integratorLab.state().params.pendulum.theta0") == theta0
    assert page.errors == []


def test_a_clamped_drag_says_so_in_japanese(shared_page):
    """In Japanese mode the clamp note is the catalog's Japanese (views.i18n drag.*), with
    the parameter's Japanese label, its range and the value set: no English sentence."""
    from integrator_lab.views import i18n

    # a page of its own, booted in Japanese (a reset keeps the language)
    page = _open(shared_page, "?lang=ja&systems=cradle", booted_as="ja")
    m = _scene(page, "cradle")
    params = page.js("window.integratorLab.state().params.cradle")
    balls, length = params["balls"], params["length"]
    xs, pivot_y = _cradle_pivots(m, 0, balls, params["radius"])
    wanted = 2.0  # beyond the declared 0 to 1.5 rad, as in the English test above
    end = (xs[0] - 0.5 * length * math.sin(wanted), pivot_y - 0.5 * length * math.cos(wanted))
    _drag(page, m, (m["x"][0], m["y"][0]), end)
    page.wait("window.integratorLab.state().params.cradle.angle === 1.5")
    page.wait(
        "document.querySelectorAll('#il-messages li, .il-panel-note:not([hidden])').length > 0"
    )
    (text,) = page.messages()
    name = f"{i18n.text('param.cradle.angle', 'ja')} θ₀"
    head = f"{i18n.text('system.cradle', 'ja')}、{name}："
    assert text.startswith(head), text
    assert "範囲 0–1.5 rad の外" in text and text.endswith("1.5 rad にしました。"), text
    assert "dragged" not in text and "outside" not in text
    assert page.page.locator("#il-note-cradle").inner_text() == text
    assert page.errors == []
