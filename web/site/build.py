"""The static site: ``integrator-lab build`` writes it, ``integrator-lab preview`` serves it.

The site is self-contained, every file from its own origin::

    index.html                the page, with the dashboard's Bokeh models embedded (a
                              document per panel and one for the controls)
    static/                   start.js (starts the worker), page.js (the page's ES modules of
                              js/, bundled by esbuild: web/site/page_bundle.py), worker.mjs
                              (the module worker: static/worker*.mjs bundled), style.css; the
                              page loads hashed copies (static/NAME.HASH.js, worker.HASH.mjs)
    static/vendor/editor.js   the method editor (CodeMirror 6, bundled: web/site/editor.py)
    bokeh/bokeh.HASH.min.js   BokehJS, copied from the installed bokeh package
    pyodide/HASH/             Pyodide's core files, from node_modules/pyodide or the wheel
    py/integrator_lab.HASH.zip  the pure-Python core + the worker's loop, unpacked by Pyodide
    py/snapshot.HASH.bin.gz   Pyodide's memory with that core imported (web/site/snapshot.py)
    py/baked.HASH.bin.gz      the default view's first seconds, played while Python boots
                              (web/site/bake.py)

HASH is the start of the SHA-256 of the content: a host may cache everything in bokeh/,
pyodide/ and py/ for ever, while index.html (which names them) and static/ stay fresh. Every
URL is relative, so the folder works from any path of any static host. The service worker
(sw.js) carries the digest of every file of the build: a build that changes any file, if only
one without a hash in its name (the icon, the editor's bundle), is a new service worker.

The page must be served over HTTP (browsers refuse module workers and WebAssembly streaming
from ``file://``): :func:`~integrator_lab.site.hosting.serve` does that on 127.0.0.1.

This module writes the site. What the page's JavaScript is handed (:func:`page_data`) is
:mod:`integrator_lab.site.page_data`'s; what a host must send (the types, the
Content-Security-Policy, compression) and the preview server are
:mod:`integrator_lab.site.hosting`'s. Both are re-exported here, where they were defined
before.
"""

from __future__ import annotations

import fnmatch
import gzip
import hashlib
import importlib.resources
import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import bokeh

from integrator_lab import __version__
from integrator_lab.site.bake import BAKED, write_baked
from integrator_lab.site.editor import LAZY_TAG, bundle_path
from integrator_lab.site.editor import SITE_PATH as EDITOR_PATH
from integrator_lab.site.esbuild import BundleUnavailable
from integrator_lab.site.hosting import (
    COMPRESSIBLE,
    CONTENT_SECURITY_POLICY,
    DEFAULT_OUT,
    DEFAULT_PORT,
    MIME_TYPES,
    WARM_BYTES,
    SiteHandler,
    download_sizes,
    make_server,
    serve,
    warm_gzip,
)
from integrator_lab.site.lzma_pack import lzma_packed
from integrator_lab.site.pack import _FILE_MODE, _ZIP_EPOCH, core_files
from integrator_lab.site.page_bundle import SITE_PATH as PAGE_MODULE
from integrator_lab.site.page_bundle import WORKER, page_bundle, worker_bundle
from integrator_lab.site.page_data import PANEL_PARTS, page_data, panel_sections
from integrator_lab.site.pyodide_node import find_pyodide_dir, pyodide_source
from integrator_lab.site.snapshot import (
    BOOT_CODE,
    ENGINE_GLOBAL,
    SNAPSHOT,
    SnapshotUnavailable,
    make_snapshot,
    pyodide_version,
)
from integrator_lab.site.stdlib import (
    FULL_STDLIB,
    TrimUnavailable,
    stored_zip,
    trimmed_pyodide_dir,
)
from integrator_lab.views import figures

