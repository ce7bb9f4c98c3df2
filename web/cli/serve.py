"""``integrator-lab serve``: the Panel dashboard on a local Bokeh server, core in CPython.

Registered into the command line by :func:`add_subcommands`; also runnable on its own with
``python -m integrator_lab.cli.serve``.
"""

from __future__ import annotations

import argparse
import logging
import sys

from integrator_lab.cli.argtypes import integer_in, port
from integrator_lab.server import confinement
from integrator_lab.server.sessions import (
    MAX_SESSIONS,
    MAX_SESSIONS_RANGE,
    MAX_WAITING_PER_CLIENT,
)
from integrator_lab.views.i18n import DEFAULT_LANGUAGE, LANGUAGES

DEFAULT_PORT = 5006
DEFAULT_ADDRESS = "127.0.0.1"


def configure(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.add_argument(
        "--port",
        type=port,
        default=DEFAULT_PORT,
        help=f"TCP port (default {DEFAULT_PORT}; 0 picks a free one)",
    )
    parser.add_argument(
        "--address",
        default=DEFAULT_ADDRESS,
        help=f"address to listen on (default {DEFAULT_ADDRESS}, this machine "
        "only; 0.0.0.0 listens on every interface)",
    )
    parser.add_argument(
        "--show",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="open the dashboard in a web browser (default: --show)",
    )
    parser.add_argument(
        "--allow-websocket-origin",
        action="append",
        default=[],
        metavar="HOST[:PORT]",
        help="also accept browser sessions from pages "
        "served under this host (repeatable; needed behind a proxy)",
    )
    parser.add_argument(
        "--use-xheaders",
        action="store_true",
        help="behind a reverse proxy: take each client's address from the X-Real-Ip or "
        "X-Forwarded-For header and its scheme from X-Forwarded-Proto, so that the caps per "
        "client count visitors, not the proxy (only behind a proxy that sets them: any "
        "client could name any address otherwise; docs/developing.rst, Serving a class)",
    )
    parser.add_argument(
        "--unused-session-lifetime",
        type=integer_in(100, note="ms"),
        default=5000,
        metavar="MS",
        help="a session whose browser tab has gone is ended "
        "(its simulation stopped and freed) after this long (default 5000)",
    )
    parser.add_argument(
        "--max-sessions",
        type=integer_in(*MAX_SESSIONS_RANGE),
        default=MAX_SESSIONS,
        metavar="N",
        help="the most sessions (browser tabs) served at once; a page requested past it gets "
        "a short page saying the server is full (status 503, retried by itself), and those "
        f"already in go on as they were (default {MAX_SESSIONS}; about 10 run in real time "
        "per core, more slow every clock)",
    )
    parser.add_argument(
        "--max-sessions-per-client",
        type=integer_in(*MAX_SESSIONS_RANGE),
        default=None,
        metavar="N",
        help="the most sessions one client address may have (default: --max-sessions; "
        "visitors behind one proxy or NAT share an address). Whatever this says, an "
        f"address has at most {MAX_WAITING_PER_CLIENT} pages whose websocket has not "
        "connected yet: a page request whose page never connects (a crawler, a script) "
        "builds a session that ends within seconds, its simulation never started",
    )
    parser.add_argument(
        "--allow-code",
        action="store_true",
        help=confinement.help_text(),
    )
    parser.add_argument(
        "--lang",
        choices=LANGUAGES,
        default=DEFAULT_LANGUAGE,
        help="language of the labels (default en; a page's ?lang= overrides it)",
    )
    parser.set_defaults(func=cmd_serve)
    return parser


def add_subcommands(subparsers) -> None:
    """Add ``serve`` to the ``integrator-lab`` command line."""
    parser = subparsers.add_parser(
        "serve",
        help="serve the live dashboard from Python (Panel, core in CPython)",
        description="Serve the dashboard on a local Bokeh/Panel server: one independent "
        "simulation per browser session, the physics core running in CPython. Every file "
        "the page needs comes from this server (no CDN).",
    )
    configure(parser)


def cmd_serve(args) -> int:
    # imported here so that `integrator-lab run` does not pay for importing Panel
    from integrator_lab.server.server import make_server

    # one line per event the dashboard logs (a failing system, an ended session)
    logging.basicConfig(format="%(asctime)s %(levelname)s: %(name)s - %(message)s")

    try:
        server = make_server(
            port=args.port,
            address=args.address,
            extra_origins=args.allow_websocket_origin,
            session_lifetime_ms=args.unused_session_lifetime,
            allow_code=args.allow_code,
            lang=args.lang,
            max_sessions=args.max_sessions,
            max_sessions_per_client=args.max_sessions_per_client,
            use_xheaders=args.use_xheaders,
        )
    except OSError as exc:  # port taken, address not local, ...
        print(
            f"integrator-lab: error: cannot listen on {args.address}:{args.port}: "
            f"{exc.strerror or exc}",
            file=sys.stderr,
        )
        return 2
    url = f"http://{_browsable(args.address)}:{server.port}/"
    print(f"Integrator Lab dashboard on {url} (Ctrl+C stops it)", flush=True)
    # probed once, here: how every session's child starts (visitors' code, definitions' checks)
    confined = confinement.confinement()
    if args.allow_code:
        print(confined.say(), file=sys.stderr, flush=True)
    if args.show:
        server.io_loop.add_callback(_open_browser, url)
    try:
        server.run_until_shutdown()
    except KeyboardInterrupt:
        pass
    return 0


def _browsable(address: str) -> str:
    return "127.0.0.1" if address in ("", "0.0.0.0", "::") else address


def _open_browser(url: str) -> None:
    import webbrowser

    webbrowser.open_new_tab(url)


def main(argv=None) -> int:
    parser = configure(
        argparse.ArgumentParser(prog="integrator-lab serve", description=__doc__.splitlines()[0])
    )
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
