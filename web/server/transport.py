"""Every use of Bokeh's and Panel's private API by the Panel server, and nothing else.

Tested with bokeh 3.9.x and panel 1.9.x (``pyproject.toml`` pins ``bokeh>=3.9,<3.10`` and
``panel>=1.9,<1.10`` for this module's sake). Any attribute or method with a leading
underscore of a Bokeh or Panel object that the server needs is reached here, so that a new
Bokeh or Panel release is checked against this one file (``tests/server`` exercises each
function below through a real server and browser). The rest of the server uses public API
only.

What is here:

- :func:`serve_css_locally`: Panel's stylesheets from this server, never its CDN;
- :func:`own_sessions_only`: no request is handed a session it did not start, and a page
  request past the server's caps is answered with a page of its own, no session made;
- :func:`forgive_connections_lost_twice`: a tab closed while Bokeh pings it leaves no
  traceback;
- :func:`bound_client_logs`: a message a browser sent that Bokeh refuses is one bounded log
  line, never its whole text and a traceback.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from bokeh.server.views.session_handler import SessionHandler
from bokeh.server.views.ws import WSHandler
from panel.io.resources import LOCAL_DIST
from tornado.ioloop import IOLoop


# -- pages and sessions ------------------------------------------------------------------------
def serve_css_locally(doc, rel_path: str | None) -> None:
    """Point Panel's stylesheets at this server before any model is built.

    Panel shares its stylesheet models between sessions and, while a new session's page is
    not rendered yet, patches them to its CDN; a live session's browser then follows the
    shared model there. Knowing the local address from the start, it never does.
    ``rel_path`` is ``pn.state.rel_path`` (the page's path back to the server's root).
    """
    if doc is None or doc.session_context is None or "dist_url" in doc._template_variables:
        return
    doc._template_variables["dist_url"] = f"{rel_path}/{LOCAL_DIST}" if rel_path else LOCAL_DIST


#: the page's own template: Panel's, plus a viewport (without one a phone lays the page out
#: 980 px wide and shrinks it: nothing of the dashboard's own narrow layout would show)
PAGE_TEMPLATE = (
    "{% extends base %}{% block preamble %}{{ super() }}"
    '<meta name="viewport" content="width=device-width, initial-scale=1">{% endblock %}'
)


def use_phone_viewport(doc) -> None:
    """Give a served session's page a viewport meta tag (Panel's page template has none):
    ``doc.template`` extends the template Panel renders (passed to it as ``base``)."""
    if doc is None or doc.session_context is None:
        return
    from jinja2 import Template

    doc.template = Template(PAGE_TEMPLATE)


#: ``refuse(request, sessions=, from_client=, waiting_from_client=)``: None admits a page
#: request (a session is made for it); otherwise the HTML page that answers it instead. The
#: counts: the server's sessions, those made for this client's address, and those of them
#: whose page has not connected yet (each including the requests being served right now)
Refuse = Callable[..., "str | None"]
#: a refused page request may ask again after this long (s): its ``Retry-After``
RETRY_AFTER = 5


class _OwnSessionOnly:
    """Mixin for the handlers that hand out a session's page (or autoload script): every
    request gets a new session, never an existing one, or a refusal (``_il_refuse``).

    Bokeh gives a request naming a session (``?bokeh-session-id=``, the
    ``Bokeh-Session-Id`` header, ``?bokeh-token=``) that very session: anybody who learnt a
    session's id could watch and drive someone else's simulation.
    """

    _il_refuse: Refuse | None = None

    async def get(self, *args, **kwargs):
        refuse = type(self)._il_refuse
        page = None
        if refuse is not None:
            page = refuse(self.request, **_counts(self.application_context, _address(self)))
        if page is None:
            return await super().get(*args, **kwargs)
        # answered at once, nothing built: those already in do not wait for a refusal
        self.set_status(503)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        self.set_header("Retry-After", str(RETRY_AFTER))
        self.finish(page)

    async def get_session(self):
        request = self.request
        for key in ("bokeh-session-id", "bokeh-token"):
            request.arguments.pop(key, None)
            request.query_arguments.pop(key, None)
        if "Bokeh-Session-Id" in request.headers:
            del request.headers["Bokeh-Session-Id"]
        address = _address(self)
        _building[address] += 1
        started = time.perf_counter()
        try:
            session = await super().get_session()
        finally:
            _BUILT[0] += time.perf_counter() - started
            _building[address] -= 1
            if not _building[address]:
                del _building[address]
        session_id = session.id
        _client_of[session_id] = address
        session.document.on_session_destroyed(lambda _: _client_of.pop(session_id, None))
        _await_first_connection(session)
        return session


def _address(handler) -> str:
    """The client's address as this server sees it (behind a proxy: the proxy's)."""
    return handler.request.remote_ip or ""


def _counts(application_context, address: str) -> dict[str, int]:
    """What ``Refuse`` is told of a page request from ``address``."""
    live = [session.id for session in application_context.sessions]
    building = _building.get(address, 0)
    mine = [s for s in live if _client_of.get(s) == address]
    return {
        "sessions": len(live) + sum(_building.values()),
        "from_client": len(mine) + building,
        "waiting_from_client": sum(1 for s in mine if s in _awaiting) + building,
    }


#: how long (s) a session made for a page waits for that page's websocket before Bokeh's
#: unused-session rule (``--unused-session-lifetime``, 5 s) applies to it; then it ends at
#: Bokeh's next look (within a quarter of the lifetime), its simulation never started. That
#: rule counts from the session's creation as from a tab's close: a page that took longer to
#: load its scripts (a slow link, a busy machine: 17-19 s with two busy processes beside it)
#: found its session gone and Bokeh built the whole dashboard again for its websocket
#: (measured: 6 dashboards for 3 pages; tests/server/test_panel_robustness.py). Short: a
#: page request whose page never connects (a crawler, a script) holds its place in the
#: caps (sessions.MAX_WAITING_PER_CLIENT) for about this long (with 60 s, 20 bare requests
#: kept their sessions for 60 to 80 s), longer only while the server builds other pages'
#: sessions (FIRST_CONNECT_MAX); a page slower than this costs the server a second build,
#: and still opens
FIRST_CONNECT_GRACE = 10.0
#: the grace is counted in the server's time not spent building other pages' sessions (a
#: class opening the link at once: each page's websocket waits behind the builds of the
#: pages asked before it, a second or more each), up to this long (s) in all
FIRST_CONNECT_MAX = 60.0
#: seconds the server has spent building sessions for page requests, in all
_BUILT = [0.0]
#: sessions made for a page whose websocket has not come yet: id -> (session, grace timer)
_awaiting: dict[str, tuple[Any, Any]] = {}
#: when each of those was made, and the build time (_BUILT) counted into its grace so far
_waiting_since: dict[str, tuple[float, float]] = {}
#: the client address each page request's session was made for (until the session ends)
_client_of: dict[str, str] = {}
#: page requests whose session is being made right now, per client address
_building: Counter[str] = Counter()


def waiting_sessions() -> int:
    """Sessions made for a page request whose page has not connected yet (``/status``)."""
    return len(_awaiting)


def _await_first_connection(session) -> None:
    """Keep ``session`` (a Bokeh ``ServerSession`` just made for a page) until its page
    connects, or :data:`FIRST_CONNECT_GRACE` has passed."""
    session.block_expiration()
    timer = IOLoop.current().call_later(FIRST_CONNECT_GRACE, _grace_over, session.id)
    _awaiting[session.id] = (session, timer)
    _waiting_since[session.id] = (time.perf_counter(), _BUILT[0])


def _grace_over(session_id: str) -> None:
    """The grace of session ``session_id`` is over, unless the server spent some of it
    building other sessions: then it waits that much longer (up to
    :data:`FIRST_CONNECT_MAX` in all)."""
    entry = _awaiting.get(session_id)
    since = _waiting_since.get(session_id)
    if entry is None or since is None:
        return
    made, counted = since
    owed = _BUILT[0] - counted
    if owed > 0.05 and time.perf_counter() - made < FIRST_CONNECT_MAX:
        timer = IOLoop.current().call_later(owed, _grace_over, session_id)
        _awaiting[session_id] = (entry[0], timer)
        _waiting_since[session_id] = (made, _BUILT[0])
        return
    _first_connection(session_id)


def _first_connection(session_id: str) -> None:
    """The page of session ``session_id`` connected (or its grace is over): from now on
    Bokeh's unused-session rule applies to it."""
    entry = _awaiting.pop(session_id, None)
    _waiting_since.pop(session_id, None)
    if entry is not None:
        session, timer = entry
        IOLoop.current().remove_timeout(timer)
        session.unblock_expiration()


