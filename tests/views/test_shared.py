"""What both views and the page share is stated once (integrator_lab.views.shared): the page's
build-time data describes the very buffer the worker and the Panel server send, and the page's
scripts read it from there instead of restating it (that they unpack it as Python packs it:
tests/js/frames.test.mjs)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from integrator_lab.views import shared
from integrator_lab.views.figures import DashboardConfig

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = tuple(sorted((ROOT / "static/js").glob("*.js")))


@pytest.fixture(scope="module")
def page_data():
    from integrator_lab.site.build import page_data

    return page_data(DashboardConfig())


# The page's unpacking of a frame (static/js/frames.js) is tested in JavaScript itself, on
# frames this Python packs: tests/js/frames.test.mjs (node --test, in make check and make test).


def test_page_data_carries_the_shared_ranges_and_texts(page_data):
    assert page_data["dtRange"] == list(shared.DT_RANGE)
    assert page_data["speedRange"] == list(shared.SPEED_RANGE)
    assert page_data["rollover"] == shared.ROLLOVER
    assert page_data["streamIntervalMs"] == shared.STREAM_INTERVAL_MS
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


# -- the energy view: one home in JavaScript (issue 26) --------------------------------------
#: the static page's module that applies an energy view to the energy plot's models, for both
#: pages (the Panel page runs it joined to its js/apply_frames.js: server/page.py)
ENERGY_VIEW_HOME = ROOT / "static/js/energyview.js"
#: what only code applying an energy view to the models names: the y-range's reset, the
#: clipped marks' and the energy bars' sources
ENERGY_VIEW_MARKERS = ("reset_start", ":energy:clipped", ":scene:energy-bars")
#: every hand-written script of both pages (the page's, the Panel page's, the one-file build's)
PAGE_SCRIPTS = sorted(
    {
        *(ROOT / "static/js").glob("*.js"),
        *(ROOT / "web/site/js").glob("*.js"),
    }
)


def test_the_energy_view_is_applied_by_one_script():
    home = _code(ENERGY_VIEW_HOME)
    for marker in ENERGY_VIEW_MARKERS:
        assert marker in home, marker
    # no other script restates it (the energy view's models are set there alone)
    for script in PAGE_SCRIPTS:
        if script != ENERGY_VIEW_HOME:
            code = _code(script)
            for marker in ENERGY_VIEW_MARKERS:
                assert marker not in code, f"{script.relative_to(ROOT)}: {marker}"
    # the static page imports it (the page every host shows)
    assert re.search(
        r"""import\s*\{[^}]*\bapplyEnergyView\b[^}]*\}\s*from\s*["']\./energyview\.js["']""",
        (ROOT / "static/js/plots.js").read_text(),
    )
