"""What a visitor's Python method cannot do from its session's sandbox (issue 45, item 6).

Sessions here are :class:`SandboxLive` objects, as the dashboard makes them, without a server:
a visitor's method whose ``step`` signals the server, forks a process that stays, reads the
server's files and environment or connects to a port this test listens on; each is refused
or harmless (the server lives, no process is left once the sandbox ends, no file's text or
environment variable comes back, no connection arrives), while another session's method,
a :class:`Witness`, keeps answering throughout. The served dashboard does the same with a
second visitor watching (``test_panel_hostile.py``).

What the machine cannot confine (no bubblewrap, no user namespaces) the server says at start
(``Confinement.say``); these tests need the confinement and skip, saying why, without it.
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from conftest import wait_until

from integrator_lab.core import get_system
from integrator_lab.core.custom import TEMPLATES, UserCodeError
from integrator_lab.server.confinement import confinement, probe
from integrator_lab.server.sandbox import SandboxLive

CONFINEMENT = confinement()
needs_confinement = pytest.mark.skipif(
    not CONFINEMENT.confined, reason=f"no confinement here: {CONFINEMENT.why_not}"
)
SPRING = get_system("spring")


def python_code(body: str) -> str:
    return f'NAME = "visitor"\n\ndef step(accel, q, v, t, dt):\n{textwrap.indent(body, "    ")}'


def session(code: str) -> SandboxLive:
    """A session whose method is ``code`` (checked in its own sandbox, as the page's Run)."""
    live = SandboxLive(allow_code=True)
    verdict = live.set_method({"kind": "python", "name": "visitor", "code": code})
    assert not verdict["problems"], verdict
    return live


def step(live: SandboxLive):
    """One step of the session's method on the spring: the new state, or the error the page
    would show (a ``UserCodeError``)."""
    try:
        return live.method.integrator().step(SPRING, [1.0], [0.0], 0.0, 0.0, 0.01)
    except UserCodeError as exc:
        return exc


class Witness:
    """Another session: its method (the explicit-Euler template, as Python code) steps the
    spring in a thread, request after request, until :meth:`stop`."""

    def __init__(self):
        self.live = session(TEMPLATES["euler-code"]["definition"]["code"])
        self.integrator = self.live.method.integrator()
        self.answers = 0
        self.failures: list[BaseException] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        self.moves()

    def _run(self):
        q, v, w, t, dt = [1.0], [0.0], 0.0, 0.0, 0.01
        while not self._done.is_set():
            try:
                q, v, w = self.integrator.advance(SPRING, q, v, w, t, dt, 10)
            except BaseException as exc:  # noqa: BLE001 - the test says what it was
                self.failures.append(exc)
                return
            t += 10 * dt
            self.answers += 1

    def moves(self, by: int = 20) -> bool:
        """Wait until the witness has answered ``by`` more requests (it is not stopped)."""
        start = self.answers
        wait_until(lambda: self.failures or self.answers >= start + by, what="the witness to go on")
        assert not self.failures, self.failures
        return True

    def stop(self):
        self._done.set()
        self._thread.join(30)
        self.live.close()


@pytest.fixture
def witness():
    watching = Witness()
    yield watching
    watching.stop()


def processes_named(name: str) -> list[int]:
    """The pids of this machine's processes whose name (``comm``) is ``name``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() == name:
                    found.append(int(entry.name))
            except OSError:
                pass  # gone meanwhile
    return found


#: a "server" of its own, in a process the test can watch: a visitor's step that sends
#: SIGKILL to its parent, then another session's step; prints each new (q, v)
KILLER = """
import sys
sys.path.insert(0, {tests!r})
from test_sandbox_confinement import python_code, session, step

kill = "import os, signal\\nos.kill(os.getppid(), signal.SIGKILL)\\nreturn q, v\\n"
visitor = session(python_code(kill))
print("visitor:", step(visitor)[:2], flush=True)
other = session(python_code("return q, [x + dt for x in v]\\n"))
print("other:", step(other)[:2], flush=True)
visitor.close()
other.close()
"""


@needs_confinement
def test_a_step_that_kills_its_parent_leaves_the_server_alive():
    done = subprocess.run(
        [sys.executable, "-c", KILLER.format(tests=str(Path(__file__).parent))],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    lines = done.stdout.splitlines()
    # the parent the code sees is the sandbox's own first process, which no signal from
    # inside its PID namespace ends: the step returns as if nothing happened
    assert lines == ["visitor: ([1.0], [0.0])", "other: ([1.0], [0.01])"], lines


def test_a_forked_process_does_not_outlive_its_sandbox(witness):
    name = f"il-fork-{secrets.token_hex(3)}"  # the grandchild's name (comm: 15 bytes at most)
    body = f"""\
import ctypes, os, time
try:
    pid = os.fork()
except OSError as exc:
    raise RuntimeError(f"fork refused: {{exc}}")
if pid == 0:
    ctypes.CDLL(None).prctl(15, b"{name}", 0, 0, 0)  # PR_SET_NAME
    time.sleep(600)
    os._exit(0)
return q, v
"""
    visitor = session(python_code(body))
    try:
        said = step(visitor)
        # refused: a seccomp filter, which holds for root too (RLIMIT_NPROC does not)
        assert "fork refused" in str(said) and "Operation not permitted" in str(said), said
        assert witness.moves()
        visitor.close()
        wait_until(lambda: not processes_named(name), timeout=20, what=f"{name} to be gone")
        assert witness.moves()
    finally:
        visitor.close()
        for pid in processes_named(name):  # what a failure would leave (this test's own)
            os.kill(pid, signal.SIGKILL)


@needs_confinement
def test_the_code_reads_no_file_of_the_server(witness, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("the server's secret\n")
    paths = [
        "/etc/passwd",
        str(Path(__file__).resolve()),  # the project's files
        str(secret),  # a file the server wrote
        f"/proc/{os.getpid()}/environ",  # the server's environment
    ]
    body = f"""\
import os
out = []
for path in {paths!r}:
    try:
        out.append(os.listdir(path) if os.path.isdir(path) else open(path).read())
    except OSError as exc:
        out.append(type(exc).__name__)
raise RuntimeError(repr(out))
"""
    said = str(step(session(python_code(body))))
    assert "root:" not in said and "the server's secret" not in said, said
    assert "PATH=" not in said, said
    assert "needs_confinement" not in said, said  # this file's own text
    assert said.count("FileNotFoundError") + said.count("PermissionError") == len(paths), said
    assert witness.moves()


def test_the_code_sees_none_of_the_servers_environment(witness, monkeypatch):
    token = secrets.token_hex(8)
    monkeypatch.setenv("INTEGRATOR_LAB_TEST_SECRET", token)
    said = str(
        step(session(python_code("import os\nraise RuntimeError(repr(dict(os.environ)))\n")))
    )
    assert "RuntimeError" in said, said
    assert token not in said and "INTEGRATOR_LAB_TEST_SECRET" not in said, said
    assert os.environ.get("HOME", "/nonexistent-home") not in said, said
    assert witness.moves()


@needs_confinement
def test_the_code_opens_no_connection(witness):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        port = listener.getsockname()[1]
        body = f"""\
import socket
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=5).sendall(b"hello")
except OSError as exc:
    raise RuntimeError(f"no connection: {{type(exc).__name__}}")
