"""The one-file build: the whole static page in a single HTML file that opens from disk.

``integrator-lab build --single-file lab.html`` builds the static site (:mod:`.site`) and folds
it into one document that works offline from ``file://`` in a stock browser:

- BokehJS, the style sheet and the page's scripts are inlined; the page's ES modules
  (``static/js/``), bundled into one by esbuild (``static/page.js``: :mod:`.page_bundle`),
  become one inline module script (without esbuild, or a wheel's bundle of the same sources,
  there is no one-file page: from ``file://`` a browser loads no module file);
- Pyodide (its JavaScript, WebAssembly binary, standard library and lock file), the core's
  zip and Pyodide's memory snapshot (unless ``--no-snapshot``: Python then boots in a few
  seconds more, from an 11 MB file instead of 19 MB) travel inside the page as base64 text,
  gzip-compressed where that pays;
- browsers refuse module workers from ``file://`` URLs but accept one created from a ``data:``
  URL, so ``new Worker(...)`` in ``static/start.js`` is redirected (by ``js/page_shim.js``)
  to a ``data:`` worker made of the site's own ``worker.mjs`` inside ``js/worker_wrapper.js``.
  The page posts the embedded files to it once parsed; the wrapper imports Pyodide's
  JavaScript from Blob URLs made inside the worker, hands ``loadPyodide`` the lock file's
  contents and the already imported module factory, and answers the ``fetch`` calls of
  Pyodide and of the worker by file name, from memory. Nothing
  is requested from anywhere.

The site's files are adapted by a few exact substitutions; when one of them no longer matches
(the site changed), the build stops with :class:`SingleFileError` instead of writing a page
that would not run.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
import tempfile
from pathlib import Path

from integrator_lab.site.build import (
    CSP_META,
    ENTRY_TAG,
    PAGE_MODULE,
    PAGE_TAG,
    _script_json,
    static_dir,
)
from integrator_lab.site.editor import LAZY_TAG
from integrator_lab.site.editor import SITE_PATH as EDITOR_PATH
from integrator_lab.site.esbuild import BundleUnavailable
from integrator_lab.site.page_bundle import page_bundle, worker_bundle
from integrator_lab.site.snapshot import SNAPSHOT

#: files of the built site that travel inside the page, by path in the site; the worker sees
#: them by file name (``pyodide/pyodide.asm.wasm`` -> ``pyodide.asm.wasm``)
EMBEDDED = (
    "pyodide/pyodide.mjs",
    "pyodide/pyodide.asm.mjs",
    "pyodide/pyodide.asm.wasm.gz",
    "pyodide/python_stdlib.zip.gz",  # (.gz: the worker asks for them in place of the files)
    "pyodide/pyodide-lock.json",
    "py/integrator_lab.zip.gz",
)
#: the site's icon, linked from its page (inlined as a data: URL)
ICON = "favicon.ico"
ICON_LINK = re.compile(r'<link rel="icon" href="favicon\.ico">')
#: gzip a file only when that saves at least this fraction (zips barely shrink)
MIN_GZIP_SAVING = 0.1
#: a hierarchical stand-in for the worker's own URL: relative URLs resolve against it (a data:
#: URL cannot be a base) and every file under it is answered from memory by name
WORKER_BASE = "integrator-lab-embedded:/site/static/worker.mjs"
#: the type of the <script> elements that carry embedded files (never executed)
FILE_SCRIPT_TYPE = "application/x-integrator-lab-file"
#: the message key under which the page hands the files to the worker
FILES_KEY = "integratorLabFiles"


class SingleFileError(RuntimeError):
    """The built site no longer has the shape the one-file build adapts."""


#: the one-file build's own JavaScript (web/site/js/): the wrapper of the data: URL worker
#: (the site's worker.mjs goes in place of its marker line) and the page shim that makes
#: ``new Worker`` create that worker
JS_DIR = Path(__file__).resolve().parent / "js"
WORKER_WRAPPER = "worker_wrapper.js"
WORKER_MARKER = "// ---- the site's worker.mjs goes here ----\n"
PAGE_SHIM = "page_shim.js"
#: why there is no one-file page without the page's bundle (esbuild's, or a wheel's)
NO_BUNDLE = (
    "the one-file build needs the page's modules (static/js/) and the worker's "
    "(static/worker*.mjs) each bundled into one script, and {reason}: install esbuild with "
    "`npm ci` in the project (or use a wheel whose prebuilt bundles were made from these "
    "sources); a page opened from file:// cannot load a module's imports"
)


def _js(name: str, **placeholders: str) -> str:
    """One of the build's scripts, with its ``__NAME__`` placeholders filled in."""
    text = (JS_DIR / name).read_text(encoding="utf-8")
    for key, value in placeholders.items():
        _one(f"__{key}__", text, f"{name}: the placeholder __{key}__", at_least=True)
        text = text.replace(f"__{key}__", value)
    return text