#: this module's names, and those of :mod:`.page_data` and :mod:`.hosting` that code imports
#: from here (they lived here once)
__all__ = [
    "ARCHIVE",
    "CORE",
    "BOKEH_FILES",
    "COMPRESSIBLE",
    "CONTENT_SECURITY_POLICY",
    "CSP_META",
    "CSP_PLACEHOLDER",
    "DEFAULT_OUT",
    "DEFAULT_PORT",
    "ENTRY_TAG",
    "HASHED_STATIC",
    "HASH_LENGTH",
    "MIME_TYPES",
    "PAGE_MODULE",
    "PAGE_TAG",
    "PANEL_PARTS",
    "PYODIDE_FILES",
    "SERVICE_WORKER",
    "STATIC_FILES",
    "STATIC_MODULES",
    "WARM_BYTES",
    "WORKER_MODULES",
    "SiteHandler",
    "archive_files",
    "boot_data",
    "build_site",
    "download_sizes",
    "favicon_png",
    "make_server",
    "pack_archive",
    "page_data",
    "serve",
    "static_dir",
    "warm_gzip",
    "write_service_worker",
]

#: the core's archive, as the snapshot and the bake use it while the site is built
ARCHIVE = "py/integrator_lab.zip"
#: the core as the page downloads it: that archive, members stored, gzipped whole
CORE = "py/integrator_lab.zip.gz"
#: front-end files copied as they are (index.html is a template, filled in by build_site)
STATIC_FILES = ("start.js", "style.css", "editor.css")
#: the folder of the page's ES modules (static/js/*.js, entry main.js), copied as it is
STATIC_MODULES = "js"
# PAGE_MODULE (static/page.js): the page's modules bundled by esbuild (:mod:`.page_bundle`),
# which the page loads: a browser finds a module's imports only once it has parsed it, and the
# three levels of ``static/js`` cost about a fifth of a second before the first draw (the
# modules are in the site for reading, and the page loads them when there is no bundle)
#: the page's own files that index.html names by a hashed copy in a hashed build
HASHED_STATIC = ("static/start.js", "static/style.css", "static/editor.css", PAGE_MODULE)
#: the service worker, at the site's root (its scope is its folder): static/sw.js filled in
SERVICE_WORKER = "sw.js"
#: the page template's reference to its entry module, which becomes one to PAGE_MODULE
ENTRY_TAG = '<script type="module" src="static/js/main.js"></script>'
PAGE_TAG = f'<script type="module" src="{PAGE_MODULE}"></script>'
BOKEH_FILES = ("bokeh.min.js", "bokeh-widgets.min.js")
#: Pyodide's files that the worker downloads gzipped (level 9) in their place and hands to
#: Pyodide inflated as they arrive: the standard library (a host sends a .zip as it is; the
#: trimmed zip's members are stored, so they compress together: stdlib.MEMBERS; 1.19 ->
#: 1.11 MB) and the wasm (a host compresses it at its own level, commonly 6: 17 kB more)
GZIPPED = {"python_stdlib.zip": "python_stdlib.zip.gz", "pyodide.asm.wasm": "pyodide.asm.wasm.gz"}
STDLIB_GZ = GZIPPED["python_stdlib.zip"]
#: the same two as .lzma (:mod:`.lzma_pack`: a quarter fewer bytes), which the worker
#: downloads in their place on a slow link and inflates itself (static/worker-lzma.mjs)
LZMA_FILES = {
    "python_stdlib.zip": "python_stdlib.zip.lzma",
    "pyodide.asm.wasm": "pyodide.asm.wasm.lzma",
}
#: Pyodide's package list: the page loads no package, so the site's is the list without them,
#: and the worker has it from the boot config (no download)
LOCK = "pyodide-lock.json"
#: what loadPyodide fetches when no package is loaded
PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
#: the modules of integrator_lab.views that the worker imports (pure Python, no Bokeh)
WORKER_MODULES = (
    "__init__.py",
    "shared.py",
    "integrators.py",
    "samples.py",
    "scene.py",
    "drag.py",
    "energy.py",
    "system_run.py",
    "live.py",
    "study.py",
    "stdlib_guard.py",
    "geometry.py",
    "engine.py",
)
#: the page template's place for the page's Content-Security-Policy
#: (:data:`~integrator_lab.site.hosting.CONTENT_SECURITY_POLICY`), and what the build puts
#: there: a <meta> (which does not cover the worker: hosts send the policy as a header too)
CSP_PLACEHOLDER = "{{CSP}}"
CSP_META = f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">'
#: hex digits of SHA-256 in the names of the large files (48 bits: no collision in practice)
HASH_LENGTH = 12


