"""axe-core (pinned in package.json: the engine most accessibility audits use) in a page of
either dashboard: the violations of the impacts the issue forbids (issue 29)."""

from __future__ import annotations

from pathlib import Path

import pytest

AXE = Path(__file__).resolve().parents[1] / "node_modules" / "axe-core" / "axe.min.js"
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


def axe_violations(page) -> list[dict]:
    """The critical and serious violations axe finds in ``page`` (a Playwright page)."""
    if not AXE.exists():
        pytest.skip("axe-core is not installed (npm ci)")
    # evaluated through DevTools, as a test's own script: the page's Content Security Policy
    # (no inline script) is for the page's scripts, and stays on
    page.evaluate(AXE.read_text(encoding="utf-8") + "\n;0")
    return [v for v in page.evaluate(RUN_AXE) if v["impact"] in FORBIDDEN]
