"""The static page's "Add your method" editor, in headless Chromium on the real built page.

What the issue fixes: a tableau typed into the grid runs beside the built-ins with the order
the order conditions give; an exception in the user's step names its line and stops that
method alone; code that never returns is stopped within 2 s by replacing the worker; code from
a shared link waits for the visitor's click, data from a link runs at once; the editor is
CodeMirror (line numbers, highlighting) and a plain text box when its bundle is missing.

The tests share one booted page (``shared_page``), reset before each; a test takes the method
it ran off the page with the editor's own Remove (the reset applies a view: the worker keeps
a user's method). Fresh pages only for what a page reads as it boots: a method in a link, and
the editor's bundle (asked for once, when the editor is first opened).
"""

# ruff: noqa: F811 - the tests take the page fixtures imported from pages by name
from __future__ import annotations

import json
import time

import pytest
from pages import SYSTEMS, open_page, shared_page, shared_pages, site  # noqa: F401 - fixtures

pytestmark = pytest.mark.browser

RUN_TIMEOUT_MS = 20_000


def open_editor(page):
    page.wait_live()
    # (a shared page may have it open from the test before: a click would close it)
    if not page.js("document.querySelector('#il-editor details').open"):
        page.page.click("#il-editor summary")
    page.page.select_option("#il-editor-kind", "python")  # what a page shows first
    # the code box (CodeMirror's bundle is read when the editor first opens, or the text box)
    page.page.locator("#il-editor .cm-editor, #il-editor textarea").first.wait_for()


def user_lanes(page):
    """The integrators of each system that are not built-ins."""
    builtins = set(page.js("window.integratorLab.state().integrators"))
    return {
        name: sorted(set(entry["integrators"]) - builtins)
        for name, entry in page.status()["systems"].items()
    }


def type_code(page, text):
    """Replace the code in the editor by ``text``, as typed (CodeMirror or the text box)."""
    box = page.page.locator("#il-editor .cm-content, #il-editor textarea").first
    box.click()
    page.page.keyboard.press("Control+A")
    page.page.keyboard.insert_text(text)


def remove_method(page):
    """The user's method taken off the page with the editor's Remove, as a visitor does."""
    page.page.click("#il-editor-remove")
    page.wait("window.integratorLab.status().method.name === null", RUN_TIMEOUT_MS)


def link(page):
    return page.js("window.integratorLab.link()")


def wait_new_link(page, before):
    """Until the link is no longer ``before`` and carries a method (the one just run: a link
    a method left before on a shared page is not it)."""
    page.wait(
        f"(() => {{ const link = window.integratorLab.link();"
        f" return link !== {json.dumps(before)} && link.includes('#method='); }})()"
    )


def run_python(page, code):
    page.page.select_option("#il-editor-kind", "python")
    type_code(page, code)
    page.page.click("#il-editor-run")


def test_ralston_typed_into_the_tableau_grid_runs_everywhere_with_order_2(shared_page):
    page = shared_page()
    open_editor(page)
    before = link(page)
    page.page.select_option("#il-editor-kind", "tableau")
    page.page.fill("#il-editor-stages", "2")
    page.page.dispatch_event("#il-editor-stages", "change")
    page.page.fill("#il-editor-name", "my-ralston")
    for entry, value in {
        "c-0": "0",
        "c-1": "2/3",
        "a-1-0": "2/3",
        "b-0": "1/4",
        "b-1": "3/4",
    }.items():
        page.page.fill(f'#il-editor-grid [data-entry="{entry}"]', value)
    page.page.click("#il-editor-run")
    page.wait("window.integratorLab.status().method.name === 'my-ralston'", RUN_TIMEOUT_MS)
    # Ralston's weights meet the order-1 and order-2 conditions and not sum b_i c_i^2 = 1/3
    assert page.status()["method"]["order"] == 2
    assert "order 2" in page.page.text_content("#il-editor-info")
    page.wait(
        "Object.values(window.integratorLab.status().systems).every("
        "(s) => s.integrators['my-ralston'] && s.integrators['my-ralston'].samples > 20)",
        RUN_TIMEOUT_MS,
    )
    assert user_lanes(page) == {system: ["my-ralston"] for system in SYSTEMS}
    # a chip of its own in the page's one legend, in a colour none of the built-ins has
    chips = page.js(
        "() => Array.from(document.querySelectorAll('#il-legend .il-chip'), (chip) => "
        "[chip.dataset.integrator, getComputedStyle(chip).getPropertyValue('--il-chip-color')])"
    )
    assert [name for name, _ in chips][-1] == "my-ralston"
    colors = [color.strip() for _, color in chips]
    assert len(set(colors)) == len(colors)  # one colour per integrator, the user's too
    assert page.status()["systems"]["spring"]["integrators"]["my-ralston"]["divergedAt"] is None
    wait_new_link(page, before)
    assert not page.errors
    remove_method(page)


FAILING_CODE = """NAME = "fails-at-100"
calls = 0


def step(accel, q, v, t, dt):
    global calls
    calls += 1
    a = accel(q, v, t)
    if calls == 100:
        raise RuntimeError("the hundredth step")
    v = [u + dt * b for u, b in zip(v, a)]
    return [x + dt * u for x, u in zip(q, v)], v
"""