raise RuntimeError("connected")
"""
        said = str(step(session(python_code(body))))
        assert "no connection" in said, said
        # a connect() that returned is in the listener's queue by then: none is
        listener.setblocking(False)
        with pytest.raises(BlockingIOError):
            listener.accept()
    assert witness.moves()


def test_serve_help_says_what_the_sandbox_confines():
    out = subprocess.run(
        [sys.executable, "-m", "integrator_lab.cli.main", "serve", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    out = out.stdout
    flat = " ".join(out.split())
    for words in (
        "bubblewrap",
        "signal the server",
        "open a network connection",
        "no /etc, no home",
        "server's environment",
        "leave one behind",
        "runs UNCONFINED, with this server's rights",
    ):
        assert words in flat, words


def test_a_machine_that_cannot_confine_says_so(tmp_path, monkeypatch):
    # a bwrap that fails as Debian's does where user namespaces are forbidden
    failing = tmp_path / "bwrap"
    failing.write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n"
    )
    failing.chmod(0o755)
    said = probe(str(failing)).say()
    assert "runs UNCONFINED" in said and "No permissions to creating new namespace" in said, said
    assert "user namespaces" in said, said
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no bwrap on the path
    said = probe().say()
    assert "runs UNCONFINED" in said and "not installed" in said, said


REFUSES = """\
import os, subprocess, sys, threading
from integrator_lab.server.sandbox_child import refuse_new_processes
assert refuse_new_processes()
said = []
try:
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    said.append("forked")
except OSError as exc:
    said.append(exc.errno)
try:
    threading.Thread(target=print).start()
    said.append("thread")
except RuntimeError:
    said.append("no thread")
try:
    subprocess.run(["true"], check=False)
    said.append("ran")
except OSError as exc:
    said.append(exc.errno)
said.append(sum(range(10)))  # the rest of Python works
print(said)
"""


def test_the_child_makes_no_process_or_thread_even_as_root():
    """The seccomp filter of sandbox_child.refuse_new_processes: fork, a thread, a program
    started: each refused with EPERM (errno 1), root included; arithmetic goes on."""
    done = subprocess.run(
        [sys.executable, "-c", REFUSES], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str([1, "no thread", 1, 45])