def _mix_into_handlers(
    server, handler: type, mixin: type, prefix: str, attributes: dict | None = None
) -> None:
    """Serve every route of ``server`` (a Bokeh ``Server``, not started) whose handler is a
    ``handler`` with a subclass that puts ``mixin`` first (named ``prefix`` + its name),
    with ``attributes`` as class attributes."""
    for rule in server._tornado.wildcard_router.rules:
        target = rule.target
        if isinstance(target, type) and issubclass(target, handler):
            if not issubclass(target, mixin):
                name = f"{prefix}{target.__name__}"
                rule.target = type(name, (mixin, target), dict(attributes or {}))


def own_sessions_only(server, refuse: Refuse | None = None) -> None:
    """Make the page handlers of ``server`` (a Bokeh ``Server``, not started) hand every
    request a new session (:class:`_OwnSessionOnly`), or, where ``refuse`` says so, its
    page instead (status 503, no session made)."""
    _mix_into_handlers(
        server, SessionHandler, _OwnSessionOnly, "OwnSession", {"_il_refuse": staticmethod(refuse)}
    )


class _ForgivesLostConnections:
    """Mixin for the websocket handler: a connection Bokeh already dropped is left alone.

    Bokeh's keep-alive job drops a connection whose ping finds its socket closed
    (``client_lost``, which detaches the session) before Tornado has handled the close: the
    messages of that tab still in flight and then the handler's ``on_close`` ask the
    connection for its session and fail an assertion, a traceback each in the log (a tab
    closed at the wrong moment; bokeh 3.9). Dropped, the connection has nothing left to
    apply a message to or to clean up. A page's first connection also ends its session's
    wait for it (:data:`FIRST_CONNECT_GRACE`).
    """

    def _dropped(self) -> bool:
        connection = self.connection
        return connection is not None and connection._session is None

    async def _async_open(self, token) -> None:
        # each frame goes at once: with Nagle's algorithm on, a frame's parts waited for the
        # browser's delayed acknowledgement (one session got 16 frames/s, 59 without;
        # web/dev/bench_serve.py)
        self.set_nodelay(True)
        await super()._async_open(token)
        session = self.connection._session if self.connection is not None else None
        if session is not None:
            _first_connection(session.id)

    async def on_message(self, fragment) -> None:
        if not self._dropped():
            await super().on_message(fragment)

    def on_close(self) -> None:
        if self._dropped():
            self.connection = None
        super().on_close()


