"""The Panel server's bookkeeping of its sessions: which are live (for ``/status`` and the
stalled-client watchdog), how many it admits, how the server's CPU is shared between them,
and how a session is named where others can read it.

Pure Python (no Bokeh, no Panel): a session is anything with the few methods
:class:`~integrator_lab.server.app.Dashboard` has (``playing``, ``acknowledged``,
``stalled_for``, ``end``, ``stats``).
"""

from __future__ import annotations

import hashlib
import time

#: share of one CPU core the server spends on simulations and updates, all sessions together
#: (the rest is headroom for page loads and widget events)
CPU_TARGET = 0.85
#: the smallest share of a core any playing session gets for stepping, however loaded the
#: server is: nobody starves, everybody's clock slows
MIN_SESSION_SHARE = 0.005
#: the server's load is re-measured at most this often (s)
LOAD_WINDOW = 0.5
#: a served session whose page has not acknowledged an update for this long (s) is ended:
#: a client that stopped reading or running would otherwise keep its session (and its share
#: of the server) forever
STALLED_CLIENT_TIMEOUT = 30.0
#: before its first acknowledgement a page may still be loading (the updates sent meanwhile
#: are lost): it owes one only after this long (s), or the timeout if longer. Generous: three
#: pages opened one after another on a 2-core machine with three other busy processes first
#: acknowledged 34, 41 and 64 s after their sessions' first update, and went on at once (with
#: 30 s, two of the three were ended as stalled: CI's Panel failures). A client that never
#: acknowledges costs an update a second meanwhile
FIRST_ACK_GRACE = 120.0
#: a look for stalled clients that comes this much later (s) than the one before found the
#: server itself busy (a document being built blocks its loop): the acknowledgements that
#: arrived meanwhile have not been read yet, so it ends nobody this time
SERVER_BUSY_GAP = 2.0

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


#: the page acknowledges every this many updates, once it has painted them (each
#: acknowledgement costs the server a full patch decode, a millisecond or two)
ACK_EVERY = 2
#: updates a browser may be behind before its session skips updates (the simulation goes
#: on; the next update carries everything since). A browser that paints slower than the
#: updates come gets fewer, larger ones: with 4 and 8 (acknowledged when applied, not
#: painted) a page at 1500x1000 on a 2-core machine without a GPU painted 4 frames a second,
#: its thread busy all the time (a click waited seconds); with 2 and 2, acknowledged once
#: painted, 10 frames a second and the thread 75 % busy
MAX_UNACKED = ACK_EVERY
#: a page that has acknowledged nothing yet (still loading its document, which loses what
#: is sent meanwhile; or a client that runs no JavaScript) gets an update this often (s)
ACK_TIMEOUT = 1.0
#: once a page has acknowledged an update, nothing sent to it is lost (a websocket delivers
#: every message, in order): a page behind is slow, and another update would only lengthen
#: its queue. It gets one anyway after this long (s) without an update or acknowledgement
#: (a frame it could not apply is not acknowledged; the next may be)
RESEND_TIMEOUT = 5.0


def browser_ready(
    behind: int, *, acknowledged: bool, since_update: float, since_ack: float
) -> bool:
    """Whether a session sends its page the next update: ``behind`` updates sent and not
    acknowledged, whether the page ever ``acknowledged`` one, and how long (s) since the
    last update was sent and since the last acknowledgement came.

    A slow page gets fewer updates, never a growing queue of them: with a fixed timeout
    instead (one update a second, whatever the page acknowledged) a page that took longer
    than that to paint one fell further behind every second, until the stalled-client
    watchdog ended its session."""
    if behind <= MAX_UNACKED:
        return True
    if not acknowledged:
        return since_update > ACK_TIMEOUT
    return min(since_update, since_ack) > RESEND_TIMEOUT


def session_label(session_id: str | None) -> str | None:
    """A session's name in ``/status`` and the log: a digest of its id, which cannot be
    used to open the session."""
    if session_id is None:
        return None
    return hashlib.sha256(session_id.encode()).hexdigest()[:16]


class CallbackRegistry:
    """The periodic callbacks that run right now, one per live session (for ``/status``)."""

    def __init__(self):
        self._live = {}
        self._looked: float | None = None  # when end_stalled last looked

    def started(self, dashboard) -> None:
        self._live[id(dashboard)] = dashboard

    def stopped(self, dashboard) -> None:
        self._live.pop(id(dashboard), None)

    def __len__(self) -> int:
        return len(self._live)

    def __contains__(self, dashboard) -> bool:
        return self._live.get(id(dashboard)) is dashboard

    def dashboards(self) -> list:
        """The live sessions' dashboards."""
        return list(self._live.values())

    def playing(self) -> int:
        """The live sessions playing to a connected page (they share the CPU)."""
        return sum(1 for d in self._live.values() if d.playing and d.connected)

    def end_stalled(self, timeout: float) -> None:
        """End every served session whose page has owed an acknowledgement for longer
        than ``timeout`` seconds."""
        now = time.perf_counter()
        looked, self._looked = self._looked, now
        if looked is not None and now - looked > SERVER_BUSY_GAP:
            return  # the server was busy, not the clients: read what they sent first
        for dashboard in list(self._live.values()):
            limit = timeout if dashboard.acknowledged else max(timeout, FIRST_ACK_GRACE)
            if dashboard.stalled_for(now) > limit:
                dashboard.end(f"its page acknowledged no update for {limit:g} s")

    def snapshot(self) -> dict:
        sessions = [d.stats() for d in self._live.values()]
        return {
            "callbacks": len(sessions),
            "playing": self.playing(),
            "sessions": sessions,
            "load": LOAD.snapshot(),
        }


class ServerLoad:
    """How much stepping each playing session may do: its share of one core.

    The process's CPU time, minus the time spent stepping, is the cost of everything else
    (serialising and sending updates, HTTP); what remains of :data:`CPU_TARGET` is split
    evenly between the sessions that are playing.
    """

    def __init__(self, target: float = CPU_TARGET):
        self.target = target
        self._wall0 = time.perf_counter()
        self._cpu0 = time.process_time()
        self._stepping = 0.0
        self.cpu = 0.0  # fraction of a core, last window
        self.overhead = 0.0  # fraction of a core not spent stepping, smoothed

    def record(self, stepping_seconds: float) -> None:
        self._stepping += stepping_seconds
        now = time.perf_counter()
        if now - self._wall0 >= LOAD_WINDOW:
            cpu = time.process_time()
            span = now - self._wall0
            self.cpu = (cpu - self._cpu0) / span
            overhead = max(0.0, self.cpu - self._stepping / span)
            self.overhead = 0.5 * self.overhead + 0.5 * overhead
            self._wall0, self._cpu0, self._stepping = now, cpu, 0.0

    def share(self) -> float:
        """Fraction of a core one playing session may spend stepping."""
        playing = max(1, REGISTRY.playing())
        return max(MIN_SESSION_SHARE, (self.target - self.overhead) / playing)

    def snapshot(self) -> dict:
        return {"cpu": self.cpu, "overhead": self.overhead, "share": self.share()}


#: the process's live sessions and its load (one server per process)
REGISTRY = CallbackRegistry()
LOAD = ServerLoad()
