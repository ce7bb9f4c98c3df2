"""The dashboard as a notebook object: ``Dashboard()`` renders through Panel's own
notebook path, declares its state as bounded parameters, and rejects bad values."""

from __future__ import annotations

import html
import json

import param
import pytest

from integrator_lab.core import INTEGRATORS, SYSTEMS
from integrator_lab.server.app import Dashboard
from integrator_lab.server.controls import settings_class
from integrator_lab.server.sessions import REGISTRY

pn = pytest.importorskip("panel")


@pytest.fixture
def dashboard():
    board = Dashboard()
    yield board
    board.stop()


def test_notebook_display_renders_the_dashboard(dashboard):
    pn.extension()  # what a notebook runs first
    # console_output: Panel would otherwise hand cell output to IPython, absent here
    with pn.config.set(console_output="disable"):
        bundle, metadata = dashboard._repr_mimebundle_()
    assert "text/html" in bundle
    spec = bundle.get("application/vnd.holoviews_exec.v0+json")
    assert spec is not None, sorted(bundle)
    html = bundle["text/html"]
    # the Bokeh document travels with the output: the figures' names are in it
    text = html + json.dumps(spec)
    for system in ("pendulum", "cradle", "spring"):
        assert f"{system}:scene" in text
    # displaying started this dashboard's callback; stop() ends it
    assert dashboard in REGISTRY
    dashboard.stop()
    assert dashboard not in REGISTRY


def test_state_is_declared_with_bounds_and_docs():
    for name, cls in SYSTEMS.items():
        settings = settings_class(name)
        for p in cls.PARAMS:
            declared = settings.param[p.name]
            assert declared.doc and p.accepted() in declared.doc
            if p.kind == "choice":
                assert list(declared.objects) == list(p.choices)
            else:
                assert declared.bounds == (p.min, p.max)
                assert declared.inclusive_bounds == (not p.min_open, not p.max_open)
        assert settings.param["dt"].bounds[0] > 0
    assert set(Dashboard.param["integrators"].objects) == set(INTEGRATORS)


@pytest.mark.parametrize(
    "name, value",
    [
        ("stiffness", -1.0),
        ("stiffness", 0.0),
        ("mass", float("nan")),
        ("dt", 10.0),
        ("damping", "much"),
    ],
    ids=["negative", "open-bound", "nan", "dt-too-big", "not-a-number"],
)
def test_out_of_range_values_are_refused_before_the_core(dashboard, name, value):
    settings = dashboard.settings["spring"]
    with pytest.raises(ValueError):
        setattr(settings, name, value)
    assert dashboard.runs["spring"].system.params["stiffness"] == 15.0


def test_values_the_core_rejects_become_a_message(dashboard):
    dashboard._update(0.05)
    running = dashboard.runs["cradle"]
    t0 = running.runner.time
    dashboard.settings["cradle"].param.update(balls=3, lifted=5)
    dashboard._update(0.05)  # what the next tick does
    assert dashboard.message.visible
    # the static page's words (views.live.Live, the session class of both front ends)
    from integrator_lab.views.live import Live

    page = Live()
    page.configure("cradle", {}, None, dashboard.integrators)
    words = page.configure("cradle", {"balls": 3, "lifted": 5}, None, dashboard.integrators)
    assert dashboard.message.object == html.escape(" ".join(words["errors"]))
    assert (
        "lifted" in dashboard.message.object and "kept the settings in force" in words["errors"][0]
    )
    # the old run goes on, and the fields show its settings again
    assert dashboard.runs["cradle"] is running and running.runner.time > t0
    assert dashboard.settings["cradle"].balls == 5 and dashboard.settings["cradle"].lifted == 1
    dashboard._update(0.05)
    assert dashboard.runs["cradle"] is running  # setting the fields back restarted nothing
    dashboard.settings["cradle"].lifted = 2
    dashboard._update(0.05)
    assert not dashboard.message.visible
    assert dashboard.runs["cradle"].system.params["lifted"] == 2