def forgive_connections_lost_twice(server) -> None:
    """Make the websocket handlers of ``server`` (a Bokeh ``Server``, not started) take the
    close of a connection already dropped quietly (:class:`_ForgivesLostConnections`)."""
    _mix_into_handlers(server, WSHandler, _ForgivesLostConnections, "Forgiving")


# -- what a client sends that Bokeh refuses --------------------------------------------------
#: Bokeh's loggers that tell of a message a browser sent: a message refused by the session
#: (a value of the wrong type for a property), a malformed message, a bad header
CLIENT_MESSAGE_LOGGERS = (
    "bokeh.server.protocol_handler",
    "bokeh.server.views.ws",
    "bokeh.protocol",
)
#: the longest line (characters) that one message from a browser leaves in the log
LOG_LINE_MAX = 300


class _BoundedLine(logging.Filter):
    """One line of at most :data:`LOG_LINE_MAX` characters for each record of a
    :data:`CLIENT_MESSAGE_LOGGERS` logger: what was refused and why.

    Bokeh logs a message it cannot take whole (``%r`` of the message), with the exception
    (which repeats the value) and its traceback: 152 kB for one wrongly typed 50 kB widget
    value, so that any client could grow the server's log at will."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None:
            text = f"a browser's message refused: {type(exc).__name__}: {exc}"
        else:
            text = record.getMessage()
        text = " ".join(text.split())  # one line
        if len(text) > LOG_LINE_MAX:
            text = f"{text[: LOG_LINE_MAX - 40]}… ({len(text)} characters)"
        record.msg, record.args = text, ()
        record.exc_info = record.exc_text = record.stack_info = None
        return True


def bound_client_logs() -> None:
    """Make every log record about a message a browser sent one bounded line
    (:class:`_BoundedLine`); idempotent."""
    for name in CLIENT_MESSAGE_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, _BoundedLine) for f in logger.filters):
            logger.addFilter(_BoundedLine())
