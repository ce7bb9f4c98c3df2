"""``integrator-lab build``, ``preview`` and ``bench-page``: the static page's commands.

The site itself is built by :mod:`integrator_lab.site.build` (a folder) and
:mod:`integrator_lab.site.single_file` (one HTML file); this module only reads the command line
and reports.
"""

from __future__ import annotations

import argparse
import sys
import time

from integrator_lab.cli.argtypes import port
from integrator_lab.dev import bench_page
from integrator_lab.site.build import DEFAULT_OUT, DEFAULT_PORT, build_site, serve
from integrator_lab.site.pyodide_node import PyodideNotFound
from integrator_lab.site.single_file import SingleFileError, build_single_file


def cmd_build(args) -> int:
    try:
        out = build_site(args.out, log=lambda line: print(f"Integrator Lab: {line}"))
    except PyodideNotFound as exc:
        print(f"integrator-lab: {exc}", file=sys.stderr)
        return 2
    print(
        f"Integrator Lab: static site written to {out}/ "
        f"(serve it: integrator-lab preview --out {out})"
    )
    return 0


def cmd_preview(args) -> int:
    status = cmd_build(args)
    if status:
        return status
    try:
        serve(args.out, args.port, args.address)
    except OSError as exc:
        print(
            f"integrator-lab: cannot serve on {args.address}:{args.port}: {exc.strerror}",
            file=sys.stderr,
        )
        return 2
    return 0


def add_subcommands(subparsers) -> None:
    """Register ``build`` and ``preview`` on the CLI's subparsers."""
    build = subparsers.add_parser(
        "build",
        help="write the static web page (self-hosted)",
        description="Write the static dashboard: the page, BokehJS, "
        "Pyodide and the core, all from one origin.",
    )
    build.add_argument(
        "--out", default=DEFAULT_OUT, metavar="DIR", help=f"output folder (default {DEFAULT_OUT})"
    )
    build.set_defaults(func=cmd_build)
    add_single_file_option(build)
    preview = subparsers.add_parser(
        "preview",
        help="build the static page and serve it on 127.0.0.1",
        description="Build the static dashboard and serve it over HTTP; prints the URL.",
    )
    preview.add_argument(
        "--out", default=DEFAULT_OUT, metavar="DIR", help=f"output folder (default {DEFAULT_OUT})"
    )
    preview.add_argument(
        "--port",
        type=port,
        default=DEFAULT_PORT,
        help=f"port (default {DEFAULT_PORT}; 0 picks a free one)",
    )
    preview.add_argument(
        "--address",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only)",
    )
    preview.set_defaults(func=cmd_preview)
    bench = subparsers.add_parser(
        "bench-page",
        help="measure the static page in headless "
        "Chromium: first draw, live, fps, real-time factors, weight",
    )
    bench_page.add_arguments(bench)
    bench.set_defaults(func=bench_page.cmd_bench_page)


def add_single_file_option(build_parser: argparse.ArgumentParser) -> None:
    """Give ``integrator-lab build`` the option ``--single-file PATH.html``."""
    build_parser.add_argument(
        "--single-file",
        metavar="PATH.html",
        help="write one self-contained HTML file that opens from disk "
        "(file://), offline, instead of a site folder",
    )
    build_parser.add_argument(
        "--no-snapshot",
        action="store_true",
        help="with --single-file: leave Pyodide's memory snapshot out (a file of about 11 MB "
        "instead of 19 MB, which boots Python in a few seconds more)",
    )
    site_build = build_parser.get_default("func")

    def build(args):
        if getattr(args, "single_file", None):
            return cmd_single_file(args)
        return site_build(args)

    build_parser.set_defaults(func=build)


def cmd_single_file(args) -> int:
    started = time.perf_counter()
    try:
        out = build_single_file(
            args.single_file,
            log=lambda line: print(f"Integrator Lab: {line}"),
            snapshot=not getattr(args, "no_snapshot", False),
        )
    except (PyodideNotFound, SingleFileError) as exc:
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
