"""The Lessons menu of the static page, in Chromium on the real built site: every lesson
(integrator_lab.views.scenarios) loads its view with no message, goes live and shows its
note, sets the energy view its note speaks of (the log view for ``log=1``, else the linear
one), links to the Panel dashboard's view and shows nothing axe-core calls critical or
serious; the claims of a note (the sign and size of a named integrator's energy error at the
time the note names, or its divergence) hold on the samples the page plots, and Replay starts
the lesson again from t = 0. Choosing a lesson from the menu updates the URL; closing the
note drops it from the URL.

The browser walks the lessons in place on one booted page (``shared_page``, pages.py: each
lesson's link applied as the menu applies it). Every lesson's claims are checked in-process on
the numbers the page's worker code plots (tests/views/test_lesson_claims.py); here one lesson's
claims, on two systems and of every kind, are checked end to end in the browser."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pages
import pytest
from axe import axe_violations

from integrator_lab.views.scenarios import SCENARIOS, claim_holds, claim_value, link

# the page tests' fixtures: the built site, served, and the module's booted tab on it
site = pages.site
shared_pages = pages.shared_pages
shared_page = pages.shared_page
#: the lesson whose claims the browser checks end to end: its note claims an error's sign and
#: size, a bound and a divergence, on two systems
END_TO_END = "euler-blows-up"


def _query(page):
    return parse_qs(urlsplit(page.page.url).query)


def _check_state(page, scenario):
    """The page state holds what the lesson's query says."""
    settings = scenario.settings()
    state = page.js("window.integratorLab.state()")
    assert state["lesson"] == scenario.id
    assert state["systems"] == settings["systems"]
    assert state["integrators"] == settings["integrators"]
    for system, dt in settings["dt"].items():
        assert state["dt"][system] == dt
    for system, params in settings["params"].items():
        for name, value in params.items():
            assert state["params"][system][name] == value
    if "speed" in settings:
        assert state["speed"] == settings["speed"]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_each_lesson_loads_without_a_message_goes_live_and_shows_its_note_and_view(
    shared_page, scenario
):
    page = shared_page(link(scenario), viewport=(1440, 900))
    page.wait_live()
    page.wait_samples(2, scenario.settings()["systems"])
    note = page.page.locator("#il-lesson")
    assert note.is_visible()
    text = note.inner_text()
    assert scenario.title in text
    # the note's text, with `code` shown as code (no backquotes left)
    assert scenario.look_for.replace("`", "") in text
    _check_state(page, scenario)
    assert page.messages() == []
    assert page.page.locator(".il-alert:visible").count() == 0
    assert page.errors == []
    status = page.status()
    assert status["error"] is None
    assert all(status["systems"][s]["error"] is None for s in scenario.settings()["systems"])
    # the energy view its note speaks of, on every system it makes a claim about
    mode = "log" if scenario.settings().get("log") else "linear"
    for system in {claim.system for claim in scenario.claims}:
        assert status["systems"][system]["energy"]["mode"] == mode, system
    # and nothing in its view that axe-core calls critical or serious (issue 29)
    page.wait("window.integratorLab.status().allDrawn")
    page.js("window.integratorLabA11y.fixWidgets()")
    assert axe_violations(page.page) == []


def test_a_lessons_claims_hold_on_the_plotted_samples_and_replay_starts_it_again(shared_page):
    lesson = next(s for s in SCENARIOS if s.id == END_TO_END)
    assert "speed" not in lesson.settings()  # (its own speed would be overridden here)
    # at four times real time: the claims are about the first 7.5 s of simulated time (the
    # samples are the time step's, whatever the speed)
    page = shared_page(link(lesson) + "&speed=4", viewport=(1440, 900))
    page.wait_live()
    _claims_hold_then_replay(page, lesson)


def _claims_hold_then_replay(page, lesson):
    settings = lesson.settings()
    mode = "log" if settings.get("log") else "linear"
    until = {}
    for claim in lesson.claims:
        until[claim.system] = max(until.get(claim.system, 0.0), claim.t)
    for system, t in until.items():
        page.wait(
            f"window.integratorLab.status().systems['{system}'].simTime >= {t}", timeout=240_000
        )
    status = page.status()["systems"]
    for system in until:
        assert status[system]["energy"]["mode"] == mode
    for claim in lesson.claims:
        if claim.kind == "diverged":
            at = status[claim.system]["integrators"][claim.integrator]["divergedAt"]
            assert at is not None and at <= claim.t, claim
            continue
        samples = page.samples(claim.system, claim.integrator)
        value = claim_value(claim, samples["t"], samples["error"])
        assert claim_holds(claim, value), (claim, value)
    # Replay: the lesson again from t = 0
    system = next(iter(until))
    before = page.status()["systems"][system]["simTime"]
    page.page.locator(".il-lesson-replay").click()
    page.wait(f"window.integratorLab.status().systems['{system}'].simTime < {before}")
    assert page.js("window.integratorLab.state().lesson") == lesson.id
    assert page.errors == []


