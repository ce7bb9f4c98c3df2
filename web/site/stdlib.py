"""The page's trimmed standard library: the files of Pyodide's ``python_stdlib.zip`` that the
worker uses, plus the modules users' own methods may import (:data:`USER_MODULES`).

Pyodide ships CPython's whole standard library (2.5 MB); the page needs about a tenth of it.
Which files it needs is measured, not guessed: Node boots the pinned Pyodide with the whole
library, runs the worker's boot (the core imported, the live loop built, the study loaded),
imports :data:`USER_MODULES`, lets a Python error cross into JavaScript, and lists the library
files then imported (``stdlib.mjs``). The build writes a copy of Pyodide's folder whose
``python_stdlib.zip`` holds those files only (cached by the content of all its inputs) and uses
it for the page, its snapshot and its baked frames. Those files are shipped as bytecode
(``pycompile.mjs``: compiled by Pyodide's own CPython, without docstrings): a boot without the
snapshot otherwise spends most of its time compiling them. The whole library stays beside it
(:data:`FULL_STDLIB`): a user's method that imports anything else gets it from there
(``views.stdlib_guard``, which also lists :data:`USER_MODULES`). Without Node the build
keeps the whole library and says so.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path

from integrator_lab.views.stdlib_guard import USER_MODULES

#: the whole standard library, beside the trimmed one, for what a user imports beyond it
FULL_STDLIB = "python_stdlib_full.zip"
STDLIB = "python_stdlib.zip"
#: the trimmed library's members are stored, not deflated one by one: the page downloads the
#: zip gzipped whole (build.STDLIB_GZ), 6 % fewer bytes than the deflated zip, and Python reads
#: its modules without inflating them. Part of the cache key: a change makes a new folder.
MEMBERS = "stored"
SCRIPT = Path(__file__).with_name("stdlib.mjs")
COMPILE_SCRIPT = Path(__file__).with_name("pycompile.mjs")
TIMEOUT = 300.0


class TrimUnavailable(RuntimeError):
    """The used files cannot be measured here (no Node, or it failed)."""


def _collect_code(boot_code: str) -> str:
    return (
        boot_code
        + "import importlib\n"
        + f"for _name in {USER_MODULES!r}:\n    importlib.import_module(_name)\n"
        + "from integrator_lab.views.study import Studies\nStudies()\n"
    )


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "integrator-lab" / "stdlib"


def _node(script: Path, *args) -> None:
    """Run ``script`` under Node with ``args`` (the last one the file it writes); raises
    :class:`TrimUnavailable` without Node, or when it fails or writes nothing."""
    node = shutil.which("node")
    if node is None:
        raise TrimUnavailable("Node.js is not installed")
    done = subprocess.run(
        [node, str(script), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    if done.returncode != 0 or not Path(args[-1]).is_file():
        raise TrimUnavailable(f"node failed ({script.name}): {done.stderr.strip()[-500:]}")


def used_files(archive: Path, pyodide_dir: Path, boot_code: str) -> list[str]:
    """The standard library's files the worker imports (names in python_stdlib.zip), measured
    with Node (:mod:`stdlib.mjs`), cached by the content of every input."""
    code = _collect_code(boot_code)
    digest = hashlib.sha256()
    for part in (
        archive.read_bytes(),
        code.encode(),
        SCRIPT.read_bytes(),
        (pyodide_dir / STDLIB).read_bytes(),
        (pyodide_dir / "pyodide.asm.wasm").read_bytes(),
    ):
        digest.update(hashlib.sha256(part).digest())
    cached = _cache_dir() / f"{digest.hexdigest()}.json"
    if cached.is_file():
        return json.loads(cached.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "used.json"
        _node(SCRIPT, pyodide_dir, archive, code, out)
        files = json.loads(out.read_text(encoding="utf-8"))
    cached.parent.mkdir(parents=True, exist_ok=True)
    partial = cached.with_name(f"{cached.name}.{os.getpid()}.part")
    partial.write_text(json.dumps(files), encoding="utf-8")
    partial.replace(cached)  # (whole: another build may read it at once)
    return files


def trim_zip(full: bytes, keep: set[str]) -> bytes:
    """``full`` (a python_stdlib.zip) with only the files in ``keep`` and their folders;
    deterministic (same input, same bytes)."""
    folders = {name.rsplit("/", 1)[0] + "/" for name in keep if "/" in name}
    # every parent folder of a kept file
    for folder in list(folders):
        parts = folder.rstrip("/").split("/")
        folders.update("/".join(parts[:k]) + "/" for k in range(1, len(parts)))
    buffer = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(full)) as source, zipfile.ZipFile(buffer, "w") as dest:
        for info in source.infolist():
            if info.filename in keep or info.filename in folders:
                dest.writestr(info, source.read(info), compress_type=zipfile.ZIP_DEFLATED)
    return buffer.getvalue()


def stored_zip(source: bytes) -> bytes:
    """``source`` (a zip) with the same members in the same order, each stored (no
    compression); deterministic."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(source)) as given, zipfile.ZipFile(buffer, "w") as dest:
        for info in given.infolist():
            dest.writestr(info, given.read(info), compress_type=zipfile.ZIP_STORED)
    return buffer.getvalue()


def compile_zip(source: bytes, pyodide_dir: Path) -> bytes:
    """``source`` (a python_stdlib.zip) with its modules as bytecode for the pinned Pyodide
    (:mod:`pycompile.mjs`); raises :class:`TrimUnavailable` without Node or when it fails."""
    with tempfile.TemporaryDirectory() as tmp:
        given, out = Path(tmp) / "source.zip", Path(tmp) / "compiled.zip"
        given.write_bytes(source)
        _node(COMPILE_SCRIPT, pyodide_dir, given, out)
        return out.read_bytes()


def trimmed_pyodide_dir(archive: Path, pyodide_dir: Path, files, boot_code: str) -> Path:
    """A folder like ``pyodide_dir`` (the same ``files``, and package.json) whose
    python_stdlib.zip holds only what the page uses (and FULL_STDLIB the whole library);
    raises :class:`TrimUnavailable` when that cannot be measured."""
    pyodide_dir = Path(pyodide_dir)
    full = (pyodide_dir / STDLIB).read_bytes()
    trimmed = trim_zip(full, set(used_files(Path(archive), pyodide_dir, boot_code)))
    key = hashlib.sha256(
        trimmed + hashlib.sha256(full).digest() + COMPILE_SCRIPT.read_bytes() + MEMBERS.encode()
    ).hexdigest()[:16]
    folder = _cache_dir() / f"pyodide-{key}"
    if not (folder / STDLIB).is_file():
        compiled = stored_zip(compile_zip(trimmed, pyodide_dir))
        partial = folder.with_name(f"{folder.name}.{os.getpid()}.part")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        for name in (*files, "package.json"):
            if name != STDLIB:
                shutil.copyfile(pyodide_dir / name, partial / name)
        (partial / FULL_STDLIB).write_bytes(full)
        (partial / STDLIB).write_bytes(compiled)
        if folder.exists() and not (folder / STDLIB).is_file():
            shutil.rmtree(folder, ignore_errors=True)  # (left by a build that was stopped)
        try:
            partial.rename(folder)
        except OSError:
            # another build (a second test process) made the same folder meanwhile: it is
            # the same content, and it may be reading it; this copy goes
            shutil.rmtree(partial, ignore_errors=True)
            if not (folder / STDLIB).is_file():
                raise
    return folder
