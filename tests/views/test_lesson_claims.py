"""Every lesson's note says what its energy plot shows (views.scenarios: each lesson's
``claims``): checked on the numbers the page plots, the samples of the page's own worker code
(views.system_run.SystemRun.frame, as it runs in Pyodide), for the lesson's settings."""

from __future__ import annotations

import math

import pytest

from integrator_lab.views.live import Live
from integrator_lab.views.scenarios import SCENARIOS, claim_holds, claim_value
from integrator_lab.views.shared import FRAME_SCENE, SAMPLE_COLUMNS


def plotted(settings: dict, system: str, seconds: float) -> tuple[dict, dict]:
    """Each integrator's plotted columns after ``seconds`` of ``system`` with a lesson's
    settings, and when each diverged."""
    live = Live()
    live.configure(
        system,
        settings["params"].get(system, {}),
        settings["dt"].get(system),
        settings["integrators"],
    )
    run = live.runs[system]
    run.runner.advance(int(math.ceil(seconds / run.dt)) + 1)
    frame = run.frame(True)
    data = frame["data"]
    at = sum(run.scene.counts()[role] * len(cols) for role, cols in FRAME_SCENE)
    lanes = {}
    for name, n in frame["lanes"]:
        lanes[name] = {}
        for c in SAMPLE_COLUMNS:
            lanes[name][c] = list(data[at : at + n])
            at += n
    return lanes, frame["diverged"]


@pytest.mark.parametrize("lesson", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_every_claim_of_the_note_holds_on_the_plotted_numbers(lesson):
    assert lesson.claims, "a lesson says what its plot shows"
    settings = lesson.settings()
    for system in {c.system for c in lesson.claims}:
        assert system in settings["systems"]
        claims = [c for c in lesson.claims if c.system == system]
        lanes, diverged = plotted(settings, system, max(c.t for c in claims))
        for claim in claims:
            assert claim.integrator in settings["integrators"]
            if claim.kind == "diverged":
                assert diverged.get(claim.integrator) is not None, claim
                assert diverged[claim.integrator] <= claim.t, claim
                continue
            cols = lanes[claim.integrator]
            value = claim_value(claim, cols["t"], cols["error"])
            assert claim_holds(claim, value), (claim, value)


def test_the_notes_name_the_integrators_they_make_claims_about():
    for lesson in SCENARIOS:
        text = lesson.look_for.lower()
        for claim in lesson.claims:
            words = {
                "euler": "explicit euler",
                "symplectic-euler": "symplectic euler",
                "velocity-verlet": "velocity verlet",
                "rk4": "rk4",
                "implicit-euler": "implicit euler",
                "implicit-midpoint": "implicit midpoint",
            }
            named = words[claim.integrator] in text or "every integrator" in text
            assert named, (lesson.id, claim.integrator)
