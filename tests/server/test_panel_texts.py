"""Texts the Panel dashboard's figures set as they change are in its language (views.i18n),
as the static page's are."""

from __future__ import annotations

import html

import pytest

from integrator_lab.server.app import Dashboard


@pytest.mark.parametrize("log_scale", [False, True], ids=["linear", "log"])
def test_a_japanese_dashboards_energy_axis_says_how_to_read_it_in_japanese(log_scale):
    from integrator_lab.views.i18n import text

    dashboard = Dashboard(lang="ja", log_scale=log_scale)
    mode = "log" if log_scale else "linear"
    for models in dashboard.panels.values():
        assert models.energy_fig.yaxis[0].axis_label == text(f"energy.axis.{mode}", "ja")
    dashboard.stop()


#: explicit Euler as a one-stage tableau: it gains energy on every oscillation (its amplification
#: factor |1 + i h w| > 1), so on the stiff contacts of the cradle it runs away in seconds
EULER_TABLEAU = {"kind": "tableau", "name": "my-euler", "c": ["0"], "a": [["0"]], "b": ["1"]}


@pytest.mark.parametrize(
    ("lang", "system", "stopped"),
    [
        ("en", "Newton's cradle", "my-euler stopped at t = "),
        ("ja", "ニュートンのゆりかご", "my-euler は t = "),
    ],
)
def test_a_users_method_that_runs_away_is_told_when_and_where_in_the_dashboards_language(
    lang, system, stopped
):
    """The editor's status says on which system the user's method stopped and at what
    simulated time, in the page's language (the static page's words, ``editor.stopped``),
    under what it said of the method (its order), as the static page keeps both."""
    dashboard = Dashboard(lang=lang)
    try:
        dashboard._served = True  # as in a server session: frames are sent
        dashboard._method_requested = (EULER_TABLEAU,)
        said = ""
        for _ in range(400):  # 0.25 s of simulated time each: 100 s at most
            dashboard._update(0.25)
            said = html.unescape(dashboard.method_editor.status.object)  # it is HTML
            if stopped in said:
                break
        assert stopped in said, said
        runs, stop = said.split("\n\n")  # what it said of the method, then the stop
        assert runs.startswith("my-euler") and "1" in runs, said  # its order kept, first
        assert stop.startswith(system), said
        at = dashboard.runs["cradle"].runner.diverged()["my-euler"]["at"]
        assert f"t = {at:.4g} s" in stop, (at, said)
        assert dashboard.method_editor.status.alert_type == "danger"
    finally:
        dashboard.stop()
