"""The Panel dashboard's "Add your method" editor is the static page's: Python in a code editor
(line numbers, a monospace font), a Butcher tableau in a grid of fields and a splitting as a
list of drifts and kicks, every field named, in English and Japanese, and axe finds nothing
serious in it (issue: parity of the two dashboards).

A real ``integrator-lab serve --allow-code`` and Chromium; every field is filled from the
keyboard as a student fills it, and each test waits on the page's state (the server's reply in
the status, a model's value), never on a fixed delay.
"""

from __future__ import annotations

import pytest
from axe import axe_violations
from conftest import Server, open_page
from test_panel_methods import type_code

pytestmark = pytest.mark.browser

#: the kinds' labels in the Kind menu (English)
TABLEAU = "Butcher tableau (explicit Runge–Kutta)"
SPLITTING = "Splitting (drifts and kicks)"
PYTHON = "Python code"
#: a user's method runs: its error line is in the document
LINE_JS = "(name) => Bokeh.documents[0].get_model_by_name(`spring:line:error:${name}`) != null"


#: the status's text, its shadow roots' included
STATUS_JS = """(el) => { const walk = (root) => [...root.querySelectorAll("*")]
  .map((e) => (e.shadowRoot ? walk(e.shadowRoot) : "")).join(" ") + " " + root.textContent;
  return walk(el.shadowRoot || el); }"""


@pytest.fixture(scope="module")
def code_server(tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("method-editor") / "server.log", ["--allow-code"])
    yield srv
    srv.stop()


def editor_page(browser, server, query="", viewport=(1440, 900)):
    page = open_page(browser, server.url + query, viewport=viewport)
    page.locator(".il-method").first.scroll_into_view_if_needed()
    return page


def entry(page, name: str):
    """The field of entry ``name`` (``a[1][0]``, ``sequence[2]``) of the grid or the list."""
    slug = name.replace("][", "-").replace("[", "-").replace("]", "")
    return page.locator(f".il-entry-{slug} input")


def type_entry(page, name: str, text: str) -> None:
    """Focus the field, select what it holds and type ``text``, from the keyboard."""
    field = entry(page, name)
    field.focus()
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.type(text)


def status(page):
    return page.locator(".il-method-status")


def run_and_wait(page, *words) -> str:
    """Press Run; the status once it says every one of ``words``."""
    page.locator(".il-method-run button").click()
    said = ""
    for word in words:
        found = status(page).get_by_text(word, exact=False).first
        try:
            found.wait_for()
        except Exception as exc:  # noqa: BLE001 - say what the status said instead
            text = status(page).evaluate(STATUS_JS)
            raise AssertionError(f"{word!r} not in the status: {text[-300:]}") from exc
        said = found.inner_text()
    return said


def test_python_code_in_a_code_editor_with_line_numbers_races(browser, code_server):
    page = editor_page(browser, code_server)
    try:
        page.locator(".il-method-kind select").select_option(label=PYTHON)
        editor = page.locator(".il-method-code .ace_editor")
        editor.wait_for()
        # line numbers in a gutter, and a monospace font
        gutter = page.locator(".il-method-code .ace_gutter-cell")
        assert gutter.first.inner_text().strip() == "1"
        assert gutter.count() >= 10  # the template's lines
        font = editor.evaluate("(el) => getComputedStyle(el).fontFamily")
        assert "monospace" in font.lower(), font
        type_code(
            page,
            # symplectic Euler: explicit Euler would diverge on the cradle within seconds, and
            # its "Newton's cradle: ... stopped at" would replace the status this test reads
            'NAME = "typed-symplectic"\nORDER = 1\n\n\ndef step(accel, q, v, t, dt):\n'
            "    a = accel(q, v, t)\n"
            "    v = [u + dt * b for u, b in zip(v, a)]\n"
            "    return [x + dt * u for x, u in zip(q, v)], v\n",
        )
        said = run_and_wait(page, "typed-symplectic runs on every panel")
        assert "order 1" in said, said
        page.wait_for_function(LINE_JS, arg="typed-symplectic")
        assert page.errors == []
    finally:
        page.context.close()


@pytest.mark.parametrize(
    ("name", "c1", "a10", "b0", "b1"),
    [("my-heun", "1", "1", "1/2", "1/2"), ("ralston-typed", "2/3", "2/3", "0.25", "0.75")],
    ids=["heun", "ralston"],
)
def test_a_tableau_typed_in_the_grid_runs_with_order_2(browser, code_server, name, c1, a10, b0, b1):
    page = editor_page(browser, code_server)
    try:
        field = page.locator(".il-method-name input")
        field.fill(name)
        # the grid in the order Tab goes through it: c[0], c[1], a[1][0], b[0], b[1] (the
        # upper triangle of a is fixed at 0, out of the tab order)
        type_entry(page, "c[0]", "0")
        for text in (c1, a10, b0, b1):
            page.keyboard.press("Tab")
            page.keyboard.press("Control+A")
            page.keyboard.type(text)
        assert entry(page, "b[1]").evaluate("(el) => el === el.getRootNode().activeElement")
        said = run_and_wait(page, f"{name} runs on every panel", "order 2")
        assert "explicit" in said.lower() or "order 2" in said
        page.wait_for_function(LINE_JS, arg=name)
        assert page.errors == []
    finally:
        page.context.close()


