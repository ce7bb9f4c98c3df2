"""The page embedded in an <iframe> (``embed=1``, what the Sphinx directive shows): its first
paint already follows the URL, compact time-step and integrator controls, a link to the same
view in the full lab, and a pause while the frame is scrolled out of view (issue 14).

Browser checks run the real built page in Chromium (the ``site`` fixture of pages.py). The
tests of an embed share one page booted as an embed (``shared_page``, every query with
``embed=1``: an embed is one from its boot), reset to each test's view and window size; the
first paint and a host page with two embeds are pages of their own.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pages
import pytest
from pages import BOOT_TIMEOUT_MS, open_page, shared_page, shared_pages, site  # noqa: F401 - fixtures

from integrator_lab.views.scenarios import SCENARIOS

pytestmark = pytest.mark.browser


def embed(shared_page, query, viewport):  # noqa: F811
    """The module's embed (``booted_as``: an embed is one from its boot; every query says
    ``embed=1`` again), reset to ``query`` at ``viewport``."""
    assert "embed=1" in query
    return shared_page(query, viewport=viewport, booted_as="embed")


# Records, at every animation frame from the very first one, what is visible: which panels,
# whether the page header is, and which integrators the scene of each visible panel draws
# (bodies with a finite position), with the dt field's and slider's values.
PROBE = """
window.__ilFrames = [];
(function probe() {
  const shown = (el) => !!el && el.checkVisibility({ visibilityProperty: true });
  const record = { panels: [], header: false, bodies: {} };
  if (document.body) {
    record.header = shown(document.querySelector(".il-top"));
    for (const panel of document.querySelectorAll(".il-panel")) {
      const system = panel.dataset.system;
      const body = document.getElementById(`il-panel-${system}-scene`);
      if (!shown(panel)) continue;
      record.panels.push(system);
      if (!shown(body) || !window.Bokeh || !Bokeh.documents.length) continue;
      let source = null;
      for (const doc of Bokeh.documents) {
        source = source || doc.get_model_by_name(`${system}:scene:bodies`);
      }
      if (!source) continue;
      // the time-step row sits beside an embed's animation: drawn with it
      record.fields = record.fields || {};
      record.fields[system] =
        document.getElementById(`il-panel-${system}-params`).childElementCount > 0;
      const names = source.data.integrator || [];
      const xs = source.data.x || [];
      record.bodies[system] = [...new Set(
        Array.from(names).filter((_, i) => Number.isFinite(xs[i])))];
    }
  }
  window.__ilFrames.push(record);
  requestAnimationFrame(probe);
})();
"""


def test_the_first_paint_of_an_embed_already_shows_the_urls_view(open_page, shared_pages):  # noqa: F811
    # a page of its own: its subject is the boot (what is drawn from the first frame on)
    shared_pages.pause()  # (the module's embed, if booted, waits meanwhile)
    wanted = ["rk4", "implicit-euler"]
    page = open_page(defer=True, viewport=(700, 420))
    page.page.add_init_script(PROBE)
    page.query = f"?embed=1&systems=pendulum&integrators={','.join(wanted)}&pendulum.theta0=2.5"
    page.go()
    page.wait_live()
    page.wait("window.integratorLab.status().systems.pendulum.simTime > 0.3")
    frames = page.js("window.__ilFrames")
    with_panel = [f for f in frames if f["panels"]]
    drawn = [f for f in with_panel if "pendulum" in f["bodies"]]
    assert len(drawn) > 5  # the probe saw the demo, from its first frames on
    for frame in frames:
        assert frame["panels"] in ([], ["pendulum"]), frame  # cradle, spring: never
        assert frame["header"] is False, frame  # an embed never shows the page's header
    for frame in drawn:
        assert frame["fields"]["pendulum"], frame  # its time-step row from the first paint
        # never the build-time default integrators: the URL's ones, or none (before Python)
        assert set(frame["bodies"]["pendulum"]) <= set(wanted), frame
    assert sorted(drawn[-1]["bodies"]["pendulum"]) == sorted(wanted)
    assert page.errors == []


def test_an_embed_has_a_compact_time_step_slider_and_integrator_toggles(shared_page):  # noqa: F811
    width, height = 700, 420
    page = embed(
        shared_page, "?embed=1&systems=spring&integrators=euler,rk4", viewport=(width, height)
    )
    page.wait_live()
    p = page.page
    # the time-step row (slider, ÷2, ×2) is in view; the other fields are the full lab's
    for role in ("dt:slider", "dt:half", "dt:double"):
        assert page.js(f"window.integratorLab.model('spring:{role}').visible") is True
    row = p.locator("#il-panel-spring-params").bounding_box()
    assert row["y"] + row["height"] <= height and row["x"] + row["width"] <= width
    assert page.js("window.integratorLab.model('spring:param:stiffness').visible") is False
    assert page.js("window.integratorLab.model('spring:dt').visible") is False
    dt = page.status()["systems"]["spring"]["dt"]
    p.locator("#il-panel-spring-params button", has_text="÷2").click()
    page.wait(f"window.integratorLab.status().systems.spring.dt === {dt / 2}")
    # the legend's chips toggle an integrator, small, in view
    chips = p.locator("#il-legend .il-chip")
    assert chips.count() == 2
    for k in range(2):
        box = chips.nth(k).bounding_box()
        assert box["height"] <= 26 and box["y"] + box["height"] <= height
    chips.filter(has_text="euler ·").first.click()
    assert page.js("window.integratorLab.state().hidden") == ["euler"]
    assert page.errors == []


def test_the_open_link_opens_the_same_view_in_the_full_lab(shared_page):  # noqa: F811
    query = "?embed=1&systems=cradle&integrators=rk4,euler&cradle.balls=3&cradle.dt=0.0005"
    page = embed(shared_page, query, viewport=(700, 420))
    page.wait("document.documentElement.dataset.drawn === '1'")
    link = page.page.locator("#il-open")
    assert link.is_visible() and link.inner_text().startswith("Open in Integrator Lab")
    assert link.get_attribute("target") == "_blank"
    href = link.get_attribute("href")
    assert href.startswith("index.html?")  # relative to the embedded site
    state = parse_qs(urlsplit(href).query)
    assert "embed" not in state
    expected = parse_qs(query[1:])
    del expected["embed"]
    assert state == expected
    # the link follows a change made in the embed
    page.page.locator("#il-legend .il-chip", has_text="euler ·").click()
    assert parse_qs(urlsplit(link.get_attribute("href")).query)["hide"] == ["euler"]
    with page.context.expect_page() as opened:
        link.click()
    lab = opened.value
    lab.wait_for_function("document.documentElement.dataset.drawn === '1'")
    assert parse_qs(urlsplit(lab.url).query) == dict(expected, hide=["euler"])
    assert lab.locator(".il-top").is_visible()  # the full lab, not an embed
    assert lab.evaluate("window.integratorLab.state().embed") is False
    # the full page shows no such link
    assert not lab.locator("#il-open").is_visible()
    lab.close()  # (the embed's page stays for the next test)
    assert page.errors == []


HOST = """<!doctype html><meta charset="utf-8"><body style="margin:0">
<iframe id="a" src="index.html?embed=1&systems=spring" width="700" height="420"></iframe>
<div style="height:3000px"></div>
<iframe id="b" src="index.html?embed=1&systems=spring" width="700" height="420"></iframe>
</body>"""


def test_a_demo_scrolled_out_of_view_pauses_and_resumes_in_view(open_page, shared_pages, site):  # noqa: F811
    # a page of its own: a host page with two embeds, each booted in its frame
    shared_pages.pause()  # (the module's embed, if booted, waits meanwhile)
    Path(site["dir"], "two-demos.html").write_text(HOST, encoding="utf-8")
    page = open_page("two-demos.html", viewport=(900, 700))
    p = page.page
    a, b = (p.locator(f"#{k}").element_handle().content_frame() for k in "ab")
    for frame in (a, b):
        frame.wait_for_function(
            "window.integratorLab && window.integratorLab.status().ready", timeout=BOOT_TIMEOUT_MS
        )

    def sim_times():
        return [f.evaluate("window.integratorLab.status().systems.spring.simTime") for f in (a, b)]

    def running():
        return [f.evaluate("window.integratorLab.status().running") for f in (a, b)]

    before = sim_times()
    # in view: it runs (the time it takes to go 0.5 s on is the window the other is watched)
    a.wait_for_function(
        f"window.integratorLab.status().systems.spring.simTime > {before[0] + 0.5}",
        timeout=BOOT_TIMEOUT_MS,
    )
    after = sim_times()
    assert after[1] == before[1]  # out of view: it does not step
    assert running() == [True, False]
    assert "paused" in b.locator("#il-status-spring").inner_text()
    # scrolled into view, it resumes, and the first one, now out of view, pauses
    p.locator("#b").scroll_into_view_if_needed()
    b.wait_for_function("window.integratorLab.status().running", timeout=BOOT_TIMEOUT_MS)
    a.wait_for_function("!window.integratorLab.status().running", timeout=BOOT_TIMEOUT_MS)
    a.evaluate(pages.SETTLE_JS)  # a frame the first one had in flight has landed
    before = sim_times()
    b.wait_for_function(
        f"window.integratorLab.status().systems.spring.simTime > {before[1] + 0.5}",
        timeout=BOOT_TIMEOUT_MS,
    )
    after = sim_times()
    assert after[0] == before[0]
    assert running() == [False, True]
    assert page.errors == []


def test_an_embeds_lesson_note_is_folded_to_its_title(shared_page):  # noqa: F811
    """In a 720x420 embed of a lesson the note is one line (its title), opened on demand
    (issue 29): the embed's few hundred pixels go to the scene and its energy plot."""
    lesson = SCENARIOS[1]
    page = embed(shared_page, f"?{lesson.link_query()}&embed=1", viewport=(720, 420))
    page.wait_live()
    page.wait("window.integratorLab.status().allDrawn")
    system = page.js("window.integratorLab.state().systems[0]")
    energy = page.js("window.integratorLab.layout()")[system]["energy"]
    note = page.page.locator("#il-lesson")
    summary = note.locator("summary")
    text = note.locator(".il-lesson-fold > span")
    assert summary.is_visible() and lesson.title in summary.inner_text()
    assert not text.is_visible()
    # one line: the title, with Replay and × beside it
    line = summary.bounding_box()
    replay = note.locator(".il-lesson-replay").bounding_box()
    assert line["height"] < 30 and abs(replay["y"] - line["y"]) < line["height"]
    # opened by the keyboard: its text, the lesson's words
    summary.focus()
    page.page.keyboard.press("Enter")
    assert text.is_visible()
    assert lesson.look_for.replace("`", "")[:40] in note.inner_text()
    # Replay: the lesson again, its note folded, and the plots as tall as they were with it
    # folded (sized to the room below the note that is shown, not the one it replaces)
    note.locator(".il-lesson-replay").click()
    page.wait("!document.querySelector('#il-lesson .il-lesson-fold').open")
    page.wait(f"window.integratorLab.layout()[{system!r}].energy[3] === {energy[3]}")
    assert page.errors == []


