"""The static page's parameter and time-step fields, in a real browser
(tests/site/pages.py): what is typed changes what the worker computes, a refused value
says why and keeps the run, the fields carry the core's titles, and the time step's
x2 and /2 buttons and its log-scale slider. The tests share one booted page, reset to each
test's view through the page's own API (``shared_page``).
"""

# ruff: noqa: F811 - the tests take the page fixtures imported from pages by name
from __future__ import annotations

import math

import pytest
from pages import NEXT_FRAMES_JS, SYSTEMS, shared_page, shared_pages, site  # noqa: F401

from integrator_lab.core import DEFAULT_INTEGRATORS, get_system
from integrator_lab.core import SYSTEMS as DECLARED_SYSTEMS

pytestmark = pytest.mark.browser


def test_dt_parameters_and_integrator_picker_change_what_the_worker_computes(shared_page):
    page = shared_page()
    page.wait_live()
    # a parameter: the pendulum starts from the new angle, with the matching energy
    page.set_model("pendulum:param:theta0", "value", 0.5)
    page.wait(
        "(() => { const d = window.integratorLab.samples('pendulum', 'rk4');"
        " return d.t.length > 3 && d.t[0] === 0 && d.q[0] === 0.5; })()"
    )
    first = page.samples("pendulum", "rk4")
    system = get_system("pendulum", theta0=0.5)
    assert first["potential"][0] == pytest.approx(system.energy([0.5], [0.0])[1], rel=1e-12)
    assert "pendulum.theta0=0.5" in page.js("location.search")

    # the time step, typed into its spinner: one step now advances by the new dt
    page.page.get_by_role("button", name="Pause").click()
    dt_input = page.page.get_by_label("time step dt (s)").nth(SYSTEMS.index("spring"))
    dt_input.fill("0.005")
    dt_input.press("Enter")
    page.wait(
        "window.integratorLab.state().dt.spring === 0.005"
        " && window.integratorLab.status().systems.spring.simTime === 0"
    )
    page.settle()
    before = page.sim_time("spring")
    page.page.get_by_role("button", name="Step").click()
    page.wait(f"window.integratorLab.status().systems.spring.simTime > {before}")
    assert page.sim_time("spring") == pytest.approx(before + 0.005, abs=1e-12)

    # the picker: other integrators run, the old ones stop
    page.page.get_by_role("button", name="Play").click()
    page.set_model("controls:integrators", "value", ["leapfrog", "yoshida4"])
    page.wait(
        "(() => { const s = window.integratorLab.status().systems;"
        " return Object.values(s).every((x) => Object.keys(x.integrators).join() =="
        " 'leapfrog,yoshida4' && x.integrators.yoshida4.samples > 5); })()"
    )
    for system in SYSTEMS:
        leap = page.samples(system, "leapfrog")
        assert leap["t"][0] == 0.0 and len(leap["t"]) > 5
        assert all(math.isfinite(e) for e in leap["error"])
    assert "integrators=leapfrog%2Cyoshida4" in page.js("location.search")
    assert page.errors == []


# -- a rejected value says what was typed, the parameter's range and what is kept ------------
def _range_text(p):
    """A declared parameter's range as the page words it: its bounds from the core."""
    return f"{p.min:g}–{p.max:g}"


def test_typed_values_out_of_range_or_empty_are_rejected_in_words(shared_page):
    from integrator_lab.core import SYSTEMS as DECLARED

    balls = next(p for p in DECLARED["cradle"].PARAMS if p.name == "balls")
    length = next(p for p in DECLARED["pendulum"].PARAMS if p.name == "length")
    page = shared_page()
    page.wait_live()
    page.wait("window.integratorLab.status().systems.cradle.simTime > 0.5")

    def type_into(label, nth, text):
        box = page.page.get_by_label(label, exact=True).nth(nth)
        box.fill(text)
        box.press("Enter")
        return box

    def last_message(starting):
        page.wait(
            f"[...document.querySelectorAll('#il-messages li,"
            " .il-panel-note:not([hidden])')].some((li) =>"
            f" li.textContent.startsWith({starting!r}))",
        )
        return [m for m in page.messages() if m.startswith(starting)][-1]

    kept = balls.default
    # the fields and the messages call a parameter what the core declares (Param.title, label)
    balls_name, length_name = f"{balls.label} {balls.symbol}", f"{length.label} {length.symbol}"
    box = type_into(balls.title, 0, str(balls.max + 30))
    assert last_message(f"Newton's cradle, {balls_name}: ") == (
        f"Newton's cradle, {balls_name}: {balls.max + 30} is outside {_range_text(balls)}; "
        f"kept {kept}."
    )
    assert box.input_value() == str(kept)  # the field shows what runs
    note = page.page.locator("#il-note-cradle")  # and under the fields, where the eyes are
    assert note.is_visible() and note.inner_text() == page.messages()[-1]

    box = type_into(balls.title, 0, "")
    assert last_message(f"Newton's cradle, {balls_name}: empty") == (
        f"Newton's cradle, {balls_name}: empty; expected a whole number from {balls.min} to "
        f"{balls.max}; kept {kept}."
    )
    assert box.input_value() == str(kept)

    # an open bound: the bound itself is refused, and the message says so
    type_into(length.title, 0, f"{length.min:g}")
    text = last_message(f"Pendulum, {length_name}: ")
    assert text == (
        f"Pendulum, {length_name}: {length.min:g} is outside {_range_text(length)} m "
        f"({length.min:g} excluded); kept {length.default:g} m."
    )

    # the time step, whose range is the worker's
    type_into("time step dt (s)", SYSTEMS.index("spring"), "0.9")
    assert last_message("Damped spring, time step dt: ").startswith(
        "Damped spring, time step dt: 0.9 is outside "
    )

    # nothing was restarted: the run goes on with the previous values
    state = page.js("window.integratorLab.state()")
    assert state["params"]["cradle"]["balls"] == kept
    assert state["params"]["pendulum"]["length"] == length.default
    before = page.sim_time("cradle")
    assert before > 0.5
    page.wait(f"window.integratorLab.status().systems.cradle.simTime > {before + 0.3}")
    assert not [m for m in page.messages() if "None" in m or "null" in m]
    # a value in range is taken
    type_into(balls.title, 0, "3")
    page.wait(
        "window.integratorLab.model('cradle:scene:bodies').data.x.length === "
        f"3 * {len(DEFAULT_INTEGRATORS)}"
    )
    assert page.errors == []


