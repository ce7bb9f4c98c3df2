"""A scene's view fits the motion, so a scale bar in metres says how big it is: a spring
started 3 m out and one started 0.17 m out must not look alike (issue 27)."""

from __future__ import annotations

from bokeh.models import MetricLength, ScaleBar

from integrator_lab.core import DEFAULT_INTEGRATORS, get_system
from integrator_lab.views.figures import DashboardConfig, SystemFigures
from integrator_lab.views.scene import Scene


def test_every_scene_has_a_scale_bar_in_metres_on_its_horizontal_range():
    config = DashboardConfig()
    for name in ("pendulum", "cradle", "spring"):
        figures = SystemFigures(name, config)
        bars = [r for r in figures.scene_fig.center if isinstance(r, ScaleBar)]
        assert len(bars) == 1, name
        bar = bars[0]
        # metres, measured along the scene's x range (the "auto" range of a horizontal bar)
        assert isinstance(bar.dimensional, MetricLength) and bar.unit == "m"
        assert bar.orientation == "horizontal" and bar.range == "auto"
        # drawn under the bodies, with no background to hide one
        assert bar.level == "underlay" and bar.background_fill_color is None


def test_a_wider_motion_gets_a_wider_view_that_the_bar_measures():
    # the view is what the bar's length is read from: 3 m out needs a view many times wider
    # than 0.17 m out (the amplitude sets the lane; the mass's size does not scale with it)
    small = Scene(get_system("spring", x0=0.17), DEFAULT_INTEGRATORS)
    large = Scene(get_system("spring", x0=3.0), DEFAULT_INTEGRATORS)
    width = lambda scene: scene.x_range[1] - scene.x_range[0]  # noqa: E731
    assert width(large) > 0.5 * (3.0 / 0.17) * width(small)  # about in proportion
