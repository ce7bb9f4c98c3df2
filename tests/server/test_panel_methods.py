"""The Panel dashboard's "Add your method": data always, Python code only with --allow-code.

The dashboard object is the real one (as a notebook cell holds it); its editor's widgets are
set as a visitor sets them and the next update carries the request out.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from integrator_lab.views.scene import color_of

pn = pytest.importorskip("panel")

from integrator_lab.server.app import Dashboard  # noqa: E402
from integrator_lab.server.confinement import confinement  # noqa: E402
from integrator_lab.server.methods import CODE_DISABLED  # noqa: E402


def press_run(board, template):
    editor = board.method_editor
    editor.template.value = template
    editor.run.clicks += 1
    board._apply_requests()
    return editor.status.object


def test_a_tableau_runs_beside_the_built_ins_with_its_order_and_own_legend():
    board = Dashboard()
    status = press_run(board, "ralston")
    assert board.live.method is not None and board.live.method.name == "ralston"
    assert "order 2" in status
    for run in board.runs.values():
        assert run.integrators[-1] == "ralston"
    # the one legend has an entry of its own for it, last, in a colour no built-in has
    options = board.legend.options
    assert list(options.values())[-1] == "ralston"
    label = list(options)[-1]
    assert "order 2" in label
    assert color_of("ralston") not in {color_of(n) for n in board.integrators}
    assert "ralston" in board.legend.value  # shown; a click hides it everywhere
    board.legend.value = [n for n in board.legend.value if n != "ralston"]
    board._apply_requests()
    assert all("ralston" in models.hidden for models in board.panels.values())
    board.live.advance(0.05)
    assert board.runs["spring"].runner.time > 0


def test_a_grid_field_keeps_its_text_when_the_browser_sends_both_of_its_values_at_once():
    """A field's text comes as it is typed (``value_input``) and, once the field is left, as
    its ``value``; a busy browser sends both in one message, and param then calls their one
    watcher with two events. The text is taken: it used to be refused (a TypeError), and Run
    then ran the text from before (CI: "2/" run where "2/3" was typed)."""
    board = Dashboard()
    editor = board.method_editor
    editor.template.value = "ralston"  # b = (1/4, 3/4): order 2
    for name, text in [("b[0]", "1"), ("b[1]", "0")]:  # b . c = 0, not 1/2: order 1
        # what Panel does with a message from the browser (this is the refused path)
        editor.grid.fields[name]._process_events({"value_input": text, "value": text})
    editor.run.clicks += 1
    board._apply_requests()
    status = editor.status.object
    assert "order 1" in status, status


def test_python_code_is_refused_without_allow_code_and_the_editor_says_so():
    board = Dashboard()
    assert not board.method_editor.banner.visible
    status = press_run(board, "euler-code")
    assert board.live.method is None
    assert "disabled" in status and CODE_DISABLED.split(":")[0] in status
    # and the core refuses it too, whatever the page sends
    result = board.live.set_method(
        {"kind": "python", "name": "sneaky", "code": "def step(a, q, v, t, dt):\n    return q, v\n"}
    )
    assert result["problems"] and "not allowed" in result["problems"][0]
    assert all("sneaky" not in run.integrators for run in board.runs.values())


def test_python_code_runs_with_allow_code_under_a_banner():
    board = Dashboard(allow_code=True)
    assert board.method_editor.banner.visible
    assert "runs Python code sent by its visitors" in board.method_editor.banner.object
    # what the banner says of the visitors' code is what confines it on this machine
    confined = confinement().confined
    assert ("in a sandbox of its own" in board.method_editor.banner.object) is confined
    assert ("with the server's rights" in board.method_editor.banner.object) is not confined
    press_run(board, "euler-code")
    assert board.live.method is not None and board.live.method.name == "my-euler"
    assert all(run.integrators[-1] == "my-euler" for run in board.runs.values())


def test_serve_help_says_allow_code_executes_visitors_code():
    out = subprocess.run(
        [sys.executable, "-m", "integrator_lab.cli.main", "serve", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    flat = " ".join(out.split())
    assert "--allow-code" in flat
    assert "EXECUTES VISITORS' CODE ON THIS MACHINE" in flat


#: the text of the code editor's model in the page (what the server gets)
CODE_JS = """() => [...Bokeh.documents[0].all_models].find(
    (m) => (m.css_classes || []).includes("il-method-code")).code"""


def type_code(page, code: str) -> None:
    """Replace the code in the editor (Ace) as a user does: click, select all, type; then
    wait until the server's model has it."""
    page.locator(".il-method-code .ace_content").click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(code)
    page.wait_for_function(f"() => ({CODE_JS})() === {json.dumps(code)}")


@pytest.mark.browser
@pytest.mark.parametrize("allow", [False, True], ids=["without-flag", "allow-code"])
def test_the_served_page_refuses_code_unless_started_with_allow_code(browser, tmp_path, allow):
    from conftest import Server, open_page

    server = Server(tmp_path / "server.log", ("--allow-code",) if allow else ())
    try:
        page = open_page(browser, server.url, viewport=(1440, 900))
        banner = page.locator(".il-allow-code")
        assert (banner.count() > 0 and banner.first.is_visible()) is allow
        page.locator(".il-method-kind select").select_option(label="Python code")
        type_code(
            page,
            # symplectic Euler, which no default system makes diverge: a "stopped" status
            # would replace the one this test reads
            'NAME = "served-euler"\n\ndef step(accel, q, v, t, dt):\n'
            "    a = accel(q, v, t)\n"
            "    v = [u + dt * b for u, b in zip(v, a)]\n"
            "    return [x + dt * u for x, u in zip(q, v)], v\n",
        )
        page.locator(".il-method-run button").click()
        status = page.locator(".il-method-status")
        if allow:
            page.wait_for_function(
                "() => Bokeh.documents[0]"
                ".get_model_by_name('spring:line:error:served-euler') != null",
                timeout=30_000,
            )
            status.get_by_text("served-euler runs on every panel").wait_for()
        else:
            said = status.get_by_text("Python code is disabled on this server")
            said.wait_for()
            assert "integrator-lab serve --allow-code" in said.inner_text()
            assert (
                page.evaluate(
                    "() => Bokeh.documents[0].get_model_by_name('spring:line:error:served-euler')"
                )
                is None
            )
        assert not page.errors
        page.context.close()
    finally:
        server.stop()
    if allow:
        # what it said at start is what confines the code on this machine
        assert confinement().say() in (tmp_path / "server.log").read_text()
