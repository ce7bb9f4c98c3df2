"""The energy view's range rule (views.energy), as pure functions and on the core's numbers.

What fixes the expectations: the rule's own contract (symmetric, robust to one outlier, a
floor, hysteresis) and the physics of the default systems: symplectic Euler's energy error
stays bounded (it conserves a modified energy), explicit Euler's grows on every oscillator
(|1 + h(−γ ± iω)| > 1 at these steps), so in the default view the first draws a band with
room around it and the second leaves the plot above zero with its label."""

from __future__ import annotations

import math

import pytest

from integrator_lab.core import DEFAULT_INTEGRATORS
from integrator_lab.views import energy
from integrator_lab.views.live import Live
from integrator_lab.views.shared import FRAME_SCENE, SAMPLE_COLUMNS


def test_nice_values_are_the_smallest_step_at_or_above():
    for value in (1e-9, 3.3e-7, 0.0123, 0.2, 1.0, 4.99, 7.6, 123.0):
        nice = energy.nice_above(value)
        assert nice >= value
        mantissa = nice / 10.0 ** math.floor(math.log10(nice) + 1e-12)
        assert any(math.isclose(mantissa, step) for step in energy.NICE)
        # the step before is below the value: it is the smallest one
        assert nice / value < max(b / a for a, b in zip(energy.NICE, energy.NICE[1:])) + 1e-9
    assert energy.nice_above(0.02) == pytest.approx(0.02)


def test_range_follows_the_largest_error_with_a_margin_when_none_runs_away():
    half = energy.half_range([0.01, 0.02, 0.004])
    assert half >= energy.MARGIN * 0.02
    assert half == energy.nice_above(energy.MARGIN * 0.02)


def test_one_runaway_method_does_not_squash_the_others():
    # explicit Euler at +330 %, symplectic Euler's band at 2 %
    half = energy.half_range([3.3, 0.02, 1e-4])
    assert energy.MARGIN * 0.02 <= half < 0.1
    assert energy.followed_error([3.3, 0.02, 1e-4]) == 0.02
    # two runaways: the second largest sets the range (one outlier only)
    assert energy.followed_error([3.3, 0.6, 0.02]) == 0.6
    # comparable errors: no outlier
    assert energy.followed_error([0.03, 0.02]) == 0.03


def test_a_loss_or_a_bounded_swing_never_runs_away():
    # implicit Euler loses nearly all the energy, implicit midpoint keeps it: the axis holds
    # the loss (at most E0 can be lost: a steady slope, not an explosion)
    assert energy.followed_error([(0.0, 0.99), (4e-4, 2e-4)]) == 0.99
    # symplectic Euler at a coarse step swings +17 %, RK4 drifts -0.2 %: a bounded swing
    # is followed, not clipped (it is no runaway, however far beyond RK4)
    assert energy.followed_error([(0.17, 0.08), (0.0, 0.002)]) == 0.17
    # explicit Euler's gain of +330 % is one
    assert energy.followed_error([(3.3, 0.0), (0.03, 0.029)]) == 0.03


def test_floor_keeps_rounding_noise_from_filling_the_plot():
    assert energy.half_range([1e-14, 3e-15]) == energy.nice_above(energy.FLOOR)
    assert energy.half_range([]) == energy.nice_above(energy.FLOOR)
    # diverged (infinite, NaN) sizes are left out
    assert energy.half_range([math.inf, math.nan, 0.01]) == energy.nice_above(0.015)


def test_hysteresis_keeps_the_range_until_it_is_outgrown_or_far_too_wide():
    first = energy.half_range([0.01])
    # a little less or a little more (within the range): unchanged
    assert energy.half_range([0.009], first) == first
    assert energy.half_range([first / energy.MARGIN], first) == first
    # outgrown: grows at once, to hold the new error with its margin
    grown = energy.half_range([first], first)
    assert grown >= energy.MARGIN * first
    # far inside (needs less than SHRINK of it): shrinks
    assert energy.half_range([0.001], first) < first


def test_clipped_marks_say_who_went_where_and_how_far():
    marks = energy.clipped_marks(
        {"euler": (10.0, 3.3), "rk4": (10.0, -1e-7), "implicit-euler": (10.0, -0.9)}, 0.05
    )
    assert [m["name"] for m in marks] == ["euler", "implicit-euler"]
    assert marks[0]["text"] == "euler +330 % ↑" and marks[0]["y"] == 0.05
    assert marks[1]["text"] == "implicit-euler −90 % ↓" and marks[1]["y"] == -0.05
    cols = energy.marks_columns(marks, {"euler": "#d55e00"})
    assert cols["color"][0] == "#d55e00" and cols["marker"] == ["triangle", "inverted_triangle"]
    assert set(cols) == set(energy.MARK_COLUMNS)


