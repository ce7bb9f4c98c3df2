"""The one-file build: one HTML file that runs from file://, offline, requesting nothing."""

from __future__ import annotations

import argparse
import json
import re
import shutil
import time

import pytest
from docs_helpers import wait_until_running

from integrator_lab.cli.main import Parser, build_parser
from integrator_lab.cli.site import add_single_file_option
from integrator_lab.site.single_file import (
    EMBEDDED,
    FILE_SCRIPT_TYPE,
    SingleFileError,
    fold_site,
)
from integrator_lab.site.snapshot import SNAPSHOT

#: the one file must stay below what a browser or a mail gateway balks at (bytes; mail often
#: stops at 25 MB): about 19 MB, BokehJS as text, Pyodide's wasm gzip-compressed, the snapshot
#: (already gzip), everything base64-encoded; without the snapshot about 11 MB
MAX_SIZE = 24_000_000
MAX_SIZE_NO_SNAPSHOT = 14_000_000


def _build_command():
    """``integrator-lab`` with ``build --single-file`` (what web/cli.py is to add)."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    if "--single-file" not in sub.choices["build"]._option_string_actions:
        add_single_file_option(sub.choices["build"])
    return parser


@pytest.fixture(scope="module")
def single_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("one-file") / "lab.html"
    args = _build_command().parse_args(["build", "--single-file", str(path)])
    assert args.func(args) == 0
    return path


def test_the_file_holds_everything_and_refers_to_nothing(single_file):
    page = single_file.read_text(encoding="utf-8")
    assert single_file.stat().st_size < MAX_SIZE
    outside_scripts = re.sub(r"<script\b[^>]*>.*?</script>", "", page, flags=re.DOTALL)
    refs = re.findall(r'\b(?:src|href)="([^"]*)"', outside_scripts)
    # (an in-page anchor, the skip link, is no file)
    assert [ref for ref in refs if not ref.startswith(("data:", "#"))] == []
    assert re.findall(r"<script\b[^>]*\bsrc=", page) == []
    names = re.findall(rf'<script type="{FILE_SCRIPT_TYPE}" data-name="([^"]+)"', page)
    # Python boots from the snapshot (a plain boot takes seconds more)
    assert names == [path.rsplit("/", 1)[-1] for path in (*EMBEDDED, SNAPSHOT)]
    # and the gzip files only: the boot config offers no .lzma ones (for a slow link; read
    # from memory, there is none), so that no link makes the worker ask for a file not here
    boot = json.loads(re.search(r'id="il-boot-config">(.*?)</script>', page, re.DOTALL).group(1))
    assert boot["lzma"] == {} and set(boot["gzipped"].values()) <= set(names)
    assert "data:text/javascript;base64," in page


def test_a_changed_site_stops_the_build(single_file, tmp_path):
    from integrator_lab.site.build import build_site

    site = build_site(tmp_path / "site", hashed=False)
    fold_site(site)  # the real site folds
    worker = site / "static" / "worker.mjs"
    worker.write_text(
        worker.read_text().replace(
            "await import(new URL(files.module,", "await import(new URL(ELSEWHERE,"
        )
    )
    with pytest.raises(SingleFileError, match="worker.mjs: the import of loadPyodide"):
        fold_site(site)
    shutil.copyfile(tmp_path / "site" / "index.html", tmp_path / "index.html")
    (site / "index.html").write_text(
        (tmp_path / "index.html")
        .read_text()
        .replace("</head>", '<link rel="icon" href="favicon.png"></head>')
    )
    with pytest.raises(SingleFileError, match="favicon.png"):
        fold_site(site)


def test_the_option_on_the_command_line(tmp_path, capsys):
    parser = Parser(prog="integrator-lab")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    build = sub.add_parser("build")
    build.set_defaults(func=lambda args: "site build")
    add_single_file_option(build)
    args = parser.parse_args(["build"])
    assert args.single_file is None and args.func(args) == "site build"
    assert "--single-file PATH.html" in build.format_help()
    args = parser.parse_args(["build", "--single-file", str(tmp_path / "no" / "such" / "dir")])
    (tmp_path / "no").write_text("a file, not a folder")
    assert args.func(args) == 2
    assert "argument --single-file: cannot write" in capsys.readouterr().err


@pytest.mark.browser
def test_it_runs_from_disk_offline_with_no_request(single_file, browser):
    context = browser.new_context(offline=True, viewport={"width": 1400, "height": 900})
    requests = []
    context.on("request", lambda request: requests.append(request.url))
    # anything that would leave the page is refused (and recorded above)
    context.route(re.compile(r"^(?!file:|blob:|data:)"), lambda route: route.abort())
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        started = time.perf_counter()
        page.goto(single_file.as_uri())
        first, later = wait_until_running(page)
        boot = time.perf_counter() - started - 1.0
        assert page.evaluate("window.integratorLab.status().boot") == "snapshot"
        assert page.evaluate("window.integratorLab.status().packing") == "gzip"
        assert set(later["systems"]) == {"pendulum", "cradle", "spring"}
        for system, status in later["systems"].items():
            assert status["simTime"] > first["systems"][system]["simTime"]
            assert all(lane["samples"] > 0 for lane in status["integrators"].values())
        assert page.locator("#il-served").is_hidden()
        assert page.locator("#il-messages li").count() == 0
        assert errors == []
        # the page itself and the Blob URLs the worker made in memory for Pyodide's modules
        others = [
            url for url in requests if url != single_file.as_uri() and not url.startswith("blob:")
        ]
        assert others == []
        print(
            f"one-file page: {single_file.stat().st_size / 1e6:.1f} MB, running after {boot:.1f} s"
        )
    finally:
        context.close()


def test_without_the_snapshot_the_file_is_smaller_and_boots_plain(tmp_path, browser):
    path = tmp_path / "lab.html"
    args = _build_command().parse_args(["build", "--single-file", str(path), "--no-snapshot"])
    assert args.func(args) == 0
    page_text = path.read_text(encoding="utf-8")
    names = re.findall(rf'<script type="{FILE_SCRIPT_TYPE}" data-name="([^"]+)"', page_text)
    assert names == [p.rsplit("/", 1)[-1] for p in EMBEDDED]
    assert path.stat().st_size < MAX_SIZE_NO_SNAPSHOT
    context = browser.new_context(offline=True)
    try:
        page = context.new_page()
        page.goto(path.as_uri())
        wait_until_running(page)
        assert page.evaluate("window.integratorLab.status().boot") == "plain"
    finally:
        context.close()