def test_csv_has_the_command_line_columns(dashboard):
    dashboard._update(0.05)
    rows = dashboard.csv("spring").getvalue().splitlines()
    assert rows[0] == "integrator,t,q0,v0,kinetic,potential,dissipated,total"
    assert rows[1].startswith("euler,0.0,1.0,0.0,")
    kinetic, potential, dissipated, total = map(float, rows[-1].split(",")[-4:])
    assert total == pytest.approx(kinetic + potential + dissipated, rel=1e-12)


def test_param_is_the_state(dashboard):
    assert isinstance(dashboard, pn.viewable.Viewer)
    assert isinstance(Dashboard.param["speed"], param.Number)
    with pytest.raises(ValueError):
        dashboard.speed = 100.0


def test_dt_field_names_the_step_a_stiffer_cradle_needs(dashboard):
    dt_widget = dashboard._dt_widgets["cradle"]
    assert dt_widget.name == "time step dt (s)"  # the default dt is the recommended one
    dashboard.settings["cradle"].param.update(stiffness=1e6, dt=0.001)
    dashboard._update(0.05)
    recommended = dashboard.runs["cradle"].system.recommended_dt
    # a contact 50x stiffer is shorter (Hertz: t_c ~ k^-0.4), so the step must be finer
    assert recommended < 0.001 / 1.5
    assert dt_widget.name == f"time step dt (s): {recommended:g} recommended"
    dashboard.settings["cradle"].dt = recommended
    dashboard._update(0.05)
    assert dt_widget.name == "time step dt (s)"


def test_a_system_stays_fresh_until_the_page_has_applied_a_fresh_frame(dashboard):
    """A frame sent while the browser is still pulling its document is lost; the samples
    from t = 0 must not be: frames keep replacing everything (every kept sample, from t = 0)
    until the page acknowledges one of them."""

    def frame():
        meta = json.loads(dashboard._carrier.tags[0])
        return meta, {s["name"]: s for s in meta["systems"]}

    dashboard._served = True  # as in a server session
    dashboard._update(0.05)
    meta1, systems1 = frame()
    assert meta1["ack"] and all(s["fresh"] for s in systems1.values())
    dashboard._update(0.05)  # the page never saw the first frame: the next one is fresh too
    meta2, systems2 = frame()
    assert all(s["fresh"] for s in systems2.values())
    # ... and holds every sample kept from t = 0, those the first frame held included. (It
    # once asserted "more than the first held": how many steps an update takes depends on the
    # machine's load, its compute budget, and under load the second took too few for a new
    # sample. What a fresh frame holds is what the run keeps, whatever the load.)
    runner = dashboard.runs["spring"].runner
    kept = {lane.name: len(lane.history) for lane in runner.lanes}
    assert dict(systems2["spring"]["lanes"]) == kept
    assert all(count >= 1 for count in kept.values())
    dashboard._on_echo("tags", [], [meta2["seq"]])  # the page applied it
    dashboard._update(0.05)
    _, systems3 = frame()
    assert not any(s["fresh"] for s in systems3.values())
    dashboard.reset = True  # a new run is fresh again, whatever was acknowledged before
    dashboard._update(0.05)
    _, systems4 = frame()
    assert all(s["fresh"] for s in systems4.values())


def test_settings_widgets_carry_the_declared_titles():
    """Each system's fields are named as the core declares the parameter for people
    (``Param.title``: label, symbol, unit), as on the static page and in ``list``."""
    from integrator_lab.server.controls import settings_widgets

    for name, cls in SYSTEMS.items():
        widgets = settings_widgets(name, settings_class(name)(), lambda text: None)
        names = [w.name for w in widgets[1:]]  # the time step comes first
        assert names == [p.title for p in cls.PARAMS], name
    theta0 = next(p for p in SYSTEMS["pendulum"].PARAMS if p.name == "theta0")
    assert theta0.title == "initial angle θ₀ (rad)"