def test_settings_the_core_refuses_keep_the_running_simulation(shared_page):
    # lifted 7 is within its own declared range but more than the 5 balls: the worker's
    # core refuses it; as on the Panel server (views.live.Live), the cradle goes on as it was
    page = shared_page("?systems=cradle")
    page.wait_live()
    page.wait("window.integratorLab.status().systems.cradle.simTime > 0.5")
    lifted = next(p for p in DECLARED_SYSTEMS["cradle"].PARAMS if p.name == "lifted")
    box = page.page.get_by_label(lifted.title, exact=True).nth(0)
    box.fill("7")
    box.press("Enter")
    page.wait(
        "[...document.querySelectorAll('#il-messages li,"
        " .il-panel-note:not([hidden])')].some((li) =>"
        " li.textContent.endsWith('kept the settings in force.'))",
    )
    (text,) = [m for m in page.messages() if m.endswith("kept the settings in force.")]
    assert text.startswith("Newton's cradle: ") and "at most 'balls'" in text
    assert box.input_value() == "1"  # the field shows what runs
    assert page.js("window.integratorLab.state()")["params"]["cradle"]["lifted"] == 1
    # not restarted: the clock goes on from where it was
    t0 = page.sim_time("cradle")
    assert t0 > 0.5
    page.wait(f"window.integratorLab.status().systems.cradle.simTime > {t0 + 0.3}")
    assert page.errors == []


# -- fields that teach: declared labels, the time step on a log scale ----------------------
def test_parameter_fields_carry_the_declared_titles(shared_page):
    page = shared_page("?play=0")  # (a view read as it stands: no motion to pay for)
    page.wait("document.documentElement.dataset.drawn === '1'")
    for system in SYSTEMS:
        for p in DECLARED_SYSTEMS[system].PARAMS:
            title = page.js(f"window.integratorLab.model('{system}:param:{p.name}').title")
            assert title == p.title, (system, p.name)
    # a reader finds the field by what the core calls it
    theta0 = next(p for p in DECLARED_SYSTEMS["pendulum"].PARAMS if p.name == "theta0")
    assert page.page.get_by_label(theta0.title, exact=True).count() == 1
    assert page.errors == []


def test_the_fields_below_the_plots_are_drawn_just_after_the_first_paint(shared_page):
    """A panel's fields lie below its plots, out of sight when the page opens: they are drawn
    after the first paint, each in its place, and work as if drawn with the rest (the marks
    are those of the tab's boot: a shared page keeps them)."""
    page = shared_page()
    page.wait_live()
    page.wait("window.integratorLab.status().allDrawn")
    marks = page.js(
        "Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, m.startTime]))"
    )
    assert marks["il:drawn"] <= marks["il:all-drawn"]
    p = page.page
    for system in SYSTEMS:
        plots = p.locator(f"#il-panel-{system}-plots").bounding_box()
        fields = p.locator(f"#il-panel-{system}-params")
        box = fields.bounding_box()
        assert box["y"] >= plots["y"] + plots["height"] - 1, system  # below the plots
        for param in DECLARED_SYSTEMS[system].PARAMS:
            assert fields.get_by_label(param.title, exact=True).count() == 1, param.name
    # what is typed into a field drawn late is checked as in any other, at once
    balls = next(p for p in DECLARED_SYSTEMS["cradle"].PARAMS if p.name == "balls")
    field = p.get_by_label(balls.title, exact=True)
    field.fill(str(balls.max + 1))
    field.press("Enter")
    page.wait(
        "document.querySelectorAll('#il-messages li, .il-panel-note:not([hidden])').length > 0",
    )
    assert f"{balls.max + 1} is outside" in page.messages()[-1]
    assert field.input_value() == str(balls.default)
    assert page.errors == []


