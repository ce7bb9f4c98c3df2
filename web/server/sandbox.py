"""What a visitor sends that costs CPU or runs code, kept out of the Panel server's process.

A server started with ``--allow-code`` runs visitors' Python methods; every server checks
visitors' tableaux and splittings, whose exact arithmetic can be made as costly as one
likes. Either would run in the server's one event loop, where one visitor's
``while True: pass``, a 3 GB list or ``sys.exit()`` stops every session (issue 24, items 10
and 11). So each session that needs it gets a **child process** of its own
(:class:`Sandbox`), started on first use, which

* checks every definition (``define``: the core's validation, and for Python code the
  module's first run), and
* owns the Python method's integrators: the runner's lane holds a proxy
  (:class:`SandboxedIntegrator`) whose ``advance`` sends the state to the child and gets the
  new state back, one round trip per block of steps (between two samples).

Each request must be answered within :data:`TIME_LIMIT` seconds, and the child's address
space is limited to :data:`MEMORY_LIMIT_MB` (``RLIMIT_AS``: an allocation past it is a
``MemoryError`` in the visitor's code). A child that overruns, dies or answers nonsense is
killed; the requests waiting on it fail with :class:`SandboxStopped` (a ``UserCodeError``:
the runner stops that method, the built-ins go on), the session is told why
(:meth:`Sandbox.take_notice`) and the next request starts a new child. The server's event
loop never waits on a child: the Dashboard makes these requests from a worker thread
(:func:`off_loop`), holding its session's document lock meanwhile. Built-in integrators and
sessions without a method of their own run in the server's process as before.

The child is confined where this machine allows it (:mod:`~.confinement`: bubblewrap, its
own namespaces, only Python's and the core's files, no network, an empty environment) and
limits itself before it runs a visitor's code (:mod:`~.sandbox_child`: memory, no new
process, no file written, death with the server); it is killed with its process group.
Without bubblewrap it is a plain process of the server's user, and the server says so. The
protocol is one JSON object per line each way (never pickle: the
child runs visitors' code), and floats travel as ``repr`` does, so results are bit-identical.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import threading
import time
import weakref

from integrator_lab.core.custom import (
    PythonMethod,
    UserCodeError,
    definition_problems,
    error_message,
)
from integrator_lab.core.integrators import Integrator
from integrator_lab.server import confinement
from integrator_lab.views.live import Live


def _env_number(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, default))
    except ValueError:
        return default
    return value if value > 0 else default


#: seconds a child may take to answer one request (a definition's check, or one block of a
#: method's steps); ``INTEGRATOR_LAB_CODE_TIME_LIMIT`` sets it
TIME_LIMIT = _env_number("INTEGRATOR_LAB_CODE_TIME_LIMIT", 2.0)
#: the child's address space (MB), ``INTEGRATOR_LAB_CODE_MEMORY_MB`` sets it
MEMORY_LIMIT_MB = _env_number("INTEGRATOR_LAB_CODE_MEMORY_MB", 1024.0)
#: how long a new child may take to start (s): it imports the core
START_TIMEOUT = 30.0
#: a definition whose check took longer than this (s) in the child is refused: the server
#: would spend as long building it
CHECK_LIMIT = 0.1

#: the GIL's switch interval (s) once a worker thread steps a session (CPython's is 5 ms)
SWITCH_INTERVAL = 0.0005
#: the worker threads that wait on children (they only wait: the children compute)
EXECUTOR = concurrent.futures.ThreadPoolExecutor(max_workers=8, thread_name_prefix="sandbox")


class SandboxStopped(UserCodeError):
    """The child was ended (time or memory limit, exit, crash); the message says why."""


# -- the server's side -------------------------------------------------------------------------
class Sandbox:
    """One session's child process (started on first use, restarted after a failure)."""

    def __init__(
        self,
        time_limit: float | None = None,
        memory_mb: float | None = None,
        confined: bool | None = None,
    ):
        self.time_limit = TIME_LIMIT if time_limit is None else time_limit
        self.memory_mb = MEMORY_LIMIT_MB if memory_mb is None else memory_mb
        #: whether the child runs in bubblewrap: None, where this machine allows it
        #: (:func:`~integrator_lab.server.confinement.confinement`); True or False, so
        #: (the benchmark's two ways)
        self.confined = confined
        self.generation = 0  # bumped each time a child is ended: its integrators are gone
        self._process: subprocess.Popen | None = None
        self._buffer = b""
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._forgotten: list[int] = []
        self._notice: str | None = None
        self.requests = 0
        self.restarts = 0
        self.closed = False
        self.last_stop = "its process was restarted"

    # requests
    def request(self, message: dict) -> dict:
        """Send ``message``, return the child's answer; :class:`SandboxStopped` if it
        fails to answer in time (it is then killed)."""
        with self._lock:
            if self.closed:
                raise SandboxStopped("your method was stopped: the session ended")
            if self._process is None:
                self._start()
            if self._forgotten:
                message = {**message, "forget": self._forgotten}
                self._forgotten = []
            self.requests += 1
            try:
                self._send(message)
                return self._receive(time.monotonic() + self.time_limit)
            except SandboxStopped:
                raise
            except (OSError, ValueError) as exc:  # a broken pipe, a garbled answer
                raise self._stop(f"its process failed ({exc})") from None

    def new_lane(self) -> int:
        return next(self._ids)

    def forget(self, lane: int) -> None:
        self._forgotten.append(lane)

    def take_notice(self) -> str | None:
        """Why the child was ended since the last call (once), or None."""
        notice, self._notice = self._notice, None
        return notice

    def close(self) -> None:
        """End the child (the session is over). Never waits for the lock: a request in
        flight sees its child gone and fails."""
        self.closed = True
        process = self._process
        if process is not None:
            _reap(process)

    def __del__(self) -> None:
        process = getattr(self, "_process", None)
        if process is not None:
            _reap(process)

    # the child
    def _start(self) -> None:
        if self.confined is None:
            bwrap = confinement.confinement().bwrap
        else:
            bwrap = (shutil.which(confinement.BWRAP) or "bwrap") if self.confined else None
        self._process = subprocess.Popen(
            confinement.command(self.memory_mb, bwrap),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=confinement.environment(),  # none of the server's
            # a group of its own: a signal to the server's group is not the child's, and
            # the child's is killed whole (what it forked with it)
            start_new_session=True,
        )
        self._buffer = b""
        try:
            ready = self._receive(time.monotonic() + START_TIMEOUT, starting=True)
        except SandboxStopped:
            raise
        if ready.get("ready") is not True:
            raise self._stop("its process did not start")

    def _send(self, message: dict) -> None:
        assert self._process is not None and self._process.stdin is not None
        self._process.stdin.write(json.dumps(message).encode() + b"\n")
        self._process.stdin.flush()

    def _receive(self, deadline: float, starting: bool = False) -> dict:
        assert self._process is not None and self._process.stdout is not None
        fd = self._process.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                if starting:
                    raise self._stop("its process did not start in time")
                raise self._stop(
                    f"it took longer than {self.time_limit:g} s to answer (the limit per "
                    "request): its process was stopped"
                )
            readable, _, _ = select.select([fd], [], [], left)
            if readable:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    self._process.wait()
                    raise self._stop(self._exit_text(self._process.returncode))
                self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        answer = json.loads(line)
        if not isinstance(answer, dict):
            raise ValueError("not an object")
        return answer

    def _exit_text(self, code: int | None) -> str:
        if code is not None and code < 0:
            return f"its process was ended by signal {-code}"
        return f"its process exited (status {code})"

    def _stop(self, why: str) -> SandboxStopped:
        """Kill the child; the exception to raise says ``why``."""
        self._kill()
        self.restarts += 1
        self._notice = f"Your method was stopped: {why}. Run it again to restart it."
        self.last_stop = why  # what the method's other integrators say too
        return SandboxStopped(f"your method was stopped: {why}")

    def _kill(self) -> None:
        process, self._process = self._process, None
        self._forgotten = []
        if process is None:
            return
        self.generation += 1
        _reap(process)


