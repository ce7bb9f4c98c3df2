"""What the built site asks of the host that serves it, stated once for the build and for
``integrator-lab preview``, and the preview server itself.

The page needs its files' right types (:data:`MIME_TYPES`: a module worker is refused
without a JavaScript type), its :data:`CONTENT_SECURITY_POLICY` as a header (a worker has no
<meta>; the build puts the policy in the page too: :data:`integrator_lab.site.build.CSP_META`)
and, at best, compression of the files that gain by it (:data:`COMPRESSIBLE`, with
:func:`download_sizes` what such a host sends: the page's progress bar counts it). The
preview server (:func:`make_server`, :func:`serve`: :class:`SiteHandler`) serves a built
folder so, never cached, on 127.0.0.1. :mod:`integrator_lab.site.build` re-exports these
names, where they were defined before.

The page must be served over HTTP (browsers refuse module workers and WebAssembly streaming
from ``file://``).
"""

from __future__ import annotations

import functools
import gzip
import http.server
import io
import sys
import threading
from pathlib import Path

#: the site's folder when none is named: where ``integrator-lab build`` writes, what
#: ``integrator-lab preview`` serves
DEFAULT_OUT = "_site"
DEFAULT_PORT = 8000
#: The page's Content-Security-Policy. A visitor's own method runs in the page's worker with
#: the browser's APIs at hand (Pyodide's ``js`` module): the policy keeps its requests
#: (fetch, XMLHttpRequest, WebSocket, EventSource, a cross-origin ``import()``) on this site,
#: and everything else to what the page needs: BokehJS builds functions at run time
#: ('unsafe-eval') and styles its views inline ('unsafe-inline' for styles), Pyodide compiles
#: WebAssembly, Bokeh's icons are data: images and the PNG export a blob:. In the page as a
#: <meta> (:data:`integrator_lab.site.build.CSP_META`); a <meta> does not cover a worker,
#: which has its response's policy: hosts send it as a header too (``integrator-lab preview``
#: does; README, Deploy).
CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self' 'unsafe-eval' 'wasm-unsafe-eval'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob:",
        "font-src 'self' data:",
        "connect-src 'self'",
        "worker-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'none'",
    )
)
#: types the page needs right; module workers are refused without a JavaScript type
MIME_TYPES = {
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".wasm": "application/wasm",
    ".json": "application/json",
    ".zip": "application/zip",
    ".css": "text/css",
    ".html": "text/html; charset=utf-8",
    ".png": "image/png",
    ".svg": "image/svg+xml",
}
#: files a host gains by compressing (the others are compressed already: the snapshot, the
#: core's zip, the icon)
COMPRESSIBLE = (".html", ".js", ".mjs", ".css", ".json", ".wasm")


def download_sizes(data: bytes, name: str) -> list[int]:
    """``[bytes, bytes sent by a host that compresses]`` of a file (gzip, as :class:`SiteHandler`
    does)."""
    if Path(name).suffix not in COMPRESSIBLE:
        return [len(data), len(data)]
    return [len(data), len(gzip.compress(data, compresslevel=6, mtime=0))]


# -- the preview server ---------------------------------------------------------------------
_gzipped: dict[tuple[str, int, int], bytes] = {}


def _gzip_once(path: Path) -> bytes:
    """``path`` gzip-compressed, kept for as long as the file does not change."""
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    if key not in _gzipped:
        _gzipped[key] = gzip.compress(path.read_bytes(), compresslevel=6, mtime=0)
    return _gzipped[key]


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    """Static files with the right types, never cached (a rebuilt site shows at once), with
    the page's :data:`CONTENT_SECURITY_POLICY`, and compressed when the browser accepts it and
    it helps (as a good static host does: the page's scripts and Pyodide's WebAssembly are a
    third of their size gzipped)."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **MIME_TYPES}
    #: the header every file gets (None: none, for a folder that is not the site, e.g. the
    #: documentation, whose pages run inline scripts)
    policy: str | None = CONTENT_SECURITY_POLICY

    def send_head(self):
        path = Path(self.translate_path(self.path))
        if path.is_dir() and self.path.split("?")[0].endswith("/"):
            path = path / "index.html"
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (accepts and path.suffix in COMPRESSIBLE and path.is_file()):
            return super().send_head()
        body = _gzip_once(path)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)

    def end_headers(self):
        self.send_header("Cache-Control", "no-cache")
        # the page has it as a <meta> too; its worker (worker.mjs) has only this one
        if self.policy:
            self.send_header("Content-Security-Policy", self.policy)
        super().end_headers()

    def log_message(self, format, *args):  # quiet: the URL is what matters
        pass


class SiteServer(http.server.ThreadingHTTPServer):
    """The preview's threaded server, quiet about visitors who leave: a tab closed or reloaded
    while a file still downloads resets its connection, which is no error of the server's
    (every other error of a request is printed, as the standard library does)."""

    def handle_error(self, request, client_address):
        if isinstance(sys.exc_info()[1], ConnectionError):  # reset, broken pipe, aborted
            return
        super().handle_error(request, client_address)


def make_server(
    out_dir, port=0, address="127.0.0.1", policy: str | None = CONTENT_SECURITY_POLICY
) -> http.server.ThreadingHTTPServer:
    """A threaded HTTP server for ``out_dir`` (port 0: any free port); not yet serving.
    ``policy``: the Content-Security-Policy header of every file (None for a folder that is
    not the site, such as the built documentation)."""
    handler_class = type("Handler", (SiteHandler,), {"policy": policy})
    handler = functools.partial(handler_class, directory=str(Path(out_dir).resolve()))
    server = SiteServer((address, port), handler)
    warm_gzip(out_dir)
    return server


#: files this large are compressed ahead, as a static host stores them compressed: the wasm
#: took seconds on a busy machine, and the page measures its link on its first bytes
WARM_BYTES = 1_000_000


def warm_gzip(out_dir) -> None:
    """Compress the site's large compressible files in the background (see WARM_BYTES)."""
    files = [
        path
        for path in Path(out_dir).rglob("*")
        if path.suffix in COMPRESSIBLE and path.is_file() and path.stat().st_size > WARM_BYTES
    ]

    def warm() -> None:
        for path in files:
            try:
                _gzip_once(path)
            except OSError:
                pass  # gone (a rebuild): compressed when asked, if ever

    threading.Thread(target=warm, daemon=True).start()


def serve(out_dir=DEFAULT_OUT, port=DEFAULT_PORT, address="127.0.0.1") -> None:
    """Serve ``out_dir`` until interrupted, after printing its URL."""
    with make_server(out_dir, port, address) as server:
        host, real_port = server.server_address[:2]
        print(f"Integrator Lab: http://{host}:{real_port}/  (Ctrl-C stops)", flush=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
