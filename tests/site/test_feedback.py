"""Feedback where the eye is, in Chromium on the real built site: a refused value is said once,
under the panel's fields, and can be dismissed; a field that cannot be read as a number says
so ("abc", a decimal comma) instead of silently keeping part of it; pressing Study brings the
study (its progress and diagrams) into view.

The tests share one booted page (``shared_page``), booted on the spring alone (``_booted``);
a study a test opened is closed with the panel's own Live button before it ends."""

from __future__ import annotations

import pages
import pytest

from integrator_lab.core import SYSTEMS as DECLARED_SYSTEMS

site = pages.site
shared_page = pages.shared_page
shared_pages = pages.shared_pages

pytestmark = pytest.mark.browser

SPRING = "?systems=spring"


@pytest.fixture(scope="module", autouse=True)
def _booted(shared_pages):  # noqa: F811
    """The module's page, booted on the spring alone as two of its tests want it: the third
    shows the other panels in place, as a lesson does, and presses a Study button of a
    panel the boot did not show (the page built those buttons for the boot's panels only)."""
    shared_pages.open(SPRING, viewport=(1440, 900))


def _dt_input(page, system):
    # the panel's dt field (a Bokeh Spinner, inside its shadow root)
    return page.page.locator(f"#il-panel-{system}-params input").first


def _notes(page, system):
    note = page.page.locator(f"#il-note-{system}")
    return note.inner_text() if note.is_visible() else None


def test_a_typed_value_that_is_no_number_is_said_once_and_can_be_dismissed(shared_page):
    page = shared_page(SPRING, viewport=(1440, 900))
    page.wait_live()
    page.wait("window.integratorLab.status().allDrawn")
    field = _dt_input(page, "spring")
    kept = page.js("window.integratorLab.state().dt.spring")
    field.click()
    field.press("Control+a")
    field.press_sequentially("abc")
    page.wait("!document.getElementById('il-note-spring').hidden")
    text = _notes(page, "spring")
    assert '"abc" is not a number' in text and text.startswith("Damped spring, time step dt")
    assert f"kept {kept} s" in text
    # said once: under the fields, not also at the top, and not once per letter
    assert page.messages() == [text]
    assert page.js("window.integratorLab.state().dt.spring") == kept
    # dismissed with its ×
    page.page.locator("#il-note-spring .il-dismiss").click()
    assert _notes(page, "spring") is None
    assert page.messages() == []
    assert page.errors == []


def test_a_decimal_comma_is_read_as_a_point_and_said_so_never_dropped(shared_page):
    page = shared_page(SPRING, viewport=(1440, 900))
    page.wait_live()
    page.wait("window.integratorLab.status().allDrawn")
    field = _dt_input(page, "spring")
    kept = page.js("window.integratorLab.state().dt.spring")
    field.click()
    field.press("Control+a")
    field.press_sequentially("0,05")
    page.wait("!document.getElementById('il-note-spring').hidden")
    text = _notes(page, "spring")
    assert text.startswith("Damped spring, time step dt: the decimal comma is read as a point")
    # 0.05, never "005"
    assert field.input_value() == "0.05"
    field.press("Enter")
    page.wait("window.integratorLab.state().dt.spring === 0.05")
    assert kept != 0.05
    assert page.messages() == [text]
    assert page.errors == []


def test_pressing_study_brings_its_progress_and_diagrams_into_view(shared_page):
    page = shared_page("?systems=pendulum,cradle,spring", viewport=(1440, 900))
    page.wait_live()
    page.js("window.scrollTo(0, 0)")  # the first screen (a shared page may be scrolled)
    page.js(pages.NEXT_FRAMES_JS)
    assert page.js("window.scrollY") == 0
    page.page.locator("#il-study-cradle-study").click()
    page.wait("window.integratorLab.study('cradle').drawn")
    page.wait("window.integratorLab.study('cradle').points > 0", timeout=120_000)
    box = page.js(
        """() => {
        const r = (id) => document.getElementById(id).getBoundingClientRect();
        const diagram = document.querySelector('#il-study-cradle .il-study-diagram');
        const d = diagram.getBoundingClientRect();
        return {progress: r('il-study-cradle-progress'), diagram: {top: d.top, bottom: d.bottom,
                height: d.height}, inner: window.innerHeight};
    }"""
    )
    # the progress bar is on screen, and so is (most of) the first diagram
    assert 0 <= box["progress"]["top"] < box["inner"]
    visible = min(box["diagram"]["bottom"], box["inner"]) - max(box["diagram"]["top"], 0)
    assert visible >= 0.5 * box["diagram"]["height"], box
    page.page.screenshot(path=str(pages.ARTIFACTS / "study-in-view.png"))
    assert DECLARED_SYSTEMS["cradle"].title
    assert page.errors == []
    # back to the live view with the panel's own button: the study stops, out of the link
    page.page.locator("#il-study-cradle-live").click()
    page.wait("!window.integratorLab.study('cradle').open")
    assert not page.js("window.integratorLab.study('cradle').running")
    assert "study=" not in page.js("location.search")
