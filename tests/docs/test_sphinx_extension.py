"""The Sphinx extension: demos validated at build time, the site copied once, live demos."""

from __future__ import annotations

import html
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from docs_helpers import (
    ACCEPTED,
    BOOT_TIMEOUT,
    SharedProject,
    sphinx_build,
    wait_until_running,
    write_project,
)

from integrator_lab.core import INTEGRATORS, SYSTEMS
from integrator_lab.docs.sphinx import SITE_DIR, iframe_snippet, parse_demo

SPRING_DEMO = """
.. integrator-lab::
   :systems: spring
   :integrators: euler, symplectic-euler, rk4
   :dt: 0.05
   :height: 420
"""
PENDULUM_DEMO = """
.. integrator-lab::
   :systems: pendulum
   :integrators: velocity-verlet, rk4
   :params: theta0=2, omega0=0.5
   :speed: 2
   :height: 300
   :title: A wide swing
"""
#: pushes a demo far below the first screen, where lazy loading must not start it
SPACER = """
.. raw:: html

   <div style="height: 12000px"></div>
"""


class Frames(HTMLParser):
    """The <iframe> elements of a page, as attribute dicts."""

    def __init__(self, text):
        super().__init__()
        self.frames = []
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        if tag == "iframe":
            self.frames.append(dict(attrs))


def frames_of(page: Path) -> list[dict]:
    return Frames(page.read_text(encoding="utf-8")).frames


def query_of(frame: dict) -> dict:
    return {key: values[0] for key, values in parse_qs(urlsplit(frame["src"]).query).items()}


@pytest.fixture(scope="module")
def demo_build(tmp_path_factory):
    """Two demos on the home page, one far down a page one folder deeper, and a page with
    two demos far apart."""
    root = tmp_path_factory.mktemp("demo-project")
    src = write_project(
        root / "src",
        {
            "index": SPRING_DEMO + PENDULUM_DEMO,
            "guide/deeper": SPACER + SPRING_DEMO,
            "guide/apart": SPRING_DEMO + SPACER + PENDULUM_DEMO,
        },
    )
    status, log = sphinx_build(src, root / "out")
    assert status == 0, log
    return root / "out"


# -- options ---------------------------------------------------------------------------------
def test_options_become_the_pages_query():
    demo = parse_demo(
        {
            "systems": "spring, pendulum",
            "integrators": "euler,rk4",
            "dt": "0.05",
            "params": "spring.damping=0, mass=2",
            "speed": "0.5",
        }
    )
    query = {k: v[0] for k, v in parse_qs(demo.query()).items()}
    assert query == {
        "embed": "1",
        "systems": "spring,pendulum",
        "integrators": "euler,rk4",
        "speed": "0.5",
        "spring.dt": "0.05",
        "pendulum.dt": "0.05",
        "spring.damping": "0",
        "spring.mass": "2",
        "pendulum.mass": "2",
    }


def test_the_lang_option_sets_the_language_of_the_demos_texts():
    # the page's own query item (static/js/i18n.js): without it, the reader's browser chooses
    assert "lang" not in parse_qs(parse_demo({"systems": "spring"}).query())
    for lang in ("en", "ja"):
        query = parse_qs(parse_demo({"systems": "spring", "lang": f" {lang} "}).query())
        assert query["lang"] == [lang]
    snippet = iframe_snippet("lab/", systems="spring", lang="ja")
    assert "&amp;lang=ja" in snippet


def test_defaults_and_the_plain_iframe_snippet():
    demo = parse_demo({"systems": "cradle"})
    assert demo.integrators == ("euler", "symplectic-euler", "velocity-verlet", "rk4")
    assert demo.dt is None and demo.height == 420
    snippet = iframe_snippet("https://example.org/lab", systems="cradle", integrators=["rk4"])
    assert snippet.startswith(
        '<iframe class="integrator-lab-demo" src="https://example.org/lab/'
        'index.html?embed=1&amp;systems=cradle&amp;integrators=rk4"'
    )
    assert 'loading="lazy"' in snippet and 'height="420"' in snippet
    # several systems stack in a text column: a taller frame by default
    assert parse_demo({"systems": "cradle, spring"}).height == 710