def test_an_exception_at_step_100_shows_its_line_and_the_others_go_on(shared_page):
    page = shared_page("?systems=spring")
    open_editor(page)
    run_python(page, FAILING_CODE)
    page.wait("window.integratorLab.status().method.name === 'fails-at-100'", RUN_TIMEOUT_MS)
    page.wait(
        "window.integratorLab.status().systems.spring.integrators['fails-at-100']"
        ".divergedAt !== null",
        RUN_TIMEOUT_MS,
    )
    error = page.page.text_content("#il-editor-error")
    raise_line = (
        FAILING_CODE.splitlines().index('        raise RuntimeError("the hundredth step")') + 1
    )
    assert f"line {raise_line}: RuntimeError: the hundredth step" in error
    assert "step 100" in error
    status = page.status()["systems"]["spring"]
    dt = page.js("window.integratorLab.state().dt.spring")
    # the runner dates a failed step by its end, as any divergence: step 100 ends at 100 dt
    assert status["integrators"]["fails-at-100"]["divergedAt"] == pytest.approx(100 * dt)
    before = status["simTime"]
    page.wait(f"window.integratorLab.status().systems.spring.simTime > {before} + 0.5")
    for name, entry in page.status()["systems"]["spring"]["integrators"].items():
        if name != "fails-at-100":
            assert entry["divergedAt"] is None
    # a syntax error is refused before it runs, with its line
    run_python(page, "NAME = 'broken'\ndef step(accel, q, v, t, dt)\n    return q, v\n")
    page.wait("window.integratorLab.status().method.problems.length > 0", RUN_TIMEOUT_MS)
    problems = page.status()["method"]["problems"]
    assert problems[0].startswith("line 2: SyntaxError")
    assert "line 2: SyntaxError" in page.page.text_content("#il-editor-error")
    remove_method(page)


HANGING_CODE = 'NAME = "hangs"\n\n\ndef step(accel, q, v, t, dt):\n    while True:\n        pass\n'


#: how soon an endless loop is stopped, in the page's own time (see ``stop_time_ms``)
STOP_MS = 2000


def stop_time_ms(page):
    """How long the page took to replace a worker that hung after it answered a method: of
    the time from its answer to the new worker, the part the page could run its timers
    (``page.time_timers()`` before the Run). The watchdog counts silence by its timers, so
    that a page held up (drawing, or waiting for a core on a loaded machine: seconds in a CI
    run) blames no worker for it; the time it lost is no measure of the watchdog either."""
    method = page.status()["method"]
    took = method["replacedAt"] - method["answeredAt"]
    held = page.held_up_ms(method["answeredAt"], method["replacedAt"])
    return took - held, f"{took:.0f} ms, held up {held:.0f}: {page.status()['lastHang']}"


def test_code_that_never_returns_is_stopped_within_2_s_and_the_page_goes_on(shared_page):
    page = shared_page()
    open_editor(page)
    page.time_timers()
    restarts = page.status()["restarts"]  # (a shared page: the workers replaced before)
    run_python(page, HANGING_CODE)
    page.wait("window.integratorLab.status().method.answeredAt !== null", RUN_TIMEOUT_MS)
    page.wait(f"window.integratorLab.status().restarts === {restarts + 1}")  # (how soon: below)
    # the worker answered, then its first tick ran the step, which never returns
    took, why = stop_time_ms(page)
    assert took <= STOP_MS, why
    method = page.status()["method"]
    assert method["name"] is None
    error = page.page.text_content("#il-editor-error")
    assert "did not return" in error and "restarted without it" in error
    assert "while True" in page.page.text_content("#il-editor .cm-content")  # text kept
    # the new worker runs the same settings without the method
    started = time.monotonic()
    page.wait("window.integratorLab.status().systems.spring.simTime > 1.0")
    assert time.monotonic() - started < 60
    assert user_lanes(page) == {system: [] for system in SYSTEMS}
    assert not page.errors


