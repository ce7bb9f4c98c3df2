"""The package a Python user installs runs every mode, and its site deploys under a sub-path.

The wheel is built as ``make dist`` builds it (Pyodide's core files and the prebuilt snapshot
bundled by ``integrator_lab.site.bundle``), installed into a fresh virtual environment, and
every command runs from there with no ``node`` on PATH, no ``node_modules`` in reach and an
empty snapshot cache: whatever the page needs must come from the wheel.

The environment's other packages are the ones installed here, not downloaded again: the
distributions the wheel's requirements name (and Sphinx's, for its Sphinx page), with theirs,
linked in from this environment. Only those: a module the package imports without declaring
its distribution is missing there, as it would be for a user.
"""

from __future__ import annotations

import email
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest
from builds import hashed_files
from pages import keep_snapshot

from integrator_lab import __version__
from integrator_lab.docs.sphinx import SITE_DIR
from integrator_lab.site.build import PYODIDE_FILES, SiteHandler
from integrator_lab.site.snapshot import SNAPSHOT

ROOT = Path(__file__).resolve().parents[2]
#: where the test's host publishes the site: a folder of a larger web site
SUB_PATH = "/physics/lab/"
BOOT_TIMEOUT_MS = 90_000
#: what the wheel needs of the checkout (tests and docs stay behind)
SOURCES = ("pyproject.toml", "core", "web", "static")

# the first test pays for building the wheel and its bundles: minutes
pytestmark = [pytest.mark.browser, pytest.mark.timeout(900)]


def _run(cmd, **kwargs):
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kwargs)
    assert done.returncode == 0, f"{cmd}: {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


def _needed(requirements):
    """The distributions installed here that ``requirements`` (texts) name, and theirs, and so
    on: what pip would install for them, as installed. A missing one, or one whose version the
    requirement excludes, fails the test naming it."""
    from importlib import metadata

    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    found, done = {}, set()
    todo = [Requirement(text) for text in requirements]
    todo = [r for r in todo if r.marker is None or r.marker.evaluate({"extra": ""})]
    while todo:
        requirement = todo.pop()
        key = canonicalize_name(requirement.name)
        if key not in found:
            try:
                found[key] = metadata.distribution(requirement.name)
            except metadata.PackageNotFoundError:
                pytest.fail(f"{requirement}: not installed here")
        version = found[key].version
        assert requirement.specifier.contains(version, prereleases=True), (requirement, version)
        for extra in ("", *requirement.extras):
            if (key, extra) in done:
                continue
            done.add((key, extra))
            for text in found[key].requires or ():
                needed = Requirement(text)
                if needed.marker is None or needed.marker.evaluate({"extra": extra}):
                    todo.append(needed)
    return list(found.values())


def _link_installed(distributions, site_packages: Path) -> None:
    """Link each distribution's top-level files and folders (its packages, modules, libraries
    and metadata) into ``site_packages``."""
    for distribution in distributions:
        assert distribution.files is not None, f"{distribution.name}: no RECORD of its files"
        tops = {f.parts[0] for f in distribution.files if f.parts[0] not in ("..", "__pycache__")}
        for top in tops:
            link = site_packages / top
            if not link.exists():  # (two distributions may share a namespace folder)
                link.symlink_to(Path(distribution.locate_file(top)))


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """``{"env", "bin", "work"}``: the wheel installed in a fresh venv, and how to run it."""
    from integrator_lab.site.pyodide_node import PyodideNotFound, find_node, find_pyodide_dir

    try:
        find_node(), find_pyodide_dir(packaged=False)
    except PyodideNotFound as exc:  # making the wheel needs them, installing it does not
        pytest.skip(str(exc))
    tmp = tmp_path_factory.mktemp("wheel")
    # a copy of the sources: the bundle and setuptools' build folders stay out of the checkout
    source = tmp / "source"
    source.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "bundle", "build")
    for name in SOURCES:
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copyfile
        kwargs = {"ignore": ignore} if (ROOT / name).is_dir() else {}
        copy(ROOT / name, source / name, **kwargs)
    started = time.perf_counter()
    _run([sys.executable, "-m", "integrator_lab.site.bundle", "--out", source / "web/site/bundle"])
    _run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q"]
        + ["--wheel-dir", tmp / "dist", source]
    )
    [wheel] = (tmp / "dist").glob("integrator_lab-*.whl")
    venv = tmp / "venv"
    # no pip inside (this pip installs into it: faster), so nothing but the package and the
    # distributions it needs (and Sphinx's), as installed here: no package index
    _run([sys.executable, "-m", "venv", "--without-pip", venv])
    with zipfile.ZipFile(wheel) as archive:
        metadata = email.message_from_bytes(
            archive.read(f"integrator_lab-{__version__}.dist-info/METADATA")
        )
    site_packages = _run(
        [venv / "bin/python", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]
    ).stdout.strip()
    _link_installed(_needed([*metadata.get_all("Requires-Dist"), "sphinx"]), Path(site_packages))
    _run(
        [sys.executable, "-m", "pip", "--python", venv / "bin/python", "install", "-q"]
        + ["--no-compile", "--no-deps", "--no-index", wheel]
    )
    print(
        f"wheel: {wheel.stat().st_size / 1e6:.1f} MB; built and installed in "
        f"{time.perf_counter() - started:.0f} s"
    )
    work = tmp / "work"
    work.mkdir()
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("INTEGRATOR_LAB_", "VIRTUAL_ENV", "PYTHON"))
    }
    # the venv's commands only: no node, no npm; a snapshot cache of its own, empty; no
    # bytecode written beside the linked packages (they are this environment's)
    env.update(
        PATH=str(venv / "bin"), XDG_CACHE_HOME=str(tmp / "cache"), PYTHONDONTWRITEBYTECODE="1"
    )
    assert shutil.which("node", path=env["PATH"]) is None
    return {"env": env, "bin": venv / "bin", "work": work, "wheel": wheel}