BAD_OPTIONS = [
    ({"integrators": "rk4"}, ":systems:", "required"),
    ({"systems": "spring, drag"}, ":systems:", "'drag'"),
    ({"systems": "spring", "integrators": "euler, rk5"}, ":integrators:", "'rk5'"),
    ({"systems": "spring", "integrators": "rk4, rk4"}, ":integrators:", "twice"),
    ({"systems": "spring", "dt": "0"}, ":dt:", "1e-05 to 0.5"),
    ({"systems": "spring", "dt": "nan"}, ":dt:", "'nan'"),
    ({"systems": "spring", "dt": "1"}, ":dt:", "'1'"),
    ({"systems": "spring", "params": "stiffness=-1"}, ":params:", "'stiffness'"),
    ({"systems": "spring", "params": "theta0=1"}, ":params:", "'theta0'"),
    ({"systems": "spring", "params": "pendulum.theta0=1"}, ":params:", "not among"),
    ({"systems": "spring", "params": "damping"}, ":params:", "NAME=VALUE"),
    ({"systems": "cradle", "params": "balls=3, lifted=4"}, ":params:", "'lifted'"),
    ({"systems": "spring", "height": "12"}, ":height:", "[150, 2000]"),
    # str.isdigit() and int() accept a superscript or other scripts' digits: not a pixel count
    ({"systems": "spring", "height": "150\u00b2"}, ":height:", "[150, 2000]"),
    ({"systems": "spring", "height": "\uff14\uff10\uff10"}, ":height:", "[150, 2000]"),
    ({"systems": "spring", "dt": "\uff10.\uff10\uff15"}, ":dt:", "1e-05 to 0.5"),
    ({"systems": "spring", "speed": "\u0662"}, ":speed:", "0.1 to 4"),
    ({"systems": "spring", "speed": "100"}, ":speed:", "0.1 to 4"),
    ({"systems": "spring", "colour": "red"}, ":colour:", "valid options"),
    ({"systems": "spring", "lang": "fr"}, ":lang:", "en, ja"),
    ({"systems": "spring", "lang": "JA"}, ":lang:", "en, ja"),
    ({"systems": "spring", "lang": ""}, ":lang:", "en, ja"),
]


@pytest.mark.parametrize(
    "options, option, detail", BAD_OPTIONS, ids=[f"{o}-{d}" for _, o, d in BAD_OPTIONS]
)
def test_bad_options_name_the_option(options, option, detail):
    with pytest.raises(ValueError) as error:
        parse_demo(options)
    assert option in str(error.value) and detail in str(error.value)


#: name: (the line under ``:systems: spring``, what the error says)
REJECTED_DEMOS = {
    "dt": (":dt: -0.1", "option ':dt:'"),
    "integrator": (":integrators: euler, backwards-euler", "unknown name 'backwards-euler'"),
    "unknown-option": (":wobble: 1", "unknown option ':wobble:'"),
    "height-superscript": (":height: 150\u00b2", "option ':height:'"),
    # an option without its colons is content, not an option: the demo would silently vanish
    "content": ("\n   integrators: euler", "takes options only"),
}
#: one page each, one build: it fails, each reported with its file, line and option
REJECTED = SharedProject("rejected-demos")
for _name, (_line, _) in REJECTED_DEMOS.items():
    REJECTED.add(
        f"physics/{_name}",
        f"Some text.\n\n.. integrator-lab::\n   :systems: spring\n   {_line}\n",
    )


@pytest.mark.parametrize("name", REJECTED_DEMOS)
def test_a_bad_option_stops_the_build_with_file_line_and_option(build_of, name):
    rejected = build_of(REJECTED)
    _, expected = REJECTED_DEMOS[name]
    assert rejected.status == 1
    [error] = rejected.errors(f"physics/{name}")
    assert f"physics/{name}.rst:6: ERROR: integrator-lab: " in error and expected in error, error
    assert "Traceback" not in rejected.log
    assert not (rejected.out / SITE_DIR).exists()


# -- a real build ----------------------------------------------------------------------------
def test_the_site_is_copied_once_with_every_demo_pointing_at_it(demo_build):
    site = demo_build / SITE_DIR
    assert (site / "index.html").is_file()
    copies = [p.relative_to(demo_build) for p in demo_build.rglob("pyodide.asm.wasm")]
    assert len(copies) == 1 and copies[0].parts[:2] == (SITE_DIR, "pyodide")
    assert len(list(demo_build.rglob("bokeh.*.min.js"))) == 1
    home, deeper = (
        frames_of(demo_build / "index.html"),
        frames_of(demo_build / "guide" / "deeper.html"),
    )
    assert len(home) == 2 and len(deeper) == 1
    for frame in home:
        assert frame["src"].startswith(f"{SITE_DIR}/index.html?")
    assert deeper[0]["src"].startswith(f"../{SITE_DIR}/index.html?")
    for frame in home + deeper:
        assert frame["loading"] == "lazy" and frame["title"]


