"""The Panel server: the page's own front end for every browser session (:mod:`.hosted`:
its engine runs in the session), ``GET /status``, private (signed) sessions, and the caps on
sessions (a page request past them gets a short page saying so, status 503).

:func:`make_server` is what ``integrator-lab serve`` runs; :func:`create_app` is the
per-session entry point, also what ``panel serve web/server/panel_app.py`` runs.
"""

from __future__ import annotations

import html
import json
import os
import secrets
import socket

import panel as pn
from tornado.web import RequestHandler

from integrator_lab.server import transport
from integrator_lab.server.confinement import confinement
from integrator_lab.server.hosted import LABS, TITLE, Dashboard, page_route
from integrator_lab.server.sandbox import SandboxLive
from integrator_lab.server.sessions import (
    LOAD,
    MAX_SESSIONS,
    MAX_WAITING_PER_CLIENT,
    refusal,
    session_label,
)
from integrator_lab.views import i18n
from integrator_lab.views.engine import Engine

#: the labels' language when the page's URL names none (``integrator-lab serve --lang``)
DEFAULT_LANG = {"lang": i18n.DEFAULT_LANGUAGE}


#: the caps of the server this process runs (make_server): for /status
CAPS = {"max_sessions": MAX_SESSIONS, "max_sessions_per_client": MAX_SESSIONS}


class StatusHandler(RequestHandler):
    """``GET /status``: the live sessions (each with its engine's numbers), the sessions
    waiting for their page, the server's load and its caps, as JSON."""

    def get(self):
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "no-store")
        sessions = [lab.stats() for lab in list(LABS) if lab.engine is not None]
        status = {"callbacks": len(sessions), "sessions": sessions, "load": LOAD.snapshot()}
        status["pid"] = os.getpid()
        status["waiting"] = transport.waiting_sessions()
        status.update(CAPS)
        self.write(json.dumps(status))


def refused_page(reason: str, lang: str, limit: int) -> str:
    """The page that answers a page request past a cap (:func:`sessions.refusal`'s
    ``reason``), in ``lang``: what is full, and that it tries again by itself."""
    title = i18n.text("server.refused.title", lang)
    why = i18n.text(f"server.refused.{reason}", lang, limit=limit)
    again = i18n.text("server.refused.retry", lang, seconds=transport.RETRY_AFTER)
    return (
        f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta http-equiv="refresh" content="{transport.RETRY_AFTER}">'
        f"<title>{html.escape(title)}</title></head><body>"
        f"<h1>{html.escape(title)}</h1><p>{html.escape(why)}</p><p>{html.escape(again)}</p>"
        "</body></html>"
    )


def page_refusal(max_sessions: int, max_per_client: int):
    """What :func:`transport.own_sessions_only` asks of each page request: None (a
    session is made for it) or the page that says which cap it met."""
    limits = {"full": max_sessions, "client": max_per_client, "waiting": MAX_WAITING_PER_CLIENT}

    def refuse(request, **counts) -> str | None:
        reason = refusal(**counts, max_sessions=max_sessions, max_per_client=max_per_client)
        if reason is None:
            return None
        lang = DEFAULT_LANG["lang"]
        wanted = request.query_arguments.get("lang")
        if wanted:
            try:
                lang = i18n.language(wanted[-1].decode("utf-8", "replace"))
            except ValueError:
                pass  # the server's language
        return refused_page(reason, lang, limits[reason])

    return refuse


def create_app(allow_code: bool = False) -> Dashboard:
    """The page's own front end for the current server session (:mod:`.hosted`), with the
    view of the page's address (the server's language unless it names one): its engine runs
    here and stops when the session ends; ``allow_code``: visitors' Python methods run, each
    session's in its sandbox (``integrator-lab serve --allow-code``)."""
    doc = pn.state.curdoc
    transport.serve_css_locally(doc, pn.state.rel_path)
    transport.use_phone_viewport(doc)
    dashboard = Dashboard(
        lambda: Engine(SandboxLive(budget=LOAD.share, allow_code=allow_code)),
        follow_address=True,
    )
    if DEFAULT_LANG["lang"] != i18n.DEFAULT_LANGUAGE:  # (else the browser's, as on the page)
        dashboard.lab.lang = DEFAULT_LANG["lang"]
    dashboard.lab.session = session_label(getattr(doc.session_context, "id", None)) or ""
    pn.state.on_session_destroyed(lambda _context: dashboard.stop())
    return dashboard


def make_server(
    port: int = 5006,
    address: str = "127.0.0.1",
    extra_origins=(),
    session_lifetime_ms: int = 5000,
    allow_code: bool = False,
    lang: str = i18n.DEFAULT_LANGUAGE,
    max_sessions: int = MAX_SESSIONS,
    max_sessions_per_client: int | None = None,
    **server_options,
):
    """A Bokeh server (not started) serving the dashboard at ``/``, its page's files at
    ``/lab/`` and ``/status``.

    Every resource comes from the server itself (Panel's default "server" resource mode):
    no CDN. Every page load starts its own session, which no other client can join: the
    session ids are signed with a key made for this server run, a request naming a session
    gets a new one, and ``/status`` names sessions by a digest only. A session whose page
    has not connected within ``transport.FIRST_CONNECT_GRACE`` seconds is ended; a page that
    stops drawing (a hidden tab) stops its engine's simulation (views.engine.STALL) and a
    closed one ends its session within about ``session_lifetime_ms``. A page request is
    answered with a short page (status 503, no session made) when the server has
    ``max_sessions``, its client's address ``max_sessions_per_client`` (default:
    ``max_sessions``) or :data:`~integrator_lab.server.sessions.MAX_WAITING_PER_CLIENT`
    still loading.
    """
    DEFAULT_LANG["lang"] = i18n.language(lang)
    per_client = max_sessions if max_sessions_per_client is None else max_sessions_per_client
    CAPS.update(max_sessions=max_sessions, max_sessions_per_client=per_client)
    transport.bound_client_logs()  # a client's refused message: one bounded log line
    if port == 0:
        port = free_port(address)
    hosts = {"localhost", "127.0.0.1", address}
    origins = [f"{host}:{port}" for host in sorted(hosts) if host not in ("", "0.0.0.0", "::")]
    origins += list(extra_origins)
    # a closed tab's session (and its engine) ends within about session_lifetime_ms
    options = dict(
        check_unused_sessions_milliseconds=max(100, session_lifetime_ms // 4),
        unused_session_lifetime_milliseconds=session_lifetime_ms,
        # a session's websocket token is signed: without the key nobody can
        # make one for a session id they learnt
        sign_sessions=True,
        secret_key=secrets.token_urlsafe(32),
    )
    options.update(server_options)
    code = "refused"
    if allow_code:
        code = "sandbox" if confinement().confined else "unconfined"

    def app() -> Dashboard:  # a function: Panel shows any other object as it is
        return create_app(allow_code)

    server = pn.serve(
        app,
        port=port,
        address=address,
        websocket_origin=origins,
        show=False,
        start=False,
        title=TITLE,
        verbose=False,
        location=False,
        extra_patterns=[(r"/status", StatusHandler), page_route(code)],
        **options,
    )
    transport.own_sessions_only(server, page_refusal(max_sessions, per_client))
    transport.forgive_connections_lost_twice(server)
    return server


def free_port(address: str) -> int:
    """A TCP port free on ``address`` right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((address if address not in ("", "0.0.0.0") else "127.0.0.1", 0))
        return sock.getsockname()[1]
