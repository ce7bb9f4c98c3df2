"""The dashboard as a notebook object (``from integrator_lab.server.hosted import
Dashboard``): it renders through Panel's own notebook path, in this process, as the page's
front end in a frame whose files this process serves on loopback; its view is declared
parameters with their accepted values, and setting one writes the page's link query and
tells the page, while the page's own view sets them back without an echo.

No browser and no server: Panel in this process (the tier of tests/server, by its folder:
importing Panel and building the page take seconds)."""

from __future__ import annotations

import json
import re
import urllib.request
from urllib.parse import parse_qsl, urlsplit

import param
import pytest

from integrator_lab.core import DEFAULT_INTEGRATORS, INTEGRATORS
from integrator_lab.views.i18n import LANGUAGES
from integrator_lab.views.scenarios import SCENARIOS
from integrator_lab.views.shared import PANEL_SYSTEMS

pn = pytest.importorskip("panel")
hosted = pytest.importorskip("integrator_lab.server.hosted")
Dashboard = hosted.Dashboard


@pytest.fixture
def board():
    """A dashboard, and what it told its page (``board.told``: the host's messages)."""
    dashboard = Dashboard()
    dashboard.told = []
    # the component's transport to the page, recorded: what the mapping sends is the subject
    dashboard.lab.send_host = dashboard.told.append
    yield dashboard
    dashboard.stop()


def view(query: str) -> dict[str, str]:
    """A link query (``?a=1&b=2#hash``, or without the ``?``) as its keys and values."""
    return dict(parse_qsl(query.split("#")[0].lstrip("?")))


def test_the_notebook_display_renders_the_page_in_a_frame_this_process_serves():
    pn.extension()  # what a notebook runs first
    dashboard = Dashboard(systems=["spring"], integrators=["euler", "rk4"])
    try:
        # console_output: Panel would otherwise hand cell output to IPython, absent here
        with pn.config.set(console_output="disable"):
            bundle, metadata = dashboard._repr_mimebundle_()
        exec_type = "application/vnd.holoviews_exec.v0+json"
        assert "text/html" in bundle and exec_type in bundle, sorted(bundle)
        assert metadata[exec_type]["id"]
        output = bundle["text/html"]
        # the component travels with the output: its script and its data, the view included
        assert "export function render" in output
        model = re.search(r'"class_name":"Lab","data":\{[^{}]*"attributes":(\{[^{}]*\})', output)
        assert model is not None, output[:500]
        attributes = json.loads(model.group(1))
        assert view(attributes["query"]) == {"systems": "spring", "integrators": "euler,rk4"}
        assert attributes["follow_address"] is False  # a notebook has no address bar to follow
        # the frame's page comes from a loopback server of this process: the page a server
        # hosts, its engine this Python (no Pyodide), refusing visitors' code
        src = attributes["src"]
        assert urlsplit(src).hostname == "127.0.0.1"
        with urllib.request.urlopen(src, timeout=30) as response:
            assert response.status == 200
            page = response.read().decode()
        boot = re.search(r'id="il-boot-config">(.*?)</script>', page)
        assert boot is not None
        assert json.loads(boot.group(1))["host"] == "server"
        assert json.loads(boot.group(1))["visitorCode"] == "refused"
        assert dashboard.lab.engine is None  # no engine until the page asks for one
    finally:
        dashboard.stop()


def test_the_view_is_declared_parameters_with_their_accepted_values():
    assert isinstance(Dashboard.param["systems"], param.ListSelector)
    assert list(Dashboard.param["systems"].objects) == list(PANEL_SYSTEMS)
    assert list(Dashboard.param["integrators"].objects) == list(INTEGRATORS)
    assert list(Dashboard.param["integrators"].default) == list(DEFAULT_INTEGRATORS)
    assert list(Dashboard.param["lesson"].objects) == [None, *(s.id for s in SCENARIOS)]
    assert list(Dashboard.param["lang"].objects) == list(LANGUAGES)
    assert isinstance(Dashboard.param["playing"], param.Boolean)
    for name in ("systems", "integrators", "lesson", "lang", "playing", "query"):
        assert Dashboard.param[name].doc, name
    assert hosted.Lab.param["min_height_px"].bounds[0] > 0


