"""The static site's builder and the worker's Python loop, without a browser."""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import io
import json
import lzma
import re
import zipfile
from pathlib import Path

import pytest

from integrator_lab.core import DEFAULT_INTEGRATORS, INTEGRATORS
from integrator_lab.site.build import GZIPPED, LZMA_FILES, PYODIDE_FILES, STDLIB_GZ
from integrator_lab.site.stdlib import FULL_STDLIB
from integrator_lab.views.figures import Controls

ROOT = Path(__file__).resolve().parents[2]
#: a static import or export statement in a script (a dynamic ``import(...)`` and
#: ``import.meta`` are no statements)
MODULE_STATEMENT = re.compile(
    r"(?:^|[;{}()\s])(?:import|export)\b(?!\s*\()(?!\.meta)", re.MULTILINE
)


@pytest.fixture(scope="module")
def built(built_site):
    """The site the browser tests load too, built once (tests/builds.py)."""
    return built_site


def _page_data(site):
    page = (site / "index.html").read_text(encoding="utf-8")
    match = re.search(
        r'<script type="application/json" id="il-data">(.*?)</script>', page, re.DOTALL
    )
    return page, json.loads(match.group(1))


def _boot_config(site):
    page = (site / "index.html").read_text(encoding="utf-8")
    match = re.search(
        r'<script type="application/json" id="il-boot-config">(.*?)</script>', page, re.DOTALL
    )
    return json.loads(match.group(1))


def _sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_site_holds_every_file_it_needs_and_nothing_from_elsewhere(built):
    boot = _boot_config(built)
    for path in (
        "index.html",
        "favicon.ico",
        "static/start.js",
        "static/js/main.js",
        "static/worker.mjs",
        "static/style.css",
        "static/editor.css",
        "static/vendor/editor.js",
        boot["snapshot"]["url"],
        boot["archive"],
        *(boot["pyodide"] + name for name in PYODIDE_FILES),
    ):
        assert (built / path).is_file(), path
    page, data = _page_data(built)
    # the page and its own scripts name no other origin and no machine path
    for text in (
        page,
        (built / "static/start.js").read_text(),
        *(path.read_text() for path in sorted((built / "static/js").glob("*.js"))),
        (built / "static/page.js").read_text(),
        (built / "static/worker.mjs").read_text(),
        (built / "static/vendor/editor.js").read_text(),
    ):
        assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)
        assert "cdn" not in text.lower()
        assert str(ROOT) not in text and str(Path.home()) not in text
    # Python's worker starts first, then BokehJS loads and the page draws (its modules bundled
    # in one file); the method editor's bundle is not loaded with the page but named for later
    scripts = re.findall(r'<script (?:type="module" )?src="([^"]+)"', page)
    assert [re.sub(r"\.[0-9a-f]{12}\.", ".", src) for src in scripts] == [
        "static/start.js",
        "bokeh/bokeh.min.js",
        "bokeh/bokeh-widgets.min.js",
        "static/page.js",
    ]
    assert re.search(r'id="il-editor-bundle" data-url="static/vendor/editor.js"', page)
    # every module of the page is in the site, as it is in the package
    modules = sorted(p.name for p in (ROOT / "static/js").glob("*.js"))
    assert sorted(p.name for p in (built / "static/js").glob("*.js")) == modules
    # and the page's script is one module with no import or export left (a dynamic import()
    # would be fine): what esbuild makes of the site's static/js/main.js (test_page_bundle_...)
    assert not MODULE_STATEMENT.search((built / "static/page.js").read_text())
    # the page names its icon: a browser would otherwise ask the host's root for /favicon.ico
    assert '<link rel="icon" href="favicon.ico">' in page
    # every URL is relative: the folder works from any path of any host
    assert not re.search(r"""\b(src|href)\s*=\s*["']?/""", page)

    assert set(data["items"]["panels"]) == {"pendulum", "cradle", "spring"}
    for item in data["items"]["panels"].values():  # each part is drawn into its own element
        assert list(item["roots"]) == ["scene", "plots", "params"]
        assert [root["id"] for root in item["doc"]["roots"]] == list(item["roots"].values())
    # every control is shown, once
    assert sorted(data["items"]["controls"]["roots"]) == sorted(
        f.name for f in dataclasses.fields(Controls)
    )
    assert data["defaults"]["integrators"] == list(DEFAULT_INTEGRATORS)
    assert [i["name"] for i in data["integrators"]] == list(INTEGRATORS)


