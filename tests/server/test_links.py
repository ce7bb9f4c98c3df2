"""The Panel dashboard speaks the static page's link (issue 29): a link's keys set the same
view, what it cannot take is said, and the view writes itself back as the same keys."""

from __future__ import annotations

from urllib.parse import parse_qsl

import pytest

from integrator_lab.core import DEFAULT_INTEGRATORS
from integrator_lab.server.app import Dashboard
from integrator_lab.server.links import SETTING_PARAMS, number_text, read_link
from integrator_lab.views.scenarios import SCENARIOS, parse_query


def dashboard_from(query: str) -> tuple[Dashboard, list[str]]:
    """As a server session opens ``query``: its systems when the dashboard is made
    (server.session_systems), then the rest of the link."""
    link, problems = read_link(parse_qsl(query))
    dashboard = Dashboard(
        shown=parse_query(query).get("systems", []) if "systems=" in query else []
    )
    dashboard.apply_link(link)
    return dashboard, problems


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_every_lessons_link_sets_its_view_and_writes_it_back(scenario):
    dashboard, problems = dashboard_from(scenario.query)
    assert problems == []
    wanted = parse_query(scenario.query)
    assert dashboard.shown == wanted["systems"]
    assert dashboard.integrators == wanted.get("integrators", list(DEFAULT_INTEGRATORS))
    for system, dt in wanted["dt"].items():
        assert dashboard.settings[system].dt == dt
    for system, values in wanted["params"].items():
        for name, value in values.items():
            assert getattr(dashboard.settings[system], name) == value
    # what it writes opens the same view again, written the same way
    written = dashboard.link_query()
    again, problems = dashboard_from(written)
    assert problems == [] and again.link_query() == written
    # and it says, in the page's keys, what the lesson's link says (but for values the
    # lesson sets to their default: a link leaves a default out)
    written_view = parse_query(written)
    for key, value in wanted.items():
        if key in ("dt", "params"):
            for system, by_system in value.items():
                for name, x in by_system.items() if key == "params" else [("dt", by_system)]:
                    default = type(dashboard.settings[system]).param[name].default
                    got = written_view[key].get(system, {})
                    got = got.get(name, default) if key == "params" else got or default
                    assert got == x, (key, system, name)
        elif key == "systems":
            assert written_view.get(key, list(dashboard.systems)) == value
        else:
            assert key in written_view or value == _default(dashboard, key), key


def _default(dashboard: Dashboard, key: str):
    names = SETTING_PARAMS  # parse_query's names -> the dashboard's parameters
    return dashboard.param[names[key]].default if key in names else None


def test_a_link_with_refused_and_unknown_keys_applies_the_rest_and_says_what_it_left():
    dashboard, problems = dashboard_from(
        "integrators=euler,rk4&spring.dt=0.02&log=1&lesson=nope&pendulum.theta0=9"
        "&colour=red&spring.study.points=4"
    )
    assert dashboard.integrators == ["euler", "rk4"]
    assert dashboard.settings["spring"].dt == 0.02 and dashboard.log_scale is True
    said = " ".join(problems)
    for key in ("'lesson'", "'pendulum.theta0'", "'colour'", "'spring.study.points'"):
        assert key in said
    assert "[-3.14159, 3.14159]" in said  # the accepted range, named
    assert (
        dashboard.settings["pendulum"].theta0
        == type(dashboard.settings["pendulum"]).param["theta0"].default
    )


def test_the_view_is_written_in_the_pages_keys_leaving_defaults_out():
    dashboard = Dashboard()
    assert dashboard.link_query() == ""
    dashboard.param.update(integrators=["euler", "rk4"], log_scale=True, playing=False)
    dashboard.settings["spring"].dt = 0.02
    dashboard.settings["cradle"].balls = 4
    dashboard.hidden = ["rk4"]
    query = dashboard.link_query()
    assert query == ("integrators=euler%2Crk4&hide=rk4&play=0&log=1&cradle.balls=4&spring.dt=0.02")
    settings = parse_query(query.replace("&hide=rk4", ""))
    assert settings["integrators"] == ["euler", "rk4"] and settings["dt"]["spring"] == 0.02


def test_numbers_are_written_as_the_page_writes_them():
    # JavaScript's String(): no trailing ".0", the shortest digits that read back the same
    assert number_text(5.0) == "5" and number_text(0.02) == "0.02" and number_text(3) == "3"
    assert float(number_text(0.1 + 0.2)) == 0.1 + 0.2