def _cli(installed, *args, **kwargs):
    return _run([installed["bin"] / "integrator-lab", *args], env=installed["env"], **kwargs)


def test_the_wheel_carries_pyodide_its_licence_and_the_snapshot(installed):
    with zipfile.ZipFile(installed["wheel"]) as wheel:
        names = set(wheel.namelist())
        licence = wheel.read("integrator_lab/site/bundle/pyodide/LICENSE").decode()
        version = json.loads(wheel.read("integrator_lab/site/bundle/pyodide/package.json"))
    for name in PYODIDE_FILES:
        assert f"integrator_lab/site/bundle/pyodide/{name}" in names
    assert "Mozilla Public License Version 2.0" in licence and version["license"] == "MPL-2.0"
    assert [n for n in names if re.fullmatch(r"integrator_lab/site/bundle/snapshots/\w+.bin.gz", n)]
    # the method editor's bundle (CodeMirror): the installed package has no esbuild
    assert "integrator_lab/site/bundle/editor/editor.js" in names
    # the page's script, bundled by esbuild, and the digest of the sources it was made from
    assert "integrator_lab/site/bundle/page/page.js" in names
    assert "integrator_lab/site/bundle/page/sources" in names
    # the package alone: no copy of node_modules' other files, no top-level core or web
    assert not any(n.endswith((".map", ".d.ts", ".html")) and "bundle" in n for n in names)
    assert {n.split("/")[0] for n in names} == {
        "integrator_lab",
        f"integrator_lab-{__version__}.dist-info",
    }


def test_version_from_the_command_and_the_module(installed):
    assert _cli(installed, "--version").stdout.strip() == f"integrator-lab {__version__}"
    module = _run(
        [installed["bin"] / "python", "-m", "integrator_lab", "--version"], env=installed["env"]
    )
    assert module.stdout.strip() == f"integrator-lab {__version__}"


class SubPathHandler(SiteHandler):
    """The site as a host publishes it at ``SUB_PATH``; anything else is 404, and noted."""

    def send_head(self):
        self.server.paths.append(self.path)
        if not self.path.startswith(SUB_PATH):
            self.send_error(404)
            return None
        self.path = "/" + self.path[len(SUB_PATH) :]
        return super().send_head()