def _no_esbuild(*args):
    from integrator_lab.site.esbuild import BundleUnavailable

    raise BundleUnavailable("no esbuild in this test")


def test_the_page_script_is_esbuilds_bundle_of_every_module(built, tmp_path):
    """static/page.js is what esbuild makes of the site's static/js/main.js with the build's
    flags: every module of static/js is in it, nothing is imported or exported (the browser
    tests run it: window.integratorLab and all that the page does)."""
    from integrator_lab.site.esbuild import BundleUnavailable, find_node_modules, run_esbuild
    from integrator_lab.site.page_bundle import ENTRY, FLAGS

    try:
        node_modules = find_node_modules(("esbuild",))
    except BundleUnavailable as exc:
        pytest.skip(str(exc))
    meta = tmp_path / "meta.json"
    flags = (*FLAGS, f"--metafile={meta}")
    out = run_esbuild(built / "static/js" / ENTRY, tmp_path / "page.js", flags, node_modules)
    assert out.read_bytes() == (built / "static/page.js").read_bytes()
    metafile = json.loads(meta.read_text())
    modules = sorted(p.name for p in (built / "static/js").glob("*.js"))
    assert sorted(Path(name).name for name in metafile["inputs"]) == modules
    [output] = metafile["outputs"].values()
    assert output["imports"] == [] and output["exports"] == []


def test_the_worker_is_esbuilds_bundle_of_its_modules(built, tmp_path):
    """static/worker.mjs is what esbuild makes of static/worker.mjs and the worker-*.mjs it
    imports, with the build's flags: every one of them is in it, and it imports nothing but
    Pyodide, dynamically, from a URL of the boot's (the browser tests boot it)."""
    from integrator_lab.site.esbuild import BundleUnavailable, find_node_modules, run_esbuild
    from integrator_lab.site.page_bundle import WORKER

    try:
        node_modules = find_node_modules(("esbuild",))
    except BundleUnavailable as exc:
        pytest.skip(str(exc))
    meta = tmp_path / "meta.json"
    flags = (*WORKER.flags, f"--metafile={meta}")
    out = run_esbuild(ROOT / "static" / WORKER.entry, tmp_path / "worker.mjs", flags, node_modules)
    assert out.read_bytes() == (built / WORKER.site_path).read_bytes()
    metafile = json.loads(meta.read_text())
    modules = sorted(p.name for p in (ROOT / "static").glob(WORKER.pattern))
    assert len(modules) > 1
    assert sorted(Path(name).name for name in metafile["inputs"]) == modules
    [output] = metafile["outputs"].values()
    assert output["imports"] == [] and output["exports"] == []
    # (its import of Pyodide, whose URL the boot config gives, is left to the browser)
    assert "await import(new URL(files.module, siteURL).href)" in out.read_text()


def test_a_wheels_page_bundle_serves_only_the_sources_it_was_made_from(tmp_path, monkeypatch):
    from integrator_lab.site import page_bundle
    from integrator_lab.site.esbuild import BundleUnavailable

    folder = tmp_path / "js"
    folder.mkdir()
    (folder / "main.js").write_text('import { a } from "./a.js";\nconsole.log(a);\n')
    (folder / "a.js").write_text("export const a = 1;\n")
    packaged = tmp_path / "bundle" / "page" / "page.js"
    packaged.parent.mkdir(parents=True)
    packaged.write_text("console.log(1);\n")
    monkeypatch.setattr(page_bundle, "BUNDLES", tmp_path / "bundle")
    monkeypatch.setattr(page_bundle, "find_node_modules", _no_esbuild)
    packaged.with_name("sources").write_text(page_bundle.sources_digest(folder) + "\n")
    assert page_bundle.page_bundle(folder) == packaged
    # an editable checkout changed a module: the wheel's bundle is not of these sources
    (folder / "a.js").write_text("export const a = 2;\n")
    with pytest.raises(BundleUnavailable, match="no esbuild in this test"):
        page_bundle.page_bundle(folder)


