"""What the static page draws, in a real browser (tests/site/pages.py): the energy plot's
signs and log view, a diverging integrator and a failing system shown while the others go
on, the points held after minutes, narrow screens and embeds, every integrator's body in
its colour and lane and in view at coarse steps, and the phase plots.

The tests share the module's booted pages (``shared_page``), each reset to a test's view
through the page's own API: the default tab, one booted as an embed (``embed=1`` lays an
<iframe>'s page out as it boots) and one on a display of 10 Hz (installed before the page's
scripts run). A test that waits for simulated time runs at the top speed (``speed=4``). The
faults injected into the core boot pages of their own.
"""

# ruff: noqa: F811 - the tests take the page fixtures imported from pages by name
from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest
from pages import BOOT_TIMEOUT_MS, SYSTEMS, open_page, shared_page, shared_pages, site  # noqa: F401

from integrator_lab.core import DEFAULT_INTEGRATORS, get_system
from integrator_lab.views.figures import ROLLOVER

pytestmark = pytest.mark.browser


PLOTTED_JS = """([system, name]) => {
    // the y values the error line of `name` draws: the column its glyph reads
    const line = window.integratorLab.model(`${system}:line:error:${name}`);
    const data = window.integratorLab.samples(system, name);
    return { t: data.t, y: data[line.glyph.y.field], visible: line.visible };
}"""


def test_energy_plot_draws_a_gain_above_zero_and_a_loss_below(shared_page):
    """Undamped spring x'' = -w^2 x: explicit Euler multiplies the energy by exactly
    1 + w^2 dt^2 each step (a gain), implicit Euler divides it by that (a loss), symplectic
    Euler keeps it within about w dt / 2 of E0, on both sides of it."""
    k, dt = 15.0, 0.01  # the spring's default stiffness (m = 1 kg) and time step
    names = ("euler", "implicit-euler", "symplectic-euler")
    page = shared_page(f"?systems=spring&integrators={','.join(names)}&spring.damping=0&speed=4")
    page.wait_live()
    page.wait_samples(150, systems=("spring",))  # 2.5 simulated seconds, > 1.5 periods
    status = page.status()["systems"]["spring"]["integrators"]
    assert status["euler"]["energyError"] > 0
    assert status["implicit-euler"]["energyError"] < 0
    # the log view: the largest error so far, a gain on the solid line, a loss on the
    # dashed one (views.energy.running_log_columns), never decreasing
    page.set_model("controls:log_scale", "active", True)
    for name, solid in (("euler", True), ("implicit-euler", False)):
        drawn = page.samples("spring", name)
        line = drawn["log_gain" if solid else "log_loss"]
        assert page.js(f"window.integratorLab.model('spring:line:loss:{name}').visible")
        assert len(line) > 100 and all(math.isfinite(y) for y in line[2:]), name
        assert all(b >= a for a, b in zip(line[2:], line[3:])), name
    for log in (False,):  # the linear axis: the signed error itself
        page.set_model("controls:log_scale", "active", log)
        plotted = {name: page.js(PLOTTED_JS, ["spring", name]) for name in names}
        for name, sign in (("euler", 1.0), ("implicit-euler", -1.0)):
            line = plotted[name]
            assert line["visible"] and len(line["y"]) > 100
            # every sample after t = 0 is drawn on its side of the zero line
            assert all(math.copysign(1.0, y) == sign for y in line["y"][1:]), (name, log)
        euler = page.samples("spring", "euler")
        for t, error in zip(euler["t"], euler["error"]):
            assert error == pytest.approx((1 + k * dt * dt) ** round(t / dt) - 1, rel=1e-9)
        symplectic = page.samples("spring", "symplectic-euler")["error"]
        assert max(abs(e) for e in symplectic) < math.sqrt(k) * dt  # bounded
        assert min(symplectic) < 0 < max(symplectic)  # oscillates around E0
        drawn = plotted["symplectic-euler"]["y"]
        assert min(drawn) < 0 < max(drawn)
    assert page.js("window.integratorLab.model('controls:log_scale').disabled") is False
    # the breakdown: each integrator's total is drawn; "Log scale" does nothing, greyed
    page.set_model("controls:energy_mode", "active", 1)
    assert page.js("window.integratorLab.model('controls:log_scale').disabled") is True
    assert page.js("window.integratorLab.model('spring:line:total:euler').visible")
    assert not page.js("window.integratorLab.model('spring:line:error:euler').visible")
    assert page.page.locator(".il-control-log_scale input[disabled]").count() == 1
    assert page.errors == []