#: worker.mjs's dynamic import of Pyodide, answered by the prelude's loadPyodide
_PYODIDE_IMPORT = "await import(new URL(files.module, siteURL).href)"
_PYODIDE_PRELUDE = "{ loadPyodide: __ilLoadPyodide, version: __ilPyodide.version }"
#: static/start.js makes no worker from file://; the one file is made for exactly that
_FILE_CHECK = 'location.protocol === "file:"'


#: the page's boot config (static/index.html), which the worker reads
BOOT_CONFIG = re.compile(
    r'(<script type="application/json" id="il-boot-config">)(.*?)(</script>)', re.DOTALL
)


def _one(pattern, text, what, at_least=False):
    matches = (
        list(pattern.finditer(text))
        if isinstance(pattern, re.Pattern)
        else [m for m in re.finditer(re.escape(pattern), text)]
    )
    if not matches or (len(matches) > 1 and not at_least):
        raise SingleFileError(
            f"{what}: expected {'at least' if at_least else 'exactly'} one match, found "
            f"{len(matches)}; the static site changed and web/site/single_file.py must follow"
        )
    return matches[0]


def worker_source(site: Path) -> str:
    """The data: URL worker's module source: prelude, adapted worker.mjs, epilogue."""
    source = (site / "static" / "worker.mjs").read_text(encoding="utf-8")
    _one(_PYODIDE_IMPORT, source, "worker.mjs: the import of loadPyodide")
    source = source.replace(_PYODIDE_IMPORT, _PYODIDE_PRELUDE)
    if "import.meta.url" not in source:
        raise SingleFileError(
            "worker.mjs: no import.meta.url to redirect; the static site "
            "changed and web/site/single_file.py must follow"
        )
    source = source.replace("import.meta.url", json.dumps(WORKER_BASE))
    if re.search(r"^\s*import\s", source, re.MULTILINE):
        raise SingleFileError(
            "worker.mjs imports other modules; the one-file build cannot resolve them"
        )
    wrapper = _js(WORKER_WRAPPER, FILES_KEY=FILES_KEY, WORKER_BASE=WORKER_BASE)
    _one(WORKER_MARKER, wrapper, f"{WORKER_WRAPPER}: the marker line")
    return wrapper.replace(WORKER_MARKER, source)


def _script_text(text: str) -> str:
    """Source safe inside an inline <script> (no premature end tag, no comment opener)."""
    return re.sub(r"</(script)", r"<\\/\1", text, flags=re.IGNORECASE).replace("<!--", "<\\!--")


def _embedded_file(site: Path, path: str) -> tuple[str, dict]:
    data = (site / path).read_bytes()
    packed = gzip.compress(data, compresslevel=9, mtime=0)
    use_gzip = len(packed) <= (1.0 - MIN_GZIP_SAVING) * len(data)
    payload = base64.b64encode(packed if use_gzip else data).decode("ascii")
    name = path.rsplit("/", 1)[-1]
    element = (
        f'<script type="{FILE_SCRIPT_TYPE}" data-name="{name}" '
        f'data-gzip="{int(use_gzip)}">{payload}</script>'
    )
    return element, {"name": name, "bytes": len(data), "embedded": len(payload), "gzip": use_gzip}


