"""Where a :class:`~integrator_lab.server.sandbox.Sandbox`'s child runs: confined by
bubblewrap (``bwrap``) where this machine allows it, else unconfined; probed once per server
(:func:`confinement`), and said at start and in ``serve --allow-code``'s help.

Confined, the child is started as ``bwrap`` with new user, PID, network, IPC, UTS and cgroup
namespaces, no capabilities, a session of its own and death with its parent; it sees,
read-only, only the Python interpreter, its standard library (without any site-packages),
the shared libraries this server's Python has loaded, and ``integrator_lab``'s core: no
``/etc``, no home, no other file of the project or the server; ``/dev``'s few harmless
devices, an empty ``/tmp`` in memory, an empty environment. So it cannot signal the server
or any process of the machine (its PID namespace holds only itself), open a connection
(its network namespace has only its own loopback), read the server's files or environment,
or leave a process behind (when the sandbox ends, the kernel ends every process in it).
Unconfined (no bwrap, or bwrap cannot start here, e.g. user namespaces forbidden), the child
is a plain process with the server's rights: only its own limits
(:func:`~integrator_lab.server.sandbox_child.limit_self`), a minimal environment and the
kill of its process group hold.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
import threading
from dataclasses import dataclass

import integrator_lab
import integrator_lab.core

#: the program that confines the child (Debian's and most distributions' ``bubblewrap``)
BWRAP = "bwrap"
#: where the child's script and its ``integrator_lab`` (the core alone) are, inside
INSIDE = "/integrator_lab_sandbox"
#: the child, as a script beside this module
CHILD_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sandbox_child.py")
#: seconds a probe's child may take to start (it imports the core)
PROBE_TIMEOUT = 30.0
#: why a machine without bwrap cannot confine
NOT_INSTALLED = "bubblewrap (bwrap) is not installed"
#: what a confined child cannot do (the help's and the start message's words)
CONFINES = (
    "signal the server or any process outside it, open a network connection, read a file "
    "beyond Python's own and the core's (no /etc, no home, no project files), read the "
    "server's environment, start a process (refused; in a server run as root, ended with "
    "the child), or leave one behind"
)


@dataclass(frozen=True)
class Confinement:
    """How children start on this machine: ``bwrap`` (its path) or None (unconfined), and
    why not where it is None."""

    bwrap: str | None
    why_not: str = ""

    @property
    def confined(self) -> bool:
        return self.bwrap is not None

    def say(self) -> str:
        """The line a server started with ``--allow-code`` prints."""
        if self.bwrap is not None:
            return (
                "integrator-lab: --allow-code: visitors' Python code runs in a bubblewrap "
                f"sandbox: it cannot {CONFINES}"
            )
        advice = (
            "install bubblewrap (bwrap)"
            if self.why_not == NOT_INSTALLED
            else "let bubblewrap create user namespaces here"
        )
        return (
            f"integrator-lab: warning: --allow-code: {self.why_not}: visitors' Python code "
            "runs UNCONFINED on this machine, with this server's rights (it can read its "
            f"files and the network, and signal it); {advice} to confine it"
        )


def command(memory_mb: float, bwrap: str | None) -> list[str]:
    """The child's command line: inside ``bwrap`` (its path), or plain where None."""
    if bwrap is None:
        return [sys.executable, "-m", "integrator_lab.server.sandbox_child", str(memory_mb)]
    interpreter = os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)
    args = [
        bwrap,
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        "--clearenv",
        "--setenv",
        "LANG",
        "C.UTF-8",
        "--dev",
        "/dev",
        "--ro-bind",
        interpreter,
        interpreter,
    ]
    loader = _elf_interpreter(interpreter)
    if loader is not None:
        args += ["--ro-bind", os.path.realpath(loader), loader]
    stdlib = os.path.dirname(os.path.realpath(os.__file__))
    folders = sorted({stdlib, *_library_folders()})
    for folder in folders:
        if not any(folder.startswith(outer + "/") for outer in folders):  # not bound yet
            args += ["--ro-bind", folder, folder]
    args += ["--ro-bind-try", "/etc/ld.so.cache", "/etc/ld.so.cache"]  # where libraries are
    package = f"{INSIDE}/integrator_lab"
    args += [
        "--ro-bind",
        os.path.realpath(integrator_lab.__file__),
        f"{package}/__init__.py",
        "--ro-bind",
        os.path.realpath(integrator_lab.core.__path__[0]),
        f"{package}/core",
        "--ro-bind",
        CHILD_SCRIPT,
        f"{INSIDE}/sandbox_child.py",
    ]
    # the interpreter's installed packages stay out of sight
    for name in ("site-packages", "dist-packages"):
        if os.path.isdir(os.path.join(stdlib, name)):
            args += ["--tmpfs", os.path.join(stdlib, name)]
    args += ["--tmpfs", "/tmp", "--chdir", "/tmp", "--"]
    # -E -s -S: no environment, no site-packages; the script's folder is the path
    return args + [
        interpreter,
        "-E",
        "-s",
        "-S",
        "-B",
        f"{INSIDE}/sandbox_child.py",
        str(memory_mb),
    ]