def test_the_page_modules_may_use_any_module_syntax(tmp_path, monkeypatch):
    """esbuild, not a regular expression, makes the page's script: renaming with ``as``, the
    same top-level name in two modules, default and namespace imports all bundle and run."""
    import shutil
    import subprocess

    from integrator_lab.site.esbuild import BundleUnavailable
    from integrator_lab.site.page_bundle import package_page_bundle, sources_digest

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = tmp_path / "js"
    folder.mkdir()
    (folder / "main.js").write_text(
        'import twice, { name as aName } from "./a.js";\n'
        'import * as b from "./b.js";\n'
        'const name = "main";\n'
        "console.log(JSON.stringify([name, aName, b.name, twice(21)]));\n"
    )
    (folder / "a.js").write_text(
        'const name = "a";\nexport { name };\nexport default function (x) { return 2 * x; }\n'
    )
    (folder / "b.js").write_text('export const name = "b";\n')
    try:
        bundle = package_page_bundle(folder, tmp_path / "bundle")
    except BundleUnavailable as exc:
        pytest.skip(str(exc))
    assert bundle == tmp_path / "bundle" / "page" / "page.js"
    assert (tmp_path / "bundle/page/sources").read_text().strip() == sources_digest(folder)
    assert not MODULE_STATEMENT.search(bundle.read_text())
    script = shutil.copyfile(bundle, tmp_path / "page.mjs")
    ran = subprocess.run(["node", script], capture_output=True, text=True, timeout=60)
    assert json.loads(ran.stdout) == ["main", "a", "b", 42], ran.stderr


@pytest.mark.slow
def test_without_esbuild_the_page_loads_its_modules_and_no_one_file_is_made(
    tmp_path, monkeypatch, capsys
):
    """No esbuild and no wheel's bundle of these sources: the site's page loads
    static/js/main.js (the browser resolves its imports) and says so; the one-file build,
    which cannot, stops with a message that says what is missing."""
    from integrator_lab.site import build, single_file

    monkeypatch.setattr(build, "page_bundle", _no_esbuild)
    monkeypatch.setattr(build, "worker_bundle", _no_esbuild)
    site = build.build_site(tmp_path / "site", snapshot=False, hashed=False, bake=False, trim=False)
    said = capsys.readouterr().err
    assert "no bundle of the page's modules" in said
    assert "no bundle of the worker's modules" in said
    page = (site / "index.html").read_text(encoding="utf-8")
    assert build.ENTRY_TAG in page and build.PAGE_TAG not in page
    assert not (site / build.PAGE_MODULE).exists()
    assert (site / "static/js/main.js").is_file()
    # the worker imports its modules, beside it as in the package
    worker_modules = sorted(p.name for p in (ROOT / "static").glob("worker*.mjs"))
    assert sorted(p.name for p in (site / "static").glob("worker*.mjs")) == worker_modules
    for name in worker_modules:
        assert (site / "static" / name).read_bytes() == (ROOT / "static" / name).read_bytes()
    with pytest.raises(single_file.SingleFileError, match=r"static/page\.js.*`npm ci`"):
        single_file.fold_site(site)
    # the command stops before it builds anything
    monkeypatch.setattr(single_file, "page_bundle", _no_esbuild)
    with pytest.raises(single_file.SingleFileError, match="no esbuild in this test"):
        single_file.build_single_file(tmp_path / "lab.html")
    assert not (tmp_path / "lab.html").exists()


