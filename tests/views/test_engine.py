"""The engine (views.engine): the page's messages in, the protocol's messages out, paced by
the host's clock; checked in-process against the live loop it drives (views.live)."""

from __future__ import annotations

import math

import pytest

from integrator_lab.views.engine import STALL, TICK, Engine
from integrator_lab.views.live import Live

SYSTEMS = {"pendulum": {"params": {}, "dt": None}, "spring": {"params": {}, "dt": 0.01}}
INTEGRATORS = ["euler", "velocity-verlet"]


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def booted(**init):
    clock = Clock()
    engine = Engine(clock=clock)
    message = {"type": "init", "systems": SYSTEMS, "integrators": INTEGRATORS, "speed": 1.0}
    answers = engine.handle({**message, "playing": True, **init})
    return engine, clock, answers


def kinds(messages):
    return [m["type"] for m in messages]


def test_init_answers_each_systems_layout_then_ready():
    _engine, _clock, answers = booted()
    assert kinds(answers) == ["layout", "layout", "ready"]
    assert [a["layout"]["system"] for a in answers[:2]] == ["pendulum", "spring"]
    assert answers[1]["layout"]["dt"] == 0.01


def test_one_frame_in_flight_until_the_page_acknowledges_it():
    engine, clock, _ = booted()
    first = engine.tick()
    assert kinds(first) == ["frame"] and set(first[0]["systems"]) == {"pendulum", "spring"}
    # no acknowledgement: the next ticks send nothing, but the simulation goes on
    before = engine.live.runs["spring"].runner.time
    for _ in range(10):
        clock.now += TICK
        assert engine.tick() == []
    moved = engine.live.runs["spring"].runner.time - before
    assert moved == pytest.approx(10 * TICK, abs=0.011)  # dt = 0.01: whole steps
    # the acknowledgement brings the next frame at once, with the samples taken meanwhile
    clock.now += 0.001
    answer = engine.handle({"type": "ack"})
    assert kinds(answer) == ["frame"]
    assert answer[0]["systems"]["spring"]["time"] == pytest.approx(
        engine.live.runs["spring"].runner.time
    )


def test_a_page_that_draws_nothing_stops_the_simulation():
    engine, clock, _ = booted()
    engine.tick()
    clock.now += STALL + 0.01  # a hidden tab: the frame was never acknowledged
    engine.tick()
    stalled = engine.live.runs["spring"].runner.time
    for _ in range(30):
        clock.now += TICK
        engine.tick()
    assert engine.live.runs["spring"].runner.time == stalled


def test_the_baked_start_hands_over_with_no_seam():
    """The page played baked frames 0..10 and hands over: the engine's runs are those of a
    fresh Live after baked ticks 0..10, and its first frame covers one more tick's wall time,
    as baked tick 11 would (speed 1, BAKE_WALL = TICK)."""
    engine, clock, answers = booted(baked=240)
    assert kinds(answers) == ["ready"]  # the page shows the baked layouts
    assert engine.tick() == []  # holding
    engine.catch_up()  # up to the bake's end (239), then back to 10 at the hand-off
    answer = engine.handle({"type": "handoff", "frame": 10, "then": None})
    assert kinds(answer) == ["frame"]
    reference = Live()
    for name, settings in SYSTEMS.items():
        reference.configure(name, settings["params"], settings["dt"], INTEGRATORS)
    for index in range(12):
        reference.baked_tick(index)
    for name in SYSTEMS:
        assert engine.live.runs[name].runner.time == pytest.approx(
            reference.runs[name].runner.time, abs=1e-12
        )
        ours = engine.live.runs[name].runner.lanes[0]
        theirs = reference.runs[name].runner.lanes[0]
        assert ours.q == theirs.q and ours.v == theirs.v


def test_a_change_that_ends_the_bake_is_handled_before_the_first_tick():
    engine, _clock, _ = booted(baked=240)
    answer = engine.handle(
        {"type": "handoff", "frame": 3, "then": {"type": "play", "value": False}}
    )
    assert engine.live.playing is False
    assert kinds(answer) == ["frame"]  # the page waits for it, paused or not


def test_refused_settings_keep_the_run_and_say_why():
    engine, _clock, _ = booted()
    answer = engine.handle(
        {"type": "configure", "system": "spring", "params": {"mass": -1.0}, "dt": 0.01,
         "request": 7}
    )  # fmt: skip
    (layout,) = answer
    assert layout["type"] == "layout" and layout["layout"] is None
    assert layout["request"] == 7 and layout["kept"]["dt"] == 0.01
    assert "mass" in layout["errors"][0]


def test_unknown_and_failing_messages_are_answered_with_an_error():
    engine, _clock, _ = booted()
    assert engine.handle({"type": "nonsense"}) == [
        {"type": "error", "text": "unknown message type 'nonsense'"}
    ]
    (answer,) = engine.handle({"type": "integrators", "names": ["no-such"]})
    assert answer["type"] == "error" and answer["text"].startswith("ValueError: integrators")


def test_step_pauses_and_takes_one_step_of_every_system():
    engine, _clock, _ = booted()
    engine.handle({"type": "step"})
    assert engine.live.playing is False
    assert engine.live.runs["spring"].runner.step_count == 1


def test_a_users_method_is_raced_beside_the_built_ins():
    engine, _clock, _ = booted()
    definition = {
        "kind": "tableau",
        "name": "my-heun",
        "a": [[0, 0], [1, 0]],
        "b": [0.5, 0.5],
        "c": [0, 1],
    }
    answer = engine.handle({"type": "method", "id": 3, "definition": definition})
    assert kinds(answer) == ["layout", "layout", "method"]
    assert answer[-1]["id"] == 3 and answer[-1]["problems"] == []
    assert answer[-1]["method"]["name"] == "my-heun"
    bad = engine.handle({"type": "method", "id": 4, "definition": {"kind": "tableau"}})
    assert kinds(bad) == ["method"] and bad[0]["problems"]


def test_studies_and_geometry_views_update_on_the_clock():
    engine, clock, _ = booted()
    (started,) = engine.handle(
        {"type": "study", "system": "spring", "params": {}, "integrators": ["euler"],
         "settings": {"points": 3, "duration": 1.0}}
    )  # fmt: skip
    assert started["type"] == "study" and started["system"] == "spring"
    engine.handle({"type": "geometry", "system": "spring", "open": True, "lang": "en"})
    seen = set()
    for _ in range(400):
        clock.now += TICK
        for message in engine.tick():
            seen.add(message["type"])
            if message["type"] == "frame":
                engine.in_flight = False  # (the page's acknowledgement)
        if {"study", "geometry"} <= seen:
            break
    assert {"frame", "study", "geometry"} <= seen
    (bad,) = engine.handle({"type": "study", "system": "spring", "settings": {"points": math.nan}})
    assert bad["type"] == "study" and "error" in bad


def test_the_workers_way_in_is_json():
    engine, _clock, _ = booted()
    (answer,) = engine.handle_json('{"type": "configure", "system": "spring", "params": {},'
                                   ' "dt": null, "integrators": ["rk4"]}')  # fmt: skip
    assert answer["layout"]["system"] == "spring"  # null: the recommended step
    assert answer["layout"]["dt"] == engine.live.runs["spring"].system.recommended_dt
    assert engine.handle_json("[1]") == [
        {"type": "error", "text": "a message that is not an object"}
    ]
    assert engine.handle_json("{")[0]["type"] == "error"
