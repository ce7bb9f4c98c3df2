"""The page's one legend, its palette, and a layout that holds: plots that keep their size,
labels that never overlap, no overflow on a phone, touch, and the paused status (issue 14).

Browser checks run the real built page in Chromium, one booted page for the module reset
before each test (the ``site`` and ``shared_page`` fixtures
of pages.py).
"""

from __future__ import annotations

import itertools
import json
import re
import time

import pytest
from pages import NEXT_FRAMES_JS, SYSTEMS, shared_page, shared_pages, site  # noqa: F401 - fixtures

from integrator_lab.core import INTEGRATORS
from integrator_lab.views.scene import INTEGRATOR_COLORS, integrator_label

ALL = ",".join(INTEGRATORS)


# -- palette: CIELAB ΔE*ab (CIE 1976) from sRGB, for normal vision and simulated CVD ---------
def _linear(channel: int) -> float:
    """sRGB (IEC 61966-2-1) decoding of one 8-bit channel."""
    c = channel / 255.0
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


#: Machado, Oliveira & Fernandes (2009), severity 1.0, on linear RGB
PROTANOPIA = (
    (0.152286, 1.052583, -0.204868),
    (0.114503, 0.786281, 0.099216),
    (-0.003882, -0.048116, 1.051998),
)
DEUTERANOPIA = (
    (0.367322, 0.860646, -0.227968),
    (0.280085, 0.672501, 0.047413),
    (-0.011820, 0.042940, 0.968881),
)


def _lab(color: str, matrix=None) -> tuple[float, float, float]:
    rgb = [_linear(int(color[i : i + 2], 16)) for i in (1, 3, 5)]
    if matrix is not None:
        rgb = [min(1.0, max(0.0, sum(m * c for m, c in zip(row, rgb)))) for row in matrix]
    r, g, b = rgb
    # linear sRGB -> XYZ (D65), then CIELAB with the D65 white point
    x = 0.4124564 * r + 0.3575761 * g + 0.1804375 * b
    y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b
    z = 0.0193339 * r + 0.1191920 * g + 0.9503041 * b
    delta = 6 / 29

    def f(t):
        return t ** (1 / 3) if t > delta**3 else t / (3 * delta**2) + 4 / 29

    fx, fy, fz = f(x / 0.95047), f(y / 1.0), f(z / 1.08883)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def test_lab_conversion_matches_reference_values():
    assert _lab("#ffffff") == pytest.approx((100.0, 0.0, 0.0), abs=0.01)
    assert _lab("#ff0000") == pytest.approx((53.24, 80.09, 67.20), abs=0.02)
    # a protanope and a deuteranope see red and green alike, and white as white
    assert _lab("#ffffff", PROTANOPIA) == pytest.approx((100.0, 0.0, 0.0), abs=0.5)
    assert math_dist(_lab("#cc3311", DEUTERANOPIA), _lab("#668800", DEUTERANOPIA)) < math_dist(
        _lab("#cc3311"), _lab("#668800")
    )


def math_dist(p, q) -> float:
    return sum((a - b) ** 2 for a, b in zip(p, q)) ** 0.5


#: minimum ΔE*ab between any two integrators' colours. A just-noticeable difference is about
#: 2.3; thin lines and small marks need far more to be told apart at a glance (Stone, Szafir
#: & Setlur 2014 put reliable discrimination of small marks around 10 or more): 15 for every
#: vision, so that no pair is confusable even for a dichromat.
MIN_DELTA_E = 15.0


@pytest.mark.parametrize(
    "vision", [None, DEUTERANOPIA, PROTANOPIA], ids=["normal", "deuteranopia", "protanopia"]
)
def test_every_integrator_colour_is_distinct_also_for_colour_blind_vision(vision):
    assert set(INTEGRATOR_COLORS) == set(INTEGRATORS)
    labs = {name: _lab(color, vision) for name, color in INTEGRATOR_COLORS.items()}
    closest = min((math_dist(labs[a], labs[b]), a, b) for a, b in itertools.combinations(labs, 2))
    assert closest[0] >= MIN_DELTA_E, closest


