"""The Panel dashboard on a touch screen (issue 14, as on the static page: tests/site/
test_legend_layout.py): a vertical swipe over a plot scrolls the page (no drag or wheel tool
of the plots takes the touch), and a widget's "?" help opens on a tap, not only on hover.
Real Chromium with touch (Chrome DevTools' touch events: a finger, not a mouse)."""

from __future__ import annotations

import time

import pytest
from conftest import LOAD_TIMEOUT_MS, LOADED_JS, NEXT_FRAMES_JS, show_controls

pytestmark = pytest.mark.browser

PLOT_BOX = """(name) => { const r = Bokeh.index.query_one(
    (v) => v.model && v.model.name === name).el.getBoundingClientRect();
    return {x: r.x, y: r.y, w: r.width, h: r.height}; }"""


@pytest.fixture
def phone(browser, server):
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True
    )
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(str(error)))
    page.goto(server.url, timeout=LOAD_TIMEOUT_MS)
    page.wait_for_function(LOADED_JS, timeout=LOAD_TIMEOUT_MS)
    yield page
    context.close()


def _swipe(page, x, y, dy):
    """A finger down at (x, y) moved by ``dy`` px (negative: up) in ten moves, then lifted."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for k in range(1, 11):
        cdp.send(
            "Input.dispatchTouchEvent",
            {"type": "touchMove", "touchPoints": [{"x": x, "y": y + dy * k / 10}]},
        )
        time.sleep(0.016)  # the gesture itself: a finger's moves, one per display frame
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


@pytest.mark.parametrize("plot", ["pendulum:energy", "spring:energy"])
def test_a_swipe_over_a_plot_scrolls_the_page(phone, plot):
    box = phone.evaluate(PLOT_BOX, plot)
    phone.evaluate(f"window.scrollTo(0, {box['y']} + window.scrollY - 200)")
    phone.evaluate(NEXT_FRAMES_JS)  # the page drawn where it scrolled to
    box = phone.evaluate(PLOT_BOX, plot)
    start = phone.evaluate("window.scrollY")
    x, y = box["x"] + box["w"] / 2, box["y"] + box["h"] * 0.6
    _swipe(phone, x, y, -120)  # upward, the finger on the plot throughout
    phone.wait_for_function(f"window.scrollY > {start} + 50", timeout=60_000)
    assert phone.errors == []


TOOLTIPS_JS = """() => [...Bokeh.documents[0].all_models]
    .filter((m) => m.type === "Tooltip" && m.visible).length"""


def test_on_a_phone_the_page_is_laid_out_at_the_phones_width(phone):
    # without a viewport a phone lays the page out 980 px wide and shrinks it
    assert phone.evaluate("window.innerWidth") == 390
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    assert phone.errors == []


def test_help_opens_on_a_tap(phone):
    show_controls(phone)  # folded behind one button on a phone
    icon = phone.locator(".il-lesson .bk-description").first
    box = icon.bounding_box()
    assert phone.evaluate(TOOLTIPS_JS) == 0
    phone.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    phone.wait_for_function(f"({TOOLTIPS_JS})() === 1", timeout=60_000)
    # the tooltip shown is the lesson menu's, drawn in the page
    shown = phone.evaluate("""() => {
        const tip = [...Bokeh.documents[0].all_models]
            .find((m) => m.type === "Tooltip" && m.visible);
        const view = Bokeh.index.query_one((v) => v.model === tip);
        const root = view.shadow_el ?? view.el;
        return {content: root.textContent, drawn: view.el.getBoundingClientRect().width};
    }""")
    assert "lesson" in shown["content"].lower()
    assert shown["drawn"] > 0
    # a tap elsewhere closes it
    phone.touchscreen.tap(380, 830)
    phone.wait_for_function(f"({TOOLTIPS_JS})() === 0", timeout=60_000)
    assert phone.errors == []
