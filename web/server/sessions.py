"""The Panel server's bookkeeping of its sessions: how many it admits, how the server's CPU
is shared between them, and how a session is named where others can read it.

Pure Python (no Bokeh, no Panel).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

#: share of one CPU core the server spends on simulations and updates, all sessions together
#: (the rest is headroom for page loads and widget events)
CPU_TARGET = 0.85
#: the smallest share of a core any playing session gets for stepping, however loaded the
#: server is: nobody starves, everybody's clock slows
MIN_SESSION_SHARE = 0.005
#: sessions one server keeps at once unless told otherwise (``integrator-lab serve
#: --max-sessions``): a class of 30 and its teacher, with room to spare. Every session past
#: the machine's real-time capacity slows every clock (docs/developing.rst: about 10 per
#: core); past this cap the next visitor is told the server is full, and those already in
#: go on as they were
MAX_SESSIONS = 40
#: the accepted range of ``--max-sessions`` and ``--max-sessions-per-client``
MAX_SESSIONS_RANGE = (1, 1000)
#: sessions one client address may have waiting for their page at once (made for a page
#: request whose page has not connected yet: transport.FIRST_CONNECT_GRACE). A browser's
#: page connects within seconds, so a visitor rarely has more than one; a client that
#: requests pages and never loads them (a crawler, a script) costs the server a dashboard
#: built per request (about a second of its only thread: every other session's clock
#: stands still meanwhile) for no more than this many at a time
MAX_WAITING_PER_CLIENT = 2


def refusal(
    sessions: int,
    from_client: int,
    waiting_from_client: int,
    *,
    max_sessions: int = MAX_SESSIONS,
    max_per_client: int = MAX_SESSIONS,
) -> str | None:
    """Why a new page request is refused, given the server's ``sessions``, those made for
    the requesting client's address (``from_client``) and those of them whose page has not
    connected yet (``waiting_from_client``): ``"full"`` (the server has ``max_sessions``),
    ``"client"`` (this address has ``max_per_client``), ``"waiting"`` (this address has
    :data:`MAX_WAITING_PER_CLIENT` pages still loading), or None: admitted."""
    if sessions >= max_sessions:
        return "full"
    if from_client >= max_per_client:
        return "client"
    if waiting_from_client >= MAX_WAITING_PER_CLIENT:
        return "waiting"
    return None


def session_label(session_id: str | None) -> str | None:
    """A session's name in ``/status`` and the log: a digest of its id, which cannot be
    used to open the session."""
    if session_id is None:
        return None
    return hashlib.sha256(session_id.encode()).hexdigest()[:16]


class ServerLoad:
    """How much stepping each playing session may do: its share of :data:`CPU_TARGET`,
    split evenly between the sessions that are playing (``playing()``: how many; the
    server's sessions set it)."""

    def __init__(self, target: float = CPU_TARGET) -> None:
        self.target = target
        self.playing: Callable[[], int] = lambda: 0

    def share(self) -> float:
        """Fraction of a core one playing session may spend stepping."""
        return max(MIN_SESSION_SHARE, self.target / max(1, self.playing()))

    def snapshot(self) -> dict:
        return {"playing": self.playing(), "share": self.share()}


#: the process's load (one server per process)
LOAD = ServerLoad()