def static_dir():
    return importlib.resources.files("integrator_lab.static")


def archive_files() -> list[tuple[str, Path]]:
    """``(archive name, source)`` of the worker's Python: the core and its web modules."""
    views_dir = Path(__file__).resolve().parents[1] / "views"
    files = list(core_files())
    files += [(f"integrator_lab/views/{name}", views_dir / name) for name in WORKER_MODULES]
    return sorted(files)


def pack_archive(dest: Path) -> Path:
    """Write the worker's zip (deterministic, like :func:`pack.pack_core`)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(dest, "w") as archive:
        for arcname, path in archive_files():
            info = zipfile.ZipInfo(arcname, date_time=_ZIP_EPOCH)
            info.external_attr = _FILE_MODE << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes(), compresslevel=9)
    return dest


def _script_json(value) -> str:
    """JSON that is safe inside a <script> element (no "</script>", no HTML specials)."""
    text = json.dumps(value, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def boot_data(
    snapshot: dict | None,
    pyodide: str = "pyodide/",
    archive: str = CORE,
    baked: dict | None = None,
    sizes: dict | None = None,
    lock: str | None = None,
    lzma: dict | None = None,
    worker: str = WORKER.site_path,
) -> dict:
    """What the worker needs first (static/start.js hands it over before BokehJS loads): the
    code a plain boot runs, the global that then holds the live loop, the build's Pyodide
    memory snapshot, which already holds it (:func:`snapshot.make_snapshot`), if any, and where
    Pyodide's files and the core's archive are (their names carry a content hash); and for the
    page, the default view's baked frames (:func:`bake.write_baked`), if any; and the sizes of
    the files the worker downloads (``{file: [bytes, bytes a host that compresses sends]}``),
    for the page's progress bar; ``gzipped``, the files it downloads gzipped in their place
    (``{name: gzipped name}``, in Pyodide's folder); ``lzma``, the same as ``.lzma``, which
    it downloads instead on a slow link (``{name: .lzma name}``); ``lock``, Pyodide's package
    list (:func:`bare_lock`), if given; ``worker``, the worker's script (static/start.js
    starts it), hashed in a hashed build."""
    return {
        "worker": worker,
        "code": BOOT_CODE,
        "global": ENGINE_GLOBAL,
        "snapshot": snapshot,
        "pyodide": pyodide,
        "archive": archive,
        "baked": baked,
        "sizes": sizes or {},
        "gzipped": dict(GZIPPED),
        "lzma": dict(lzma or {}),
        "lock": lock,
    }


def bare_lock(lock: bytes) -> bytes:
    """Pyodide's ``pyodide-lock.json`` without its packages (the page loads none, and ships
    none: 27 kB less to download); its ``info`` (the ABI, the Python version) stays."""
    data = json.loads(lock)
    data["packages"] = {}
    return json.dumps(data, separators=(",", ":"), sort_keys=True).encode()


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:HASH_LENGTH]


def _folder_digest(files: dict[str, bytes]) -> str:
    """The digest of a folder: of its files' names and SHA-256 digests, one a line."""
    lines = "".join(f"{name} {hashlib.sha256(data).hexdigest()}\n" for name, data in files.items())
    return _digest(lines.encode())


def _hash_name(path: Path) -> str:
    """Rename ``dir/name.ext`` to ``dir/name.HASH.ext`` (``bokeh.min.js`` ->
    ``bokeh.HASH.min.js``); return the new name."""
    stem, _, extension = path.name.partition(".")
    name = f"{stem}.{_digest(path.read_bytes())}.{extension}"
    path.replace(path.with_name(name))
    return name


