"""What both views and the page share is stated once (integrator_lab.views.shared): the page's
build-time data describes the very buffer the worker and the Panel server send, and the page's
scripts read it from there instead of restating it."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from integrator_lab.core import DEFAULT_INTEGRATORS
from integrator_lab.views import live, shared
from integrator_lab.views.figures import DashboardConfig

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = (*sorted((ROOT / "static/js").glob("*.js")), ROOT / "web/server/js/apply_frames.js")


@pytest.fixture(scope="module")
def page_data():
    from integrator_lab.site.build import page_data

    return page_data(DashboardConfig())


def _unpack(data, layout, counts, lanes):
    """Split a frame's buffer as the page's scripts do, from the page data alone."""
    at = 0

    def take(n):
        nonlocal at
        part = list(data[at : at + n])
        assert len(part) == n, "the buffer ends early"
        at += n
        return part

    scene = {role: {c: take(counts[role]) for c in cols} for role, cols in layout["scene"]}
    samples = {name: {c: take(n) for c in layout["samples"]} for name, n in lanes}
    assert at == len(data), "the buffer holds more than the layout says"
    return scene, samples


def _same(a, b):
    return len(a) == len(b) and all(
        (math.isnan(x) and math.isnan(y)) or x == y for x, y in zip(a, b)
    )


@pytest.mark.parametrize("system", shared.PANEL_SYSTEMS)
def test_page_frame_layout_unpacks_what_system_run_frame_sends(page_data, system):
    run = live.SystemRun(system, {}, None, list(DEFAULT_INTEGRATORS))
    counts = run.layout()["counts"]
    run.runner.advance(50)
    frame = run.frame(everything=True)
    scene, samples = _unpack(frame["data"], page_data["frameLayout"], counts, frame["lanes"])
    # the scene part is the scene at the frame's time, role by role, column by column
    states = [lane.q if lane.diverged_at is None else None for lane in run.runner.lanes]
    expected = run.scene.frame(states, run.runner.time)
    assert set(scene) == set(expected)
    for role, cols in scene.items():
        assert set(cols) == set(expected[role])
        for c, values in cols.items():
            assert _same(values, list(expected[role][c])), (role, c)
    # rows: one body per bob and lane at least, so the counts cannot all be zero
    assert counts["bodies"] >= len(DEFAULT_INTEGRATORS)
    # every integrator's samples: times from 0 up to the frame's time, in order
    assert [name for name, _ in frame["lanes"]] == list(DEFAULT_INTEGRATORS)
    for name, cols in samples.items():
        t = cols["t"]
        assert t and t[0] == 0.0 and t == sorted(t) and t[-1] <= frame["time"], name


def test_page_data_carries_the_shared_ranges_and_texts(page_data):
    assert page_data["dtRange"] == list(shared.DT_RANGE)
    assert page_data["speedRange"] == list(shared.SPEED_RANGE)
    assert page_data["rollover"] == shared.ROLLOVER
    assert page_data["texts"]["diverged"] == shared.DIVERGED_TEXT
    assert page_data["texts"]["status"] == shared.STATUS_TEXT


def _code(path):
    """A script without its comments (they may name what the code does not restate)."""
    text = re.sub(r"/\*.*?\*/", "", path.read_text(), flags=re.DOTALL)
    return re.sub(r"(^|\s)//.*", "", text)


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_page_scripts_restate_neither_the_frame_layout_nor_the_texts(script):
    code = _code(script)
    names = {role for role, _ in shared.FRAME_SCENE} | set(shared.LINK_COLUMNS)
    # a system parameter may share a column's name (the spring's x0): the page names those
    from integrator_lab.core import SYSTEMS as DECLARED

    names -= {p.name for cls in DECLARED.values() for p in cls.PARAMS}
    for name in sorted(names):
        assert not re.search(rf"""["'`]{name}["'`]""", code), name
    # a body's columns as a list ("x" alone is also a plot field, elsewhere)
    assert not re.search(r"""\[\s*["'`]x["'`]\s*,\s*["'`]y["'`]\s*\]""", code)
    for text in ("diverged at", "real time", "· paused", "· stopped"):
        assert text not in code, text