def _reap(process: subprocess.Popen) -> None:
    """Kill ``process`` and its process group (what it forked and left in it), collect its
    status and close its pipes. (Confined, every process the child started is in its PID
    namespace, which the kernel empties when the sandbox ends.)"""
    try:
        # the group lives on (its number not reused) while any of its processes does
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if process.poll() is None:
        process.kill()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass
    for stream in (process.stdin, process.stdout):
        try:
            if stream is not None:
                stream.close()
        except (OSError, ValueError):
            pass


class SandboxedMethod(PythonMethod):
    """A visitor's Python method checked in a child: its integrators run there too."""

    def __init__(self, name: str, code: str, order: int | None, sandbox: Sandbox, key: int):
        super().__init__(name, code, order, None)  # type: ignore[arg-type]  # never run here
        self.sandbox = sandbox
        self.key = key
        #: the child it was checked in: once that child is ended, the method stays stopped
        #: until it is run again (checked in a new child)
        self.generation = sandbox.generation

    def namespace(self):
        raise RuntimeError("a sandboxed method's code runs only in its child process")

    def integrator(self) -> SandboxedIntegrator:  # type: ignore[override]
        return SandboxedIntegrator(self)


class SandboxedIntegrator(Integrator):
    """The runner's end of a Python method's integrator living in the child."""

    def __init__(self, definition: SandboxedMethod) -> None:
        super().__init__()
        self.definition = definition
        self.name = self.title = definition.name
        self.order = definition.order or 0
        self.description = definition.describe()["summary"]
        sandbox = definition.sandbox
        self.lane = sandbox.new_lane()
        self.generation: int | None = None  # the child's, once this integrator is in it
        weakref.finalize(self, sandbox.forget, self.lane)

    def describe(self):  # type: ignore[override]
        return self.definition.describe()

    def step(self, system, q, v, w, t, dt):
        return self._remote(system, q, v, w, t, dt, 1, post=False)

    def advance(self, system, q, v, w, t, dt, steps, watch=None):
        if watch is None:
            q, v, w = self._remote(system, q, v, w, t, dt, steps, post=True)
            self.steps += steps
            return q, v, w
        # the runner judges every state: the child sends the state after each step, judged
        # here in order (the child's module keeps its own state: nothing is taken again)
        answer = self._request(system, q, v, w, t, dt, steps, post=True, trail=True)
        for state in answer.get("trail", []):
            q, v, w = [float(x) for x in state[0]], [float(x) for x in state[1]], float(state[2])
            self.steps += 1
            if not watch(q, v, w):
                return q, v, w
        self._raise_for(answer)
        return q, v, w

    def _remote(self, system, q, v, w, t, dt, steps, post):
        answer = self._request(system, q, v, w, t, dt, steps, post)
        self._raise_for(answer)
        return (
            [float(x) for x in answer["q"]],
            [float(x) for x in answer["v"]],
            float(answer["w"]),
        )

    def _request(self, system, q, v, w, t, dt, steps, post, trail=False):
        sandbox = self.definition.sandbox
        if self.definition.generation != sandbox.generation:
            raise SandboxStopped(f"your method was stopped: {sandbox.last_stop}")
        generation = sandbox.generation
        answer = sandbox.request(
            {
                "op": "advance",
                "lane": self.lane,
                "method": self.definition.key,
                "code": self.definition.code if self.generation is None else None,
                "name": self.definition.name,
                "system": system.name,
                "params": system.params,
                "q": list(q),
                "v": list(v),
                "w": w,
                "t": t,
                "dt": dt,
                "steps": steps,
                "count": self.steps,
                "post": post,
                "trail": trail,
            }
        )
        if sandbox.generation != generation:  # (it restarted to answer: the state is new)
            raise SandboxStopped(f"your method was stopped: {sandbox.last_stop}")
        self.generation = generation
        return answer

    @staticmethod
    def _raise_for(answer):
        error = answer.get("error")
        if error is not None:
            text = str(answer.get("message"))
            raise {"arithmetic": ArithmeticError, "value": ValueError}.get(error, UserCodeError)(
                text
            )