def build_site(
    out_dir=DEFAULT_OUT,
    config: figures.DashboardConfig | None = None,
    *,
    snapshot: bool = True,
    hashed: bool = True,
    bake: bool = True,
    trim: bool = True,
    lzma: bool = True,
    log=None,
) -> Path:
    """Write the complete static site into ``out_dir`` and return its path.

    With ``snapshot``, the build also freezes Pyodide's memory with the core imported (needs
    Node, unless the package carries that snapshot prebuilt; without it the page boots Python
    plainly, a few seconds slower, and this says so). With ``hashed``, the large files' names
    carry a content hash (the one-file build, which inlines them, goes without). With
    ``bake``, the default view's first seconds are computed and shipped (web/site/bake.py;
    the one-file build leaves them out). With ``trim``, the page gets the standard library it
    uses, not the whole one (web/site/stdlib.py; needs Node). With ``lzma``, the wasm and the
    library also go as ``.lzma`` for a slow link (:mod:`.lzma_pack`; the one-file build, which
    reads them from memory, goes without). ``log``
    (``print``-like) hears where Pyodide and its snapshot came from.
    """
    config = config or figures.DashboardConfig()
    out = Path(out_dir)
    pyodide_dir = find_pyodide_dir()
    if log is not None:
        log(f"Pyodide {pyodide_version(pyodide_dir)} from {pyodide_source(pyodide_dir)}")
    for sub in ("static", "bokeh", "pyodide", "py"):
        shutil.rmtree(out / sub, ignore_errors=True)
        (out / sub).mkdir(parents=True)
    static = static_dir()
    bokeh_names = copy_page_files(out, hashed)
    # the worker's modules (static/worker.mjs and the worker-*.mjs it imports) in one module
    worker_bundled = True
    try:
        shutil.copyfile(worker_bundle(Path(str(static))), out / WORKER.site_path)
    except BundleUnavailable as exc:
        worker_bundled = False
        print(
            f"integrator-lab: note: no bundle of the worker's modules ({exc}); the worker "
            "imports them as they are",
            file=sys.stderr,
        )
        for module in static.iterdir():
            if fnmatch.fnmatch(module.name, WORKER.pattern):
                (out / "static" / module.name).write_bytes(module.read_bytes())
    pack_archive(out / ARCHIVE)
    site_files: tuple[str, ...] = PYODIDE_FILES
    if trim:
        # the standard library the page uses, the whole one beside it (web/site/stdlib.py)
        try:
            pyodide_dir = trimmed_pyodide_dir(out / ARCHIVE, pyodide_dir, PYODIDE_FILES, BOOT_CODE)
            site_files = (*PYODIDE_FILES, FULL_STDLIB)
        except (TrimUnavailable, OSError, subprocess.SubprocessError) as exc:
            print(
                f"integrator-lab: note: the whole standard library goes with the page ({exc})",
                file=sys.stderr,
            )
    pyodide_files = {name: (pyodide_dir / name).read_bytes() for name in site_files}
    pyodide_files[LOCK] = bare_lock(pyodide_files[LOCK])
    for name, packed in GZIPPED.items():
        pyodide_files[packed] = gzip.compress(pyodide_files[name], 9, mtime=0)
    lzma_files = {}
    for name, packed in LZMA_FILES.items() if lzma else ():
        data = lzma_packed(pyodide_files[name])
        if data is not None:
            pyodide_files[packed] = data
            lzma_files[name] = packed
    pyodide_rel = f"pyodide/{_folder_digest(pyodide_files)}/" if hashed else "pyodide/"
    (out / pyodide_rel).mkdir(parents=True, exist_ok=True)
    for name, data in pyodide_files.items():
        (out / pyodide_rel / name).write_bytes(data)
    editor_script = copy_editor(out)
    frozen = None
    if snapshot:
        try:
            frozen = make_snapshot(out / ARCHIVE, pyodide_dir, out / SNAPSHOT, log=log)
            if hashed:
                frozen["url"] = f"py/{_hash_name(out / SNAPSHOT)}"
        except (SnapshotUnavailable, OSError, subprocess.SubprocessError) as exc:
            print(
                f"integrator-lab: note: no Pyodide snapshot ({exc}); the page will boot "
                "Python without it, a few seconds slower",
                file=sys.stderr,
            )
    baked = None
    if bake:
        baked = write_baked(config, out / BAKED, out / ARCHIVE, pyodide_dir, log=log)
    if baked is not None and hashed:
        baked["url"] = f"py/{_hash_name(out / BAKED)}"
    # the page's core: the archive with its members stored, gzipped whole, in place of the zip
    # (a host sends a .zip as it is; 145 -> 118 kB); the worker inflates it
    (out / CORE).write_bytes(gzip.compress(stored_zip((out / ARCHIVE).read_bytes()), 9, mtime=0))
    (out / ARCHIVE).unlink()
    archive_rel = f"py/{_hash_name(out / CORE)}" if hashed else CORE
    sizes = {name: download_sizes(data, name) for name, data in pyodide_files.items()}
    sizes["core"] = download_sizes((out / archive_rel).read_bytes(), archive_rel)
    if frozen is not None:
        sizes["snapshot"] = download_sizes((out / frozen["url"]).read_bytes(), frozen["url"])
    template = page_template(out, bokeh_names, hashed)
    boot = boot_data(
        frozen,
        pyodide_rel,
        archive_rel,
        baked,
        sizes,
        pyodide_files[LOCK].decode("utf-8"),
        lzma_files,
    )
    if hashed:
        if worker_bundled:
            # (an unbundled worker imports its modules by their plain names: it keeps its own,
            # and the next build's service worker drops it from the cache)
            boot["worker"] = _hashed_copy(out / WORKER.site_path, out)
        boot["serviceWorker"] = SERVICE_WORKER
    page = write_index(out, template, config, boot, editor_script)
    (out / SERVICE_WORKER).unlink(missing_ok=True)
    if hashed:
        # the scripts every visit runs: the page's (its head's) and Pyodide's JavaScript
        scripts = page_scripts(page)
        scripts += [boot["pyodide"] + name for name in PYODIDE_FILES if name.endswith(".mjs")]
        write_service_worker(out, scripts)
    return out