def fold_site(site: Path) -> tuple[str, list[dict]]:
    """The one-file page made from the site built in ``site`` (``build_site(hashed=False)``:
    the worker finds the embedded files by their plain names), and what it embeds."""
    page = (site / "index.html").read_text(encoding="utf-8")
    # the site's Content-Security-Policy keeps scripts to its own files: this page is all
    # inline scripts with a data: worker, opened from disk, and goes without one
    _one(CSP_META, page, "index.html: the Content-Security-Policy")
    page = page.replace(CSP_META, "")
    # every file reaches the worker from memory: no link to measure (a loaded machine took
    # the time to inflate the wasm for a slow link and booted without the snapshot)
    boot = _one(BOOT_CONFIG, page, "index.html: the boot config")
    config = json.loads(boot[2])
    config["inMemory"] = True
    page = page[: boot.start(2)] + _script_json(config) + page[boot.end(2) :]
    # the icon travels inside the page too (a browser would otherwise ask the disk for it)
    icon = "data:image/png;base64," + base64.b64encode((site / ICON).read_bytes()).decode("ascii")
    _one(ICON_LINK, page, "index.html: the icon")
    page = ICON_LINK.sub(lambda _: f'<link rel="icon" href="{icon}">', page)
    # the editor's bundle, which the site loads on demand, is inlined as an ordinary script
    page = page.replace(LAZY_TAG, f'<script src="{EDITOR_PATH}"></script>')
    outside_scripts = re.sub(r"<script\b[^>]*>.*?</script>", "", page, flags=re.DOTALL)
    referenced = re.findall(r'\b(?:src|href)="([^"]*)"', outside_scripts)
    referenced += re.findall(r'<script\b[^>]*\bsrc="([^"]*)"', page)
    # data: URLs and in-page anchors (the skip link) need no file
    referenced = [ref for ref in referenced if not ref.startswith(("data:", "#"))]

    def inline_style(match):
        css = (site / match.group(1)).read_text(encoding="utf-8")
        css = re.sub(r"</(style)", r"<\\/\1", css, flags=re.IGNORECASE)
        return "<style>\n" + css + "\n</style>"

    def inline_script(match):
        src = match.group(1)
        code = (site / src).read_text(encoding="utf-8")
        before = ""
        if src == "static/start.js":
            # start.js creates the worker: the shim before it makes that a data: URL worker
            _one(_FILE_CHECK, code, "static/start.js: the file:// check")
            code = code.replace(_FILE_CHECK, "false /* one-file build: made for file:// */")
            before = f"<script>\n{_script_text(shim)}</script>\n"
        return before + "<script>\n" + _script_text(code) + "\n</script>"

    styles = re.findall(r'<link rel="stylesheet" href="([^":]+)">', page)
    page = re.sub(r'<link rel="stylesheet" href="([^":]+)">', inline_style, page)
    # the scripts come inline: nothing to ask for ahead (build.preload_tags)
    page = re.sub(r'\n\s*<link rel="(?:preload|modulepreload)"[^>]*>', "", page)
    if ENTRY_TAG in page or not (site / PAGE_MODULE).is_file():
        raise SingleFileError(NO_BUNDLE.format(reason=f"the site at {site} has no {PAGE_MODULE}"))
    entry = PAGE_MODULE  # the page's modules, bundled
    _one(PAGE_TAG, page, f"index.html: the page's module script ({entry})")
    page = page.replace(PAGE_TAG, "")  # the bundle goes to the end of the body (below)
    scripts = re.findall(r'<script src="([^":]+)"></script>', page)
    if "static/start.js" not in scripts:
        raise SingleFileError(
            'index.html: no <script src="static/start.js"> (it creates the worker); '
            "the static site changed and web/site/single_file.py must follow"
        )
    leftover = sorted(set(referenced) - set(styles) - set(scripts) - {entry})
    if leftover:
        raise SingleFileError(
            f"index.html refers to files the one-file build does not inline: {', '.join(leftover)}"
        )
    if not styles:
        raise SingleFileError("index.html: expected a style sheet; the static site changed")
    worker = worker_source(site)
    worker_url = "data:text/javascript;base64," + base64.b64encode(worker.encode("utf-8")).decode(
        "ascii"
    )
    shim = _js(PAGE_SHIM, WORKER_URL=worker_url, FILE_TYPE=FILE_SCRIPT_TYPE, FILES_KEY=FILES_KEY)
    page = re.sub(r'<script src="([^":]+)"></script>', inline_script, page)
    modules = (site / PAGE_MODULE).read_text(encoding="utf-8")
    elements, manifest = [], []
    for path in EMBEDDED + ((SNAPSHOT,) if (site / SNAPSHOT).is_file() else ()):
        element, info = _embedded_file(site, path)
        elements.append(element)
        manifest.append(info)
    tail = (
        "\n".join(elements) + '\n<script type="module">\n' + _script_text(modules) + "\n</script>\n"
    )
    head, sep, rest = page.rpartition("</body>")
    if not sep:
        raise SingleFileError("index.html: no </body>")
    page = head + tail + sep + rest
    return page, manifest


def build_single_file(path, log=None, snapshot=True) -> Path:
    """Write the one-file page to ``path`` (a new static site is built on the way)."""
    from integrator_lab.site.build import build_site

    dest = Path(path)
    try:  # before the build (minutes): without the bundles there is no one-file page
        page_bundle(Path(str(static_dir().joinpath("js"))))
        worker_bundle(Path(str(static_dir())))
    except BundleUnavailable as exc:
        raise SingleFileError(NO_BUNDLE.format(reason=f"there is none here ({exc})")) from exc
    with tempfile.TemporaryDirectory(prefix="integrator-lab-site-") as tmp:
        site = build_site(
            Path(tmp) / "site", snapshot=snapshot, hashed=False, bake=False, lzma=False, log=log
        )
        page, _ = fold_site(site)
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(page, encoding="utf-8")
    return dest
