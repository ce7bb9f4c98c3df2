"""A study run in slices keeps each slice short: the integrated reference goes a few internal
steps at a time (a Newton's cradle's whole output interval took 0.35 s, against the page's
6 ms a tick) and lands on exactly the numbers of one uninterrupted run."""

from __future__ import annotations

from integrator_lab.core import get_system
from integrator_lab.core.integrators.adaptive import RK45
from integrator_lab.core.study import REFERENCE_PIECE_STEPS, REFERENCE_SAMPLES, Reference


def test_the_reference_in_pieces_is_bit_for_bit_the_reference_in_one_go():
    system = get_system("cradle")
    whole = Reference(system, 0.5)
    whole.advance(REFERENCE_SAMPLES)
    pieces = Reference(system, 0.5)
    calls = 0
    worst = 0
    while not pieces.done:
        before = [s.internal_steps + s.rejected_steps for s in pieces._solvers]
        pieces.advance_piece()
        after = [s.internal_steps + s.rejected_steps for s in pieces._solvers]
        worst = max(worst, *(a - b for a, b in zip(after, before)))
        calls += 1
    assert worst <= REFERENCE_PIECE_STEPS
    assert calls > 2 * REFERENCE_SAMPLES  # the cradle's intervals did need cutting
    assert (pieces.q, pieces.v) == (whole.q, whole.v)
    assert pieces.error == whole.error
    assert (pieces.scale_q, pieces.scale_v) == (whole.scale_q, whole.scale_v)


def test_rk45_resumed_takes_the_steps_of_one_call():
    system = get_system("pendulum", theta0=3.0)
    q, v = system.initial_state()
    one = RK45(1e-12, 1e-15)
    expected = one.step(system, q, v, 0.0, 0.0, 2.0)
    cut = RK45(1e-12, 1e-15)
    state, t = (q, v, 0.0), 0.0
    while t < 2.0:
        state, t = cut.reach(system, *state, t, 2.0, 2.0, max_steps=3)
    assert state == expected
    assert cut.internal_steps == one.internal_steps > 3