def copy_page_files(out: Path, hashed: bool) -> dict[str, str]:
    """Copy the page's own files into ``out`` (its ``static`` and ``bokeh`` folders exist):
    its scripts and styles, its modules and their bundle, BokehJS; return BokehJS's files'
    names as written (hashed in a hashed build)."""
    static = static_dir()
    for name in STATIC_FILES:
        (out / "static" / name).write_bytes(static.joinpath(name).read_bytes())
    (out / "static" / STATIC_MODULES).mkdir()
    for module in static.joinpath(STATIC_MODULES).iterdir():
        if module.name.endswith(".js"):
            (out / "static" / STATIC_MODULES / module.name).write_bytes(module.read_bytes())
    try:
        shutil.copyfile(page_bundle(out / "static" / STATIC_MODULES), out / PAGE_MODULE)
    except BundleUnavailable as exc:
        print(
            f"integrator-lab: note: no bundle of the page's modules ({exc}); the page loads "
            "static/js/main.js and its imports, a little later to its first draw",
            file=sys.stderr,
        )
    bokeh_js = Path(bokeh.__file__).parent / "server" / "static" / "js"
    bokeh_names = {}
    for name in BOKEH_FILES:
        shutil.copyfile(bokeh_js / name, out / "bokeh" / name)
        bokeh_names[name] = _hash_name(out / "bokeh" / name) if hashed else name
    return bokeh_names


def copy_editor(out: Path) -> str:
    """Copy the method editor's bundle into ``out``; return the page's tag that loads it
    (none without the bundle: the editor is a plain text box)."""
    try:
        editor = bundle_path()
    except BundleUnavailable as exc:
        print(
            f"integrator-lab: note: no code editor bundle ({exc}); the page's method editor "
            "will be a plain text box",
            file=sys.stderr,
        )
        return ""
    (out / EDITOR_PATH).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(editor, out / EDITOR_PATH)
    # read by the page when the method editor is first opened (static/js/editor.js)
    return LAZY_TAG