def _serve_under_sub_path(site: Path):
    handler = functools.partial(SubPathHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.paths = []
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _goes_live(page):
    page.wait_for_function(
        "window.integratorLab && window.integratorLab.status().ready", timeout=BOOT_TIMEOUT_MS
    )
    first = page.evaluate("window.integratorLab.status()")
    page.wait_for_function(
        f"window.integratorLab.status().systems.spring.simTime > "
        f"{first['systems']['spring']['simTime'] + 0.5}",
        timeout=BOOT_TIMEOUT_MS,
    )
    return first


def _open(browser):
    context = browser.new_context(viewport={"width": 1440, "height": 900})
    page = context.new_page()
    errors, requests = [], []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    context.on("request", lambda r: requests.append(r.url))
    return context, page, errors, requests


def test_the_installed_package_builds_a_site_that_runs_from_a_sub_path(installed, browser):
    built = _cli(installed, "build", "--out", "site", cwd=installed["work"]).stdout
    # it says where Pyodide and its snapshot came from: the wheel, nothing else was in reach
    assert "Pyodide" in built and "from the copy packaged with integrator-lab" in built
    assert "snapshot: prebuilt, packaged with integrator-lab" in built
    server = _serve_under_sub_path(installed["work"] / "site")
    host, port = server.server_address[:2]
    base = f"http://{host}:{port}{SUB_PATH}"
    context, page, errors, requests = _open(browser)
    try:
        # the boot a visit after one that booted from the snapshot takes: from it, whatever
        # the link (a first visit measures the link, and a loaded machine measures 127.0.0.1
        # too slow for the snapshot: then it boots plainly, by design)
        keep_snapshot(page, base, hashed_files(installed["work"] / "site")[SNAPSHOT])
        page.goto(base)
        first = _goes_live(page)
        # the prebuilt snapshot matched the installed core and this Pyodide: it was used
        assert first["boot"] == "snapshot", first.get("bootFallback")
        # the code editor is the packaged CodeMirror, not the plain text box
        editor = (installed["work"] / "site/static/vendor/editor.js").read_text("utf-8")
        assert "cm-editor" in editor and "cm-lineNumbers" in editor
        assert errors == []
        assert requests and all(url.startswith(base) for url in requests), requests
        assert server.paths and all(path.startswith(SUB_PATH) for path in server.paths)
    finally:
        context.close()
        server.shutdown()
        server.server_close()


def test_the_installed_package_builds_one_file_that_runs_from_disk(installed, browser):
    _cli(installed, "build", "--single-file", "lab.html", cwd=installed["work"])
    single = installed["work"] / "lab.html"
    context, page, errors, requests = _open(browser)
    try:
        page.goto(single.as_uri())
        _goes_live(page)
        assert errors == []
        assert [u for u in requests if u != single.as_uri() and not u.startswith("blob:")] == []
    finally:
        context.close()


def test_the_installed_package_builds_a_sphinx_page_with_a_demo(installed):
    docs = installed["work"] / "docs"
    docs.mkdir()
    (docs / "conf.py").write_text('extensions = ["integrator_lab.sphinx"]\n', encoding="utf-8")
    (docs / "index.rst").write_text(
        "Demo\n====\n\n.. integrator-lab::\n   :systems: spring\n   :integrators: euler, rk4\n",
        encoding="utf-8",
    )
    _run(
        [installed["bin"] / "python", "-m", "sphinx", "-W", "-q", "-b", "html", docs]
        + [docs / "_build"],
        env=installed["env"],
    )
    page = (docs / "_build/index.html").read_text(encoding="utf-8")
    [src] = re.findall(r'<iframe[^>]*\bsrc="([^"]+)"', page)
    assert src.startswith(f"{SITE_DIR}/index.html?") and "systems=spring" in src
    site = docs / "_build" / SITE_DIR
    assert (site / "index.html").is_file()
    for name in PYODIDE_FILES:
        assert len(list(site.glob(f"pyodide/*/{name}"))) == 1, name
    assert len(list(site.glob("py/snapshot.*.bin.gz"))) == 1  # the prebuilt one


def _first_url(process, pattern, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        match = re.search(pattern, line)
        if match:
            return match.group(0)
    process.kill()
    pytest.fail(f"no URL printed: {process.stdout.read()} {process.stderr.read()}")


@pytest.mark.parametrize(
    "command",
    [("preview", "--out", "preview", "--port", "0"), ("serve", "--port", "0", "--no-show")],
)
def test_the_installed_package_serves_the_page_and_the_panel_dashboard(installed, command):
    process = subprocess.Popen(
        [installed["bin"] / "integrator-lab", *command],
        env=installed["env"],
        cwd=installed["work"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = _first_url(process, r"http://[\w.:]+/")
        with urllib.request.urlopen(url, timeout=60) as response:
            assert response.status == 200
            assert "Integrator Lab" in response.read().decode("utf-8")
    finally:
        process.terminate()
        process.wait(timeout=30)
        process.stdout.close()
        process.stderr.close()