def test_large_files_are_named_by_their_content_and_the_page_names_them(built):
    """A host may cache bokeh/, pyodide/ and py/ for ever: a file there changes only with its
    name (the first 12 hex digits of its SHA-256), and index.html says which to load."""
    boot = _boot_config(built)
    page = (built / "index.html").read_text(encoding="utf-8")
    named = [built / boot["archive"], built / boot["snapshot"]["url"], built / boot["baked"]["url"]]
    named += sorted((built / "bokeh").iterdir())
    assert {p.name.split(".")[0] for p in named} == {
        "integrator_lab",
        "snapshot",
        "baked",
        "bokeh",
        "bokeh-widgets",
    }
    for path in named:
        assert path.name.split(".")[1] == _sha256(path)[:12], path
    for path in (built / "bokeh").iterdir():
        assert f'src="bokeh/{path.name}"' in page
    # Pyodide's files keep their names (Pyodide asks for them by name), in a folder named by
    # the digest of its files' names and digests
    # (python_stdlib.zip is the trimmed standard library, the whole one beside it: stdlib.py)
    [folder] = (built / "pyodide").iterdir()
    shipped = (*PYODIDE_FILES, FULL_STDLIB, *GZIPPED.values(), *LZMA_FILES.values())
    listing = "".join(f"{name} {_sha256(folder / name)}\n" for name in shipped).encode()
    assert folder.name == hashlib.sha256(listing).hexdigest()[:12]
    assert boot["pyodide"] == f"pyodide/{folder.name}/"
    assert sorted(p.name for p in folder.iterdir()) == sorted(shipped)
    # nothing else: no stale plain-named copy beside them
    assert sorted(p.name for p in (built / "py").iterdir()) == sorted(p.name for p in named[:3])


def test_the_worker_the_page_starts_is_named_by_its_content(built):
    """The service worker answers a file it kept from its cache, without asking the host: the
    page starts its worker from a copy named by the worker's content, so that a new build's
    worker is a new URL, which the next visit downloads (issue 45)."""
    boot = _boot_config(built)
    worker = built / boot["worker"]
    assert worker.read_bytes() == (built / "static/worker.mjs").read_bytes()
    assert worker.name == f"worker.{_sha256(worker)[:12]}.mjs"
    assert worker.parent == built / "static"  # (it finds the site's files at "../")


SMALL_SITE = {
    "index.html": b"<!doctype html>",
    "favicon.ico": b"icon",
    "static/worker.mjs": b"// a worker",
    "static/vendor/editor.js": b"// an editor",
    "py/core.0123456789ab.zip.gz": b"core",
}


def _service_worker_of(folder, files):
    from integrator_lab.site.build import SERVICE_WORKER, write_service_worker

    for name, data in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    write_service_worker(folder, [])
    return (folder / SERVICE_WORKER).read_bytes()


@pytest.mark.parametrize("changed", ["favicon.ico", "static/worker.mjs", "static/vendor/editor.js"])
def test_a_build_that_changes_one_file_without_a_hash_writes_another_service_worker(
    tmp_path, changed
):
    """The browser installs a new service worker only if its script's bytes differ, and the
    one installed answers from its cache the files it kept (a file without a hash in its name
    too): the service worker a build writes differs when any file of the build does, and is
    the same for the same files (a rebuild installs nothing)."""
    before = _service_worker_of(tmp_path / "before", SMALL_SITE)
    assert _service_worker_of(tmp_path / "again", SMALL_SITE) == before
    after = _service_worker_of(tmp_path / "after", {**SMALL_SITE, changed: b"// changed"})
    assert after != before


