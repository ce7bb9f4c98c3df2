"""The Panel dashboard's share of issue 14: one legend whose toggles hide an integrator in
every panel without restarting the run, no horizontal overflow on a phone, and a paused
status without a rate (the same behaviours as the static page, tests/site)."""

from __future__ import annotations

import re

import pytest
from conftest import NEXT_FRAMES_JS, TEXT_JS, VISIBLE_JS, show_controls, sim_time, wait_until

from integrator_lab.views.scene import integrator_label

pytestmark = pytest.mark.browser

SYSTEMS = ("pendulum", "cradle", "spring")
DRAWN_JS = """([name, integrator]) => {
    const r = Bokeh.documents[0].get_model_by_name(name);
    const held = r.data_source.data.integrator;
    return [...r.view.indices].filter((i) => held[i] === integrator).length;
}"""


def test_the_legend_hides_an_integrator_everywhere_and_the_run_goes_on(new_page):
    page = new_page()
    chip = page.locator(".il-legend button", has_text=integrator_label("rk4"))
    assert page.locator(".il-legend button").count() == 4
    # no legend inside the energy plots any more
    assert (
        page.evaluate(
            "() => Bokeh.documents[0].get_model_by_name('spring:energy:legend').items.length"
        )
        == 0
    )
    before = sim_time(page, "spring")
    chip.click()
    for system in SYSTEMS:
        wait_until(
            lambda: not page.evaluate(VISIBLE_JS, f"{system}:line:error:rk4"),
            what=f"{system}'s rk4 line to hide",
        )
        assert page.evaluate(VISIBLE_JS, f"{system}:line:error:euler")
        for role in ("bodies", "links"):
            name = f"{system}:scene:{role}-renderer"
            assert page.evaluate(DRAWN_JS, [name, "rk4"]) == 0, name
            assert page.evaluate(DRAWN_JS, [name, "euler"]) > 0, name
    wait_until(lambda: sim_time(page, "spring") > before + 0.5, what="the run to go on")
    chip.click()
    wait_until(lambda: page.evaluate(VISIBLE_JS, "spring:line:error:rk4"), what="rk4 to show again")
    assert page.errors == []


def test_no_horizontal_overflow_on_a_phone(new_page):
    page = new_page(viewport=(390, 844))
    # the layout once frames arrive (the status lines and plots filled), and drawn, with the
    # controls (folded behind one button on a phone) shown
    wait_until(lambda: sim_time(page, "spring") > 0, what="the first frames")
    show_controls(page)
    page.evaluate(NEXT_FRAMES_JS)
    wide = page.evaluate(
        """() => { const out = [];
        const walk = (root) => { for (const el of root.querySelectorAll('*')) {
            const r = el.getBoundingClientRect();
            if (r.right > 392 && r.width > 0) out.push(
              `${el.tagName}.${String(el.className).slice(0, 60)} ${Math.round(r.right)}`);
            if (el.shadowRoot) walk(el.shadowRoot); } };
        walk(document);
        for (const v of Object.values(Bokeh.index)) {
          const all = [v]; while (all.length) { const x = all.pop();
            const right = x.el ? x.el.getBoundingClientRect().right : 0;
            if (right > 392) out.unshift(`${x.model.type}:${x.model.name} ${Math.round(right)}`);
            for (const c of (x.child_views ?? [])) all.push(c); } }
        return out.slice(0, 12); }"""
    )
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, wide


def test_after_a_step_the_status_says_paused_without_a_rate(new_page):
    page = new_page()
    page.get_by_role("button", name="Step").click()
    for system in SYSTEMS:
        wait_until(
            lambda: re.fullmatch(
                r"t = \d+\.\d\d s · paused", page.evaluate(TEXT_JS, f"{system}:status")
            ),
            what=f"{system}'s paused status",
        )
