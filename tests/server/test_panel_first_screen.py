"""The Panel dashboard's first screen, in Chromium: with the page scrolled to the top, every
shown panel's scene and the whole plotting area of its energy plot are inside the window at
the common laptop sizes, for one, two and three systems (the static page's rule,
views.layout). The boxes come from the page script's ``window.integratorLab.layout()`` and
are checked against what is drawn there and against the scene's own proportions."""

from __future__ import annotations

import json

import pytest
from conftest import LOADED_JS, wait_until

pytestmark = pytest.mark.browser

#: the first is the size the page loads at, the others it is resized to
LAPTOPS = [(1440, 900), (1366, 768), (1920, 1080)]
VIEWS = {"three": "", "two": "?systems=pendulum,spring", "one": "?systems=spring"}

# until the layout holds still for 10 looks in a row, 0.1 s apart
_SETTLED = """() => {
    const layout = window.integratorLab && window.integratorLab.layout &&
        window.integratorLab.layout();
    // the energy plot's frame moves sideways as its tick labels change width with the data:
    // what settles is the scenes and the heights
    const text = JSON.stringify(layout && Object.values(layout).map(
        (b) => [b.scene, b.energy[1], b.energy[3]]));
    const w = window.__ilSettle || (window.__ilSettle = { text: null, frames: 0 });
    if (layout && Object.keys(layout).length && text === w.text) w.frames += 1;
    else { w.text = text; w.frames = 0; }
    return w.frames >= 10;
}"""

_FIGURE_AT = """([x, y]) => {
    const cx = x - window.scrollX, cy = y - window.scrollY;
    let hit = document.elementFromPoint(cx, cy);
    while (hit && hit.shadowRoot) {
        const inner = hit.shadowRoot.elementFromPoint(cx, cy);
        if (!inner || inner === hit) break;
        hit = inner;
    }
    const chain = new Set();
    for (let node = hit; node; node = node.parentNode || node.host) chain.add(node);
    const views = Bokeh.index.query((v) => v.model && v.model.name &&
        (v.model.name.endsWith(":scene") || v.model.name.endsWith(":energy")));
    const view = views.find((v) => chain.has(v.el));
    return view ? view.model.name : (hit ? hit.tagName : null);
}"""

_ASPECT = """(s) => {
    const fig = Bokeh.documents[0].get_model_by_name(`${s}:scene`);
    return (fig.x_range.end - fig.x_range.start) / (fig.y_range.end - fig.y_range.start);
}"""


def _inside(box, width, height):
    x, y, w, h = box
    return w > 0 and h > 0 and x >= 0 and y >= 0 and x + w <= width and y + h <= height


def _settle(page):
    page.evaluate("delete window.__ilSettle")
    page.wait_for_function(_SETTLED, polling=100, timeout=120_000)
    return page.evaluate("window.integratorLab.layout()")


@pytest.mark.parametrize("view", list(VIEWS), ids=str)
def test_every_scene_and_energy_plot_is_on_the_first_screen(browser, server, view):
    """Loaded at the first size of ``LAPTOPS``, then the window resized to each other one
    (a page per view: the sizes share its document)."""
    size = LAPTOPS[0]
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    try:
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(server.url + VIEWS[view], timeout=120_000)
        page.wait_for_function(LOADED_JS, timeout=120_000)
        layout = _settle(page)
        for size in LAPTOPS:
            if size != LAPTOPS[0]:
                before = json.dumps(layout, sort_keys=True)
                page.set_viewport_size({"width": size[0], "height": size[1]})
                # laid out again for the new window: not the old layout, settled
                wait_until(
                    lambda: (
                        json.dumps(page.evaluate("window.integratorLab.layout()"), sort_keys=True)
                        != before
                    ),
                    what=f"the layout at {size}",
                )
                layout = _settle(page)
            expected = {"three": {"pendulum", "cradle", "spring"}, "two": {"pendulum", "spring"}}
            assert set(layout) == expected.get(view, {"spring"})
            for system, boxes in layout.items():
                for role in ("scene", "energy"):
                    box = boxes[role]
                    assert _inside(box, *size), (system, role, box, size)
                    x, y, w, h = box
                    assert page.evaluate(_FIGURE_AT, [x + w / 2, y + h / 2]) == f"{system}:{role}"
                scene = boxes["scene"]
                aspect = page.evaluate(_ASPECT, system)
                assert scene[2] / scene[3] == pytest.approx(aspect, rel=0.02)
                assert scene[3] >= size[1] / 3 - 60, (system, size, scene)
            if size == (1440, 900) and view == "three":
                page.screenshot(path="tests/artifacts/panel-first-screen-1440.png")
        assert errors == []
    finally:
        context.close()


def test_on_a_phone_the_controls_fold_and_a_scene_with_its_energy_plot_fills_the_first_screen(
    browser, server
):
    """At 390x844 the lessons and controls fold to one header (the static page folds them
    into one bar), so that the first system's scene and its energy plot are on the first
    screen; a tap on the header opens them."""
    size = (390, 844)
    context = browser.new_context(
        viewport={"width": size[0], "height": size[1]}, has_touch=True, is_mobile=True
    )
    try:
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(server.url, timeout=120_000)
        page.wait_for_function(LOADED_JS, timeout=120_000)
        page.wait_for_function(_SETTLED, polling=100, timeout=120_000)
        pause = page.locator(".il-playing button, .il-playing").first
        assert not pause.is_visible()
        layout = page.evaluate("window.integratorLab.layout()")
        boxes = layout["pendulum"]
        for role in ("scene", "energy"):
            assert _inside(boxes[role], *size), (role, boxes[role])
            x, y, w, h = boxes[role]
            assert page.evaluate(_FIGURE_AT, [x + w / 2, y + h / 2]) == f"pendulum:{role}"
        # the panels below, scrolled to, are as large: each fits the first screen as the first
        # does (the static page's rule), not the room left below its place on the long page
        for system in ("cradle", "spring"):
            for role in ("scene", "energy"):
                assert layout[system][role][2:] == boxes[role][2:], (system, role, layout)
        page.locator(".il-controls-toggle button").first.tap()
        pause.wait_for(state="visible")
        assert errors == []
    finally:
        context.close()
