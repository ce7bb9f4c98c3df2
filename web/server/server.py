"""The Bokeh server of the Panel dashboard: one :class:`~integrator_lab.server.app.Dashboard`
per browser session, ``GET /status``, private (signed) sessions, the caps on sessions (a
page request past them gets a short page saying so, status 503) and the ending of sessions
whose page never connected or stopped acknowledging updates.

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
from bokeh.settings import settings as bokeh_settings
from tornado.ioloop import PeriodicCallback
from tornado.web import RequestHandler

from integrator_lab.server import links, transport
from integrator_lab.server.app import TITLE, Dashboard
from integrator_lab.server.sessions import (
    MAX_SESSIONS,
    MAX_WAITING_PER_CLIENT,
    REGISTRY,
    STALLED_CLIENT_TIMEOUT,
    refusal,
    session_label,
)
from integrator_lab.views import i18n
from integrator_lab.views.shared import PANEL_SYSTEMS

#: the labels' language when the page's URL names none (``integrator-lab serve --lang``)
DEFAULT_LANG = {"lang": i18n.DEFAULT_LANGUAGE}


def session_language() -> tuple[str, str | None]:
    """The language of this session: the URL's ``?lang=`` if it names one of
    :data:`i18n.LANGUAGES`, else the server's; and what to say about a ``lang`` refused."""
    default = DEFAULT_LANG["lang"]
    raw = (pn.state.session_args or {}).get("lang")
    if not raw:
        return default, None
    wanted = raw[-1].decode("utf-8", "replace")
    try:
        return i18n.language(wanted), None
    except ValueError as exc:
        return default, f"{exc}; using {default}."


def session_systems() -> tuple[list[str], str | None]:
    """The systems this session shows, in order: the URL's ``?systems=`` (a comma-separated
    list, as on the static page), else every one; and what to say about names refused."""
    raw = (pn.state.session_args or {}).get("systems")
    if not raw:
        return [], None
    text = raw[-1].decode("utf-8", "replace")
    names = [name.strip() for name in text.split(",") if name.strip()]
    good = list(dict.fromkeys(name for name in names if name in PANEL_SYSTEMS))
    if good and len(good) == len(names):
        return good, None
    shown = ", ".join(good) if good else "every system"
    return good, (
        f"The link's setting systems={text!r} is not valid: expected a comma-separated "
        f"list of {', '.join(PANEL_SYSTEMS)}; showing {shown}."
    )


def create_app(allow_code: bool = False) -> Dashboard:
    """One dashboard for the current server session, stopped when the session ends;
    ``allow_code``: visitors' Python methods run (``integrator-lab serve --allow-code``)."""
    doc = pn.state.curdoc
    transport.serve_css_locally(doc, pn.state.rel_path)
    transport.use_phone_viewport(doc)
    lang, problem = session_language()
    shown, refused = session_systems()
    dashboard = Dashboard(allow_code=allow_code, lang=lang, shown=shown)
    # the rest of the link (the static page's keys): applied, and what is refused said
    args = [
        (key, values[-1].decode("utf-8", "replace"))
        for key, values in (pn.state.session_args or {}).items()
        if values
    ]
    link, not_taken = links.read_link(args)
    dashboard.apply_link(link)
    if not_taken:
        refused = " ".join(
            text
            for text in (refused, i18n.text("msg.link_not_taken", lang, what="; ".join(not_taken)))
            if text
        )
    problems = [text for text in (problem, refused) if text]
    if problems:
        dashboard.tell(" ".join(problems))
    dashboard.attach(doc)
    # (its simulation starts when its page connects: Dashboard.__panel__)
    return dashboard


#: which front end this process serves (make_server)
FRONT_END = {"front_end": "panel"}

#: the caps of the server this process runs (make_server): for /status
CAPS = {"max_sessions": MAX_SESSIONS, "max_sessions_per_client": MAX_SESSIONS}


class StatusHandler(RequestHandler):
    """``GET /status``: live periodic callbacks and per-session numbers, the sessions
    waiting for their page and the caps, as JSON."""

    def get(self):
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "no-store")
        status = REGISTRY.snapshot()
        if FRONT_END["front_end"] == "page":
            from integrator_lab.server.hosted import LABS

            status["sessions"] = [lab.stats() for lab in list(LABS) if lab.engine is not None]
            status["callbacks"] = len(status["sessions"])
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