def page_template(out: Path, bokeh_names: dict[str, str], hashed: bool) -> str:
    """``static/index.html`` naming the files :func:`copy_page_files` wrote into ``out``:
    the bundle (if any), BokehJS's (hashed) names, the CSP; in a hashed build, a hashed copy
    of each of the page's own files, which the page names (the service worker may then keep
    every file but index.html for as long as the build stands)."""
    template = static_dir().joinpath("index.html").read_text(encoding="utf-8")
    if template.count(ENTRY_TAG) != 1:
        raise RuntimeError(f"static/index.html: expected one {ENTRY_TAG}")
    if (out / PAGE_MODULE).is_file():
        template = template.replace(ENTRY_TAG, PAGE_TAG)
    if template.count(CSP_PLACEHOLDER) != 1:
        raise RuntimeError(f"static/index.html: expected one {CSP_PLACEHOLDER} in its <head>")
    template = template.replace(CSP_PLACEHOLDER, CSP_META)
    for name, hashed_name in bokeh_names.items():
        if template.count(f'"bokeh/{name}"') != 1:
            raise RuntimeError(f"static/index.html: expected one reference to bokeh/{name}")
        template = template.replace(f'"bokeh/{name}"', f'"bokeh/{hashed_name}"')
    for rel in HASHED_STATIC if hashed else ():
        if not (out / rel).is_file():
            continue  # no page bundle: the page loads static/js/main.js
        if template.count(f'"{rel}"') != 1:
            raise RuntimeError(f"static/index.html: expected one reference to {rel}")
        template = template.replace(f'"{rel}"', f'"{_hashed_copy(out / rel, out)}"')
    return template


def write_index(
    out: Path, template: str, config: figures.DashboardConfig, boot: dict, editor_script: str
) -> str:
    """Write ``out/index.html`` (and the favicon) from :func:`page_template`'s ``template``:
    the dashboard of ``config``, the worker's ``boot`` data; return the page."""
    if template.count(PRELOAD_PLACEHOLDER) != 1:
        raise RuntimeError(f"static/index.html: expected one {PRELOAD_PLACEHOLDER} in its <head>")
    template = template.replace(PRELOAD_PLACEHOLDER, preload_tags(template))
    page = (
        template.replace("{{VERSION}}", __version__)
        .replace("{{PANELS}}", panel_sections(config.systems))
        .replace("{{BOOT}}", _script_json(boot))
        .replace("{{EDITOR}}", editor_script)
        .replace("{{DATA}}", _script_json(page_data(config)))
    )
    (out / "index.html").write_text(page, encoding="utf-8")
    # browsers ask for /favicon.ico on their own; answer rather than log a 404
    (out / "favicon.ico").write_bytes(favicon_png())
    return page


def build_served_page(
    out_dir,
    config: figures.DashboardConfig | None = None,
    code: str = "refused",
    host_origin: str | None = None,
) -> Path:
    """Write the page a server hosts into ``out_dir`` and return its path: the static
    page's front end without Python (its engine runs on the server: ``{"host": "server"}``
    in its boot data, static/start.js), so no Pyodide, snapshot or baked frames. ``code``:
    what the server does with a visitor's Python method, as the editor says it: "refused",
    "sandbox" (run confined) or "unconfined". ``host_origin``: the origin of the page that
    hosts it in a frame, if not the page's own ("*": any; a notebook's loopback server)."""
    config = config or figures.DashboardConfig()
    out = Path(out_dir)
    for sub in ("static", "bokeh"):
        shutil.rmtree(out / sub, ignore_errors=True)
        (out / sub).mkdir(parents=True)
    bokeh_names = copy_page_files(out, hashed=False)
    editor_script = copy_editor(out)
    boot = {"host": "server", "visitorCode": code}
    if host_origin is not None:
        boot["hostOrigin"] = host_origin
    write_index(out, page_template(out, bokeh_names, False), config, boot, editor_script)
    return out


#: where the page's head asks for its scripts at once (:func:`preload_tags`)
PRELOAD_PLACEHOLDER = "{{PRELOAD}}"
_CLASSIC_SCRIPT = re.compile(r'<script src="([^"]+)"></script>')
_MODULE_SCRIPT = re.compile(r'<script type="module" src="([^"]+)"></script>')


