"""The static page's controls and its URL state, in a real browser (the built site, served
on 127.0.0.1, in headless Chromium; the page wrapper and its fixtures: tests/site/pages.py):
play, pause, step and reset drive the worker, the integrator and system pickers, a link
that reproduces the state, and hostile or unknown query values shown as text, never run.
The tests share one booted page, reset to each test's view through the page's own API
(``shared_page``): a link's state, hostile values included, is read by the same code
whether the page boots on it or applies it in place (static/js/urlstate.js stateFromQuery).
"""

# ruff: noqa: F811 - the tests take the page fixtures imported from pages by name
from __future__ import annotations

import time
from urllib.parse import quote, urlsplit

import pytest
from pages import ARTIFACTS, SYSTEMS, shared_page, shared_pages, site  # noqa: F401

from integrator_lab.core import DEFAULT_INTEGRATORS
from integrator_lab.core import SYSTEMS as DECLARED_SYSTEMS

pytestmark = pytest.mark.browser


def test_page_streams_every_default_integrator_with_no_error_and_no_foreign_request(
    shared_page,
):
    page = shared_page()
    page.wait("document.documentElement.dataset.drawn === '1'")
    page.wait_live()
    page.wait_samples(30)
    status = page.status()
    assert status["ready"]
    for system in SYSTEMS:
        entry = status["systems"][system]
        assert set(entry["integrators"]) == set(DEFAULT_INTEGRATORS)
        assert entry["simTime"] > 0.4
        # at the recommended step, the dt field just says what it is
        assert page.js(f"window.integratorLab.model('{system}:dt').title") == "time step dt (s)"
    # the loading veils are gone, the real-time factor is measured
    assert page.page.locator(".il-loading:visible").count() == 0
    page.wait(
        "Object.values(window.integratorLab.status().systems)"
        ".every((s) => s.realTimeFactor !== null)"
    )
    ARTIFACTS.mkdir(exist_ok=True)
    page.page.screenshot(path=str(ARTIFACTS / "static_dashboard.png"), full_page=True)
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(page.site["url"]))
    # every request of the tab, from its boot on (whichever test booted it)
    foreign = [url for url in page.tab_requests if not url.startswith(origin + "/")]
    assert foreign == []
    assert page.errors == []


def test_pause_step_reset_and_play_drive_the_worker(shared_page):
    page = shared_page()
    page.wait_live()
    page.wait_samples(5)
    page.page.get_by_role("button", name="Pause").click()
    page.wait("!window.integratorLab.status().running")
    page.settle()  # a frame in flight has landed
    paused = {s: page.sim_time(s) for s in SYSTEMS}
    time.sleep(1.0)  # the behaviour: paused, nothing moves over a while
    assert {s: page.sim_time(s) for s in SYSTEMS} == paused

    # one step is one time step of every system
    page.page.get_by_role("button", name="Step").click()
    page.wait(f"window.integratorLab.status().systems.pendulum.simTime > {paused['pendulum']}")
    page.settle()
    for system in SYSTEMS:
        dt = page.js(f"window.integratorLab.state().dt.{system}")
        assert page.sim_time(system) == pytest.approx(paused[system] + dt, abs=1e-9)

    page.page.get_by_role("button", name="Reset").click()
    page.wait("Object.values(window.integratorLab.status().systems).every((s) => s.simTime === 0)")
    page.settle()
    for system in SYSTEMS:
        assert page.sim_time(system) == 0
        assert page.samples(system, "rk4")["t"] == [0.0]  # only the initial state is left

    page.page.get_by_role("button", name="Play").click()
    page.wait("Object.values(window.integratorLab.status().systems).every((s) => s.simTime > 0.3)")
    assert page.errors == []


NULL_ATTRIBUTES_JS = """(() => {
    // attributes that read "null" or "undefined" (a value set from nothing), shadow roots too
    const found = [];
    const walk = (root) => {
      for (const el of root.querySelectorAll("*")) {
        for (const name of el.getAttributeNames()) {
          const value = el.getAttribute(name);
          if (value === "null" || value === "undefined") found.push(`${el.tagName} ${name}`);
        }
        if (el.shadowRoot) walk(el.shadowRoot);
      }
    };
    walk(document);
    return found;
})()"""


