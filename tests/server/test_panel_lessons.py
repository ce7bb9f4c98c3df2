"""The Lessons menu of the Panel dashboard: choosing a lesson sets the dashboard's state to
the lesson's view (the same settings its static-page link sets), runs it from t = 0 and shows
its note; choosing none shows every system again."""

from __future__ import annotations

import html

import pytest

from integrator_lab.core import DEFAULT_INTEGRATORS
from integrator_lab.server.app import Dashboard
from integrator_lab.views.scenarios import SCENARIOS, get_scenario

pn = pytest.importorskip("panel")


@pytest.fixture
def dashboard():
    board = Dashboard()
    yield board
    board.stop()


def _apply(board):
    """What the next tick does with the requests (no browser needed)."""
    board._update(0.0, show=True)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_choosing_a_lesson_sets_its_state_and_shows_its_note(dashboard, scenario):
    settings = scenario.settings()
    dashboard.speed = 0.5  # the lesson brings its own (or the default)
    dashboard.settings["spring"].mass = 3.0  # a lesson starts from the defaults
    dashboard.lesson = scenario.id
    _apply(dashboard)
    assert dashboard.integrators == settings["integrators"]
    assert dashboard.speed == settings.get("speed", 1.0)
    for name in dashboard.systems:
        run = dashboard.runs[name]
        assert dashboard._columns[name].visible == (name in settings["systems"])
        expected_dt = settings["dt"].get(name, type(run.system)().recommended_dt)
        assert run.dt == expected_dt
        assert run.integrators == settings["integrators"]
        defaults = {p.name: p.default for p in type(run.system).PARAMS}
        assert run.system.params == {**defaults, **settings["params"].get(name, {})}
        assert run.runner.time == 0.0
    assert dashboard.lesson_note.visible
    assert scenario.title in html.unescape(dashboard.lesson_note.object)
    assert not dashboard.message.visible  # no complaint
    assert not dashboard.failed


def test_the_menu_lists_every_lesson_and_none_brings_every_system_back(dashboard):
    labels = dashboard.param["lesson"].names
    assert list(labels.values()) == ["", *(s.id for s in SCENARIOS)]
    assert list(labels)[1:] == [s.title for s in SCENARIOS]
    dashboard.lesson = "stiff-cradle"
    _apply(dashboard)
    assert [n for n, c in dashboard._columns.items() if c.visible] == ["cradle"]
    dashboard.lesson = ""
    _apply(dashboard)
    assert all(c.visible for c in dashboard._columns.values())
    assert not dashboard.lesson_note.visible
    # the lesson's settings stay until changed
    assert dashboard.runs["cradle"].system.params["stiffness"] == 2e7


def test_a_lesson_given_at_construction_is_shown():
    board = Dashboard(lesson="rk4-loses")
    try:
        _apply(board)
        assert board.runs["spring"].dt == 0.25
        assert board.lesson_note.visible
        assert list(board.integrators) == get_scenario("rk4-loses").settings()["integrators"]
        assert list(board.integrators) != list(DEFAULT_INTEGRATORS)
    finally:
        board.stop()


def test_an_unknown_lesson_is_refused_by_name(dashboard):
    with pytest.raises(ValueError, match="lesson"):
        dashboard.lesson = "nope"