class SandboxLive(Live):
    """:class:`Live` whose definitions are checked, and whose Python method runs, in the
    session's :class:`Sandbox`."""

    def __init__(self, *args, sandbox: Sandbox | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.sandbox = sandbox or Sandbox()
        self._checked: tuple[object, dict] | None = None
        self._keys = itertools.count(1)

    def runs_code(self) -> bool:
        """Whether advancing calls the child (a Python method runs)."""
        return isinstance(self.method, SandboxedMethod)

    def check(self, definition) -> dict:
        """The child's verdict on ``definition`` (blocks: call it off the event loop), kept
        for the :meth:`set_method` that follows."""
        verdict = self._check(definition)
        self._checked = (definition, verdict)
        return verdict

    def _check(self, definition) -> dict:
        if not isinstance(definition, dict):
            return {"problems": definition_problems(definition, allow_code=self.allow_code)}
        if definition.get("kind") == "python" and not self.allow_code:
            return {"problems": definition_problems(definition, allow_code=False)}
        key = next(self._keys)
        try:
            answer = self.sandbox.request(
                {
                    "op": "define",
                    "definition": definition,
                    "key": key,
                    "allow_code": self.allow_code,
                }
            )
        except SandboxStopped as exc:
            self.sandbox.take_notice()  # said as the definition's problem
            return {"problems": [f"{exc}".replace("your method was stopped: ", "refused: ")]}
        problems = [str(p) for p in answer.get("problems") or []]
        if answer.get("error") is not None:  # the check itself failed
            problems.append(str(answer.get("message")))
        seconds = float(answer.get("seconds") or 0.0)
        if not problems and seconds > CHECK_LIMIT and definition.get("kind") != "python":
            problems = [
                f"refused: checking this definition took {seconds:.2g} s, more than this "
                f"server spends on one ({CHECK_LIMIT:g} s); use fewer stages or shorter numbers"
            ]
        return {"problems": problems, "key": key, "answer": answer}

    def set_method(self, definition) -> dict:
        if definition is None:
            return super().set_method(None)
        checked, self._checked = self._checked, None
        verdict = checked[1] if checked is not None and checked[0] is definition else None
        if verdict is None:
            verdict = self._check(definition)
        if verdict["problems"]:
            return {"method": None, "problems": verdict["problems"], "results": []}
        if definition.get("kind") != "python":  # data, checked cheap: built here
            try:
                return super().set_method(definition)
            except Exception as exc:  # noqa: BLE001 - what the check let through
                return {"method": None, "problems": [error_message(exc)], "results": []}
        answer = verdict["answer"]
        method = SandboxedMethod(
            str(answer["name"]),
            definition["code"],
            answer.get("order"),
            self.sandbox,
            verdict["key"],
        )
        self.method = method
        results = [
            self.configure(name, run.system.params, run.dt, run.builtins)
            for name, run in list(self.runs.items())
        ]
        return {"method": method.describe(), "problems": [], "results": results}

    def close(self) -> None:
        self.sandbox.close()


async def off_loop(live: Live, function, *args):
    """``function(*args)`` in a worker thread, the event loop free meanwhile; failures the
    Live reports meanwhile are told (``on_failure``) back on the loop."""
    # the worker computes the session's built-in lanes too: with CPython's default 5 ms
    # switch interval the event loop, which gives the GIL up at every I/O, would wait up
    # to 5 ms each time it wants it back (and every other session's tick with it)
    if sys.getswitchinterval() > SWITCH_INTERVAL:
        sys.setswitchinterval(SWITCH_INTERVAL)
    told = live.on_failure
    deferred: list[tuple] = []
    live.on_failure = lambda *failure: deferred.append(failure)
    try:
        return await asyncio.get_running_loop().run_in_executor(EXECUTOR, function, *args)
    finally:
        live.on_failure = told
        if told is not None:
            for failure in deferred:
                told(*failure)
