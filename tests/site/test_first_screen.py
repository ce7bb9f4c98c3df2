"""The first screen of the static page, in Chromium on the real built site: with the page
scrolled to the top, every shown panel's scene and the whole plotting area of its energy plot
are inside the window, at the common laptop sizes, for one, two and three systems and for a
lesson; on a phone one system's scene and energy plot are, and a tab brings another system's
into view.

The boxes come from ``status().layout`` (CSS px of the page); each is checked against the
page itself (the element drawn at its centre is that figure) and the scene's box against the
drawing's own proportions (its data ranges: a scene that grew into empty space would not
keep them)."""

from __future__ import annotations

import pages
import pytest

site = pages.site
open_page = pages.open_page

pytestmark = pytest.mark.browser

#: the first is the size the page loads at, the others it is resized to
LAPTOPS = [(1440, 900), (1366, 768), (1920, 1080)]
PHONE = (390, 844)
VIEWS = {
    "three": "",
    "two": "?systems=pendulum,spring",
    "one": "?systems=spring",
    # a lesson adds its note above the panels (two systems)
    "lesson": "?lesson=euler-blows-up&systems=spring,cradle&integrators=euler,symplectic-euler"
    "&spring.damping=0&spring.dt=0.05",
}

# Until the layout holds still for 10 looks in a row, 0.1 s apart (the page fits its parts
# after drawing them; BokehJS lays them out again in the frames that follow)
_SETTLED = """() => {
    const layout = window.integratorLab && window.integratorLab.status().layout;
    // the energy plot's frame moves sideways as its tick labels change width with the data:
    // what settles is the scenes and the heights
    const text = JSON.stringify(layout && Object.values(layout).map(
        (b) => [b.scene, b.energy[1], b.energy[3]]));
    const w = window.__ilSettle || (window.__ilSettle = { text: null, frames: 0 });
    if (layout && text === w.text) w.frames += 1; else { w.text = text; w.frames = 0; }
    return w.frames >= 10;
}"""

