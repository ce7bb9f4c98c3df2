"""A visitor's Python method on a server that runs them (``integrator-lab serve
--allow-code``): typed in the page's own editor, it runs in the server's sandbox (a child
process of the server, web/server/sandbox.py), beside the built-ins; its energy line is the
physics of its method; a method that never returns is stopped by the sandbox, the page says
so, and the built-ins go on, in this session and in the server's others.

One booted page for the module, each test resetting it through the page's own API and taking
its method off with the editor's Remove. The sandbox's time limit is lowered for the test
(``INTEGRATOR_LAB_CODE_TIME_LIMIT``)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from conftest import ACTION_TIMEOUT_MS, ServedTab, Server
from conftest import LEAPFROG as LEAPFROG_CODE

#: seconds the sandbox gives a method to answer one request, in this module's server
TIME_LIMIT = 2.0
#: a method's run, its samples, its stop: what a loaded machine takes is no failure (ms)
RUN_TIMEOUT_MS = 60_000

#: kick-drift-kick leapfrog (velocity Verlet), as a visitor types it
LEAPFROG = LEAPFROG_CODE.format(name="typed-leapfrog")
HANGING = 'NAME = "hangs"\n\n\ndef step(accel, q, v, t, dt):\n    while True:\n        pass\n'


@pytest.fixture(scope="module")
def code_server(tmp_path_factory):
    with pytest.MonkeyPatch.context() as env:
        env.setenv("INTEGRATOR_LAB_CODE_TIME_LIMIT", str(TIME_LIMIT))
        srv = Server(tmp_path_factory.mktemp("code") / "server.log", ["--allow-code"])
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def tab(browser, code_server):
    tab = ServedTab(browser, code_server.url)
    tab.wait_live()
    yield tab
    tab.close()


def reset(tab, query: str) -> None:
    """The page's own reset, and its editor open on Python code."""
    tab.frame.evaluate("(q) => integratorLab.apply(q)", query)
    frame = tab.frame
    if not frame.evaluate("() => document.querySelector('#il-editor details').open"):
        frame.locator("#il-editor summary").click()
    frame.locator("#il-editor-kind").select_option("python")
    frame.locator("#il-editor .cm-editor, #il-editor textarea").first.wait_for()


def run_python(tab, code: str) -> None:
    """Type ``code`` into the editor as a visitor does, and press Run."""
    box = tab.frame.locator("#il-editor .cm-content, #il-editor textarea").first
    box.click()
    tab.page.keyboard.press("Control+A")
    tab.page.keyboard.insert_text(code)
    tab.frame.locator("#il-editor-run").click()


def remove_method(tab) -> None:
    tab.frame.locator("#il-editor-remove").click()
    tab.frame.wait_for_function(
        "() => integratorLab.status().method.name === null", timeout=RUN_TIMEOUT_MS
    )