def test_explicit_euler_diverges_on_a_stiff_cradle_while_the_others_go_on(shared_page):
    page = shared_page(
        "?systems=cradle&cradle.stiffness=1000000&cradle.dt=0.001"
        "&integrators=euler,symplectic-euler,velocity-verlet,rk4"
    )
    page.wait_live()
    page.wait("window.integratorLab.status().systems.cradle.integrators.euler.divergedAt !== null")
    page.wait("window.integratorLab.status().systems.cradle.simTime > 1.0")
    first = page.status()["systems"]["cradle"]
    euler_samples = first["integrators"]["euler"]["samples"]
    assert 0 < first["integrators"]["euler"]["divergedAt"] < 1.0
    page.wait_sim_time_past({"cradle": first["simTime"]}, by=0.3)
    later = page.status()["systems"]["cradle"]
    assert later["simTime"] > first["simTime"]
    assert later["integrators"]["euler"]["samples"] == euler_samples  # its trace stopped
    for name in ("symplectic-euler", "velocity-verlet", "rk4"):
        assert later["integrators"][name]["divergedAt"] is None
        assert later["integrators"][name]["samples"] > first["integrators"][name]["samples"]
    labels = page.js("window.integratorLab.model('cradle:scene:status').data")
    assert labels["text"][0].startswith("euler: diverged at t = ")
    assert labels["color"] == [
        page.js("window.integratorLab.model('cradle:scene:bodies').data.color[0]")
    ]
    assert page.js("document.querySelector('.il-panel[data-system=\"pendulum\"]').hidden")
    # the stiffer contact is shorter: the dt field names the step these parameters need
    recommended = get_system("cradle", stiffness=1e6).recommended_dt
    assert recommended < 0.001 / 1.5
    title = page.js("window.integratorLab.model('cradle:dt').title")
    assert title.startswith("time step dt (s): ") and title.endswith(" recommended")
    assert float(title.split(": ")[1].split()[0]) == recommended
    assert page.errors == []


def test_points_held_stay_bounded_after_minutes_of_simulated_time(shared_page):
    page = shared_page("?speed=4&systems=pendulum,spring&integrators=euler,rk4")
    page.wait_live()
    # 4x real time, about 60 samples per simulated second: the rollover is reached quickly
    page.wait(
        f"window.integratorLab.status().systems.pendulum.received > {3 * ROLLOVER}", timeout=90_000
    )
    status = page.status()
    for system in ("pendulum", "spring"):
        entry = status["systems"][system]
        assert entry["simTime"] > 60.0  # minutes of simulated time, roughly
        for name, lane in entry["integrators"].items():
            if lane["divergedAt"] is None:
                assert lane["samples"] == ROLLOVER, (system, name)
            else:
                assert lane["samples"] <= ROLLOVER, (system, name)
    held = page.samples("pendulum", "rk4")["t"]
    assert held == sorted(held) and held[0] > 0.0  # the oldest rolled over
    assert page.errors == []


def test_narrow_screens_stack_the_panels_and_embed_is_compact(shared_page):
    # (a view read as it stands: no motion to pay for)
    page = shared_page("?embed=1&play=0", viewport=(760, 900), booted_as="embed")
    page.wait("document.documentElement.dataset.drawn === '1'")
    boxes = [page.page.locator(f'.il-panel[data-system="{s}"]').bounding_box() for s in SYSTEMS]
    assert boxes[0]["y"] < boxes[1]["y"] < boxes[2]["y"]
    assert abs(boxes[0]["x"] - boxes[1]["x"]) < 1
    assert not page.page.locator(".il-top").is_visible()
    # of a panel's fields, an embed keeps only the compact time-step row
    assert page.js("window.integratorLab.model('cradle:param:balls').visible") is False
    assert page.js("window.integratorLab.model('cradle:dt:slider').visible") is True


def _visible_box(page, selector):
    """Bounding box of the Bokeh canvas drawn inside ``selector`` (its shadow DOM)."""
    return page.page.locator(f"{selector} canvas").first.bounding_box()