def test_a_stage_added_is_a_row_and_a_bad_cell_is_named(browser, code_server):
    page = editor_page(browser, code_server)
    try:
        cells = page.locator(".il-grid .il-entry")
        assert cells.count() == 2 + 4 + 2  # c, a, b of two stages
        page.locator(".il-grid-add button").click()
        entry(page, "a[2][1]").wait_for()
        assert cells.count() == 3 + 9 + 3
        page.locator(".il-grid-stages").get_by_text("Stages: 3").wait_for()
        assert entry(page, "a[2][2]").is_disabled()  # explicit: the diagonal stays 0
        # each field is named by its entry, as the core's messages name it
        assert page.get_by_role("textbox", name="a[2][1]", exact=True).count() == 1
        assert page.get_by_role("textbox", name="b[2]", exact=True).count() == 1
        # a letter: the message names the cell, and nothing runs or breaks
        type_entry(page, "a[1][0]", "x")
        said = run_and_wait(page, "a[1][0]", "not a number")
        assert "Not running" in said, said
        # an empty cell
        type_entry(page, "a[1][0]", "2/3")
        type_entry(page, "b[2]", "")
        said = run_and_wait(page, "b[2]: empty")
        # the last stage removed again
        page.locator(".il-grid-remove button").click()
        entry(page, "a[2][1]").wait_for(state="detached")
        assert cells.count() == 8
        said = run_and_wait(page, "ralston runs on every panel", "order 2")
        assert page.errors == []
    finally:
        page.context.close()
    # nothing of the editor raised (the log may hold a closed websocket's traceback of
    # another test's page)
    log = code_server.log()
    assert "method_grid.py" not in log and "server/methods.py" not in log


def test_a_splitting_as_a_list_leapfrog_runs_with_order_2(browser, code_server):
    page = editor_page(browser, code_server)
    try:
        page.locator(".il-method-kind select").select_option(label=SPLITTING)
        steps = page.locator(".il-step-move select")
        steps.first.wait_for()
        assert steps.count() == 7  # Forest-Ruth, the template
        assert page.get_by_role("combobox", name="step 3", exact=True).count() == 1
        assert page.get_by_role("textbox", name="weight of step 3", exact=True).count() == 1
        for left in range(6, 2, -1):
            page.locator(".il-step-remove button").last.click()
            entry(page, f"sequence[{left}]").wait_for(state="detached")
        page.locator(".il-method-name input").fill("my-leapfrog")  # (leapfrog: a built-in)
        for i, (move, weight) in enumerate([("drift", "1/2"), ("kick", "1"), ("drift", "0.5")]):
            steps.nth(i).select_option(value=move)
            type_entry(page, f"sequence[{i}]", weight)
        said = run_and_wait(page, "my-leapfrog runs on every panel", "order 2")
        assert "symmetric" in said or "order 2" in said
        page.wait_for_function(LINE_JS, arg="my-leapfrog")
        # a letter in a weight: the message names the step
        type_entry(page, "sequence[1]", "one")
        run_and_wait(page, "step 2 (sequence[1])", "not a number")
        # a step added comes last, a drift of weight 0 to fill in
        page.locator(".il-steps-add button").click()
        entry(page, "sequence[3]").wait_for()
        assert entry(page, "sequence[3]").input_value() == "0"
        assert page.errors == []
    finally:
        page.context.close()


def test_the_editor_speaks_japanese(browser, code_server):
    page = editor_page(browser, code_server, "?lang=ja", viewport=(390, 844))
    try:
        card = page.locator(".il-method").first
        card.get_by_text("自分の積分法を追加").first.wait_for()
        assert page.locator(".il-grid-add button").inner_text() == "段を追加"
        assert page.locator(".il-grid-remove button").inner_text() == "最後の段を削除"
        page.locator(".il-grid-stages").get_by_text("段数").wait_for()
        kinds = page.locator(".il-method-kind select option").all_inner_texts()
        assert "ブッチャー表（陽的ルンゲ＝クッタ法）" in kinds
        type_entry(page, "b[0]", "x")
        run_and_wait(page, "b[0]", "数ではありません")
        page.locator(".il-method-kind select").select_option(label="分割法（ドリフトとキック）")
        page.locator(".il-steps-add button").get_by_text("ステップを追加").wait_for()
        assert page.locator(".il-step-move").first.get_by_text("ステップ 1").count() == 1
        assert "ドリフト" in page.locator(".il-step-move select").first.inner_text()
        assert page.errors == []
    finally:
        page.context.close()


def test_axe_finds_nothing_serious_in_the_open_editor(browser, code_server):
    """Each kind of method in turn, in one page (the editor shows one kind at a time)."""
    page = editor_page(browser, code_server)
    try:
        for kind in (TABLEAU, SPLITTING, PYTHON):
            page.locator(".il-method-kind select").select_option(label=kind)
            if kind == PYTHON:
                page.locator(".il-method-code .ace_gutter-cell").first.wait_for()
            else:
                page.locator(
                    ".il-entry-sequence-0 input" if kind == SPLITTING else ".il-entry-b-0 input"
                ).wait_for()
            found = axe_violations(page)
            assert found == [], (kind, found[0]["nodes"])
        assert page.errors == []
    finally:
        page.context.close()