def page_scripts(page: str) -> list[str]:
    """The scripts ``page`` loads: its classic scripts, then its module scripts."""
    return _CLASSIC_SCRIPT.findall(page) + _MODULE_SCRIPT.findall(page)


def preload_tags(page: str) -> str:
    """``<link>`` elements that ask for every script of ``page`` (BokehJS, its widgets, the
    page's module) at once, from the top of its head. Without them the browser asked for the
    widgets only once BokehJS had come, and for the page's module after that; meanwhile the
    worker's downloads (Python's megabytes) had begun and shared the link with them: on slow 4G
    the page moved 1.5 s later (7.9 -> 6.4 s), at 10 Mbit/s 0.5 s (3.7 -> 3.2 s; medians of
    three cold loads each, in turns)."""
    classic, modules = _CLASSIC_SCRIPT.findall(page), _MODULE_SCRIPT.findall(page)
    tags = [f'<link rel="preload" as="script" href="{src}">' for src in classic]
    tags += [f'<link rel="modulepreload" href="{src}">' for src in modules]
    return "\n  ".join(tags)


def _hashed_copy(path: Path, root: Path) -> str:
    """A copy of ``dir/name.ext`` as ``dir/name.HASH.ext``; its path relative to ``root``."""
    stem, _, extension = path.name.partition(".")
    copy = path.with_name(f"{stem}.{_digest(path.read_bytes())}.{extension}")
    shutil.copyfile(path, copy)
    return copy.relative_to(root).as_posix()


def write_service_worker(out: Path, scripts: list[str]) -> None:
    """The site's service worker (static/sw.js), with the build's files: a second visit reads
    nothing but index.html, an offline visit runs, a new build replaces the cache. ``scripts``
    (of those files, hashed): the scripts every visit runs, which it keeps as it installs, so
    that Chromium caches their compiled code for the second visit. It carries the digest of
    every file's content: the browser installs a new service worker only when its script's
    bytes differ, and a build that changed only files without a hash in their names (the
    icon, the editor's bundle) would otherwise leave them the same, and the old copies in the
    cache."""
    files = sorted(
        path.relative_to(out).as_posix()
        for path in out.rglob("*")
        if path.is_file() and path.name != SERVICE_WORKER
    )
    unknown = set(scripts) - set(files)
    if unknown:
        raise RuntimeError(f"service worker: scripts not in the build: {sorted(unknown)}")
    # (as _folder_digest, a file at a time)
    listing = "".join(
        f"{path} {hashlib.sha256((out / path).read_bytes()).hexdigest()}\n" for path in files
    )
    source = static_dir().joinpath("sw.js").read_text(encoding="utf-8")
    for marker, value in (
        ("/* {{FILES}} */ []", json.dumps(files)),
        ("/* {{SCRIPTS}} */ []", json.dumps(scripts)),
        ("{{BUILD}}", _digest(listing.encode())),
    ):
        if source.count(marker) != 1:
            raise RuntimeError(f"static/sw.js: expected one {marker}")
        source = source.replace(marker, value)
    (out / SERVICE_WORKER).write_text(source, encoding="utf-8")


def favicon_png(size: int = 32) -> bytes:
    """A small PNG icon (a pendulum bob in the symplectic-Euler blue), made without any
    imaging library; browsers accept PNG data served as favicon.ico."""
    import struct
    import zlib

    centre, radius = (size - 1) / 2.0, size * 0.36
    rows = []
    for y in range(size):
        row = bytearray([0])  # filter type: none
        for x in range(size):
            inside = (x - centre) ** 2 + (y - centre) ** 2 <= radius * radius
            row += bytes((31, 119, 180, 255)) if inside else bytes((0, 0, 0, 0))
        rows.append(bytes(row))

    def chunk(kind, payload):
        body = kind + payload
        return struct.pack(">I", len(payload)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"".join(rows), 9))
        + chunk(b"IEND", b"")
    )