def create_hosted_app(allow_code: bool = False):
    """The page's own front end for the current server session (:mod:`.hosted`), with the
    view of the page's address (the server's language unless it names one): its engine runs
    here, with ``allow_code`` as :func:`create_app`'s, and stops when the session ends."""
    from integrator_lab.server.hosted import Dashboard
    from integrator_lab.server.sandbox import SandboxLive
    from integrator_lab.views.engine import Engine

    doc = pn.state.curdoc
    transport.serve_css_locally(doc, pn.state.rel_path)
    transport.use_phone_viewport(doc)
    dashboard = Dashboard(
        lambda: Engine(SandboxLive(allow_code=allow_code)),
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
    stalled_client_timeout: float = STALLED_CLIENT_TIMEOUT,
    allow_code: bool = False,
    lang: str = i18n.DEFAULT_LANGUAGE,
    max_sessions: int = MAX_SESSIONS,
    max_sessions_per_client: int | None = None,
    front_end: str = "panel",
    **server_options,
):
    """A Bokeh server (not started) serving the dashboard at ``/`` and ``/status``.

    Every resource comes from the server itself (Panel's default "server" resource mode):
    no CDN. Every page load starts its own session, which no other client can join: the
    session ids are signed with a key made for this server run, a request naming a session
    gets a new one, and ``/status`` names sessions by a digest only. A session's
    simulation starts when its page connects; a session whose page has not connected
    within ``transport.FIRST_CONNECT_GRACE`` seconds is ended, and one whose page owes an
    acknowledgement for ``stalled_client_timeout`` seconds. A page request is answered with
    a short page (status 503, no session made) when the server has ``max_sessions``, its
    client's address ``max_sessions_per_client`` (default: ``max_sessions``) or
    :data:`~integrator_lab.server.sessions.MAX_WAITING_PER_CLIENT` still loading.
    """
    DEFAULT_LANG["lang"] = i18n.language(lang)
    FRONT_END["front_end"] = front_end
    per_client = max_sessions if max_sessions_per_client is None else max_sessions_per_client
    CAPS.update(max_sessions=max_sessions, max_sessions_per_client=per_client)
    transport.bound_client_logs()  # a client's refused message: one bounded log line
    # Bokeh checks each new session's document for modelling mistakes (``Document.validate``,
    # 0.15 to 0.21 s of the 2.1 to 2.5 s a session's dashboard takes to build on a 2-core
    # machine): every session builds it by the same code, which
    # tests/server/test_panel_document.py checks once per kind of session (languages, a
    # subset of systems, a link's settings, the method editor). BOKEH_VALIDATE_DOC=true in
    # the environment checks each session again.
    if os.environ.get("BOKEH_VALIDATE_DOC") is None:
        bokeh_settings.perform_document_validation.set_value(False)
    if port == 0:
        port = free_port(address)
    hosts = {"localhost", "127.0.0.1", address}
    origins = [f"{host}:{port}" for host in sorted(hosts) if host not in ("", "0.0.0.0", "::")]
    origins += list(extra_origins)
    # a closed tab's session (and its callback) ends within about session_lifetime_ms
    options = dict(
        check_unused_sessions_milliseconds=max(100, session_lifetime_ms // 4),
        unused_session_lifetime_milliseconds=session_lifetime_ms,
        # a session's websocket token is signed: without the key nobody can
        # make one for a session id they learnt
        sign_sessions=True,
        secret_key=secrets.token_urlsafe(32),
    )
    options.update(server_options)

    def app() -> Dashboard:  # a function: Panel shows any other object as it is
        return create_app(allow_code)

    patterns: list = [(r"/status", StatusHandler)]
    if front_end == "page":
        from integrator_lab.server.confinement import confinement
        from integrator_lab.server.hosted import page_route

        code = "refused"
        if allow_code:
            code = "sandbox" if confinement().confined else "unconfined"
        patterns.append(page_route(code))

        def app():  # type: ignore[no-redef]
            return create_hosted_app(allow_code)

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
        extra_patterns=patterns,
        **options,
    )
    transport.own_sessions_only(server, page_refusal(max_sessions, per_client))
    transport.forgive_connections_lost_twice(server)
    watchdog = PeriodicCallback(
        lambda: REGISTRY.end_stalled(stalled_client_timeout),
        min(1000.0, max(50.0, stalled_client_timeout * 250.0)),
    )
    server.io_loop.add_callback(watchdog.start)
    server.stalled_client_watchdog = watchdog  # kept alive with the server
    return server


def free_port(address: str) -> int:
    """A TCP port free on ``address`` right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((address if address not in ("", "0.0.0.0") else "127.0.0.1", 0))
        return sock.getsockname()[1]