# what is drawn at a point of the page: the name of the Bokeh figure whose element holds it
_FIGURE_AT = """([x, y]) => {
    const cx = x - window.scrollX, cy = y - window.scrollY;
    let hit = document.elementFromPoint(cx, cy);
    while (hit && hit.shadowRoot) {  // BokehJS draws inside shadow roots
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


def _settled_layout(page):
    page.wait("document.documentElement.dataset.drawn === '1'")
    page.page.wait_for_function(_SETTLED, polling=100, timeout=pages.BOOT_TIMEOUT_MS)
    return page.status()["layout"]


def _inside(box, width, height, scroll=0.0):
    x, y, w, h = box
    return (
        w > 0
        and h > 0
        and x >= 0
        and y - scroll >= 0
        and x + w <= width
        and (y - scroll + h <= height)
    )


def _scene_aspect(page, system):
    return page.js(
        """(s) => {
        const x = window.integratorLab.model(`${s}:scene:x_range`);
        const y = window.integratorLab.model(`${s}:scene:y_range`);
        return (x.end - x.start) / (y.end - y.start);
    }""",
        system,
    )


def _check_boxes(page, layout, systems, size):
    width, height = size
    assert sorted(layout) == sorted(systems)
    for system in systems:
        scene, energy = layout[system]["scene"], layout[system]["energy"]
        assert _inside(scene, width, height), (system, "scene", scene, size)
        assert _inside(energy, width, height), (system, "energy", energy, size)
        # the boxes are where the figures are drawn
        for role, (x, y, w, h) in (("scene", scene), ("energy", energy)):
            assert page.js(_FIGURE_AT, [x + w / 2, y + h / 2]) == f"{system}:{role}"
        # the scene keeps its drawing's proportions (one data unit as many px across as up)
        assert scene[2] / scene[3] == pytest.approx(_scene_aspect(page, system), rel=0.02)


def _resized_layout(page, size):
    """The settled layout once the window is resized to ``size``."""
    page.js("window.__ilBefore = JSON.stringify(window.integratorLab.status().layout)")
    page.page.set_viewport_size({"width": size[0], "height": size[1]})
    page.js("delete window.__ilSettle")
    # the page fits its parts again a moment after the resize: not the old layout, settled
    page.wait(
        f"window.innerWidth === {size[0]} && window.innerHeight === {size[1]} && "
        "JSON.stringify(window.integratorLab.status().layout) !== window.__ilBefore"
    )
    return _settled_layout(page)


@pytest.mark.parametrize("view", list(VIEWS), ids=str)
def test_every_scene_and_energy_plot_is_on_the_first_screen_of_a_laptop(open_page, view):
    """Loaded at the first size of ``LAPTOPS``, then the window resized to each other one
    (a page per view: the sizes share its boot)."""
    page = open_page(VIEWS[view], viewport=LAPTOPS[0])
    layout = _settled_layout(page)
    systems = page.js("window.integratorLab.state().systems")
    assert len(systems) == {"three": 3, "two": 2, "one": 1, "lesson": 2}[view]
    for size in LAPTOPS:
        if size != LAPTOPS[0]:
            layout = _resized_layout(page, size)
        _check_boxes(page, layout, systems, size)
        if view == "lesson":
            assert page.page.locator("#il-lesson").is_visible()
        # the scenes grow with the room they have: not a thumbnail in a big window (a third of
        # the window's height at least, as the two plots share it with the page's top rows)
        for system in systems:
            assert layout[system]["scene"][3] >= size[1] / 3 - 60, (system, size, layout[system])
        if size == (1440, 900):
            page.page.screenshot(path=str(pages.ARTIFACTS / f"first-screen-{view}-1440.png"))
    assert page.errors == []


def test_on_a_phone_one_system_fills_the_first_screen_and_a_tab_shows_another(open_page):
    page = open_page("", viewport=PHONE, is_mobile=True, has_touch=True)
    layout = _settled_layout(page)
    first = page.js("window.integratorLab.state().systems")[0]
    # the first system's scene and energy plot, below one bar of controls
    _check_boxes(page, {first: layout[first]}, [first], PHONE)
    bar = page.page.locator("#il-bar")
    assert bar.bounding_box()["height"] < 120
    # the other controls are folded behind "Settings", a tap away
    integrators = page.page.locator("#il-control-integrators")
    assert not integrators.is_visible()
    page.page.locator("#il-more").tap()
    assert integrators.is_visible()
    page.page.locator("#il-more").tap()
    assert not integrators.is_visible()
    page.page.screenshot(path=str(pages.ARTIFACTS / "first-screen-phone.png"))
    # a tab brings its system's scene and energy plot into view (under the sticky bar)
    tab = page.page.locator('#il-tabs button[data-system="spring"]')
    tab.tap()
    page.wait("window.scrollY > 0")
    page.page.wait_for_function(
        "() => document.querySelector('#il-tabs button[data-system=\"spring\"]')"
        ".getAttribute('aria-pressed') === 'true'"
    )
    scroll = page.js("window.scrollY")
    layout = page.status()["layout"]
    bar_bottom = bar.bounding_box()["y"] + bar.bounding_box()["height"]
    for role in ("scene", "energy"):
        box = layout["spring"][role]
        assert _inside(box, *PHONE, scroll=scroll), (role, box, scroll)
        assert box[1] - scroll >= bar_bottom - 1, (role, box, bar_bottom)
    page.page.screenshot(path=str(pages.ARTIFACTS / "first-screen-phone-spring.png"))
    assert page.errors == []


# The layout as the first draw left it: read when the page marks it drawn (its scenes and
# plots sized to the window by then, layout.js fit), before what it adds after the draw
_AT_FIRST_DRAW = """(() => {
    const mark = performance.mark.bind(performance);
    performance.mark = (name, ...rest) => {
        const entry = mark(name, ...rest);
        if (name === "il:drawn") {
            window.__ilAtDrawn = JSON.stringify(window.integratorLab.status().layout);
        }
        return entry;
    };
})()"""


@pytest.mark.parametrize("size", [LAPTOPS[0], PHONE], ids=["laptop", "phone"])
def test_the_scenes_and_energy_plots_stay_where_the_first_draw_put_them(open_page, size):
    # what the page adds once drawn (a panel's Live | Study | Geometry switch, its fields, the
    # worker's first frames) moves no scene and resizes no energy plot: a plot that moved
    # would jump under the visitor's eyes, and laying every panel out again stalled the
    # animation's first second
    phone = {"is_mobile": True, "has_touch": True} if size == PHONE else {}
    page = open_page("", viewport=size, defer=True, **phone)
    page.page.add_init_script(_AT_FIRST_DRAW)
    page.go()
    page.wait_live()
    page.wait("window.integratorLab.status().source === 'worker'", timeout=pages.BOOT_TIMEOUT_MS)
    after = _settled_layout(page)
    first = page.js("JSON.parse(window.__ilAtDrawn)")
    assert sorted(first) == sorted(after)
    assert page.page.locator(".il-study-switch").count() == len(after)
    # (on a phone the panels stack: the second one and those below it move down as the first
    # one's fields, out of sight, are drawn after the first paint: documents.js)
    shown = page.js("window.integratorLab.state().systems")
    for system in shown if size != PHONE else shown[:1]:
        boxes = after[system]
        # the scene's box, and the energy plot's top and height (its frame moves sideways as
        # its tick labels change width with the data)
        for got, drawn in (
            (boxes["scene"], first[system]["scene"]),
            (boxes["energy"][1::2], first[system]["energy"][1::2]),
        ):
            assert got == pytest.approx(drawn, abs=0.5), (system, drawn, got)
    assert page.errors == []