# -- the paused status (static/js/live.js fills views.shared.PAUSED_TEXT) ---------------
def test_after_a_step_the_page_says_paused_without_a_rate(shared_page):  # noqa: F811
    page = shared_page()
    page.wait_live()
    page.page.get_by_role("button", name="Step").click()
    page.wait("!window.integratorLab.status().running")
    page.settle()  # the step's frame has landed and the status line says so
    for system in SYSTEMS:
        text = page.page.locator(f"#il-status-{system}").inner_text()
        assert re.fullmatch(r"t = \d+\.\d\d s · paused", text), text


# -- one legend ----------------------------------------------------------------------------
def _chip(page, name):
    return page.page.locator(f'#il-legend button[data-integrator="{name}"]')


def test_one_legend_toggles_an_integrator_everywhere_without_a_restart(shared_page):  # noqa: F811
    page = shared_page("?integrators=euler,rk4,velocity-verlet&phase=1")
    page.wait_live()
    page.wait_samples(5)
    chips = page.page.locator("#il-legend button")
    assert chips.count() == 3
    assert [c.get_attribute("aria-pressed") for c in chips.all()] == ["true"] * 3
    assert chips.all_inner_texts() == [
        integrator_label(n) for n in ("euler", "rk4", "velocity-verlet")
    ]
    # no integrator legend inside the plots any more (one per panel before)
    for system in SYSTEMS:
        assert page.js(f"window.integratorLab.model('{system}:energy:legend').items.length") == 0

    chip = _chip(page, "rk4")
    chip.focus()
    page.page.keyboard.press("Enter")  # a button: the keyboard works as a click does
    assert chip.get_attribute("aria-pressed") == "false"
    assert page.js("window.integratorLab.state().hidden") == ["rk4"]
    assert "hide=rk4" in page.js("location.search")
    before = page.status()["systems"]["spring"]["integrators"]["rk4"]["samples"]
    sim_before = page.sim_time("spring")
    for system in SYSTEMS:
        visible = page.js(f"""(() => {{
            const m = window.integratorLab.model;
            const out = {{}};
            for (const kind of ["error", "phase"]) for (const n of ["euler", "rk4"])
              out[kind + ":" + n] = m('{system}:line:' + kind + ':' + n).visible;
            // the scene: rows drawn (the view's indices) against rows held, per integrator
            for (const role of ["bodies", "links"]) {{
              const r = m('{system}:scene:' + role + '-renderer');
              const held = r.data_source.data.integrator;
              const drawn = [...r.view.indices].map((i) => held[i]);
              out[role] = {{ rk4: drawn.filter((n) => n === "rk4").length,
                            euler: drawn.filter((n) => n === "euler").length,
                            heldEuler: held.filter((n) => n === "euler").length }};
            }}
            return out;
        }})()""")
        assert visible["error:rk4"] is False and visible["phase:rk4"] is False
        assert visible["error:euler"] is True and visible["phase:euler"] is True
        for role in ("bodies", "links"):
            assert visible[role]["rk4"] == 0, (system, role)
            assert visible[role]["euler"] == visible[role]["heldEuler"] > 0, (system, role)
    # hidden, not stopped: the run goes on (no restart: time keeps growing, samples too; the
    # samples alone could grow by those received before sim_before, which the plots take later)
    page.wait_sim_time_past({"spring": sim_before})
    page.wait(
        f"window.integratorLab.status().systems.spring.integrators.rk4.samples > {before + 5}"
    )

    chip.click()
    assert chip.get_attribute("aria-pressed") == "true"
    assert page.js("window.integratorLab.state().hidden") == []
    assert "hide=" not in page.js("location.search")
    assert page.js("window.integratorLab.model('spring:line:error:rk4').visible") is True
    assert page.errors == []


