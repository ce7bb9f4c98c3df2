"""The child process of a :class:`~integrator_lab.server.sandbox.Sandbox`: it runs one
session's definitions' checks and Python method, one JSON request per line on stdin, one
answer per line on stdout.

It imports the core and the standard library only: inside bubblewrap
(:mod:`~integrator_lab.server.confinement`) it sees nothing else, and it is run there as a
script (``python -S sandbox_child.py MEMORY_MB``), beside an ``integrator_lab`` folder that
holds the core alone. Before it reads a request it limits itself (:func:`limit_self`), so
that no visitor's code runs without the limits.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time

from integrator_lab.core import SYSTEMS
from integrator_lab.core.custom import (
    MethodDefinition,
    UserCodeError,
    definition_problems,
    error_message,
    parse_definition,
)

#: the child's address space when none is given (MB): the server's default
DEFAULT_MEMORY_MB = 1024.0
#: files the child may hold open at once (its pipes, /dev/null, a module being imported)
MAX_OPEN_FILES = 64


def _watch_parent(parent: int) -> None:
    """End this child when the server is gone (even while the visitor's code loops)."""
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(0)


class _Child:
    def __init__(self) -> None:
        self.methods: dict[int, MethodDefinition] = {}
        self.lanes: dict[int, list] = {}  # lane -> [integrator, snapshot steps, snapshot]
        self.systems: dict[str, object] = {}

    def handle(self, message: dict) -> dict:
        for lane in message.get("forget") or ():
            self.lanes.pop(lane, None)
        op = message.get("op")
        if op == "define":
            return self.define(message)
        if op == "advance":
            return self.advance(message)
        return {"error": "other", "message": f"unknown request {op!r}"}

    def define(self, message: dict) -> dict:
        definition = message["definition"]
        started = time.perf_counter()
        allow_code = message.get("allow_code") is True
        try:
            problems = definition_problems(definition, allow_code=allow_code)
        except Exception as exc:  # noqa: BLE001 - e.g. an entry beyond the float range
            problems = [f"refused: {error_message(exc)}"]
        answer: dict = {"problems": problems}
        if not problems:
            try:
                method = parse_definition(definition, allow_code=allow_code)
            except Exception as exc:  # noqa: BLE001 - said as the definition's problem
                problems.append(str(exc) if isinstance(exc, ValueError) else error_message(exc))
            else:
                if method.kind == "python":
                    self.methods[message["key"]] = method
                answer.update(name=method.name, order=getattr(method, "order", None))
        answer["seconds"] = time.perf_counter() - started
        return answer

    def _integrator(self, message: dict):
        entry = self.lanes.get(message["lane"])
        if entry is None:
            method = self.methods.get(message["method"])
            if method is None:  # a new child: the code comes along
                method = parse_definition(
                    {"kind": "python", "name": message["name"], "code": message["code"]}
                )
                self.methods[message["method"]] = method
            entry = self.lanes[message["lane"]] = [method.integrator(), 0, None]
        integrator, steps, snapshot = entry
        if integrator.steps != message["count"]:  # the runner went back to retake a block
            if snapshot is None or steps != message["count"]:
                raise RuntimeError("the method's state is out of step with its run")
            integrator.__dict__.clear()
            integrator.__dict__.update(snapshot)
        entry[1], entry[2] = integrator.steps, dict(integrator.__dict__)
        return integrator

    def _system(self, message: dict):
        key = json.dumps([message["system"], message["params"]], sort_keys=True)
        system = self.systems.get(key)
        if system is None:
            if len(self.systems) > 64:
                self.systems.clear()
            system = self.systems[key] = SYSTEMS[message["system"]](**message["params"])
        return system

    def advance(self, message: dict) -> dict:
        try:
            integrator = self._integrator(message)
            system = self._system(message)
        except UserCodeError as exc:
            return {"error": "user", "message": str(exc)}
        except Exception as exc:  # noqa: BLE001 - reported to the server
            return {"error": "user", "message": f"{error_message(exc)} (loading the code)"}
        args = (system, message["q"], message["v"], message["w"], message["t"], message["dt"])
        # with "trail": the state after every step, for the server's runner to judge in order
        trail: list | None = [] if message.get("trail") else None

        def keep(q, v, w):
            trail.append((list(q), list(v), w))  # type: ignore[union-attr]
            return True

        try:
            if message["post"]:
                q, v, w = integrator.advance(
                    *args, message["steps"], keep if trail is not None else None
                )
            else:
                q, v, w = integrator.step(*args)
        except UserCodeError as exc:
            answer = {"error": "user", "message": str(exc)}
        except ArithmeticError as exc:
            answer = {"error": "arithmetic", "message": str(exc)}
        except ValueError as exc:
            answer = {"error": "value", "message": str(exc)}
        except BaseException as exc:  # noqa: BLE001 - sys.exit() in a step stops the method only
            step = integrator.steps + 1
            answer = {
                "error": "user",
                "message": f"{error_message(exc)} (step {step}, t = {message['t']:.6g} s)",
            }
        else:
            answer = {"q": q, "v": v, "w": w}
        if trail is not None:
            answer["trail"] = trail  # (the steps before a failure too)
        return answer


#: the system calls that make a process (fork, vfork, clone, clone3) per machine, with the
#: kernel's name of its calling convention (AUDIT_ARCH_*, <linux/audit.h>)
NEW_PROCESS_CALLS = {
    "x86_64": (0xC000003E, (57, 58, 56, 435)),
    "aarch64": (0xC00000B7, (220, 435)),
}


def _seccomp_program(arch: int, calls: tuple[int, ...]) -> bytes:
    """A classic-BPF seccomp filter (``struct sock_filter`` array): the calls ``calls`` fail
    with EPERM, so does any call of another calling convention than ``arch`` (x86's 32-bit
    ``int 0x80``, x32's numbers), every other call is allowed."""
    import struct

    ld_w_abs, jeq_k, jge_k, ret_k = 0x20, 0x15, 0x35, 0x06  # <linux/bpf_common.h>
    allow, refuse = 0x7FFF0000, 0x00050000 | 1  # SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | EPERM
    n = len(calls)
    # (a jump's offsets count the instructions it skips: "refuse" is the last one)
    body = [(ld_w_abs, 0, 0, 4)]  # seccomp_data.arch
    body.append((jeq_k, 0, n + 3, arch))
    body.append((ld_w_abs, 0, 0, 0))  # seccomp_data.nr
    body.append((jge_k, n + 1, 0, 0x40000000))  # __X32_SYSCALL_BIT
    for i, call in enumerate(calls):
        body.append((jeq_k, n - i, 0, call))
    body.append((ret_k, 0, 0, allow))
    body.append((ret_k, 0, 0, refuse))
    return b"".join(struct.pack("<HBBI", *op) for op in body)


def refuse_new_processes() -> bool:
    """From now on this process makes no process or thread (fork, vfork, clone, clone3 fail
    with EPERM): a seccomp filter, which holds for root too (the kernel exempts root from
    ``RLIMIT_NPROC``). False where it cannot be set (not Linux, another machine, an old
    kernel): ``RLIMIT_NPROC`` and the sandbox's PID namespace are what holds then."""
    import platform

    known = NEW_PROCESS_CALLS.get(platform.machine())
    if not sys.platform.startswith("linux") or known is None:
        return False
    try:
        import ctypes
    except ImportError:
        return False
    program = _seccomp_program(*known)
    filters = ctypes.create_string_buffer(program, len(program))

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    fprog = SockFprog(len(program) // 8, ctypes.cast(filters, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_no_new_privs, pr_set_seccomp, seccomp_mode_filter = 38, 22, 2  # <linux/prctl.h>
    if libc.prctl(pr_set_no_new_privs, 1, 0, 0, 0) != 0:
        return False
    return libc.prctl(pr_set_seccomp, seccomp_mode_filter, ctypes.byref(fprog), 0, 0) == 0


def limit_self(memory_mb: float) -> None:
    """The limits every visitor's code runs under, set before any runs (soft = hard, so the
    code cannot raise them again): ``memory_mb`` of address space, no new process or thread
    (``RLIMIT_NPROC``, which the kernel does not apply to root, and a seccomp filter that
    refuses fork and clone to root too: :func:`refuse_new_processes`), no file written
    (``RLIMIT_FSIZE``: not even in its own /tmp, which lives in memory), no core dump, at most
    :data:`MAX_OPEN_FILES` files open; and death with the server
    (``PR_SET_PDEATHSIG``: killed the moment the server's thread that started it is gone)."""
    try:
        import resource
    except ImportError:  # not a POSIX system: the request's time limit still holds
        return
    limit = int(memory_mb * 2**20)
    for name, value in (
        ("RLIMIT_AS", limit),
        ("RLIMIT_NPROC", 1),
        ("RLIMIT_FSIZE", 0),
        ("RLIMIT_CORE", 0),
        ("RLIMIT_NOFILE", MAX_OPEN_FILES),
    ):
        which = getattr(resource, name, None)
        if which is None:
            continue
        try:
            resource.setrlimit(which, (value, value))
        except (ValueError, OSError):  # a hard limit already lower: it stays
            pass
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            pr_set_pdeathsig = 1  # <linux/prctl.h>
            ctypes.CDLL(None).prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
        except (ImportError, OSError, AttributeError):  # bwrap's --die-with-parent holds
            pass
    refuse_new_processes()


def child_main(memory_mb: float) -> None:
    """The child's loop: one JSON request per line on stdin, one answer per line."""
    requests = os.fdopen(os.dup(0), "rb")
    answers = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)  # the visitor's print() and input() reach nothing
    os.dup2(devnull, 1)
    os.close(devnull)
    # started before the limits: RLIMIT_NPROC refuses every thread after them
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()
    try:
        os.nice(5)  # the server's own loop goes first
    except OSError:
        pass
    limit_self(memory_mb)
    child = _Child()
    answers.write(b'{"ready": true}\n')
    answers.flush()
    for line in requests:
        try:
            answer = child.handle(json.loads(line))
            text = json.dumps(answer)
        except BaseException as exc:  # noqa: BLE001 - the loop goes on; the server is told
            text = json.dumps({"error": "user", "message": error_message(exc)})
        answers.write(text.encode() + b"\n")
        answers.flush()
    os._exit(0)


if __name__ == "__main__":
    child_main(float(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_MEMORY_MB)