def test_percent_text_always_prints_the_sign():
    assert energy.percent_text(3.3) == "+330 %"
    assert energy.percent_text(-0.0052) == "−0.52 %"
    assert energy.percent_text(123.4).startswith("+1.2e+04")
    assert energy.percent_text(math.inf) == "+∞ %"


def test_log_view_draws_the_running_maximum_with_its_sign():
    errors = [0.0, 1e-3, -2e-3, 1e-3, -1e-3, 5e-3]
    gain, loss, state = energy.running_log_columns(errors)
    drawn = [g if g == g else lo for g, lo in zip(gain, loss)]
    # never decreasing: a bounded error levels off instead of crossing ten decades
    assert all(b >= a for a, b in zip(drawn, drawn[1:]))
    assert drawn[-1] == pytest.approx(math.log10(5e-3))
    assert loss[3] == pytest.approx(math.log10(2e-3)) and gain[3] != gain[3]  # dashed: a loss
    assert state == {"size": 5e-3, "sign": 1}
    # where the sign of the maximum changes, both lines hold the sample: no gap
    assert gain[2] == loss[2]


def _run(system, seconds, integrators=DEFAULT_INTEGRATORS):
    """What the page's worker computes after ``seconds`` of ``system``: every sample's
    columns per lane and the energy view (as the frames carry it)."""
    live = Live()
    live.configure(system, {}, None, list(integrators))
    run = live.runs[system]
    run.runner.advance(int(round(seconds / run.dt)))
    frame = run.frame(True)
    data = frame["data"]
    counts = run.scene.counts()
    at = sum(counts[role] * len(cols) for role, cols in FRAME_SCENE)
    lanes = {}
    for name, n in frame["lanes"]:
        lanes[name] = {}
        for c in SAMPLE_COLUMNS:
            lanes[name][c] = list(data[at : at + n])
            at += n
    return lanes, frame["energy"]


@pytest.mark.parametrize("system", ["pendulum", "cradle", "spring"])
def test_default_view_draws_a_band_for_symplectic_euler_and_clips_explicit_euler(system):
    lanes, view = _run(system, 10.0)
    low, high = view["linear"]
    assert low == -high  # symmetric about zero
    band = [e for e in lanes["symplectic-euler"]["error"] if math.isfinite(e)]
    # a band with room around it: at most 3/4 of the height, clear of the top and bottom tenth
    assert (max(band) - min(band)) / (high - low) <= 0.75
    assert max(band) < 0.8 * high and min(band) > 0.8 * low
    # explicit Euler gained energy and left the plot at its top, labelled
    euler = lanes["euler"]["error"]
    last = [e for e in euler if math.isfinite(e)][-1]
    assert last > high
    clipped = dict(zip(view["clipped"]["name"], view["clipped"]["text"]))
    assert clipped["euler"].startswith("euler +") and clipped["euler"].endswith("↑")
    assert "symplectic-euler" not in clipped


def test_energy_bars_grow_from_the_start_by_order_of_magnitude_with_an_arrow():
    layout = energy.bar_layout([(0.0, 1.0, -1.0, 0.0), (1.0, 2.0, -1.0, 0.0)], [0.1, 0.1])
    assert layout["x0"][0] < layout["xm"][0] < layout["x1"][0] <= 1.0  # within its lane
    cols = energy.bars_columns(
        layout,
        ["euler", "implicit-euler", "rk4"],
        {"euler": (1.0, 3.3), "implicit-euler": (1.0, -0.5)},
    )
    # two lanes laid out: two bars; a gain fills from the start's tick rightwards, a loss
    # leftwards: +330 % is past the scale's top (100 %), a whole half; -50 % is 10^4.7 times
    # the floor (0.001 %), 4.7 of the scale's 5 decades
    assert cols["name"] == ["euler", "implicit-euler"]
    xm, x0, x1 = cols["xm"], cols["x0"], cols["x1"]
    assert (cols["fl"][0], cols["fr"][0]) == (xm[0], x1[0])
    assert cols["fr"][1] == xm[1]
    expected = math.log10(0.5 / 1e-5) / 5.0
    assert xm[1] - cols["fl"][1] == pytest.approx(expected * (xm[1] - x0[1]))
    assert cols["text"] == ["▲ 330 %", "▼ 50.00 %"]
    assert cols["fill"] == [energy.BAR_GAIN, energy.BAR_LOSS]
    assert energy.bar_text(-1e-7) == "0.00 %" and energy.bar_text(0.0052) == "▲ 0.52 %"
    assert energy.bar_text(-3e-4) == "▼ 0.03 %"