def environment() -> dict[str, str]:
    """The environment a child (or bwrap) starts with: none of the server's, but what finds
    the package where it is installed (a confined child's own is emptied by bwrap)."""
    env = {"PATH": os.defpath, "LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1"}
    for name in ("PYTHONPATH", "PYTHONHOME"):
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def probe(bwrap: str | None = None) -> Confinement:
    """Whether a confined child starts here (and answers that it is ready)."""
    bwrap = bwrap or shutil.which(BWRAP)
    if bwrap is None:
        return Confinement(None, NOT_INSTALLED)
    try:
        done = subprocess.run(
            command(64.0 * 1024, bwrap),
            input=b"",
            capture_output=True,
            timeout=PROBE_TIMEOUT,
            env=environment(),
            start_new_session=True,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return Confinement(None, f"bubblewrap could not start ({exc})")
    if done.returncode != 0 or not done.stdout.startswith(b'{"ready": true}'):
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return Confinement(
            None,
            f"bubblewrap could not start a sandbox here (status {done.returncode}"
            + (f": {said[-1]}" if said else "")
            + ")",
        )
    return Confinement(bwrap)


_PROBED: list[Confinement] = []
_PROBING = threading.Lock()


def confinement() -> Confinement:
    """This machine's :class:`Confinement`, probed on the first call (a server's start)."""
    with _PROBING:
        if not _PROBED:
            _PROBED.append(probe())
        return _PROBED[0]


def help_text() -> str:
    """``serve --allow-code``'s help (without probing: bwrap's presence only)."""
    missing = (
        ""
        if shutil.which(BWRAP)
        else " bwrap is NOT INSTALLED on this machine: code would run unconfined."
    )
    return (
        "let visitors race methods written in Python: this EXECUTES VISITORS' CODE ON THIS "
        "MACHINE (the page says so in a banner). Each session's code runs in a child "
        "process of its own, within 2 s per request and 1 GB of memory by default, confined by "
        f"bubblewrap (bwrap): it cannot {CONFINES}. Where bwrap is missing or cannot start "
        "(no user namespaces), the code runs UNCONFINED, with this server's rights; the "
        f"server says which at start.{missing} Without --allow-code, only tableaux and "
        "splittings (data) are accepted"
    )


def _library_folders() -> set[str]:
    """The folders of the shared libraries this process has loaded, but for installed
    packages' (site-packages, dist-packages, a virtual environment): the interpreter's and
    the standard library's extensions' dependencies."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            lines = maps.read().splitlines()
    except OSError:
        return set()
    venv = os.path.realpath(sys.prefix) if sys.prefix != sys.base_prefix else None
    folders = set()
    for line in lines:
        fields = line.split(None, 5)
        path = fields[5] if len(fields) == 6 else ""
        if not path.startswith("/") or ".so" not in os.path.basename(path):
            continue
        parts = path.split("/")
        if "site-packages" in parts or "dist-packages" in parts:
            continue
        if venv is not None and (path + "/").startswith(venv + "/"):
            continue
        if os.path.isfile(path):
            folders.add(os.path.dirname(path))
    return folders


def _elf_interpreter(path: str) -> str | None:
    """The program loader an ELF executable names (``PT_INTERP``), or None."""
    try:
        with open(path, "rb") as elf:
            head = elf.read(64)
            if len(head) < 64 or head[:4] != b"\x7fELF":
                return None
            wide, order = head[4] == 2, "<" if head[5] == 1 else ">"
            if wide:
                (offset,) = struct.unpack_from(order + "Q", head, 0x20)
                size, count = struct.unpack_from(order + "HH", head, 0x36)
            else:
                (offset,) = struct.unpack_from(order + "I", head, 0x1C)
                size, count = struct.unpack_from(order + "HH", head, 0x2A)
            for index in range(count):
                elf.seek(offset + index * size)
                header = elf.read(size)
                if struct.unpack_from(order + "I", header, 0)[0] != 3:  # PT_INTERP
                    continue
                if wide:
                    (where,) = struct.unpack_from(order + "Q", header, 8)
                    (length,) = struct.unpack_from(order + "Q", header, 32)
                else:
                    (where,) = struct.unpack_from(order + "I", header, 4)
                    (length,) = struct.unpack_from(order + "I", header, 16)
                elf.seek(where)
                return elf.read(length).rstrip(b"\0").decode() or None
    except (OSError, struct.error, UnicodeDecodeError):
        return None
    return None