@pytest.mark.parametrize(
    "query",
    [
        # a lesson (its note folded to one line), a plain demo, the cradle's cells
        SCENARIOS[2].link_query(),
        "systems=spring&integrators=euler,rk4",
        "systems=cradle&integrators=rk4,euler&cradle.balls=3",
    ],
)
def test_an_embeds_energy_plot_is_at_least_as_large_as_its_scene(shared_page, query):  # noqa: F811
    """In a 720x420 embed (issue 29) the energy plot's plotting area is at least the scene's
    area, beside it, and both are whole in the window with the controls on one row."""
    width, height = 720, 420
    page = embed(shared_page, f"?{query}&embed=1", viewport=(width, height))
    page.wait_live()
    page.wait("window.integratorLab.status().allDrawn")
    system = page.js("window.integratorLab.state().systems[0]")
    # fitted to the window once drawn (the plot's height, the scene's cap): wait for it
    page.wait(
        f"(() => {{ const b = window.integratorLab.layout()[{system!r}];"
        " return b.energy[2] * b.energy[3] >= b.scene[2] * b.scene[3]; })()"
    )
    box = page.js("window.integratorLab.layout()")[system]
    (sx, _, sw, sh), (ex, _, ew, eh) = box["scene"], box["energy"]
    assert ew * eh >= sw * sh, box
    assert ex >= sx + sw, box  # beside it
    for x, y, w, h in (box["scene"], box["energy"]):
        assert 0 <= x and x + w <= width and 0 <= y and y + h <= height, box
    # a plot to read, not a strip: at least 100 px high, the scene at least 200 px wide
    assert eh >= 100 and sw >= 200, box
    # the controls: one row (play, step, reset, speed, log scale)
    tops = page.js(
        "Array.from(document.querySelectorAll('#il-controls > .il-control'))"
        ".filter((el) => el.offsetParent !== null)"
        ".map((el) => Math.round(el.getBoundingClientRect().top))"
    )
    assert len(tops) >= 4 and max(tops) - min(tops) < 20, tops
    assert page.errors == []