def sandboxes(pid: int) -> list[int]:
    """The sandbox children (web/server/sandbox_child.py, confined or not) among the
    descendants of process ``pid``."""
    parents, commands = {}, {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            parents[int(entry.name)] = int(fields[1])
            commands[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
        except (OSError, IndexError, ValueError):
            continue  # gone meanwhile
    descendants, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier}
        descendants |= frontier
    return sorted(p for p in descendants if b"sandbox_child" in commands[p])


def test_a_leapfrog_typed_in_the_editor_runs_in_the_sandbox_and_keeps_its_energy_bound(
    tab, code_server
):
    m, k, x0, dt = 2.0, 15.0, 0.5, 0.05  # kg, N/m, m (from rest, undamped); the step (s)
    reset(
        tab,
        f"?systems=spring&integrators=rk4&spring.damping=0&spring.dt={dt}"
        f"&spring.mass={m}&spring.stiffness={k}&spring.x0={x0}&spring.v0=0",
    )
    run_python(tab, LEAPFROG)
    frame = tab.frame
    frame.wait_for_function(
        "() => integratorLab.status().method.name === 'typed-leapfrog'", timeout=RUN_TIMEOUT_MS
    )
    assert tab.frame.evaluate("() => integratorLab.status().method.order") == 2
    # its line's samples over two periods (2 pi sqrt(m / k) = 2.3 s)
    frame.wait_for_function(
        "() => { const d = integratorLab.samples('spring', 'typed-leapfrog');"
        " return d.t.length > 0 && d.t[d.t.length - 1] > 5; }",
        timeout=RUN_TIMEOUT_MS,
    )
    # computed by the server's sandbox: a child process of the server, not the page
    assert sandboxes(code_server.process.pid), "no sandbox process under the server"
    assert frame.evaluate("() => window.integratorLabEarly.worker instanceof Worker") is False
    data = frame.evaluate("() => integratorLab.samples('spring', 'typed-leapfrog')")
    # Stormer-Verlet on x'' = -w^2 x keeps H~ = E - (w dt)^2 / 8 w^2 x^2 exactly: from rest
    # at x0 (E = H~ / (1 - (w dt)^2 / 4)) the relative energy error stays within
    # [-(w dt)^2 / 4, 0], and reaches that end where the spring passes x = 0
    bound = k / m * dt * dt / 4
    rounding = 1e-12
    errors = data["error"]
    assert len(errors) > 50
    assert all(-bound - rounding <= e <= rounding for e in errors), (min(errors), max(errors))
    assert min(errors) < -0.8 * bound  # the second-order band, not a line at 0
    # its energy as the page plots it is the spring's: kinetic + potential, from E0 = k x0^2/2
    assert data["total"][0] == pytest.approx(k * x0 * x0 / 2, rel=1e-12)
    for kinetic, potential, total in zip(data["kinetic"], data["potential"], data["total"]):
        assert total == pytest.approx(kinetic + potential, rel=1e-12, abs=1e-12)
    entry = tab.frame.evaluate("() => integratorLab.status().systems.spring.integrators")
    assert entry["typed-leapfrog"]["divergedAt"] is None and entry["rk4"]["divergedAt"] is None
    assert tab.errors == []
    remove_method(tab)


class Answers:
    """``/status`` asked in a thread, again as soon as answered: the longest time (s)
    between two answers is the longest the server's event loop, which every session's
    ticks share, was held."""

    def __init__(self, server):
        self.server = server
        self.times: list[float] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._ask, daemon=True)
        self._thread.start()

    def _ask(self):
        while not self._done.is_set():
            try:
                self.server.status()
            except OSError:
                continue  # (the gap shows)
            self.times.append(time.monotonic())
            self._done.wait(0.01)  # a poll of /status

    def longest(self, since: int = 0) -> float:
        """The longest time between two answers, from answer ``since`` on."""
        times = self.times[since:]
        return max((b - a for a, b in zip(times, times[1:])), default=0.0)

    def stop(self) -> None:
        self._done.set()
        self._thread.join(15)


def wait_sim_time(frame, by: float) -> None:
    """Until the spring's simulated time is ``by`` s further than now."""
    t0 = frame.evaluate("() => integratorLab.status().systems.spring.simTime")
    frame.wait_for_function(
        f"() => integratorLab.status().systems.spring.simTime > {t0} + {by}",
        timeout=ACTION_TIMEOUT_MS,
    )


def run_hanging_method(tab) -> str:
    """Run :data:`HANGING`; what the editor says once the sandbox stopped it."""
    run_python(tab, HANGING)
    tab.frame.wait_for_function(
        "() => integratorLab.status().systems.spring.integrators['hangs']?.divergedAt != null",
        timeout=RUN_TIMEOUT_MS,
    )
    error = tab.frame.locator("#il-editor-error")
    error.wait_for()
    return error.inner_text()


def test_an_endless_method_is_stopped_by_the_sandbox_and_the_builtins_go_on(tab, code_server):
    reset(tab, "?systems=spring&integrators=rk4,velocity-verlet")
    said = run_hanging_method(tab)
    # the sandbox's own words: the method took longer than the limit and was stopped
    assert f"longer than {TIME_LIMIT:g} s" in said and "stopped" in said, said
    # the built-ins go on, the server lives
    wait_sim_time(tab.frame, 1.0)
    lanes = tab.frame.evaluate("() => integratorLab.status().systems.spring.integrators")
    assert lanes["rk4"]["divergedAt"] is None and lanes["velocity-verlet"]["divergedAt"] is None
    assert code_server.process.poll() is None
    assert "Traceback" not in code_server.log()
    assert tab.errors == []
    remove_method(tab)


def test_an_endless_method_holds_no_other_session_up(tab, code_server):
    """Every session's ticks and ``/status`` share the server's one event loop: while the
    sandbox waits for a method that never returns (up to its time limit), none of them may
    wait with it (the old server's test_panel_hostile.py: issue 24, item 11)."""
    reset(tab, "?systems=spring&integrators=rk4")
    answers = Answers(code_server)
    try:
        wait_sim_time(tab.frame, 1.0)  # the machine's own jitter, with nothing hostile
        baseline = answers.longest()
        mark = len(answers.times)
        run_hanging_method(tab)
        wait_sim_time(tab.frame, 0.5)
        held = answers.longest(mark)
    finally:
        answers.stop()
    remove_method(tab)
    # a loop held for the method's time limit (its stop's signature), or longer than the
    # machine's own jitter allows
    assert held < max(TIME_LIMIT / 2, 2 * baseline), (held, baseline)