def test_the_hidden_set_comes_back_from_the_link(shared_page):  # noqa: F811
    page = shared_page("?hide=euler,rk4")
    page.wait_live()
    assert sorted(page.js("window.integratorLab.state().hidden")) == ["euler", "rk4"]
    assert _chip(page, "euler").get_attribute("aria-pressed") == "false"
    assert _chip(page, "symplectic-euler").get_attribute("aria-pressed") == "true"
    assert page.js("window.integratorLab.model('cradle:line:error:euler').visible") is False
    assert page.errors == []
    bad = shared_page("?hide=nonsense")
    bad.wait_live()
    assert any('"hide"' in m for m in bad.messages())
    assert bad.js("window.integratorLab.state().hidden") == []


# -- plots keep their size -----------------------------------------------------------------
FRAME_HEIGHT = """(system) => Bokeh.index.query_one(
    (v) => v.model && v.model.name === system + ':energy').frame.bbox.height"""


def _frame_heights(page):
    page.js(NEXT_FRAMES_JS)  # the layout after the last frames, drawn
    return {s: page.js(FRAME_HEIGHT, s) for s in SYSTEMS}


def _live_page(shared_page, query, viewport):  # noqa: F811
    page = shared_page(query, viewport=viewport)
    page.wait_live()
    return page


def test_energy_plot_data_area_keeps_its_size_and_grows_with_the_window(shared_page):  # noqa: F811
    page = _live_page(shared_page, "", (1440, 900))
    four = _frame_heights(page)
    # the window made larger while the page runs (a student maximising it): the plots take
    # the room, as they do in a page opened at that size
    page.page.set_viewport_size({"width": 1920, "height": 1080})
    page.wait(
        f"""(() => {{
            const before = {json.dumps(four)};
            return Object.entries(before).every(([s, h]) => ({FRAME_HEIGHT})(s) > h);
        }})()"""
    )
    big = _frame_heights(page)
    eleven = _frame_heights(_live_page(shared_page, f"?integrators={ALL}", (1440, 900)))
    for system in SYSTEMS:
        assert eleven[system] >= 0.8 * four[system], (system, eleven, four)
        assert big[system] > four[system], (system, big, four)


def test_the_energy_plot_keeps_its_window_share_after_the_breakdown(shared_page):  # noqa: F811
    """The breakdown adds the kinds' legend to the energy plot; back to the energy error,
    the plot is as tall as the window gave it at first (not the build-time height)."""
    page = shared_page("", viewport=(1920, 1080))
    page.wait_live()
    height = (
        "(s) => Bokeh.documents.map((d) => d.get_model_by_name(s + ':energy')).find(Boolean).height"
    )
    mode = (
        "(k) => { Bokeh.documents.map((d) => d.get_model_by_name('controls:energy_mode'))"
        ".find(Boolean).active = k; }"
    )
    first = {s: page.js(height, s) for s in SYSTEMS}
    page.js(mode, 1)  # breakdown
    taller = {s: page.js(height, s) for s in SYSTEMS}
    page.js(mode, 0)  # the energy error again
    again = {s: page.js(height, s) for s in SYSTEMS}
    for system in SYSTEMS:
        assert taller[system] > first[system]
        assert again[system] == first[system], (system, first, again)


# -- no overlap, no overflow ---------------------------------------------------------------
TITLE_BOXES = """(system) => {
  const boxes = [];
  for (const view of Bokeh.index.query((v) => v.model && v.model.name &&
      (v.model.name === system + ':dt' || v.model.name.startsWith(system + ':param:')))) {
    const label = view.shadow_el.querySelector('label');
    if (!label) continue;
    // the text as drawn, overflow included (the label's own box is clipped to its cell)
    const range = document.createRange();
    range.selectNodeContents(label);
    for (const r of range.getClientRects()) {
      if (r.width > 0) boxes.push({name: view.model.name, title: view.model.title,
                                   l: r.left, r: r.right, t: r.top, b: r.bottom});
    }
  }
  return boxes;
}"""


