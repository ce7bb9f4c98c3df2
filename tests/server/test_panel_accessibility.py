"""The Panel dashboard is as usable without a mouse or without sight as the static page
(issue 29): axe-core finds no critical or serious WCAG violation in it, in English on a laptop
with the study open and in Japanese on a phone with a lesson, because its page names its
widgets with the page's own code (static/js/widgetnames.js, run there by
``integrator_lab.server.app``)."""

from __future__ import annotations

import pytest
from axe import axe_violations
from conftest import open_page

from integrator_lab.views.scenarios import SCENARIOS

pytestmark = pytest.mark.browser

#: the widget pass has run once the spinners' arrows are named (they are drawn without)
NAMED_JS = """() => {
  const walk = function* (root) {
    for (const el of root.querySelectorAll("*")) {
      if (el.shadowRoot) { yield el.shadowRoot; yield* walk(el.shadowRoot); }
    }
  };
  let arrows = 0;
  for (const root of walk(document)) {
    for (const b of root.querySelectorAll(".bk-spin-btn")) {
      if (!b.getAttribute("aria-label")) return false;
      arrows += 1;
    }
  }
  return arrows > 0;
}"""


#: every aria-label in the page, its shadow roots' included, joined by "|"
LABELS_JS = """() => { const out = [];
  const walk = (root) => { for (const el of root.querySelectorAll("*")) {
    if (el.shadowRoot) walk(el.shadowRoot);
    const label = el.getAttribute("aria-label");
    if (label) out.push(label);
  } };
  walk(document);
  return out.join("|");
}"""


#: the lesson's note (a Panel Alert: an HTML model of class il-lesson) shows a text
NOTE_SHOWN_JS = """() => [...Bokeh.documents[0].all_models].some((m) =>
  (m.css_classes || []).includes("il-lesson") && m.visible
  && typeof m.text === "string" && m.text.length > 20)"""


def _named(page) -> None:
    page.wait_for_function(NAMED_JS, timeout=60_000)


def test_axe_finds_nothing_serious_on_a_laptop_with_the_study_open(browser, server):
    page = open_page(browser, server.url, viewport=(1440, 900))
    try:
        _named(page)
        assert axe_violations(page) == []
        page.locator(".il-spring-study-open button").click()
        page.locator(".il-spring-study-run button").wait_for(state="visible")
        _named(page)
        assert axe_violations(page) == []
        assert page.errors == []
    finally:
        page.context.close()


def test_axe_finds_nothing_serious_on_a_phone_in_japanese_with_a_lesson(browser, server):
    lesson = SCENARIOS[1]
    page = open_page(browser, f"{server.url}?lang=ja&lesson={lesson.id}", viewport=(390, 844))
    try:
        _named(page)
        # the spinners' arrows in the page's language
        assert "増やす" in page.evaluate(LABELS_JS)
        # the lesson's note is shown (its colours are checked with the rest)
        assert page.evaluate(NOTE_SHOWN_JS)
        assert axe_violations(page) == []
        assert page.errors == []
    finally:
        page.context.close()