def _dt_state(page, system):
    return page.js(f"window.integratorLab.state().dt.{system}")


def _wait_dt(page, system, dt):
    """Until the page state and the running simulation (the worker's layout) have ``dt``."""
    page.wait(
        f"window.integratorLab.state().dt.{system} === {dt!r} && "
        f"window.integratorLab.status().systems.{system}.dt === {dt!r}",
    )


def test_times_two_and_half_change_the_running_time_step(shared_page):
    from integrator_lab.views.shared import DT_RANGE

    recommended = get_system("spring").recommended_dt
    page = shared_page("?systems=spring")
    page.wait_live()
    assert page.status()["systems"]["spring"]["dt"] == recommended
    double = page.page.get_by_role("button", name="×2", exact=True)
    half = page.page.get_by_role("button", name="÷2", exact=True)
    double.click()
    _wait_dt(page, "spring", 2 * recommended)
    assert f"spring.dt={2 * recommended:g}" in page.js("location.search")
    # two clicks in a row halve twice, however the worker's answer to the first falls
    # between them (it once put the first click's step back on the field)
    half.click()
    half.click()
    _wait_dt(page, "spring", recommended / 2)
    page.wait(f"window.integratorLab.model('spring:dt').value === {recommended / 2!r}")
    # the slider follows, on its log scale
    slider = page.js("window.integratorLab.model('spring:dt:slider').value")
    assert slider == pytest.approx(math.log10(recommended / 2), abs=1e-9)

    # at the ends of the accepted range the step stops there, and says so, naming the range
    lo, hi = DT_RANGE
    assert page.errors == []
    page = shared_page(f"?systems=spring&spring.dt={hi * 0.8:g}")
    page.wait_live()
    page.page.get_by_role("button", name="×2", exact=True).click()
    _wait_dt(page, "spring", hi)
    text = f"{lo:g}–{hi:g} s"  # written as Python writes them (%g), in every front end
    page.wait_said(
        f"(said) => said.startsWith('Damped spring, time step dt: ') && said.includes({text!r})"
    )
    # already at the end: a click says so again, of the step it would have given (the panel's
    # note shows the latest of its messages)
    page.page.get_by_role("button", name="×2", exact=True).click()
    twice = f"{2 * hi:g}"
    page.wait_said(f"(said) => said.includes({twice + ' s is outside ' + text!r})")
    assert _dt_state(page, "spring") == hi
    assert page.errors == []
    page = shared_page(f"?systems=spring&spring.dt={lo * 1.5:g}")
    page.wait_live()
    page.page.get_by_role("button", name="÷2", exact=True).click()
    _wait_dt(page, "spring", lo)
    page.wait_said(f"(said) => said.includes({text!r})")
    assert page.errors == []


def test_dragging_the_slider_sets_dt_on_a_log_scale(shared_page):
    from integrator_lab.views.shared import DT_RANGE

    lo, hi = DT_RANGE
    recommended = get_system("pendulum").recommended_dt
    page = shared_page("?systems=pendulum")
    page.wait_live()
    panel = page.page.locator('.il-panel[data-system="pendulum"]')
    # the controls above grew (lessons, legend): the slider may start below the window
    panel.locator(".noUi-base").scroll_into_view_if_needed()
    page.js(NEXT_FRAMES_JS)
    base = panel.locator(".noUi-base").bounding_box()
    handle = panel.locator(".noUi-handle").bounding_box()
    # the recommended step is marked where it lies on the log scale
    mark = page.js(
        """() => {
        const view = window.Bokeh.index.query_one(
          (v) => v.model && v.model.name === 'pendulum:dt:slider');
        const el = view.shadow_el.querySelector('.noUi-base');
        return parseFloat(getComputedStyle(el, '::after').left);
    }"""
    )
    span = math.log10(hi) - math.log10(lo)
    expected_mark = base["width"] * (math.log10(recommended) - math.log10(lo)) / span
    assert abs(mark - expected_mark) <= 1.0, (mark, expected_mark)

    # drag the handle to the middle of the track: the geometric mean of the range's ends
    page.page.mouse.move(handle["x"] + handle["width"] / 2, handle["y"] + handle["height"] / 2)
    page.page.mouse.down()
    middle = base["x"] + base["width"] / 2
    page.page.mouse.move(middle, handle["y"] + handle["height"] / 2, steps=8)
    page.page.mouse.up()
    page.wait(f"window.integratorLab.state().dt.pendulum !== {recommended!r}")
    dt = _dt_state(page, "pendulum")
    # within one slider step and one pixel of the track (a linear scale would give ~0.25 s)
    step = page.js("window.integratorLab.model('pendulum:dt:slider').step")
    tolerance = step + span / base["width"]
    assert abs(math.log10(dt) - math.log10(math.sqrt(lo * hi))) <= tolerance, dt
    _wait_dt(page, "pendulum", dt)
    page.wait(f"window.integratorLab.model('pendulum:dt').value === {dt!r}")
    assert f"pendulum.dt={dt:g}" in page.js("location.search")
    assert page.errors == []
