"""The Panel dashboard's system picker (issue 14, as the static page's): it chooses which
systems are shown and in which order (a link's ``?systems=`` too); the panels follow that
order; a system not shown waits (no steps), and one shown again starts from t = 0; no
system at all is refused with a message. In Python, then in Chromium on a real server."""

from __future__ import annotations

import pytest
from builds import ARTIFACTS
from conftest import MESSAGE_JS, open_page, show_controls, sim_time, wait_until

from integrator_lab.core import SYSTEMS
from integrator_lab.server.app import Dashboard

pn = pytest.importorskip("panel")


@pytest.fixture
def dashboard():
    board = Dashboard(shown=["spring", "pendulum"])
    yield board
    board.stop()


def _visible(board):
    """The systems shown, in the order the page lays them out (CSS order)."""
    shown = [(int(c.styles["order"]), n) for n, c in board._columns.items() if c.visible]
    return [name for _, name in sorted(shown)]


def test_the_shown_systems_follow_their_order_and_the_others_wait(dashboard):
    assert _visible(dashboard) == ["spring", "pendulum"]
    assert dashboard._picker.value == ["spring", "pendulum"]
    for _ in range(5):
        dashboard._update(0.05)
    runs = dashboard.runs
    assert runs["spring"].runner.time > 0 and runs["pendulum"].runner.time > 0
    assert runs["cradle"].runner.time == 0.0  # not shown: it waits
    # ticking a system again puts it last and starts it from t = 0
    dashboard._picker.value = ["spring", "pendulum", "cradle"]
    assert dashboard.shown == ["spring", "pendulum", "cradle"]
    assert _visible(dashboard) == ["spring", "pendulum", "cradle"]
    dashboard.shown = ["cradle", "spring"]
    assert _visible(dashboard) == ["cradle", "spring"]
    assert dashboard._picker.value == ["cradle", "spring"]
    for _ in range(5):
        dashboard._update(0.05)
    paused = runs["pendulum"].runner.time
    dashboard._update(0.05)
    assert runs["pendulum"].runner.time == paused
    assert dashboard.runs["cradle"].runner.time > 0


def test_step_moves_the_shown_systems_by_one_time_step_and_not_the_others(dashboard):
    dashboard._update(0.05)
    runs = dashboard.runs
    before = {name: run.runner.time for name, run in runs.items()}
    dashboard.param.trigger("step")
    dashboard._update(0.05)
    assert not dashboard.playing
    for name in ("spring", "pendulum"):
        assert runs[name].runner.time == pytest.approx(before[name] + runs[name].runner.dt)
    assert runs["cradle"].runner.time == 0.0  # not shown: a step does not move it either


def test_no_system_is_refused_with_a_message(dashboard):
    dashboard._picker.value = []
    assert dashboard.shown == ["spring", "pendulum"]
    assert dashboard._picker.value == ["spring", "pendulum"]
    assert dashboard.message.visible and "system" in dashboard.message.object
    with pytest.raises(ValueError, match="shown"):
        Dashboard(shown=["spring", "nope"])


def test_a_lesson_shows_its_systems_in_its_order(dashboard):
    dashboard.lesson = "symplectic-bounded"  # systems=pendulum,spring
    assert _visible(dashboard) == ["pendulum", "spring"]
    dashboard.lesson = ""
    assert _visible(dashboard) == list(dashboard.systems)


# -- in the browser ---------------------------------------------------------------------------
BOX_JS = """(system) => {
    const view = Bokeh.index.query_one((v) => v.model && v.model.name === `${system}:scene`);
    const box = view.el.getBoundingClientRect();
    return box.width > 0 ? [box.left, box.top] : null;
}"""


def _laid_out(page):
    """The systems drawn, in reading order (top to bottom, then left to right)."""
    boxes = {name: page.evaluate(BOX_JS, name) for name in ("pendulum", "cradle", "spring")}
    return [
        name
        for name, box in sorted(
            ((n, b) for n, b in boxes.items() if b is not None), key=lambda nb: (nb[1][1], nb[1][0])
        )
    ]


@pytest.mark.browser
@pytest.mark.parametrize("viewport", [(1440, 900), (390, 844)])
def test_the_picker_hides_and_orders_the_panels_in_the_page(browser, server, viewport):
    page = open_page(browser, server.url + "?systems=spring,pendulum", viewport=viewport)
    try:
        wait_until(lambda: _laid_out(page) == ["spring", "pendulum"], what="the link's order")
        show_controls(page)  # on a phone, behind one button
        picker = page.locator(".il-systems button")
        assert picker.count() == 3
        picker.filter(has_text=SYSTEMS["cradle"].title).click()
        wait_until(lambda: _laid_out(page) == ["spring", "pendulum", "cradle"], what="cradle, last")
        wait_until(lambda: sim_time(page, "cradle") > 0, what="the cradle to run")
        picker.filter(has_text=SYSTEMS["spring"].title).click()
        wait_until(lambda: _laid_out(page) == ["pendulum", "cradle"], what="spring hidden")
        page.screenshot(path=str(ARTIFACTS / f"panel-picker-{viewport[0]}.png"))
        # the page is no wider than the window
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport[0]
        assert page.evaluate(MESSAGE_JS) is None
        assert page.errors == []
    finally:
        page.context.close()


@pytest.mark.browser
def test_a_bad_systems_link_says_so_and_shows_what_it_can(browser, server):
    page = open_page(browser, server.url + "?systems=cradle,nope")
    try:
        wait_until(lambda: _laid_out(page) == ["cradle"], what="the valid part of the link")
        text = page.evaluate(MESSAGE_JS)
        assert "systems" in text and "nope" in text and "pendulum" in text
    finally:
        page.context.close()