def test_a_bar_of_3_percent_is_more_than_twice_one_of_0_03_percent():
    # the case: +2.9 % and -0.03 % drew bars of one length (E/E0 on a linear track)
    small, large = energy.bar_share(3e-4), energy.bar_share(3e-2)
    assert large / small > 2.0
    assert energy.bar_share(1e-6) == 0.0 and energy.bar_share(5.0) == 1.0
    assert energy.bar_share(float("inf")) == 1.0


#: colour-vision deficiencies, severity 1 (Machado, Oliveira & Fernandes 2009, Table 1), on
#: linear RGB
CVD = {
    "normal": ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "tritanopia": (
        (1.255528, -0.076749, -0.178779),
        (-0.078411, 0.930809, 0.147602),
        (0.004733, 0.691367, 0.303900),
    ),
}


def _lab(colour: str, vision: str) -> tuple[float, float, float]:
    """CIELAB (D65) of sRGB ``colour`` as seen with ``vision``."""

    def linear(c: int) -> float:
        x = c / 255.0
        return x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4

    rgb = [linear(int(colour[i : i + 2], 16)) for i in (1, 3, 5)]
    r, g, b = (min(1.0, max(0.0, sum(m * c for m, c in zip(row, rgb)))) for row in CVD[vision])
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def test_the_gain_colour_is_no_lanes_colour_with_any_colour_vision():
    from integrator_lab.views.integrators import INTEGRATOR_COLORS, USER_COLOR

    lanes = [*INTEGRATOR_COLORS.values(), USER_COLOR]
    for vision in CVD:
        gain, loss = _lab(energy.BAR_GAIN, vision), _lab(energy.BAR_LOSS, vision)
        # a CIELAB distance of 10 and more: two colours seen as different at a glance
        assert min(math.dist(gain, _lab(c, vision)) for c in lanes) > 10.0, vision
        assert math.dist(gain, loss) > 30.0, vision


@pytest.mark.parametrize("system", ["pendulum", "cradle", "spring"])
def test_each_lanes_bar_has_room_of_its_own_beside_or_under_its_label(system):
    """The pendulum's and the cradle's lanes are cells a third of a phone's width or less,
    where "symplectic-euler" (about 90 px at 11 px bold) ran into a bar beside it: there the
    bar has its own row under the label, from the label's left, inside the lane; the
    spring's lanes are rows across the scene, with room for the label and the bar side by
    side on the label's strip."""
    live = Live()
    live.configure(system, {}, None, list(DEFAULT_INTEGRATORS))
    run = live.runs[system]
    scene, bars = run.scene, run.energy.bars
    labels = scene.fixtures
    for i, (bx0, bx1, by0, by1) in enumerate(scene.boxes):
        x0, x1, y, h = bars["x0"][i], bars["x1"][i], bars["y"][i], bars["h"][i]
        assert bx0 <= x0 < bars["xm"][i] < x1 <= bx1  # within its lane, the 100 % tick inside
        assert h > 0
        if scene.in_rows:
            # on the label's strip (its height), in the right third of the row
            assert y == pytest.approx(labels["ly"][i])
            assert x0 > bx0 + 0.6 * (bx1 - bx0)
            assert bars["talign"][i] == "right"
        else:
            strip = labels["ly"][i] - by1  # half the label's strip, above the bodies' box
            assert strip > 0
            assert x0 == pytest.approx(labels["lx"][i])  # under the label, from its left
            assert y + h / 2 < labels["ly"][i] - strip  # wholly below the label's strip
            assert y - h / 2 > by0  # and inside the lane
            # its percentage after it, on its row, still inside the lane's left half
            assert bars["tx"][i] > x1 and bars["ty"][i] == pytest.approx(y)
            assert bars["talign"][i] == "left"
            assert x1 - bx0 < 0.5 * (bx1 - bx0)


def test_a_diverged_lane_shows_its_note_and_no_bar():
    """Explicit Euler diverges on the cradle at its default step (the contact's stiff
    spring: |1 + h·λ| > 1 for its fastest mode); its lane's "diverged at" note takes the
    bar's place and the other lanes keep theirs."""
    live = Live()
    live.configure("cradle", {}, None, list(DEFAULT_INTEGRATORS))
    run = live.runs["cradle"]
    run.runner.advance(int(round(10.0 / run.dt)))
    frame = run.frame(True)
    lanes = dict(zip(run.integrators, run.runner.lanes))
    assert lanes["euler"].diverged_at is not None
    assert all(lanes[n].diverged_at is None for n in run.integrators if n != "euler")
    bars = frame["energy"]["bars"]
    assert "euler" not in bars["name"]
    assert bars["name"] == [n for n in run.integrators if n != "euler"]