def test_the_head_asks_for_every_script_at_once(built):
    """The page's scripts (start.js, BokehJS, its widgets, the page's module) are asked for
    from the top of its head, before its style sheets: the browser otherwise asked for each
    only once the one before had come, and the worker's downloads shared a slow link with the
    later ones (measured: docs/developing.rst)."""
    page = (built / "index.html").read_text(encoding="utf-8")
    head = page[: page.index("</head>")]
    classic = re.findall(r'<script src="([^"]+)"></script>', head)
    modules = re.findall(r'<script type="module" src="([^"]+)"></script>', head)
    assert len(classic) == 3 and len(modules) == 1
    assert re.findall(r'<link rel="preload" as="script" href="([^"]+)">', head) == classic
    assert re.findall(r'<link rel="modulepreload" href="([^"]+)">', head) == modules
    assert head.index('rel="preload"') < head.index('rel="stylesheet"')
    assert all((built / src).is_file() for src in classic + modules)


def test_the_worker_downloads_the_standard_library_gzipped_and_no_package_list(built):
    """What a cold visit downloads of Python, as few bytes as the page needs: the standard
    library (trimmed) with its members stored, gzipped whole (a host sends a .zip as it is:
    fewer bytes than a zip deflated member by member), inflating to the very zip Pyodide
    and the snapshot were made with; the wasm gzipped too (at gzip's best level); Pyodide's
    package list without packages (the page loads none and ships none), given with the boot
    config."""
    boot = _boot_config(built)
    folder = built / boot["pyodide"]
    stdlib = (folder / "python_stdlib.zip").read_bytes()
    packed = (folder / STDLIB_GZ).read_bytes()
    assert (
        boot["gzipped"]
        == GZIPPED
        == {
            "python_stdlib.zip": STDLIB_GZ,
            "pyodide.asm.wasm": "pyodide.asm.wasm.gz",
        }
    )
    for name, gzipped in GZIPPED.items():  # each the very file, gzipped
        assert gzip.decompress((folder / gzipped).read_bytes()) == (folder / name).read_bytes()
    with zipfile.ZipFile(io.BytesIO(stdlib)) as zipped:
        assert {info.compress_type for info in zipped.infolist()} == {zipfile.ZIP_STORED}
        assert "fractions.pyc" in zipped.namelist()  # (USER_MODULES: a method may import it)
    assert len(packed) < _deflated_size(stdlib)
    # and both as .lzma, for a slow link: each the very file, packed by LZMA (the format of
    # `xz --format=lzma`), a quarter fewer bytes than gzip at its best
    assert (
        boot["lzma"]
        == LZMA_FILES
        == {
            "python_stdlib.zip": "python_stdlib.zip.lzma",
            "pyodide.asm.wasm": "pyodide.asm.wasm.lzma",
        }
    )
    for name, packed_name in LZMA_FILES.items():
        lzma_file = (folder / packed_name).read_bytes()
        assert lzma.decompress(lzma_file, format=lzma.FORMAT_ALONE) == (folder / name).read_bytes()
        assert len(lzma_file) < 0.8 * (folder / GZIPPED[name]).stat().st_size
    lock = json.loads(boot["lock"])
    assert lock == json.loads((folder / "pyodide-lock.json").read_text())
    assert lock["packages"] == {} and lock["info"]["python"].startswith("3.")