def test_options_are_applied_to_each_demo(demo_build):
    spring, pendulum = frames_of(demo_build / "index.html")
    assert query_of(spring) == {
        "embed": "1",
        "systems": "spring",
        "integrators": "euler,symplectic-euler,rk4",
        "spring.dt": "0.05",
    }
    assert spring["height"] == "420" and "height:420px" in spring["style"]
    assert query_of(pendulum) == {
        "embed": "1",
        "systems": "pendulum",
        "integrators": "velocity-verlet,rk4",
        "speed": "2",
        "pendulum.theta0": "2",
        "pendulum.omega0": "0.5",
    }
    assert pendulum["height"] == "300" and pendulum["title"] == "A wide swing"


def test_other_builders_and_a_prebuilt_site(demo_build, tmp_path):
    prebuilt = tmp_path / "prebuilt"
    prebuilt.mkdir()
    (prebuilt / "index.html").write_text("<!doctype html><title>site</title>", encoding="utf-8")
    # the demo project's sources, with the site given instead of built
    src, site = demo_build.parent / "src", f"integrator_lab_site={prebuilt}"
    status, log = sphinx_build(src, tmp_path / "dirhtml", "-b", "dirhtml", "-D", site)
    assert status == 0, log
    deep = frames_of(tmp_path / "dirhtml" / "guide" / "deeper" / "index.html")
    assert deep[0]["src"].startswith(f"../../{SITE_DIR}/index.html?")
    assert (tmp_path / "dirhtml" / SITE_DIR / "index.html").read_text() == (
        prebuilt / "index.html"
    ).read_text()
    status, log = sphinx_build(src, tmp_path / "single", "-b", "singlehtml", "-D", site)
    assert status == 0, log
    frames = frames_of(tmp_path / "single" / "index.html")
    # the three pages' five demos in one page, each pointing at the site beside it
    assert len(frames) == 5 and all(f["src"].startswith(f"{SITE_DIR}/index.html?") for f in frames)
    status, log = sphinx_build(src, tmp_path / "text", "-b", "text", "-D", site)
    assert status == 0, log
    assert "integrator-lab" not in (tmp_path / "text" / "index.txt").read_text()
    assert not (tmp_path / "text" / SITE_DIR).exists()


REFERENCE = ACCEPTED.add("reference", ".. integrator-lab-reference::\n")


def test_no_demo_no_site(accepted):
    # a project of reference, tables and figures: built, and no copy of the site
    assert (accepted.out / "index.html").is_file()
    assert not (accepted.out / SITE_DIR).exists()


def test_reference_lists_every_declaration(accepted):
    # (built with -W -n, nitpicky: no dangling references)
    page = (accepted.out / f"{REFERENCE}.html").read_text(encoding="utf-8")
    for name, cls in SYSTEMS.items():
        assert f'<span class="pre">{name}</span>' in page
        for param in cls.PARAMS:
            assert f'<span class="pre">{param.name}</span>' in page
            # beside it, what people call it (the core's declaration), and the unit as read
            words = f"{param.label} {param.symbol}" if param.symbol else param.label
            assert f"<td><p>{html.escape(words, quote=False)}</p></td>" in page, param.name
            if param.unit:
                assert f"<td><p>{html.escape(param.unit, quote=False)}</p></td>" in page
    for name in INTEGRATORS:
        assert f'<span class="pre">{name}</span>' in page
    assert "(0, 1e+06]" in page  # the spring's stiffness: open at 0, closed at 1e6
    # yoshida4's order drops to 2 with damping: the table says so beside its 4
    assert "<td><p>4 (2 with damping)</p></td>" in page


# -- in a browser ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def _tabs(browser):
    tabs = []
    yield tabs
    for tab in tabs:
        tab.close()


@pytest.fixture
def tab(_tabs, browser, request):
    """The module's one tab (the tests read what the demo project's pages show). After a test
    its demos are removed, so that none runs on while the next test loads its page; after a
    test that failed it is closed, so that the next test opens a fresh one."""
    if not _tabs or _tabs[-1].is_closed():
        _tabs.append(browser.new_page(viewport={"width": 1200, "height": 800}))
    page = _tabs[-1]
    yield page
    report = getattr(request.node, "rep_call", None)
    if report is None or report.failed:
        page.close()
    else:
        page.evaluate("() => document.querySelectorAll('iframe').forEach((f) => f.remove())")


