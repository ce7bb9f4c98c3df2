"""The Panel server's flow control (``server.sessions.browser_ready``): a session sends its
page an update only when the page has shown (nearly) all it was sent. Played out against a
simulated page that paints each update in a fixed time and acknowledges every
``ACK_EVERY``-th once painted, as ``web/server/js/apply_frames.js`` does, with the server's
tick and the stalled-client watchdog's bookkeeping of ``web/server/flow.py``.

The property: a slow page gets fewer updates, never a growing queue; the time it owes an
acknowledgement stays a few of its paints, far from the stalled-client timeout (a fixed
one-update-a-second timeout let a page that paints slower than that fall behind without
bound, and CI saw such pages' sessions ended as stalled)."""

from __future__ import annotations

import pytest

sessions = pytest.importorskip("integrator_lab.server.sessions")

TICK = 0.045  # s, the session's callback period (server.flow.TICK_MS)
RUN = 180.0  # s simulated


def simulate(paint: float | None, loading: float = 0.0, run: float = RUN) -> dict:
    """Serve a page for ``run`` seconds: updates sent before ``loading`` s are lost (the
    page's document is not up yet); after that the page paints each in ``paint`` seconds, one
    after the other (``None``: it never acknowledges, a client without JavaScript).
    Returns the updates sent, the first painted, the longest the server was owed an
    acknowledgement (the watchdog's measure) and the longest queue at the page."""
    sent: list[float] = []  # when each update (sequence number i + 1) was sent
    queue: list[int] = []  # sequence numbers waiting at the page, oldest first
    painting_until = 0.0
    acks: list[tuple[float, int]] = []  # (when it reaches the server, sequence number)
    acked, last_ack, last_update = 0, 0.0, 0.0
    due: tuple[int, float] | None = None  # oldest update owing an acknowledgement
    longest_owed, longest_queue, first_painted = 0.0, 0, None
    t = 0.0
    while t < run:
        # the page: paints what came, in order
        while paint is not None and queue and painting_until <= t:
            seq = queue.pop(0)
            painting_until = max(painting_until, sent[seq - 1], loading) + paint
            if first_painted is None:
                first_painted = painting_until
            if seq % sessions.ACK_EVERY == 0 or seq == 1:  # (the first carries fresh data)
                acks.append((painting_until, seq))
        # the server's tick: the acknowledgements come in, then maybe an update goes out
        for when, seq in [a for a in acks if a[0] <= t]:
            acks.remove((when, seq))
            acked, last_ack = max(acked, seq), t
            if due is not None and acked >= due[0]:
                due = None
        ready = sessions.browser_ready(
            len(sent) - acked,
            acknowledged=acked > 0,
            since_update=t - last_update,
            since_ack=t - last_ack,
        )
        if ready:
            sent.append(t)
            last_update = t
            seq = len(sent)
            if t >= loading:
                queue.append(seq)
            if (seq % sessions.ACK_EVERY == 0 or seq == 1) and due is None:
                due = (seq, t)
        if due is not None:
            longest_owed = max(longest_owed, t - due[1])
        longest_queue = max(longest_queue, len(queue))
        t += TICK
    return {
        "sent": len(sent),
        "first_painted": first_painted,
        "owed": longest_owed,
        "queue": longest_queue,
    }


@pytest.mark.parametrize("paint", [0.02, 0.1, 0.5, 1.5, 3.0])
def test_a_slow_page_gets_fewer_updates_and_no_growing_queue(paint):
    result = simulate(paint, loading=2.0)
    # at most MAX_UNACKED + 1 updates wait at the page once it acknowledges (a few more may
    # have come while it loaded its first); it is owed for a few paints, never a timeout
    assert result["queue"] <= sessions.MAX_UNACKED + 1 + 2.0 / sessions.ACK_TIMEOUT, result
    assert result["owed"] <= (sessions.MAX_UNACKED + 3) * paint + sessions.RESEND_TIMEOUT, result
    assert result["owed"] < 30.0 / 2, result  # server.sessions.STALLED_CLIENT_TIMEOUT: 30 s
    # and it is not starved: about one update per paint (every tick when it paints faster)
    assert result["sent"] >= 0.8 * RUN / max(paint, TICK) - 5, result


def test_a_page_that_lost_what_came_while_it_loaded_gets_an_update_within_a_second():
    result = simulate(0.05, loading=4.0)
    assert 4.0 < result["first_painted"] <= 4.0 + sessions.ACK_TIMEOUT + TICK + 0.05, result


def test_a_client_that_never_acknowledges_still_gets_an_update_a_second():
    result = simulate(None, run=60.0)
    assert (
        60.0 / (sessions.ACK_TIMEOUT + TICK) - 1
        <= result["sent"]
        <= 60.0 / sessions.ACK_TIMEOUT + 3
    )
