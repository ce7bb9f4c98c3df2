"""Every lesson's note holds on the page, in Chromium on the real built site: the lesson sets
the energy view its note speaks of (the log view for ``log=1``, else the linear one), and each
claim of the note (views.scenarios: the sign and size of a named integrator's energy error at
the time the note names, or its divergence) holds on the samples the page plots; Replay starts
the lesson again from t = 0."""

from __future__ import annotations

import pages
import pytest

from integrator_lab.views.scenarios import SCENARIOS, claim_holds, claim_value

site = pages.site
open_page = pages.open_page

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("lesson", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_the_notes_claims_hold_on_what_the_page_plots(open_page, lesson):
    page = open_page(f"?{lesson.link_query()}", viewport=(1440, 900))
    page.wait_live()
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