@pytest.mark.browser
def test_both_demos_run_in_chromium(demo_build, tab, http_root):
    base = http_root(demo_build)
    page = tab
    page.set_viewport_size({"width": 1200, "height": 1600})
    page.goto(base + "index.html")
    page.wait_for_function("document.querySelectorAll('iframe').length === 2")
    page.wait_for_function(
        "() => [...document.querySelectorAll('iframe')].every("
        "f => f.contentWindow && f.contentWindow.integratorLab)",
        timeout=BOOT_TIMEOUT * 1000,
        polling=200,
    )
    frames = [f for f in page.frames if f"/{SITE_DIR}/index.html" in f.url]
    assert len(frames) == 2
    by_system = {}
    for frame in frames:
        first, later = wait_until_running(frame)
        (system,) = later["systems"]
        by_system[system] = (frame, first, later)
    assert set(by_system) == {"spring", "pendulum"}
    expected = {
        "spring": ["euler", "symplectic-euler", "rk4"],
        "pendulum": ["velocity-verlet", "rk4"],
    }
    for system, (frame, first, later) in by_system.items():
        state = frame.evaluate("integratorLab.state()")
        assert state["systems"] == [system]
        assert state["integrators"] == expected[system]
        assert list(later["systems"][system]["integrators"]) == expected[system]
        assert later["systems"][system]["simTime"] > first["systems"][system]["simTime"]
    assert by_system["spring"][0].evaluate("integratorLab.state()")["dt"]["spring"] == 0.05
    pendulum_state = by_system["pendulum"][0].evaluate("integratorLab.state()")
    assert pendulum_state["params"]["pendulum"]["theta0"] == 2
    assert pendulum_state["speed"] == 2


@pytest.mark.browser
def test_a_demo_far_down_starts_only_when_scrolled_into_view(demo_build, tab, http_root):
    base = http_root(demo_build)
    page = tab
    page.set_viewport_size({"width": 1200, "height": 800})
    requested = []

    def note(request):
        if f"/{SITE_DIR}/" in request.url:
            requested.append(request.url)

    page.on("request", note)
    try:
        page.goto(base + "guide/deeper.html")
        page.wait_for_load_state("load")
        time.sleep(0.5)  # the behaviour: out of view, it loads nothing, over a while
        assert requested == []
        page.locator("iframe").scroll_into_view_if_needed()
        page.wait_for_function(
            "() => document.querySelector('iframe').contentWindow.integratorLab !== undefined",
            timeout=30_000,
            polling=100,
        )
        assert any(url.split("?")[0].endswith(f"/{SITE_DIR}/index.html") for url in requested)
    finally:
        page.remove_listener("request", note)


@pytest.mark.browser
def test_a_demo_scrolled_out_of_view_stops_stepping_until_it_is_back(demo_build, tab, http_root):
    base = http_root(demo_build)
    page = tab
    page.set_viewport_size({"width": 1200, "height": 800})
    page.goto(base + "guide/apart.html")
    top, far = page.locator("iframe").all()
    spring = top.element_handle().content_frame()
    wait_until_running(spring)
    far.scroll_into_view_if_needed()  # the spring demo is 12000 px above now
    pendulum = far.element_handle().content_frame()
    first, later = wait_until_running(pendulum)
    assert later["systems"]["pendulum"]["simTime"] > first["systems"]["pendulum"]["simTime"]
    paused = spring.evaluate("integratorLab.status()")
    time.sleep(1.0)  # the behaviour: out of view, it does not step, over a while
    still = spring.evaluate("integratorLab.status()")
    assert paused["running"] is False and still["running"] is False
    assert still["systems"]["spring"]["simTime"] == paused["systems"]["spring"]["simTime"]
    assert spring.evaluate("integratorLab.state().playing") is True  # the URL's setting
    top.scroll_into_view_if_needed()
    spring.wait_for_function("integratorLab.status().running", timeout=60_000)
    start = spring.evaluate("integratorLab.status().systems.spring.simTime")
    spring.wait_for_function(
        f"integratorLab.status().systems.spring.simTime > {start}", timeout=60_000
    )
    assert pendulum.evaluate("integratorLab.status().running") is False