def test_the_integrator_picker_is_named_and_adds_what_is_typed(shared_page):
    page = shared_page("?systems=spring")
    page.wait_live()
    assert page.js(NULL_ATTRIBUTES_JS) == []
    # its input says what it is for (screen readers read its label), and typing a name adds it
    picker = page.page.get_by_label("add an integrator…")
    picker.click()
    picker.press_sequentially("yoshida", delay=30)  # as typed: the list filters on keys
    picker.press("Enter")
    page.wait("window.integratorLab.state().integrators.includes('yoshida4')")
    page.wait(
        "(window.integratorLab.status().systems.spring.integrators.yoshida4 || {}).samples > 3"
    )
    assert page.errors == []


def test_url_state_round_trips(shared_page, site):
    query = (
        "?integrators=leapfrog,yoshida4&speed=2&energy=breakdown&log=0&phase=1&exact=0"
        "&pendulum.theta0=0.7&cradle.balls=3&spring.dt=0.005&play=0"
    )
    page = shared_page(query)
    page.wait_live()
    state = page.js("window.integratorLab.state()")
    assert state["integrators"] == ["leapfrog", "yoshida4"]
    assert state["speed"] == 2 and state["energy"] == "breakdown"
    assert (state["log"], state["phase"], state["exact"], state["playing"]) == (
        False,
        True,
        False,
        False,
    )
    assert state["params"]["pendulum"]["theta0"] == 0.7
    assert state["params"]["cradle"]["balls"] == 3
    assert state["dt"]["spring"] == 0.005
    # the widgets show it, and the worker computes it
    assert page.js("window.integratorLab.model('controls:speed').value") == 2
    assert page.js("window.integratorLab.model('cradle:param:balls').value") == 3
    assert page.js("window.integratorLab.model('controls:energy_mode').active") == 1
    assert page.js("window.integratorLab.model('pendulum:phase').visible") is True
    assert page.samples("pendulum", "leapfrog")["q"][0] == 0.7
    assert page.js("window.integratorLab.model('cradle:scene:bodies').data.x.length") == 6
    assert page.status()["running"] is False
    # the link reproduces the state (from the default view, the link's query applied)
    link = page.js("window.integratorLab.link()")
    assert page.errors == []
    shared_page()
    again = shared_page("?" + urlsplit(link).query)
    again.wait_live()
    assert again.js("window.integratorLab.state()") == state
    # a widget change lands in the URL; "copy link" puts the link on the clipboard
    again.set_model("controls:speed", "value", 0.5)
    assert "speed=0.5" in again.js("location.search")
    assert again.errors == []
    clip = shared_page(query)
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(site["url"]))
    # granted to the site in the tab's profile for this test alone (the process keeps the
    # profile for other modules' tabs)
    clip.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=origin)
    try:
        clip.page.get_by_role("button", name="Copy link").click()
        clip.wait_said("(said) => said.includes('copied')")
        assert clip.js("navigator.clipboard.readText()") == clip.js("window.integratorLab.link()")
    finally:
        clip.context.clear_permissions()


HOSTILE = {
    "integrators": "euler,<script>window.__pwned=1</script>",
    "pendulum.theta0": '<img src=x onerror="window.__pwned=2">',
    "speed": "NaN",
    "cradle.balls": "99",
    "pendulum.model": "quantum",
    "spring.dt": "-1",
    "log": "yes",
    "<b>bold</b>": "1",
    "cradle.nonsense": "3",
    "cradle.lifted": "7",  # accepted alone, but more than the 5 balls: the core says no
}


def test_invalid_and_hostile_query_values_are_reported_and_never_executed(shared_page):
    query = "?" + "&".join(f"{quote(k)}={quote(v)}" for k, v in HOSTILE.items())
    # applied over the default view: its integrators are not the link's, so the worker starts
    # the refused cradle from its defaults, as a page booting on the link does (over a run of
    # the link's integrators it would keep that run's settings: views.live.Live.configure)
    shared_page()
    page = shared_page(query)
    page.wait_live()
    page.wait(
        "[...document.querySelectorAll('#il-messages li, .il-panel-note:not([hidden])')]"
        ".some((li) => li.textContent.includes(\"at most 'balls'\"))"
    )
    messages = "\n".join(page.messages())
    for key in (
        "integrators",
        "pendulum.theta0",
        "speed",
        "cradle.balls",
        "pendulum.model",
        "spring.dt",
        "log",
        "<b>bold</b>",
        "nonsense",
    ):
        assert key in messages, key
    assert "<script>" in messages and "onerror" in messages  # shown as text
    assert page.js("window.__pwned") is None
    assert (
        page.js("document.querySelectorAll('#il-messages *:not(li):not(.il-dismiss)').length") == 0
    )
    assert page.js("document.querySelectorAll('img, script:not([src]):not([type])').length") == 0
    state = page.js("window.integratorLab.state()")
    assert state["integrators"] == ["euler"]
    assert state["speed"] == 1 and state["log"] is False  # the default: the linear view
    assert state["params"]["pendulum"]["theta0"] == 1.0
    assert state["params"]["pendulum"]["model"] == "nonlinear"
    assert state["params"]["cradle"]["balls"] == 5 and state["params"]["cradle"]["lifted"] == 1
    assert state["dt"]["spring"] == 0.01
    page.wait_samples(5)
    assert [e for e in page.errors if "pwned" in e] == []


