"""Texts the Panel dashboard's figures set as they change are in its language (views.i18n),
as the static page's are."""

from __future__ import annotations

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
