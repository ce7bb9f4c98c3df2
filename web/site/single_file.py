"""The one-file build: the whole static page in a single HTML file that opens from disk.

``integrator-lab build --single-file lab.html`` builds the static site (:mod:`.site`) and folds
it into one document that works offline from ``file://`` in a stock browser:

- BokehJS, the style sheet and the page's script are inlined;
- Pyodide (its JavaScript, WebAssembly binary, standard library and lock file) and the core's
  zip travel inside the page as base64 text, gzip-compressed where that pays;
- browsers refuse module workers from ``file://`` URLs but accept one created from a ``data:``
  URL, so the page's ``new Worker(...)`` is redirected to a ``data:`` worker made of the site's
  own ``worker.mjs`` behind a small prelude. The page posts the embedded files to it first;
  the prelude imports Pyodide's JavaScript from Blob URLs made inside the worker, hands
  ``loadPyodide`` the lock file's contents and the already imported module factory, and
  answers the ``fetch`` calls of Pyodide and of the worker by file name, from memory. Nothing
  is requested from anywhere.

The site's files are adapted by a few exact substitutions; when one of them no longer matches
(the site changed), the build stops with :class:`SingleFileError` instead of writing a page
that would not run.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import json
import re
import sys
import tempfile
import time
from pathlib import Path

#: files of the built site that travel inside the page, by path in the site; the worker sees
#: them by file name (``pyodide/pyodide.asm.wasm`` -> ``pyodide.asm.wasm``)
EMBEDDED = (
    "pyodide/pyodide.mjs",
    "pyodide/pyodide.asm.mjs",
    "pyodide/pyodide.asm.wasm",
    "pyodide/python_stdlib.zip",
    "pyodide/pyodide-lock.json",
    "py/integrator_lab.zip",
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


# -- JavaScript run in the worker before and after the site's worker.mjs --------------------
WORKER_PRELUDE = r"""// Integrator Lab, one-file build: prelude of the data: URL worker.
const __ilQueued = []; // page messages that arrive before worker.mjs listens
let __ilResolveFiles;
const __ilFilesReady = new Promise((resolve) => { __ilResolveFiles = resolve; });
function __ilCapture(event) {
  const data = event.data;
  if (data && data.__FILES_KEY__) __ilResolveFiles(data.__FILES_KEY__);
  else __ilQueued.push(data);
}
self.addEventListener("message", __ilCapture);