@pytest.mark.parametrize(
    "name, value",
    [
        ("integrators", ["euler", "nope"]),
        ("systems", ["spring", "ballbox"]),
        ("lesson", "nope"),
        ("lang", "fr"),
        ("playing", "yes"),
    ],
    ids=["unknown-integrator", "unknown-system", "unknown-lesson", "unknown-lang", "not-a-flag"],
)
def test_a_value_outside_the_declared_ones_is_refused_naming_the_parameter(board, name, value):
    before = (board.param.values(), board.query)
    with pytest.raises(ValueError, match=rf"'Dashboard\.{name}'"):
        setattr(board, name, value)
    assert (board.param.values(), board.query) == before
    assert board.told == []


def test_setting_a_parameter_writes_the_query_and_shows_it_on_the_page(board):
    assert board.query == ""  # the default view: nothing to say
    board.integrators = ["euler", "rk4"]
    assert view(board.query) == {"integrators": "euler,rk4"}
    assert board.told == [{"type": "apply", "query": board.query}]
    board.systems = ["spring"]
    board.playing = False
    board.lang = "ja"
    board.lesson = "rk4-loses"
    assert view(board.query) == {
        "integrators": "euler,rk4",
        "systems": "spring",
        "play": "0",
        "lang": "ja",
        "lesson": "rk4-loses",
    }
    assert len(board.told) == 5 and board.told[-1] == {"type": "apply", "query": board.query}
    # back to the defaults: their keys leave the query
    board.param.update(integrators=list(DEFAULT_INTEGRATORS), playing=True)
    assert view(board.query) == {"systems": "spring", "lang": "ja", "lesson": "rk4-loses"}
    # a dashboard opened on the query has the same view
    again = Dashboard(query=board.query)
    try:
        assert again.param.values() | {"name": None} == board.param.values() | {"name": None}
    finally:
        again.stop()


def test_a_query_keeps_what_the_parameters_do_not_say():
    dashboard = Dashboard(query="?spring.dt=0.05&integrators=rk4&hide=euler")
    try:
        assert dashboard.integrators == ["rk4"]
        assert dashboard.systems == list(PANEL_SYSTEMS)
        dashboard.lang = "ja"
        assert view(dashboard.query) == {
            "spring.dt": "0.05",
            "integrators": "rk4",
            "hide": "euler",
            "lang": "ja",
        }
    finally:
        dashboard.stop()


def test_the_pages_view_sets_the_parameters_without_an_echo(board):
    # the page's address changed (a visitor's click, a lesson): the component's query
    board.lab.query = "?systems=cradle&integrators=euler,rk4&play=0#method=abc"
    assert board.systems == ["cradle"]
    assert board.integrators == ["euler", "rk4"]
    assert board.playing is False
    assert board.query.endswith("#method=abc") and view(board.query)["systems"] == "cradle"
    assert board.told == []  # the page has that view already
    # a value the page refuses (it says why) leaves its parameter as it was; a key the
    # page's view no longer names is the default again
    board.lab.query = "?integrators=nope"
    assert board.integrators == ["euler", "rk4"]
    assert board.systems == list(PANEL_SYSTEMS) and board.playing is True
    assert board.told == []


def test_a_query_set_from_python_sets_the_parameters_and_the_page(board):
    # a link's view handed to the dashboard in Python: the parameters follow, the page shows it
    board.query = "systems=spring&integrators=rk4&play=0&spring.dt=0.05"
    assert board.systems == ["spring"] and board.integrators == ["rk4"]
    assert board.playing is False
    assert board.told == [{"type": "apply", "query": board.query}]
    # an empty list is no view: the page would show every system, or the defaults
    board.query = "systems=&integrators=rk4"
    assert board.systems == list(PANEL_SYSTEMS)