def _deflated_size(zipped_bytes):
    """The size of ``zipped_bytes`` as a zip of the same members deflated one by one."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(zipped_bytes)) as source, zipfile.ZipFile(out, "w") as dest:
        for info in source.infolist():
            dest.writestr(info, source.read(info), compress_type=zipfile.ZIP_DEFLATED)
    return len(out.getvalue())


def test_embedded_json_cannot_close_its_script_element():
    from integrator_lab.site.build import _script_json

    text = _script_json({"x": "</script><script>alert(1)</script>", "y": "a & b"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"x": "</script><script>alert(1)</script>", "y": "a & b"}


def test_worker_archive_holds_the_core_and_the_pure_python_view_modules(built):
    # a zip with its members stored, gzipped whole (a host sends a .zip as it is)
    zipped = gzip.decompress((built / _boot_config(built)["archive"]).read_bytes())
    with zipfile.ZipFile(io.BytesIO(zipped)) as archive:
        names = archive.namelist()
        assert {info.compress_type for info in archive.infolist()} == {zipfile.ZIP_STORED}
    assert "integrator_lab/core/runner.py" in names
    assert {
        "integrator_lab/__init__.py",
        "integrator_lab/views/scene.py",
        "integrator_lab/views/live.py",
    } <= set(names)
    # Bokeh, the builder and the CLI stay behind: Pyodide has no Bokeh
    assert not any(n.endswith(("figures.py", "site.py", "cli.py")) for n in names)


def test_preview_compresses_what_gains_and_serves_the_rest_as_it_is(built):
    """``integrator-lab preview`` answers as a compressing static host does: text and
    WebAssembly gzip-encoded for a browser that accepts it, already compressed files (the
    snapshot) and other clients unchanged; the bytes decoded are the file's."""
    import gzip
    import threading
    import urllib.request

    from integrator_lab.site.build import make_server

    server = make_server(built, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = "http://{}:{}/".format(*server.server_address[:2])
    boot = _boot_config(built)

    def get(path, gzip_ok=True):
        headers = {"Accept-Encoding": "gzip, deflate"} if gzip_ok else {}
        with urllib.request.urlopen(urllib.request.Request(base + path, headers=headers)) as r:
            return r.headers.get("Content-Encoding"), r.read()

    try:
        for path, file in (
            ("", "index.html"),
            ("static/page.js", "static/page.js"),
            (boot["pyodide"] + "pyodide.asm.wasm", boot["pyodide"] + "pyodide.asm.wasm"),
        ):
            encoding, body = get(path)
            assert encoding == "gzip", path
            assert len(body) < 0.6 * (built / file).stat().st_size
            assert gzip.decompress(body) == (built / file).read_bytes()
            assert get(path, gzip_ok=False) == (None, (built / file).read_bytes())
        snapshot = boot["snapshot"]["url"]
        assert get(snapshot) == (None, (built / snapshot).read_bytes())
    finally:
        server.shutdown()
        server.server_close()


def test_preview_prints_nothing_when_a_visitor_leaves_during_a_download(tmp_path, capsys):
    """A tab closed or reloaded while a large file still downloads resets its connection: the
    preview server goes on serving and prints no traceback for it (one per such tab reached
    the terminal, and the tests' output); any other error of a request is still printed."""
    import socket
    import struct
    import threading
    import time

    from integrator_lab.site.build import make_server

    (tmp_path / "big.bin").write_bytes(bytes(64_000_000))  # far more than a socket buffers
    (tmp_path / "small.txt").write_text("still here")
    server = make_server(tmp_path, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    address = server.server_address[:2]

    def handlers():  # the threads answering a request (named after their target)
        return [t for t in threading.enumerate() if "process_request_thread" in t.name]

    try:
        for _ in range(3):
            with socket.create_connection(address) as sock:
                sock.sendall(b"GET /big.bin HTTP/1.1\r\nHost: localhost\r\n\r\n")
                assert sock.recv(1024).startswith(b"HTTP/1.0 200")  # the download has begun
                # closed with a reset, as a tab that goes away mid-download
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        deadline = time.monotonic() + 30
        while handlers() and time.monotonic() < deadline:
            time.sleep(0.05)  # a poll: until the server has seen every reset
        assert handlers() == []
        with socket.create_connection(address) as sock:  # and it goes on serving
            sock.sendall(b"GET /small.txt HTTP/1.0\r\n\r\n")
            answer = b""
            while chunk := sock.recv(4096):
                answer += chunk
        assert answer.startswith(b"HTTP/1.0 200") and answer.endswith(b"still here")
        assert "Traceback" not in capsys.readouterr().err
        # another error is not hidden
        try:
            raise ValueError("a bug in a handler")
        except ValueError:
            server.handle_error(None, address)
        assert "ValueError: a bug in a handler" in capsys.readouterr().err
    finally:
        server.shutdown()
        server.server_close()
