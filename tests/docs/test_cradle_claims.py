"""What docs/cradle.rst says about gaps and contact times, measured by simulation (issue 24,
item 8: "each collision is over before the next begins" was false for its own 1 mm example
and for the default Hertz cradle)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from integrator_lab.core import Runner, get_system

PAGE = Path(__file__).resolve().parents[2] / "docs" / "cradle.rst"


def collide(**params):
    """Contact intervals ``(start, end)`` per neighbouring pair and each ball's peak speed,
    over the first impact (RK4 at a quarter of the recommended step, every step sampled)."""
    system = get_system("cradle", **params)
    p = system.params
    n, r, length, gap = p["balls"], p["radius"], p["length"], p["gap"]
    dt = system.recommended_dt / 4
    runner = Runner(system, ["rk4"], dt, capacity=None)
    runner.advance(round(0.4 / dt))
    on: dict[int, float] = {}
    intervals: dict[int, list[tuple[float, float]]] = {i: [] for i in range(n - 1)}
    peak = [0.0] * n
    for sample in runner.lanes[0].history:
        t, q, v = sample[0], sample[1 : 1 + n], sample[1 + n : 1 + 2 * n]
        x = [i * (2 * r + gap) + length * math.sin(a) for i, a in enumerate(q)]
        y = [-length * math.cos(a) for a in q]
        for i in range(n - 1):
            touching = 2 * r > math.hypot(x[i + 1] - x[i], y[i + 1] - y[i])
            if touching and i not in on:
                on[i] = t
            elif not touching and i in on:
                intervals[i].append((on.pop(i), t))
        peak = [max(s, abs(w) * length) for s, w in zip(peak, v)]
    return intervals, peak, dt


def first(intervals):
    return [intervals[i][0] for i in sorted(intervals)]


def test_the_page_no_longer_says_collisions_never_overlap():
    text = " ".join(PAGE.read_text(encoding="utf-8").split())
    assert "With gaps, each collision is over before the next begins" not in text
    assert "each contact begins 1.4 ms before the previous one ends" in text
    assert "contacts last 20 ms" in text and "overlaps the next by 7 ms" in text


def test_three_mm_gaps_separate_linear_collisions_by_about_a_millisecond():
    contacts, _, dt = collide(contact="linear", restitution=1.0, gap=0.003)
    pairs = first(contacts)
    for (begin, end), (start, _) in zip(pairs, pairs[1:]):
        assert start - begin == pytest.approx(6e-3, abs=0.25e-3)
        assert start - end == pytest.approx(1e-3, abs=0.25e-3)
    for start, end in pairs:  # pi sqrt(m_eff / k) = 4.97 ms for m_eff = 0.05 kg, k = 2e4 N/m
        assert end - start == pytest.approx(math.pi * math.sqrt(0.05 / 2e4), abs=2 * dt)


def test_one_mm_gaps_overlap_yet_the_last_ball_takes_the_whole_speed():
    contacts, peak, _ = collide(contact="linear", restitution=1.0, gap=0.001)
    pairs = first(contacts)
    for (_, end), (start, _) in zip(pairs, pairs[1:]):
        assert end - start == pytest.approx(1.4e-3, abs=0.15e-3)
    assert peak[-1] / peak[0] == pytest.approx(1.0, abs=0.005)


def test_the_default_hertz_contacts_last_20_ms_and_overlap_by_7():
    contacts, _, _ = collide()
    pairs = first(contacts)
    for start, end in pairs:
        assert end - start == pytest.approx(20e-3, abs=0.75e-3)
    for (_, end), (start, _) in zip(pairs, pairs[1:]):
        assert end - start == pytest.approx(7e-3, abs=0.75e-3)