@pytest.mark.parametrize("viewport", [(660, 420), (1000, 420)])
def test_an_embedded_demo_shows_its_animation_and_energy_plot_without_scrolling(
    shared_page, viewport
):
    # what the Sphinx directive embeds by default: one system in a 420 px high <iframe>
    page = shared_page(
        "?embed=1&systems=spring&integrators=euler,symplectic-euler,rk4&play=0",
        viewport=viewport,
        booted_as="embed",
    )
    page.wait("document.documentElement.dataset.drawn === '1'")
    width, height = viewport
    scene = _visible_box(page, "#il-panel-spring-scene")
    energy = _visible_box(page, "#il-panel-spring-plots")
    for box in (scene, energy):
        assert box["width"] > 200 and box["height"] > 150
        assert 0 <= box["x"] and box["x"] + box["width"] <= width
        assert 0 <= box["y"] and box["y"] + box["height"] <= height
    assert scene["x"] + scene["width"] <= energy["x"]  # side by side
    # every remaining control is in view: the bar wraps instead of running off the edge
    for role in ("play", "step", "reset", "speed", "log_scale"):
        box = page.page.locator(f"#il-control-{role}").bounding_box()
        assert box["x"] + box["width"] <= width, role
    # the full lab's choices ("Open in Integrator Lab" has them): not in an embed's one row
    for role in ("integrators", "energy_mode", "show_exact"):
        assert not page.page.locator(f"#il-control-{role}").is_visible(), role
    assert page.errors == []


# -- one system's failure stops neither the page nor the other systems ----------------------
def _core_archive_with(site, path, extra):
    """The worker's archive with ``extra`` appended to its module ``path``: a fault injected
    into the physics the page runs, not into the page (a plain zip: the worker takes it as
    well as the gzipped one the build ships)."""
    import gzip
    import io
    import zipfile

    shipped = Path(site["dir"], site["files"]["py/integrator_lab.zip.gz"]).read_bytes()
    source = zipfile.ZipFile(io.BytesIO(gzip.decompress(shipped)))
    out = io.BytesIO()
    with source, zipfile.ZipFile(out, "w") as archive:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == path:
                data += b"\n" + extra.encode()
            archive.writestr(info, data)
    return out.getvalue()


