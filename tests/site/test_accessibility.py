"""Everyone can use the static page (issue 29): axe-core (pinned in package.json, the engine
most accessibility audits use) finds no critical or serious WCAG violation in the views a
student or a teacher opens; the keyboard alone plays, steps, resets, changes dt and reaches
the integrators, the lessons, the editor and Study; a polite live region says, in words, what
the energy plots show; a visitor who asked for reduced motion gets a page that waits for Play.

Browser checks run the real built page in Chromium (the ``site`` and ``open_page`` fixtures
of test_static_page.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_static_page import SYSTEMS, open_page, site  # noqa: F401 - fixtures

from integrator_lab.views.scenarios import SCENARIOS

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
#: the impacts the issue's "done when" forbids (axe's scale: minor, moderate, serious, critical)
FORBIDDEN = ("critical", "serious")
#: axe in the page: every violation with its impact, rule and the first few elements
RUN_AXE = """async () => {
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => ({
        id: v.id, impact: v.impact, help: v.help, count: v.nodes.length,
        nodes: v.nodes.slice(0, 4).map((n) => n.target.join(" >> ")),
    }));
}"""


def axe_violations(page):
    if not AXE.exists():
        pytest.skip("axe-core is not installed (npm ci)")
    page.page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
    return [v for v in page.js(RUN_AXE) if v["impact"] in FORBIDDEN]


def drawn(page):
    page.wait("document.documentElement.dataset.drawn === '1'")
    page.wait("window.integratorLab.status().allDrawn")
    page.wait_live()


# the views of the issue: the default page, a lesson, Study, the geometry view, an embed, a
# phone; the editor is opened by a click in its own test below
VIEWS = {
    "default": ("", (1440, 900)),
    "lesson": ("?" + SCENARIOS[0].link_query(), (1440, 900)),
    "study": ("?study=spring", (1440, 900)),
    "geometry": ("?systems=spring&geometry=spring", (1440, 900)),
    "embed": ("?embed=1&systems=spring&integrators=euler,rk4", (720, 420)),
    "phone": ("", (390, 844)),
}


@pytest.mark.parametrize("view", list(VIEWS))
def test_axe_finds_no_critical_or_serious_violation(open_page, view):  # noqa: F811
    query, viewport = VIEWS[view]
    page = open_page(query, viewport=viewport, bypass_csp=True)
    drawn(page)
    assert axe_violations(page) == []


def test_axe_finds_no_critical_or_serious_violation_with_the_editor_open(open_page):  # noqa: F811
    page = open_page("", viewport=(1440, 900), bypass_csp=True)
    drawn(page)
    page.page.click("#il-editor summary")
    page.page.locator("#il-editor .cm-editor, #il-editor textarea").first.wait_for()
    assert axe_violations(page) == []