def test_the_menu_loads_a_lesson_and_the_url_follows(shared_page):
    page = shared_page()
    page.wait_live()
    assert page.page.locator("#il-lesson").count() == 0  # no lesson, no note
    links = page.page.locator("#il-lessons a")
    assert not links.first.is_visible()  # closed
    page.page.locator("#il-lessons summary").click()
    assert links.count() == len(SCENARIOS)
    assert links.all_inner_texts() == [s.title for s in SCENARIOS]
    chosen = SCENARIOS[2]
    page.page.get_by_role("link", name=chosen.title).click()
    page.page.wait_for_url(lambda url: "lesson=" in url)
    page.wait_live()
    assert _query(page)["lesson"] == [chosen.id]
    assert page.page.locator("#il-lesson").is_visible()
    _check_state(page, chosen)
    # the current lesson is marked in the menu
    page.page.locator("#il-lessons summary").click()
    current = page.page.locator("#il-lessons a[aria-current]")
    assert current.inner_text() == chosen.title
    page.page.keyboard.press("Escape")
    assert not current.is_visible()
    # closing the note drops the lesson from the URL, and keeps its view
    page.page.locator(".il-lesson-close").click()
    assert page.page.locator("#il-lesson").count() == 0
    query = _query(page)
    assert "lesson" not in query
    assert query["integrators"] == [",".join(chosen.settings()["integrators"])]
    assert page.messages() == []
    assert page.errors == []


def test_an_unknown_lesson_is_reported_and_the_page_goes_on(shared_page):
    page = shared_page("?lesson=nope")
    page.wait_live()
    messages = page.messages()
    assert len(messages) == 1 and '"lesson"' in messages[0] and SCENARIOS[0].id in messages[0]
    assert page.page.locator("#il-lesson").count() == 0
    assert page.errors == []


def test_a_lesson_from_the_menu_applies_in_place_and_back_returns(shared_page):
    page = shared_page()
    page.wait_live()
    before = page.js("window.integratorLab.state()")
    restarts = page.status().get("restarts")  # workers the page replaced so far
    # a reload (or a new worker) would lose both
    page.js("window.lessonMark = 42")
    worker = page.js("() => { window.workerMark = window.integratorLabEarly.worker; return 1; }")
    assert worker == 1
    chosen = next(s for s in SCENARIOS if s.id == "rk4-loses")
    settings = chosen.settings()
    page.page.locator("#il-lessons summary").click()
    page.page.get_by_role("link", name=chosen.title).click()
    page.page.wait_for_url(lambda url: "lesson=" in url)
    assert _query(page)["lesson"] == [chosen.id]
    assert page.page.locator("#il-lesson").is_visible()
    assert chosen.title in page.page.locator("#il-lesson").inner_text()
    _check_state(page, chosen)
    # only the lesson's systems are shown, and they run its settings from t = 0: the spring's
    # samples are dt apart (the lesson's dt), for the lesson's integrators only
    for system in ("pendulum", "cradle", "spring"):
        hidden = page.js(f"document.querySelector('.il-panel[data-system={system}]').hidden")
        assert hidden == (system not in settings["systems"]), system
    dt = settings["dt"]["spring"]
    page.wait(f"""(() => {{
        const s = window.integratorLab.samples("spring", "rk4");
        return s.t.length >= 3 && s.t[0] === 0 && Math.abs(s.t[1] - {dt}) < 1e-12;
    }})()""")
    status = page.status()
    assert sorted(status["systems"]["spring"]["integrators"]) == sorted(settings["integrators"])
    assert page.js("window.lessonMark") == 42
    assert page.js("window.workerMark === window.integratorLabEarly.worker")
    assert status.get("restarts") == restarts  # the same worker throughout
    # Back: the view before, in place again, without the note
    page.page.go_back()
    page.page.wait_for_url(lambda url: "lesson=" not in url)
    page.wait("window.integratorLab.state().lesson === null")
    assert page.page.locator("#il-lesson").count() == 0
    after = page.js("window.integratorLab.state()")
    assert after["systems"] == before["systems"]
    assert after["integrators"] == before["integrators"]
    assert after["dt"] == before["dt"]
    page.wait_samples(2)
    assert page.js("window.lessonMark") == 42
    assert page.messages() == []
    assert page.errors == []
