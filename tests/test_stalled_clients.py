"""The Panel server's stalled-client watchdog (``server.sessions.CallbackRegistry``): a page
that has owed an acknowledgement for longer than the timeout loses its session, unless the
server itself was too busy to read what the pages sent (a document being built blocks its
loop; on a loaded machine that has ended the sessions of pages that were fine)."""

from __future__ import annotations

import time

import pytest

sessions = pytest.importorskip("integrator_lab.server.sessions")


class Session:
    """What the registry asks of a session: stand-in for a Dashboard that owes an
    acknowledgement since ``owed_since`` (perf_counter seconds)."""

    def __init__(self, owed_since: float):
        self.owed_since = owed_since
        self.acknowledged = 1
        self.playing = True
        self.ended = None

    def stalled_for(self, now: float) -> float:
        return now - self.owed_since

    def end(self, reason: str) -> None:
        self.ended = reason


def test_a_client_that_owes_past_the_timeout_is_ended_and_one_within_it_is_not():
    registry = sessions.CallbackRegistry()
    now = time.perf_counter()
    late, fresh = Session(now - 31.0), Session(now - 1.0)
    registry.started(late)
    registry.started(fresh)
    registry.end_stalled(30.0)  # first look
    assert late.ended is not None and "30 s" in late.ended
    assert fresh.ended is None


def test_no_session_is_ended_on_a_look_that_comes_late_after_a_busy_server(monkeypatch):
    registry = sessions.CallbackRegistry()
    clock = [1000.0]
    monkeypatch.setattr(sessions.time, "perf_counter", lambda: clock[0])
    session = Session(owed_since=clock[0])
    registry.started(session)
    registry.end_stalled(30.0)  # looked at 1000 s: owes for 0 s
    # the loop was blocked for 40 s: the page's acknowledgements wait unread in the socket
    clock[0] += 40.0
    registry.end_stalled(30.0)
    assert session.ended is None
    # read now: it acknowledged, owes nothing (a session that still owes is ended a look later)
    clock[0] += 0.5
    session.owed_since = clock[0]
    registry.end_stalled(30.0)
    assert session.ended is None
    still_owing = Session(owed_since=clock[0] - 35.0)
    registry.started(still_owing)
    clock[0] += 0.5
    registry.end_stalled(30.0)
    assert still_owing.ended is not None and session.ended is None


def test_a_page_that_never_acknowledged_is_still_loading_for_the_first_ack_grace():
    """Before its first acknowledgement a page may be building its document on a busy
    machine (measured: 64 s): it is ended only after ``FIRST_ACK_GRACE``, not the timeout."""
    registry = sessions.CallbackRegistry()
    now = time.perf_counter()
    grace = sessions.FIRST_ACK_GRACE
    assert grace >= 64.0 * 1.5  # the slowest first acknowledgement measured, with a margin
    loading, gone = Session(now - (grace - 5.0)), Session(now - (grace + 5.0))
    for session in (loading, gone):
        session.acknowledged = 0
        registry.started(session)
    registry.end_stalled(30.0)
    assert loading.ended is None
    assert gone.ended is not None and f"{grace:g} s" in gone.ended