@pytest.mark.parametrize("viewport", [(1440, 900), (390, 844)], ids=lambda v: f"{v[0]}px")
def test_widget_titles_never_overlap_at_a_coarse_dt(shared_page, viewport):  # noqa: F811
    page = shared_page("?pendulum.dt=0.2&spring.dt=0.25", viewport=viewport)
    page.wait_live()
    page.wait("window.integratorLab.model('pendulum:dt').title.includes('recommended')")
    for system in SYSTEMS:
        boxes = page.js(TITLE_BOXES, system)
        assert len({b["name"] for b in boxes}) >= 5, boxes
        for a, b in itertools.combinations(boxes, 2):
            if a["name"] == b["name"]:
                continue
            overlap = min(a["r"], b["r"]) - max(a["l"], b["l"]) > 0.5 and (
                min(a["b"], b["b"]) - max(a["t"], b["t"]) > 0.5
            )
            assert not overlap, (a, b)


def test_no_horizontal_overflow_on_a_phone(shared_page):  # noqa: F811
    page = shared_page("?pendulum.dt=0.2&spring.dt=0.25", viewport=(390, 844))
    page.wait_live()
    page.js(NEXT_FRAMES_JS)  # the layout after the first frames, drawn
    assert page.js("document.documentElement.scrollWidth") <= 390


# -- touch ---------------------------------------------------------------------------------
PLOT_BOX = """(name) => { const r = Bokeh.index.query_one(
    (v) => v.model && v.model.name === name).el.getBoundingClientRect();
    return {x: r.x, y: r.y, w: r.width, h: r.height}; }"""


def test_a_swipe_over_a_plot_scrolls_the_page_and_help_opens_on_tap(shared_page):  # noqa: F811
    page = shared_page(viewport=(390, 844), has_touch=True, is_mobile=True)
    page.wait_live()
    box = page.js(PLOT_BOX, "pendulum:energy")
    page.js(f"window.scrollTo(0, {box['y']} - 200)")
    page.js(NEXT_FRAMES_JS)  # drawn where it scrolled to
    box = page.js(PLOT_BOX, "pendulum:energy")
    start = page.js("window.scrollY")
    cdp = page.context.new_cdp_session(page.page)
    x, y = box["x"] + box["w"] / 2, box["y"] + box["h"] * 0.6
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for k in range(1, 11):  # an upward swipe of 120 px, finger on the plot throughout
        cdp.send(
            "Input.dispatchTouchEvent",
            {"type": "touchMove", "touchPoints": [{"x": x, "y": y - 12 * k}]},
        )
        time.sleep(0.016)  # the gesture itself: a finger's moves, one per display frame
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    page.wait(f"window.scrollY > {start} + 50")

    # a tap on the "?" of the pendulum's length shows what that parameter is: where it stands
    # once the page stopped moving it (two frames with the same box; a loaded machine may
    # still be laying the fields out)
    icon, previous, rounds = None, None, 0
    while (icon is None or icon != previous) and rounds < 50:
        previous, rounds = icon, rounds + 1
        icon = page.js("""() => {
          const view = Bokeh.index.query_one(
            (v) => v.model && v.model.name === 'pendulum:param:length');
          const el = view.shadow_el.querySelector('.bk-description');
          el.scrollIntoView({block: 'center'});
          const r = el.getBoundingClientRect();
          return {x: r.x + r.width / 2, y: r.y + r.height / 2, text: view.model.description};
        }""")
        page.js(NEXT_FRAMES_JS)
    assert icon == previous, "the parameter's help icon never stood still"
    help_box = page.page.locator("#il-help")
    assert not help_box.is_visible()
    page.page.touchscreen.tap(icon["x"], icon["y"])
    page.wait("!document.getElementById('il-help').hidden")
    assert help_box.is_visible()
    assert help_box.inner_text() == icon["text"]
    assert page.errors == []