FAULTS = {
    # the exact solution overflows after 0.5 s (as the overdamped formula once did)
    "exact": (
        "_exact = Spring.exact\n"
        "def _failing_exact(self, t):\n"
        "    if t > 0.5:\n"
        "        raise OverflowError('math range error')\n"
        "    return _exact(self, t)\n"
        "Spring.exact = _failing_exact\n"
    ),
    # the forces raise an error that is no divergence
    "forces": (
        "_forces, _scalar = Spring.forces, Spring.scalar_forces\n"
        "def _fail(t):\n"
        "    if t > 0.5:\n"
        "        raise RuntimeError('injected failure')\n"
        "def _failing_forces(self, q, v, t):\n"
        "    _fail(t)\n"
        "    return _forces(self, q, v, t)\n"
        "Spring.forces = _failing_forces\n"
        "if _scalar is not None:\n"
        "    def _failing_scalar(self, x, u, t):\n"
        "        _fail(t)\n"
        "        return _scalar(self, x, u, t)\n"
        "    Spring.scalar_forces = _failing_scalar\n"
    ),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_failing_system_says_so_on_its_panel_and_the_others_go_on(
    open_page, shared_pages, site, fault
):
    archive = _core_archive_with(site, "integrator_lab/core/systems/spring.py", FAULTS[fault])
    # a page of its own: its worker boots a core with the fault in it; the module's shared
    # pages wait paused meanwhile
    shared_pages.pause()
    page = open_page(defer=True)
    page.page.route(
        "**/" + site["files"]["py/integrator_lab.zip.gz"],
        lambda route: route.fulfill(status=200, body=archive, content_type="application/zip"),
    )
    # the build's snapshot holds the core as built, already imported: boot plainly, from the
    # faulty files
    page.page.route(
        "**/" + site["files"]["py/snapshot.bin.gz"], lambda route: route.fulfill(status=404)
    )
    page.go()
    page.wait_live()
    assert page.status()["boot"] == "plain"
    alert = page.page.locator("#il-alert-spring")
    alert.wait_for(state="visible", timeout=30_000)
    text = alert.inner_text()
    assert text.startswith("Damped spring")
    page.wait(
        "(() => { const s = window.integratorLab.status().systems;"
        " return s.pendulum.simTime > 1.5 && s.cradle.simTime > 1.5; })()"
    )
    first = page.status()["systems"]
    page.wait_sim_time_past({name: first[name]["simTime"] for name in ("pendulum", "cradle")}, 0.3)
    later = page.status()["systems"]
    for name in ("pendulum", "cradle"):  # the others go on, with nothing to report
        assert later[name]["simTime"] > first[name]["simTime"] + 0.3, name
        assert later[name]["error"] is None
        assert not page.page.locator(f"#il-alert-{name}").is_visible()
    spring = later["spring"]
    text = alert.inner_text()  # by now past the failure (before it: only the exact curve's)
    assert spring["error"] == text
    if fault == "exact":  # only the ghost is gone: the integrators go on
        assert "the exact solution failed" in text and "OverflowError: math range error" in text
        assert spring["simTime"] > first["spring"]["simTime"] + 0.3 and not spring["stopped"]
        ghost = page.js("window.integratorLab.model('spring:scene:ghost_bodies').data.x")
        assert all(x is None or math.isnan(x) for x in ghost)  # NaN: not drawn
    else:  # the spring stopped where its forces failed
        assert spring["stopped"] and 0.45 < spring["simTime"] < 0.6
        assert spring["simTime"] == first["spring"]["simTime"]
        assert f"stopped at t = {spring['simTime']:.4g} s" in text
        assert "RuntimeError: injected failure" in text
        assert page.page.locator("#il-status-spring").inner_text().endswith("· stopped")
    for name in ("euler", "rk4"):  # no NaN reaches a plot
        samples = page.samples("spring", name)
        assert samples["t"] and all(math.isfinite(x) for c in ("t", "error") for x in samples[c]), (
            name
        )
    assert page.errors == []


def test_an_overdamped_spring_never_stops_the_other_systems(shared_page):
    page = shared_page("?spring.damping=1000000&speed=4")
    page.wait_live()
    page.wait("Object.values(window.integratorLab.status().systems).every((s) => s.simTime > 1.0)")
    first = page.status()["systems"]
    page.wait_sim_time_past({name: first[name]["simTime"] for name in SYSTEMS}, by=0.3)
    later = page.status()["systems"]
    for name in SYSTEMS:
        assert later[name]["simTime"] > first[name]["simTime"] + 0.3, name
    # the page says that the exact solution failed exactly when it does in Python
    system = get_system("spring", damping=1e6)
    try:
        for k in range(1, 101):
            system.exact(k * 0.01)
        fails = False
    except ArithmeticError:
        fails = True
    error = later["spring"]["error"]
    if fails:
        assert error.startswith("Damped spring: the exact solution failed")
        assert page.page.locator("#il-alert-spring").is_visible()
    else:
        assert error is None
    assert later["pendulum"]["error"] is None and later["cradle"]["error"] is None
    assert [e for e in page.errors if "OverflowError" in e] == []


# -- the cost of a frame -----------------------------------------------------------------------
def test_a_live_frame_does_not_restyle_the_page_per_moving_glyph(shared_page):
    """A moving glyph's frame does not make the browser lay the page out again: BokehJS
    rewrote a stylesheet per moving glyph at every paint, and each rewrite forced a style
    recalculation and a layout before the next text a canvas drew (static/js/bokehpaint.js):
    5.4 recalculations and 4.6 layouts a frame before, 0.66 and 0.16 after on an idle
    machine. Counted by the browser (DevTools' Performance metrics), not timed. What is left
    is the status lines, rewritten every few hundred milliseconds whatever the frame rate: on
    a loaded machine (fewer frames a second) they count for more per frame (2.9
    recalculations a frame seen while two other test processes ran), hence the margins."""
    page = shared_page()
    page.wait(
        "window.integratorLab && window.integratorLab.status().ready"
        " && window.integratorLab.status().allDrawn"
    )
    devtools = page.context.new_cdp_session(page.page)
    devtools.send("Performance.enable")

    def counts():
        metrics = devtools.send("Performance.getMetrics")["metrics"]
        named = {m["name"]: m["value"] for m in metrics}
        return page.status()["framesDrawn"], named["RecalcStyleCount"], named["LayoutCount"]

    frames0, styles0, layouts0 = counts()
    page.wait(f"window.integratorLab.status().framesDrawn >= {frames0 + 60}")
    frames1, styles1, layouts1 = counts()
    devtools.detach()  # (the page serves the module's next tests)
    frames = frames1 - frames0
    said = f"{styles1 - styles0} recalculations, {layouts1 - layouts0} layouts, {frames} frames"
    assert (layouts1 - layouts0) / frames < 2.0, said
    assert (styles1 - styles0) / frames < 4.0, said


#: a line's glyph views (BokehJS's GlyphRendererView): how many points each holds, and the
#: screen coordinates of the glyph and of the muted glyph (those of its last paint)
_LINE_VIEWS_JS = """(name) => {
    const view = Bokeh.index.query_one((v) => v.model && v.model.name === name);
    const size = (glyph) => glyph._data_size ?? 0;  // (data_size: the base glyph's, for a copy)
    return {
        glyph: size(view.glyph), muted: size(view.muted_glyph),
        selection: size(view.selection_glyph), decimated: size(view.decimated_glyph),
        sy: Array.from(view.glyph.sy ?? []), mutedSy: Array.from(view.muted_glyph.sy ?? []),
    };
}"""


@pytest.mark.parametrize("display_hz", [None, 10], ids=["own-rate", "10-hz"])
def test_a_lines_new_data_goes_to_its_glyph_and_its_muted_view_catches_up_when_muted(
    shared_page, display_hz
):
    """BokehJS gives a renderer's new data to five views of its glyph (the glyph, its muted,
    selected, non-selected and decimated copies); the page draws with the glyph alone, so the
    others take new data only when their renderer can draw with them (static/js/bokehpaint.js:
    more than half of a live frame's script). A line muted then is drawn from its data of now,
    point for point where the glyph would draw it; and not before (a display of 10 Hz: a paint
    came while the copies took the data, and drew a copy with none)."""
    display = {} if display_hz is None else {"display_hz": display_hz}  # (None: the default tab)
    page = shared_page("?systems=pendulum&integrators=rk4&speed=4", **display)
    page.wait_live()
    page.wait_samples(200, systems=("pendulum",))
    name = "pendulum:line:error:rk4"
    page.settle()
    views = page.js(_LINE_VIEWS_JS, name)
    assert views["glyph"] >= 200
    # the copies hold none of the run's points (the page patched BokehJS before its first draw)
    assert views["muted"] == views["selection"] == views["decimated"] == 0, views
    page.js("(name) => { window.integratorLab.model(name).muted = true; }", name)
    page.wait(
        f"""(() => {{
            const v = ({_LINE_VIEWS_JS})({json.dumps(name)});
            return v.muted === v.glyph && v.mutedSy.length === v.glyph;
        }})()"""
    )
    views = page.js(_LINE_VIEWS_JS, name)
    assert views["mutedSy"] == pytest.approx(views["sy"], abs=1e-9)
    assert page.errors == []
    # heard again, as the page serves the module's next tests (a view's reset leaves it muted)
    page.js("(name) => { window.integratorLab.model(name).muted = false; }", name)


#: every renderer of the page whose glyph is a text's: its name, its rows, its labels
_TEXT_VIEWS_JS = """() => Array.from(
    Bokeh.index.query((v) => v.glyph && Array.isArray(v.glyph.labels)),
    (v) => ({name: v.model.name, rows: v.all_indices.count, labels: v.glyph.labels.length}))"""


def test_a_page_that_draws_seldom_styles_every_label_with_its_own_row(shared_page):
    """A tab drawing 10 frames a second (a slow machine; a frame the browser throttles): when
    explicit Euler diverged on the cradle, its energy bar left, and the bars' labels were
    restyled on their view's change before BokehJS had made the fewer rows' labels (a
    RangeError at each frame; static/js/bokehpaint.js waits for them). With a lane hidden too
    (its rows filtered out), past Euler's divergence: no error, and every text renderer holds
    a label per row it shows."""
    page = shared_page("?hide=rk4&speed=4", display_hz=10)
    page.wait_live()
    page.wait("window.integratorLab.status().systems.cradle.integrators.euler.divergedAt !== null")
    page.wait_sim_time_past({"cradle": page.sim_time("cradle")}, by=0.2)
    page.settle()
    texts = page.js(_TEXT_VIEWS_JS)
    assert len(texts) >= len(SYSTEMS), texts  # (the lanes' and the energy bars' labels)
    assert [t for t in texts if t["labels"] != t["rows"]] == []
    bars = page.js("window.integratorLab.model('cradle:scene:energy-bars').data.name")
    assert "euler" not in bars and len(bars) == 3  # (the bar left: the rows fewer)
    assert page.errors == []


# -- the scene: every integrator in view, in its colour, in its own lane ----------------------
_SCENE_JS = """(system) => {
    const lab = window.integratorLab;
    const view = Bokeh.index.query_one((v) => v.model && v.model.name === `${system}:scene`);
    const box = view.el.getBoundingClientRect();
    const bodies = lab.model(`${system}:scene:bodies`).data;
    const ghost = lab.model(`${system}:scene:ghost_bodies`).data;
    const xr = lab.model(`${system}:scene:x_range`), yr = lab.model(`${system}:scene:y_range`);
    const list = (a) => Array.from(a || []);
    const px = (xs, ys) => list(xs).map((x, i) => [
        box.left + view.frame.bbox.left + view.frame.x_scale.compute(x),
        box.top + view.frame.bbox.top + view.frame.y_scale.compute(ys[i])]);
    // each body's half width and half height on the screen, in pixels
    const half = list(bodies.x).map((x, i) => [
        Math.abs(view.frame.x_scale.compute(x + bodies.w[i] / 2) - view.frame.x_scale.compute(x)),
        Math.abs(view.frame.y_scale.compute(bodies.y[i] + bodies.h[i] / 2)
                 - view.frame.y_scale.compute(bodies.y[i]))]);
    return {
        x: list(bodies.x), y: list(bodies.y), fx: list(bodies.fx), fy: list(bodies.fy),
        ax: list(bodies.ax), ay: list(bodies.ay), w: list(bodies.w), h: list(bodies.h),
        integrator: list(bodies.integrator), color: list(bodies.color),
        gx: list(ghost.x), gy: list(ghost.y), gw: list(ghost.w), gh: list(ghost.h),
        range: [xr.start, xr.end, yr.start, yr.end], pixels: px(bodies.x, bodies.y), half,
        marks: (() => { try { return lab.model(`${system}:scene:marks`).data.text.slice(); }
                         catch (e) { return []; } })(),
        bg: view.model.background_fill_color,
    };
}"""


def _rgb(hex_color):
    return tuple(int(hex_color[i : i + 2], 16) for i in (1, 3, 5))


#: how near (RGB distance) a pixel must be to a colour of the palette to be told as that one:
#: a body's fill is drawn exactly (two integrators' nearest colours are 37 apart)
COLOUR_MATCH = 12


def _screenshot_with_scenes(page):
    """A screenshot and every panel's scene (_SCENE_JS) as it shows: the scenes are read
    before and after it, until the two agree (a layout that moved meanwhile would put the
    bodies elsewhere than sampled)."""
    from io import BytesIO

    from PIL import Image

    deadline = time.monotonic() + BOOT_TIMEOUT_MS / 1000
    while True:
        before = {system: page.js(_SCENE_JS, system) for system in SYSTEMS}
        shot = Image.open(BytesIO(page.page.screenshot())).convert("RGB")
        after = {system: page.js(_SCENE_JS, system) for system in SYSTEMS}
        if before == after:
            return shot, after
        assert time.monotonic() < deadline, "the paused scenes kept moving"
        page.settle()


def _inside(shot, centre, half, share=0.6):
    """The pixels of ``shot`` within ``share`` of a body's outline (``centre``, ``half``: its
    half width and height, in pixels): clear of its edge's antialiasing and outline."""
    cx, cy = centre
    rx, ry = share * half[0], share * half[1]
    return [
        shot.getpixel((px, py))
        for px in range(math.floor(cx - rx), math.ceil(cx + rx) + 1)
        for py in range(math.floor(cy - ry), math.ceil(cy + ry) + 1)
        if ((px - cx) / rx) ** 2 + ((py - cy) / ry) ** 2 <= 1.0
    ]


def _told(pixel, shown):
    """The integrator whose colour (one of ``shown[name]``) ``pixel`` is, or None."""
    distance, name = min((math.dist(pixel, c), n) for n, cs in shown.items() for c in cs)
    return name if distance <= COLOUR_MATCH else None


#: the page pauses itself once every one of ``systems`` has run past ``after`` seconds of
#: simulated time, checked at every animation frame from now on (through the Play button's
#: model, as a click sets it)
PAUSE_EARLY_JS = """(() => {
    const systems = %(systems)s;
    const check = () => {
        const lab = window.integratorLab;
        const s = lab ? lab.status().systems : {};
        if (systems.every((name) => s[name] && s[name].simTime > %(after)s)) {
            lab.model("controls:play").active = false;
        } else {
            requestAnimationFrame(check);
        }
    };
    requestAnimationFrame(check);
})();"""


def _pause(page):
    page.page.get_by_role("button", name="Pause").click()
    page.wait("!window.integratorLab.status().running")
    page.settle()  # a frame in flight has landed


def test_every_integrator_is_seen_in_its_colour_in_its_own_lane_in_every_panel(shared_page):
    page = shared_page("?play=0", viewport=(1440, 900))
    # paused well before explicit Euler's cradle diverges (3.6 s): every body still in colour.
    # The pause is set by the page itself, at its first animation frame past 0.3 s
    # (PAUSE_EARLY_JS): a pause from here comes late on a loaded machine (a run was once past
    # 3 s when it came)
    page.js(PAUSE_EARLY_JS % {"systems": list(SYSTEMS), "after": 0.3})
    page.page.get_by_role("button", name="Play").click()
    page.wait("window.integratorLab.status().systems.pendulum.simTime > 0")
    page.wait("!window.integratorLab.status().running")
    page.settle()  # a frame in flight has landed
    # paused past 0.3 s and before any integrator diverged: every body in its colour
    status = page.status()["systems"]
    assert all(status[system]["simTime"] > 0.3 for system in SYSTEMS), status
    assert all(
        lane["divergedAt"] is None for s in status.values() for lane in s["integrators"].values()
    ), status
    shot, scenes = _screenshot_with_scenes(page)
    names = list(DEFAULT_INTEGRATORS)
    for system in SYSTEMS:
        s = scenes[system]
        assert sorted(set(s["integrator"])) == sorted(names), system
        palette = {n: _rgb(c) for n, c in zip(s["integrator"], s["color"])}
        assert len(set(palette.values())) == len(names)  # one colour each
        bg = _rgb(s["bg"])
        # a body is filled with its colour at alpha 0.55, over the background or over its
        # rod (its colour at alpha 0.8): the colours it may show, each integrator's
        shown = {
            n: [tuple(f * a + (1 - f) * b for a, b in zip(c, bg)) for f in (0.55, 0.91, 1.0)]
            for n, c in palette.items()
        }
        for k, name in enumerate(s["integrator"]):
            x, y, w, h = s["x"][k], s["y"][k], s["w"][k], s["h"][k]
            assert math.isfinite(x) and math.isfinite(y), (system, name)
            # different integrators' bodies never overlap (circles: w is the diameter)
            for j, other in enumerate(s["integrator"]):
                if other != name:
                    apart_x = abs(x - s["x"][j]) >= (w + s["w"][j]) / 2.0
                    apart_y = abs(y - s["y"][j]) >= (h + s["h"][j]) / 2.0
                    assert apart_x or apart_y, (system, name, other)
            # and inside it, its colour: the pixels within its outline, each told by the
            # palette's colour it shows (within COLOUR_MATCH, else none: an edge, the ghost's
            # dashes or a label over it), are its integrator's, more than any other's together
            region = _inside(shot, s["pixels"][k], s["half"][k])
            told = [_told(pixel, shown) for pixel in region]
            mine = told.count(name)
            others = {n: told.count(n) for n in names if n != name and told.count(n)}
            detail = (system, name, len(region), mine, others, region[len(region) // 2])
            assert len(region) >= 9, detail  # (a body is drawn at least 6 px wide)
            assert mine >= len(region) / 3 and mine > sum(others.values()), detail
        # the exact solution's ghost: one per lane where the system has one
        if system != "cradle":
            assert len(s["gx"]) == len(names) and all(math.isfinite(v) for v in s["gx"])
    assert page.errors == []


def _within(values, sizes, low, high):
    return all(low - 1e-9 <= v - d / 2 and v + d / 2 <= high + 1e-9 for v, d in zip(values, sizes))


def test_at_coarse_steps_every_body_stays_in_view_and_a_diverged_one_stays_put(shared_page):
    page = shared_page(
        "?pendulum.dt=0.2&spring.dt=0.25&cradle.dt=0.02&cradle.stiffness=1000&speed=4",
        viewport=(1440, 900),
    )
    page.wait_live()
    pinned = 0
    frozen_at = {}
    for _ in range(12):
        # the behaviour: the scene is within its view at any moment, sampled at 12 moments
        # 1 s of simulated time apart (0.25 s at speed 4): each sample waits for every system's
        # clock to move on, however slowly a loaded machine runs it
        systems = page.status()["systems"]
        page.wait_sim_time_past({name: systems[name]["simTime"] for name in SYSTEMS}, by=1.0)
        for system in SYSTEMS:
            s = page.js(_SCENE_JS, system)
            x0, x1, y0, y1 = s["range"]
            for xs, ys, ws, hs in (
                ("x", "y", "w", "h"),
                ("fx", "fy", "w", "h"),
                ("gx", "gy", "gw", "gh"),
            ):
                shown = [k for k, v in enumerate(s[xs]) if v is not None and math.isfinite(v)]
                assert _within([s[xs][k] for k in shown], [s[ws][k] for k in shown], x0, x1)
                assert _within([s[ys][k] for k in shown], [s[hs][k] for k in shown], y0, y1)
            arrows = [k for k, v in enumerate(s["ax"]) if v is not None and math.isfinite(v)]
            assert _within([s["ax"][k] for k in arrows], [0.0] * len(arrows), x0, x1)
            assert _within([s["ay"][k] for k in arrows], [0.0] * len(arrows), y0, y1)
            pinned += len(arrows)
            # every body is drawn, running (x) or diverged (fx), never neither
            for k in range(len(s["x"])):
                running = s["x"][k] is not None and math.isfinite(s["x"][k])
                stopped = s["fx"][k] is not None and math.isfinite(s["fx"][k])
                assert running != stopped, (system, k)
                if stopped:  # where it diverged, from then on
                    key = (system, k)
                    spot = (s["fx"][k], s["fy"][k])
                    assert frozen_at.setdefault(key, spot) == spot, key
    assert pinned > 0  # the coarse steps threw bodies beyond their lanes
    status = page.status()["systems"]
    diverged = {
        (system, name)
        for system in SYSTEMS
        for name, i in status[system]["integrators"].items()
        if i["divergedAt"] is not None
    }
    assert ("spring", "euler") in diverged
    assert {key[0] for key in frozen_at} >= {system for system, _ in diverged}
    for system, name in diverged:  # each with its mark, its greyed body drawn
        marks = page.js(_SCENE_JS, system)["marks"]
        assert any(m.startswith(f"{name}:") and "diverged at t = " in m for m in marks)
        shown = f"window.integratorLab.model('{system}:scene:diverged-bodies-renderer').visible"
        assert page.js(shown) is True, system
    assert page.errors == []


#: the systems whose phase plot has a view (is drawn: documents.js draws it when first shown)
PHASE_VIEWS_JS = """() => ['pendulum', 'cradle', 'spring'].filter((s) => Bokeh.index.query_one(
    (v) => v.model && v.model.name === `${s}:phase`) !== null)"""


# where the view of the Bokeh model called `name` is drawn
VIEW_BOX_JS = """(name) => {
  const r = Bokeh.index.query_one((v) => v.model && v.model.name === name)
    .el.getBoundingClientRect();
  return {y: r.y, height: r.height};
}"""


def test_the_phase_plot_ticked_on_after_the_start_is_drawn_with_its_exact_orbit(shared_page):
    """Hidden at first, the phase plot is drawn when first shown (documents.js): under the
    energy plot of every panel, as tall as it, with a curve per integrator and the exact
    orbit of the pendulum and the spring; ticked off, it goes. (Before the wrap test: the
    module's tab shows no phase plot before this test.)"""
    page = shared_page()
    page.wait_live()
    assert page.js(PHASE_VIEWS_JS) == [], "a phase plot was drawn before: not its first draw"
    p = page.page
    tick = p.locator(".il-control-show_phase input")
    tick.check()
    page.wait(f"({PHASE_VIEWS_JS})().length === 3")
    page.wait("window.integratorLab.status().systems.spring.simTime > 2")
    for system in SYSTEMS:
        box, energy = (page.js(VIEW_BOX_JS, f"{system}:{role}") for role in ("phase", "energy"))
        assert box["y"] >= energy["y"] + energy["height"] - 1, system  # under the energy plot
        assert box["height"] == pytest.approx(energy["height"], abs=2), system
        for name in DEFAULT_INTEGRATORS:
            assert page.js(f"window.integratorLab.model('{system}:line:phase:{name}').visible")
    for system in ("pendulum", "spring"):  # the cradle has no exact solution
        assert page.js(f"window.integratorLab.model('{system}:phase:exact').data.q.length") > 100
    tick.uncheck()
    assert page.js("window.integratorLab.model('spring:phase').visible") is False
    assert page.errors == []


def test_the_phase_plot_wraps_the_pendulum_angle_without_a_line_across(shared_page):
    page = shared_page("?systems=pendulum&pendulum.dt=0.2&phase=1&speed=4")
    page.wait_live()
    page.wait("window.integratorLab.status().systems.pendulum.simTime > 15")
    q = page.samples("pendulum", "euler")["q"]
    shown = [v for v in q if v is not None and math.isfinite(v)]
    assert len(shown) > 20
    assert all(-math.pi < v <= math.pi for v in shown)
    breaks = 0
    for a, b in zip(q, q[1:]):
        if a is None or b is None or not (math.isfinite(a) and math.isfinite(b)):
            breaks += 1
            continue
        assert abs(b - a) <= math.pi  # no line across the plot where the angle wraps
    assert breaks > 0  # euler went round at dt = 0.2: the line broke where it wrapped
    labels = page.js(
        "['below', 'left'].map((side) => Bokeh.index.query_one((v) => v.model && "
        "v.model.name === 'pendulum:phase').model[side][0].axis_label)"
    )
    assert labels == ["θ (rad)", "θ\u0307 (rad/s)"]
    exact = page.js("window.integratorLab.model('pendulum:phase:exact').data.q.length")
    assert exact > 100