def test_a_view_refused_over_its_own_run_is_applied_in_place(shared_page):
    """Over a run of the view's own integrators the worker keeps the run in force and says why
    (views.live.Live.configure): ``integratorLab.apply`` resolves all the same (it waited for a
    new run that never came), and the settings shown are the run's."""
    page = shared_page("?systems=cradle&integrators=euler")
    page.js(
        "(q) => window.integratorLab.apply(q)", "?systems=cradle&integrators=euler&cradle.lifted=7"
    )
    page.wait_said("(text) => text.includes(\"at most 'balls'\")")
    assert page.js("window.integratorLab.state()")["params"]["cradle"]["lifted"] == 1


def test_prototype_names_in_the_link_are_unknown_settings(shared_page):
    keys = (
        "__proto__",
        "constructor",
        "toString",
        "hasOwnProperty",
        "pendulum.__proto__",
        "pendulum.constructor",
    )
    clean = shared_page("?log=0&play=0")  # (views read as they stand: no motion to pay for)
    clean.wait("document.documentElement.dataset.drawn === '1'")
    clean_state = clean.js("window.integratorLab.state()")
    page = shared_page("?" + "&".join(f"{quote(k)}=1" for k in keys) + "&log=0&play=0")
    page.wait("document.documentElement.dataset.drawn === '1'")
    state = page.js("window.integratorLab.state()")
    assert state == clean_state  # no key more, no value other
    assert state["log"] is False  # the page's own keys still count
    messages = page.messages()
    for key in keys:
        assert any(f'"{key}"' in m and "ignored" in m for m in messages), key
    assert page.js("({}).playing === undefined && Object.prototype.toString.length === 0")
    assert "__proto__" not in page.js("location.search")
    assert page.errors == []


def test_panels_follow_the_order_of_systems_and_the_picker(shared_page):
    page = shared_page("?systems=spring,pendulum")
    page.wait_live()

    def box(system):
        return page.page.locator(f'.il-panel[data-system="{system}"]').bounding_box()

    spring, pendulum = box("spring"), box("pendulum")
    assert (spring["y"], spring["x"]) < (pendulum["y"], pendulum["x"])  # spring first
    picker = page.page.locator("#il-control-systems")
    assert picker.get_by_role("button").all_inner_texts() == [
        DECLARED_SYSTEMS[s].title for s in SYSTEMS
    ]
    # untick the spring: its panel goes, the URL says so
    picker.get_by_role("button", name=DECLARED_SYSTEMS["spring"].title).click()
    page.wait("document.querySelector('.il-panel[data-system=\"spring\"]').hidden")
    page.wait("new URLSearchParams(location.search).get('systems') === 'pendulum'")
    assert list(page.status()["systems"]) == ["pendulum"]
    # the last one cannot go: a message says why
    picker.get_by_role("button", name=DECLARED_SYSTEMS["pendulum"].title).click()
    page.wait(
        "[...document.querySelectorAll('#il-messages li,"
        " .il-panel-note:not([hidden])')].some((li) =>"
        " li.textContent === 'Choose at least one system.')",
    )
    assert page.js("window.integratorLab.state().systems") == ["pendulum"]
    # ticking the spring again brings it back, last, and running
    picker.get_by_role("button", name=DECLARED_SYSTEMS["spring"].title).click()
    page.wait("new URLSearchParams(location.search).get('systems') === 'pendulum,spring'")
    page.wait("window.integratorLab.status().systems.spring.simTime > 0.3")
    assert page.page.locator('.il-panel[data-system="spring"]').is_visible()
    spring, pendulum = box("spring"), box("pendulum")
    assert (pendulum["y"], pendulum["x"]) < (spring["y"], spring["x"])
    # and the default view (all three, in order) drops the query key again
    picker.get_by_role("button", name=DECLARED_SYSTEMS["cradle"].title).click()
    page.wait("window.integratorLab.status().systems.cradle?.simTime > 0.2")
    assert page.js("window.integratorLab.state().systems") == ["pendulum", "spring", "cradle"]
    assert page.errors == []