function __ilDecode(text) {
  if (Uint8Array.fromBase64) return Uint8Array.fromBase64(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
const __ilFiles = new Map(); // file name -> {bytes, gzip}
for (const file of await __ilFilesReady) {
  __ilFiles.set(file.name, { bytes: __ilDecode(file.base64), gzip: file.gzip });
}
const __ilTypes = { wasm: "application/wasm", mjs: "text/javascript", js: "text/javascript",
                    json: "application/json", zip: "application/zip" };
function __ilBody(name) {
  const file = __ilFiles.get(name);
  const blob = new Blob([file.bytes]);
  return file.gzip ? blob.stream().pipeThrough(new DecompressionStream("gzip")) : blob;
}
function __ilResponse(name) {
  const type = __ilTypes[name.split(".").pop()] || "application/octet-stream";
  return new Response(__ilBody(name), { status: 200, headers: { "Content-Type": type } });
}
function __ilName(resource) {
  const url = typeof resource === "string" ? resource : resource instanceof URL ? resource.href
    : resource.url;
  return url.split(/[?#]/)[0].split("/").pop();
}
// every fetch of this worker is answered from memory: nothing leaves the page
self.fetch = async (resource) => {
  const name = __ilName(resource);
  if (!__ilFiles.has(name)) throw new TypeError(`one-file build: no embedded file ${name}`);
  return __ilResponse(name);
};
async function __ilModuleURL(name) {
  const text = await __ilResponse(name).text();
  return URL.createObjectURL(new Blob([text], { type: "text/javascript" }));
}
const __ilPyodide = await import(await __ilModuleURL("pyodide.mjs"));
const __ilAsm = await import(await __ilModuleURL("pyodide.asm.mjs"));
const __ilLock = await __ilResponse("pyodide-lock.json").text();
function __ilLoadPyodide(options) {
  return __ilPyodide.loadPyodide(Object.assign({}, options, {
    createPyodideModule: __ilAsm.default,
    lockFileContents: __ilLock,
    packageBaseUrl: new URL("../pyodide/", "__WORKER_BASE__").href,
  }));
}
// ---- the site's worker.mjs follows ----
""".replace("__FILES_KEY__", FILES_KEY).replace("__WORKER_BASE__", WORKER_BASE)

WORKER_EPILOGUE = r"""
// ---- end of worker.mjs: hand it what arrived while the prelude was loading ----
self.removeEventListener("message", __ilCapture);
for (const data of __ilQueued.splice(0)) self.dispatchEvent(new MessageEvent("message", { data }));
"""

# -- JavaScript run on the page before the site's bridge.js ---------------------------------
PAGE_SHIM = r"""// Integrator Lab, one-file build: the page's worker comes from a data: URL.
(function () {
  "use strict";
  const WORKER_URL = "__WORKER_URL__";
  const files = Array.from(document.querySelectorAll('script[type="__FILE_TYPE__"]'),
    (el) => ({ name: el.dataset.name, gzip: el.dataset.gzip === "1", base64: el.textContent }));
  const NativeWorker = window.Worker;
  window.Worker = function IntegratorLabWorker() {
    const worker = new NativeWorker(WORKER_URL, { type: "module" });
    worker.postMessage({ __FILES_KEY__: files });
    return worker;
  };
})();
"""

#: worker.mjs's dynamic import of Pyodide, answered by the prelude's loadPyodide
_PYODIDE_IMPORT = "await import(new URL(files.module, siteURL).href)"
_PYODIDE_PRELUDE = "{ loadPyodide: __ilLoadPyodide, version: __ilPyodide.version }"
#: bridge.js refuses to start from file://; the one file is made for exactly that
_FILE_CHECK = 'location.protocol === "file:"'


def _one(pattern, text, what):
    matches = (
        list(pattern.finditer(text))
        if isinstance(pattern, re.Pattern)
        else [m for m in re.finditer(re.escape(pattern), text)]
    )
    if len(matches) != 1:
        raise SingleFileError(
            f"{what}: expected exactly one match, found {len(matches)}; "
            "the static site changed and web/single_file.py must follow"
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
            "changed and web/single_file.py must follow"
        )
    source = source.replace("import.meta.url", json.dumps(WORKER_BASE))
    if re.search(r"^\s*import\s", source, re.MULTILINE):
        raise SingleFileError(
            "worker.mjs imports other modules; the one-file build cannot resolve them"
        )
    return WORKER_PRELUDE + source + WORKER_EPILOGUE


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
    # the icon travels inside the page too (a browser would otherwise ask the disk for it)
    icon = "data:image/png;base64," + base64.b64encode((site / ICON).read_bytes()).decode("ascii")
    _one(ICON_LINK, page, "index.html: the icon")
    page = ICON_LINK.sub(lambda _: f'<link rel="icon" href="{icon}">', page)
    outside_scripts = re.sub(r"<script\b[^>]*>.*?</script>", "", page, flags=re.DOTALL)
    referenced = re.findall(r'\b(?:src|href)="([^"]*)"', outside_scripts)
    referenced += re.findall(r'<script\b[^>]*\bsrc="([^"]*)"', page)
    referenced = [ref for ref in referenced if not ref.startswith("data:")]

    def inline_style(match):
        css = (site / match.group(1)).read_text(encoding="utf-8")
        css = re.sub(r"</(style)", r"<\\/\1", css, flags=re.IGNORECASE)
        return "<style>\n" + css + "\n</style>"

    def inline_script(match):
        src, attrs = match.group(1), match.group(2)
        if "defer" in attrs:
            return ""  # deferred: moved to the end of the body (below)
        return "<script>\n" + _script_text((site / src).read_text(encoding="utf-8")) + "\n</script>"

    styles = re.findall(r'<link rel="stylesheet" href="([^":]+)">', page)
    page = re.sub(r'<link rel="stylesheet" href="([^":]+)">', inline_style, page)
    deferred = re.findall(r'<script src="([^":]+)"[^>]*\bdefer\b[^>]*></script>', page)
    scripts = re.findall(r'<script src="([^":]+)"[^>]*></script>', page)
    page = re.sub(r'<script src="([^":]+)"([^>]*)></script>', inline_script, page)
    leftover = sorted(set(referenced) - set(styles) - set(scripts))
    if leftover:
        raise SingleFileError(
            f"index.html refers to files the one-file build does not inline: {', '.join(leftover)}"
        )
    if not styles or len(scripts) < 2 or len(deferred) != 1:
        raise SingleFileError(
            "index.html: expected a style sheet, script elements and one "
            "deferred script (bridge.js); the static site changed"
        )
    bridge = (site / deferred[0]).read_text(encoding="utf-8")
    _one(_FILE_CHECK, bridge, "bridge.js: the file:// check")
    bridge = bridge.replace(_FILE_CHECK, "false /* one-file build: made for file:// */")
    worker = worker_source(site)
    worker_url = "data:text/javascript;base64," + base64.b64encode(worker.encode("utf-8")).decode(
        "ascii"
    )
    shim = (
        PAGE_SHIM.replace("__WORKER_URL__", worker_url)
        .replace("__FILE_TYPE__", FILE_SCRIPT_TYPE)
        .replace("__FILES_KEY__", FILES_KEY)
    )
    elements, manifest = [], []
    for path in EMBEDDED:
        element, info = _embedded_file(site, path)
        elements.append(element)
        manifest.append(info)
    tail = (
        "\n".join(elements)
        + "\n<script>\n"
        + _script_text(shim)
        + "</script>\n<script>\n"
        + _script_text(bridge)
        + "\n</script>\n"
    )
    head, sep, rest = page.rpartition("</body>")
    if not sep:
        raise SingleFileError("index.html: no </body>")
    page = head + tail + sep + rest
    return page, manifest


def build_single_file(path, log=None) -> Path:
    """Write the one-file page to ``path`` (a new static site is built on the way)."""
    from integrator_lab.site.build import build_site

    dest = Path(path)
    with tempfile.TemporaryDirectory(prefix="integrator-lab-site-") as tmp:
        # no snapshot inside the one file yet (it would add 8.4 MB of base64): a plain boot
        site = build_site(Path(tmp) / "site", snapshot=False, hashed=False, log=log)
        page, _ = fold_site(site)
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(page, encoding="utf-8")
    return dest


# -- command line ------------------------------------------------------------------------
def add_single_file_option(build_parser: argparse.ArgumentParser) -> None:
    """Give ``integrator-lab build`` the option ``--single-file PATH.html``."""
    build_parser.add_argument(
        "--single-file",
        metavar="PATH.html",
        help="write one self-contained HTML file that opens from disk "
        "(file://), offline, instead of a site folder",
    )
    site_build = build_parser.get_default("func")

    def build(args):
        if getattr(args, "single_file", None):
            return cmd_single_file(args)
        return site_build(args)

    build_parser.set_defaults(func=build)


def cmd_single_file(args) -> int:
    from integrator_lab.dev.pyodide_node import PyodideNotFound

    started = time.perf_counter()
    try:
        out = build_single_file(args.single_file, log=lambda line: print(f"Integrator Lab: {line}"))
    except PyodideNotFound as exc:
        print(f"integrator-lab: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(
            f"integrator-lab: error: argument --single-file: cannot write "
            f"{args.single_file!r}: {exc.strerror}",
            file=sys.stderr,
        )
        return 2
    size = out.stat().st_size
    print(
        f"Integrator Lab: one-file page written to {out} ({size / 1e6:.1f} MB in "
        f"{time.perf_counter() - started:.1f} s); open it directly, no server needed"
    )
    return 0
