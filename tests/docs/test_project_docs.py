"""The project's own documentation builds without a single warning and loads nothing remote."""

from __future__ import annotations

import re

from docs_helpers import DOCS

from integrator_lab.docs.sphinx import SITE_DIR

# the project's documentation is built once per session: ``built_docs`` in conftest.py
PAGES = (
    "index",
    "integrating",
    "integrators",
    "order-and-cost",
    "stability",
    "game-engines",
    "cradle",
    "fixed-timestep",
    "usage",
    "embedding",
    "reference",
    "own-method",
    "lessons",
    "developing",
    "ja/index",
    "ja/lessons",
    "ja/own-method",
)


def test_every_page_is_built_with_its_demos(built_docs):
    for name in PAGES:
        assert (built_docs / f"{name}.html").is_file(), name
    demos = {
        name: (built_docs / f"{name}.html").read_text().count('<iframe class="integrator-lab-demo"')
        for name in PAGES
    }
    assert demos["index"] == 1 and demos["integrators"] == 4 and demos["cradle"] == 2
    assert demos["ja/index"] == 1 and demos["ja/own-method"] == 1
    assert (built_docs / SITE_DIR / "index.html").is_file()


def test_the_lessons_page_links_every_lesson_to_the_docs_copy_of_the_lab(built_docs):
    import html

    from integrator_lab.views.scenarios import SCENARIOS

    text = html.unescape((built_docs / "lessons.html").read_text(encoding="utf-8"))
    # the words only: no tags, one space between words, Sphinx's curly apostrophes straight
    words = " ".join(re.sub(r"<[^>]+>", "", text).replace("\u2019", "'").split())
    for scenario in SCENARIOS:
        href = f'href="{SITE_DIR}/index.html?{scenario.link_query()}"'
        assert href in text, scenario.id
        assert " ".join(scenario.title.split()) in words, scenario.id
        # the note's sentences, `code` as code
        first = scenario.look_for.split("`")[0]
        assert " ".join(first.split()) in words, scenario.id


def test_nothing_is_loaded_from_elsewhere(built_docs):
    for page in [*built_docs.glob("*.html"), *built_docs.glob("ja/*.html")]:
        text = page.read_text(encoding="utf-8")
        assert (
            re.findall(r'<(?:script|img|iframe|link)\b[^>]*(?:src|href)="(?:https?:)?//', text)
            == []
        ), page.name
        assert "mathjax" not in text.lower(), page.name


def test_the_pages_have_the_labs_icon_and_load_without_a_console_error(
    built_docs, browser, http_root
):
    from integrator_lab.site.build import favicon_png

    # the docs' icon is the static page's icon, not a copy that drifts
    assert (DOCS / "_static" / "favicon.png").read_bytes() == favicon_png()
    root = http_root(built_docs)
    page = browser.new_page()
    errors = []
    page.on("console", lambda message: message.type == "error" and errors.append(message.text))
    try:
        for name in ("index", "game-engines", "reference"):
            page.goto(f"{root}{name}.html")
            icon = page.eval_on_selector("link[rel~='icon']", "link => link.href")
            assert page.request.get(icon).status == 200, icon
            page.wait_for_load_state("networkidle")
        # without a favicon, Chromium's own request for one is the console error
        assert errors == []
    finally:
        page.close()


def test_equations_are_mathml_and_the_cli_help_is_real(built_docs):
    integrators = (built_docs / "integrators.html").read_text(encoding="utf-8")
    assert integrators.count("<math") > 10
    usage = (built_docs / "usage.html").read_text(encoding="utf-8")
    assert "usage: integrator-lab run [-h]" in usage
    engines = (built_docs / "game-engines.html").read_text(encoding="utf-8")
    # the table the core computes at build time: Unity-style damping at dt = 0.1 s
    assert "9 (9)" in engines and "13.93 (13.93)" in engines


def _table_rows(html: str, caption_start: str) -> list[list[str]]:
    """The body rows (cell texts) of the table whose caption starts with ``caption_start``."""
    start = html.index(f'<span class="caption-text">{caption_start}')
    body = html[html.index("<tbody>", start) : html.index("</tbody>", start)]
    return [
        [
            re.sub(r"<[^>]+>", "", cell).strip()
            for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        ]
        for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)
    ]


def test_order_and_cost_tables_are_computed_by_the_core_and_bear_out_the_text(built_docs):
    html = (built_docs / "order-and-cost.html").read_text(encoding="utf-8")
    assert "usage: integrator-lab study [-h]" in html
    # Euler against RK4 over 10 s: columns integrator, dt, steps, evaluations, error, energy
    caption = "spring (damping = 0), error against the exact solution, T = 10 s"
    rows = {(r[0], float(r[1])): r for r in _table_rows(html, caption)}
    assert rows["rk4", 0.1][3] == "400"  # 100 steps of four stages
    assert rows["euler", 0.1][4] == "–"  # run away: no error to show
    assert float(rows["rk4", 0.1][4]) < float(rows["euler", 0.001][4])
    # the long runs: RK4's energy error is the smaller at 10 s, velocity Verlet's at 1000 s
    long = {
        (r[0], r[1]): r
        for r in _table_rows(html, "spring (damping = 0), error against the exact solution</span>")
    }
    energy = {key: float(r[6]) for key, r in long.items()}
    assert energy["10", "rk4"] < energy["10", "velocity-verlet"]
    assert energy["1000", "velocity-verlet"] < energy["1000", "rk4"] / 10
    # with the damper, the fit finds Yoshida second order and says so
    slopes = {r[0]: r for r in _table_rows(html, "spring (damping = 0.1), T = 2 s")}
    assert abs(float(slopes["yoshida4"][2]) - 2) < 0.15
    assert slopes["yoshida4"][1] == "2"
    assert "velocity-dependent forces (4 without)" in slopes["yoshida4"][5]
    assert slopes["rk4"][5] == ""