def test_python_from_a_link_waits_for_run_and_data_from_a_link_runs_at_once(
    shared_page, shared_pages, open_page
):
    author = shared_page("?systems=spring")
    open_editor(author)
    before = link(author)
    author.page.select_option("#il-editor-template", "euler-code")
    author.page.click("#il-editor-run")
    author.wait("window.integratorLab.status().method.name === 'my-euler'", RUN_TIMEOUT_MS)
    wait_new_link(author, before)
    code_link = link(author)
    author.page.select_option("#il-editor-template", "forest-ruth")
    author.page.click("#il-editor-run")
    author.wait("window.integratorLab.status().method.name === 'forest-ruth'", RUN_TIMEOUT_MS)
    wait_new_link(author, code_link)
    data_link = link(author)
    base = visitor_base(author)
    assert author.errors == []
    shared_pages.pause()  # while the visitors' pages run (a live page keeps a core busy)

    # each visitor opens the link afresh: the page reads the method in a link as it boots
    visitor = open_page(code_link[len(base) :])
    visitor.wait_live()
    visitor.wait(
        "document.querySelector('#il-editor .cm-content').textContent.includes('def step')"
    )
    visitor.wait("window.integratorLab.status().systems.spring.simTime > 1.0")
    assert user_lanes(visitor) == {"spring": []}  # nothing ran
    assert visitor.status()["method"]["name"] is None
    assert "has not run" in visitor.page.text_content("#il-editor-info")
    # the top of the page says so (the editor is below the panels), and its button brings
    # the code into view with the focus on Run
    top = visitor.page.locator("#il-messages li.il-banner")
    assert top.is_visible() and top.bounding_box()["y"] < 300
    assert "contains a Python method" in top.inner_text()
    assert not visitor.page.locator("#il-editor-run").is_visible() or (
        visitor.page.locator("#il-editor-run").bounding_box()["y"] > 900
    )
    top.get_by_role("button", name="Show the code").click()
    visitor.wait("document.activeElement && document.activeElement.id === 'il-editor-run'")
    run_box = visitor.page.locator("#il-editor-run").bounding_box()
    assert 0 <= run_box["y"] < visitor.js("window.innerHeight")  # in view
    visitor.page.click("#il-editor-run")
    assert visitor.page.locator("#il-messages li.il-banner").count() == 0  # its job is done
    visitor.wait("window.integratorLab.status().method.name === 'my-euler'", RUN_TIMEOUT_MS)
    visitor.wait(
        "window.integratorLab.status().systems.spring.integrators['my-euler']?.samples > 5",
        RUN_TIMEOUT_MS,
    )

    visitor.close()
    data_visitor = open_page(data_link[len(base) :])
    data_visitor.wait_live()
    data_visitor.wait("window.integratorLab.status().method.name === 'forest-ruth'", RUN_TIMEOUT_MS)
    assert data_visitor.status()["method"]["order"] == 4  # Forest-Ruth is fourth order
    assert user_lanes(data_visitor) == {"spring": ["forest-ruth"]}
    data_visitor.close()
    remove_method(author)


def visitor_base(page):
    return page.site["url"]


def test_the_editor_is_codemirror_with_line_numbers_and_highlighting(shared_page):
    page = shared_page()
    open_editor(page)
    code = page.page.locator("#il-editor .cm-editor")
    assert code.is_visible()
    lines = page.js("document.querySelectorAll('#il-editor .cm-content .cm-line').length")
    numbers = page.page.locator("#il-editor .cm-lineNumbers .cm-gutterElement").all_inner_texts()
    assert "1" in numbers and str(lines) in numbers
    # "def" is coloured as a keyword: another colour than the plain text around it. The
    # parser's highlighting comes when CodeMirror's parse is done, which it runs in slices of
    # the page's idle time (on a busy machine after the editor is drawn): waited for
    find_def = """() => [...document.querySelectorAll('#il-editor .cm-line span')]
        .find((s) => s.textContent === 'def')"""
    page.wait(f"({find_def})() !== undefined")
    colors = page.js(f"""() => {{
        const def = ({find_def})();
        const line = def.closest('.cm-line');
        return [getComputedStyle(def).color, getComputedStyle(line).color];
    }}""")
    assert colors[0] != colors[1]
    assert page.page.locator("#il-editor .il-editor-note").is_hidden()


def test_the_bundle_is_read_when_the_editor_opens_and_without_it_a_text_box_runs(
    shared_pages, open_page
):
    """A page of its own: what it asks for as it boots, and for the editor's bundle when the
    editor is first opened (a page that read the bundle once keeps it). The bundle is the
    page's biggest script after BokehJS: parsing it with the page delayed the first drawn
    dashboard, so the page asks for it when the editor is first opened; when it is missing
    there, the editor is a plain text box that says so and runs the method all the same.
    (CodeMirror, read from the bundle: the test above.)"""
    shared_pages.pause()  # (the module's page, if booted, waits meanwhile)
    # (the kept profile runs no service worker: a request it made would not be routed here)
    page = open_page("?systems=spring", defer=True)
    asked = []
    page.page.on("request", lambda request: asked.append(request.url))
    page.page.route("**/static/vendor/editor.js", lambda route: route.fulfill(status=404))
    page.go()
    page.wait_live()
    assert [url for url in asked if url.endswith("/static/vendor/editor.js")] == []
    open_editor(page)
    note = page.page.locator("#il-editor .il-editor-note")
    note.wait_for()  # (once the bundle was asked for, and refused)
    assert len([url for url in asked if url.endswith("/static/vendor/editor.js")]) == 1
    assert page.page.locator("#il-editor .cm-editor").count() == 0
    assert "plain text box" in note.inner_text()
    run_python(page, FAILING_CODE.replace("fails-at-100", "typed-by-hand"))
    page.wait("window.integratorLab.status().method.name === 'typed-by-hand'", RUN_TIMEOUT_MS)
    page.wait(
        "window.integratorLab.status().systems.spring.integrators['typed-by-hand']?.samples > 5",
        RUN_TIMEOUT_MS,
    )
