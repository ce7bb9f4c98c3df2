"""The ball box (DEM in two dimensions): what physics fixes about one ball, one contact, a pile.

A dropped ball rebounds to e^2 of its drop height; a linear contact lasts pi sqrt(m_eff/k); a
ball at rest sits at the static overlap m g / k (linear) or (m g / k)^(2/3) (Hertz); a pile
comes to rest under symplectic Euler and velocity Verlet and stays at rest (explicit Euler's
does not); total energy is conserved to each method's order. Geometry is recomputed here from
the model's definition (centres in q as x0, y0, x1, y1, ...; floor y = 0, walls x = 0 and W).
"""

from __future__ import annotations

import math

import pytest

from integrator_lab.core import Runner, get_integrator, get_system, simulate
from integrator_lab.core.contact import damping_for_restitution


def centres(q):
    return list(zip(q[0::2], q[1::2]))


def deepest_overlap(system, q):
    """The largest overlap of any two balls or of a ball and the floor or a wall (m)."""
    r, width = system.params["radius"], system.params["width"]
    points = centres(q)
    deepest = max(max(r - y, r - x, x + r - width) for x, y in points)
    for i, (xi, yi) in enumerate(points):
        for xj, yj in points[i + 1 :]:
            deepest = max(deepest, 2 * r - math.hypot(xj - xi, yj - yi))
    return deepest


# ---------------------------------------------------------------------------------------------
# the start


def test_one_ball_starts_above_the_middle_of_the_floor_at_rest():
    system = get_system("balls", count=1, drop_height=0.7, radius=0.05, width=1.0)
    q, v = system.initial_state()
    assert q == [0.5, 0.05 + 0.7] and v == [0.0, 0.0]


@pytest.mark.parametrize("count", [2, 12, 40])
def test_many_balls_start_loose_inside_the_box_above_the_drop_height_at_rest(count):
    system = get_system("balls", count=count, seed=7)
    p = system.params
    q, v = system.initial_state()
    assert len(q) == len(v) == 2 * count == system.ndof and v == [0.0] * (2 * count)
    points = centres(q)
    for x, y in points:
        assert p["radius"] <= x <= p["width"] - p["radius"]
        assert y - p["radius"] >= p["drop_height"]
    for i, (xi, yi) in enumerate(points):
        for xj, yj in points[i + 1 :]:
            assert math.hypot(xj - xi, yj - yi) > 2 * p["radius"]
    # the same start for every run, another for another seed
    assert get_system("balls", count=count, seed=7).initial_state()[0] == q
    assert get_system("balls", count=count, seed=8).initial_state()[0] != q


def test_the_scene_is_the_box_up_to_the_highest_ball_at_the_start():
    system = get_system("balls", count=40)
    r, width = system.params["radius"], system.params["width"]
    geometry = system.scene_geometry()
    assert (geometry.shape, geometry.body_width, geometry.body_height) == ("circle", 2 * r, 2 * r)
    x0, x1, y0, y1 = geometry.bounds
    assert (x0, x1, y0) == (0.0, width, 0.0)
    tops = [y + r for _, y in centres(system.initial_state()[0])]
    assert max(tops) == y1
    assert system.drawing(system.initial_state()[0]) == {
        "x": system.initial_state()[0][0::2],
        "y": system.initial_state()[0][1::2],
    }


def test_a_box_narrower_than_a_ball_is_refused_naming_the_width():
    with pytest.raises(ValueError, match=r"'width': got 0\.15, expected .* \[0\.2, 10\] m"):
        get_system("balls", radius=0.1, width=0.15)


def test_a_box_one_ball_wide_stacks_the_balls_without_overlap():
    system = get_system("balls", count=5, radius=0.1, width=0.2, drop_height=0.0)
    points = centres(system.initial_state()[0])
    assert [x for x, _ in points] == [0.1] * 5
    assert all(b[1] - a[1] > 0.2 for a, b in zip(points, points[1:]))


# ---------------------------------------------------------------------------------------------
# one contact


def contact_duration_and_restitution(system, q, v, dt):
    """Step ``q, v`` (velocity Verlet) through one contact; return its duration, measured
    from the zero crossings of the deepest overlap (linearly interpolated within the steps),
    and the restitution: the separation speed over the approach speed along the x axis."""
    integrator = get_integrator("velocity-verlet")
    before = deepest_overlap(system, q)
    assert before < 0
    approach = abs(v[2] - v[0]) if len(v) > 2 else abs(v[0])
    start = end = None
    w, t = 0.0, 0.0
    for _ in range(1_000_000):
        q, v, w = integrator.step(system, q, v, w, t, dt)
        t += dt
        now = deepest_overlap(system, q)
        if start is None and now > 0:
            start = t - dt * now / (now - before)
        elif start is not None and now <= 0:
            end = t - dt * now / (now - before)
            separation = abs(v[2] - v[0]) if len(v) > 2 else abs(v[0])
            return end - start, separation / approach
        before = now
    raise AssertionError("the contact did not end")


@pytest.mark.parametrize("count", [1, 2], ids=["ball-wall", "ball-ball"])
def test_a_linear_contact_lasts_pi_sqrt_m_eff_over_k(count):
    """Undamped (e = 1), no gravity: the overlap follows m_eff d'' = -k d, half a period.
    Against a wall (infinite mass) m_eff = m; between two equal balls m_eff = m/2. 2000
    steps per contact: the interpolated crossings are good to (dt)^2 relative."""
    k, m, r = 1e4, 0.5, 0.1
    system = get_system(
        "balls", count=count, gravity=0.0, restitution=1.0, stiffness=k, mass=m, radius=r
    )
    m_eff = m if count == 1 else m / 2
    expected = math.pi * math.sqrt(m_eff / k)
    dt = expected / 2000
    speed, y = 0.5, 0.5
    if count == 1:  # towards the left wall
        q, v = [r + 10 * dt * speed, y], [-speed, 0.0]
    else:  # head on, ball 0 moving, ball 1 at rest
        q, v = [0.5, y, 0.5 + 2 * r + 10 * dt * speed, y], [speed, 0.0, 0.0, 0.0]
    duration, restitution = contact_duration_and_restitution(system, q, v, dt)
    assert duration == pytest.approx(expected, rel=1e-5)
    assert restitution == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("law", ["linear", "hertz"])
@pytest.mark.parametrize("count", [1, 2], ids=["ball-wall", "ball-ball"])
@pytest.mark.parametrize("restitution", [0.3, 0.8])
def test_an_isolated_collision_has_the_restitution_asked_for(law, count, restitution):
    """The cradle's calibration (contact.damping_for_restitution), with the reduced mass of the
    pair: m against a wall, m/2 between two balls. 1%: the linear dashpot's force jumps at first
    touch, a first-order error of the step containing it (~0.3% at 400 steps per contact);
    the textbook damping would be 10% off at e = 0.3 and the wall's m_eff taken as m/2 5%."""
    k, m, r = 1e5, 0.5, 0.1
    system = get_system(
        "balls",
        count=count,
        gravity=0.0,
        restitution=restitution,
        stiffness=k,
        mass=m,
        radius=r,
        contact=law,
    )
    speed = 0.5
    m_eff = m if count == 1 else m / 2
    if law == "linear":
        duration = math.pi * math.sqrt(m_eff / k)
    else:  # Johnson, Contact Mechanics, eq. 11.24
        duration = 2.943 * (1.25 * m_eff / k) ** 0.4 * speed**-0.2
    dt = duration / 400
    y = 0.5
    if count == 1:
        q, v = [r + 10 * dt * speed, y], [-speed, 0.0]
    else:
        q, v = [0.5, y, 0.5 + 2 * r + 10 * dt * speed, y], [speed, 0.0, 0.0, 0.0]
    _, measured = contact_duration_and_restitution(system, q, v, dt)
    assert measured == pytest.approx(restitution, rel=0.01)
    assert damping_for_restitution(law, restitution) > 0


@pytest.mark.parametrize("law", ["linear", "hertz"])
@pytest.mark.parametrize("restitution", [0.5, 0.9])
def test_a_dropped_ball_rebounds_to_e_squared_of_its_drop_height(law, restitution):
    """The hard-sphere limit: after the bounce the ball leaves the floor at e times its impact
    speed sqrt(2 g h), so it rises to e^2 h. A contact of finite stiffness lasts t_c, during
    which gravity's impulse m g t_c acts too: it changes the speed at separation by at most
    g t_c, a relative e-error of g t_c / (e v), twice that in height. k = 1e7 makes that bound
    2% (linear, e = 0.5) to 9% (Hertz, e = 0.5); the textbook damping instead of the calibrated
    one would be off by 20% at e = 0.5. 200 steps per contact; velocity Verlet is exact in the
    free flight (a constant force)."""
    h, k = 0.2, 1e7
    system = get_system(
        "balls", count=1, restitution=restitution, contact=law, stiffness=k, drop_height=h
    )
    r, m, g = system.params["radius"], system.params["mass"], system.params["gravity"]
    speed = math.sqrt(2 * g * h)
    if law == "linear":
        contact = math.pi * math.sqrt(m / k)
    else:
        contact = 2.943 * (1.25 * m / k) ** 0.4 * speed**-0.2
    dt = contact / 200
    integrator = get_integrator("velocity-verlet")
    q, v = system.initial_state()
    w, t, touched, top = 0.0, 0.0, False, 0.0
    while not (touched and q[1] > r and v[1] < 0):
        q, v, w = integrator.step(system, q, v, w, t, dt)
        t += dt
        touched = touched or q[1] < r
        if touched and q[1] > r:
            top = max(top, q[1] - r)
    bound = 2 * g * contact / (restitution * speed)
    assert top == pytest.approx(restitution**2 * h, rel=bound)


@pytest.mark.parametrize(
    ("law", "stiffness"), [("linear", 4e3), ("hertz", 1e5)], ids=["linear", "hertz"]
)
def test_a_ball_at_rest_sits_at_the_static_overlap(law, stiffness):
    """k d = m g (linear) or k d^1.5 = m g (Hertz, the cradle's law k d^1.5): at rest, the
    contact carries the weight. A state at rest is a fixed point of every consistent method
    only where a(q) = 0, so once the dashpot has damped the bounce (decay rate ~ zeta omega
    ~ 10/s, 8 s: e^-80) the position is the equilibrium to rounding."""
    system = get_system(
        "balls", count=1, drop_height=0.0, contact=law, stiffness=stiffness, restitution=0.5
    )
    r, m, g = system.params["radius"], system.params["mass"], system.params["gravity"]
    expected = m * g / stiffness if law == "linear" else (m * g / stiffness) ** (2 / 3)
    for integrator in ("symplectic-euler", "velocity-verlet"):
        result = simulate(system, integrator, duration=8.0, every=1000)
        y = result.q[-1][1]
        assert r - y == pytest.approx(expected, rel=1e-9), integrator
        assert result.q[-1][0] == system.params["width"] / 2


# ---------------------------------------------------------------------------------------------
# a pile


@pytest.mark.parametrize("integrator", ["symplectic-euler", "velocity-verlet"])
def test_a_pile_of_twelve_settles_and_stays_settled(integrator):
    """By 6 s the fall's energy is gone into the dashpots: the kinetic energy left is below
    1e-3 of the potential energy released, and stays so to 10 s (frictionless disks can still
    creep: a bottom ball sliding on the floor loses nothing until it meets another; measured
    at most 4e-4 over seeds 1-6). Every ball stays inside the box and no ball moves by half
    its radius over the last 4 s. The bottom contacts carry about two balls' weight, an
    overlap of 2 m g / k = 0.05 r: 0.1 r allows a wedged contact twice that."""
    system = get_system("balls")
    assert system.params["count"] == 12
    r, width = system.params["radius"], system.params["width"]
    q0, v0 = system.initial_state()
    energy0 = sum(system.energy(q0, v0))
    runner = Runner(system, [integrator])
    lane = runner.lanes[0]
    runner.advance(round(6.0 / runner.dt))
    settled = list(lane.q)
    for _ in range(40):
        runner.advance(round(0.1 / runner.dt))
        assert lane.alive, lane.reason
        released = energy0 - lane.potential
        assert released > 0.5 * energy0  # (it fell)
        assert lane.kinetic < 1e-3 * released
        for x, y in centres(lane.q):
            assert 0.9 * r < x < width - 0.9 * r and y > 0.9 * r
        assert deepest_overlap(system, lane.q) < 0.1 * r
    moved = max(
        math.hypot(x - x0, y - y0) for (x, y), (x0, y0) in zip(centres(lane.q), centres(settled))
    )
    assert moved < 0.5 * r


def test_explicit_euler_pile_does_not_settle():
    """The counterpart: at the same step explicit Euler adds energy at every contact (its
    growth |1 + dt lambda| > 1 for dt omega = pi/16 when the damping ratio is below
    dt omega / 2, e = 0.8 here): its pile still holds a tenth of the energy released at 6 s."""
    system = get_system("balls")
    q0, v0 = system.initial_state()
    energy0 = sum(system.energy(q0, v0))
    runner = Runner(system, ["euler"])
    runner.advance(round(6.0 / runner.dt))
    lane = runner.lanes[0]
    assert lane.alive is False or lane.kinetic > 0.1 * (energy0 - lane.potential)


@pytest.mark.parametrize(("integrator", "order"), [("symplectic-euler", 1), ("velocity-verlet", 2)])
def test_total_energy_is_conserved_to_the_methods_order(integrator, order):
    """Elastic contacts (e = 1, linear: no dashpot, a force continuous at first touch):
    the largest error of kinetic + potential + dissipated over the fall and the first impacts
    (12 balls: on the floor and on each other) shrinks as dt^order. The step in which a
    contact begins leaves a constant that depends on where in the step it falls: the slope
    from dt to dt/4 is within 0.45 of the order (measured 1.0 and 2.4)."""
    system = get_system("balls", restitution=1.0)
    energy0 = sum(system.energy(*system.initial_state()))
    errors = []
    for dt in (1e-3, 2.5e-4):
        result = simulate(system, integrator, dt=dt, duration=0.8)
        assert result.dissipated[-1] == 0.0
        errors.append(max(abs(total - energy0) for total in result.total))
    slope = math.log(errors[0] / errors[1]) / math.log(4.0)
    assert slope == pytest.approx(order, abs=0.45)


# ---------------------------------------------------------------------------------------------
# the step, divergence, the cached contact search


def test_the_recommended_step_resolves_the_contact_and_scales_as_one_over_sqrt_k():
    soft = get_system("balls", contact="linear", stiffness=4e3)
    stiff = get_system("balls", contact="linear", stiffness=4e5)
    m = soft.params["mass"]
    contact = math.pi * math.sqrt(m / 2 / 4e3)  # two balls: m_eff = m / 2
    assert contact / 20 < soft.recommended_dt <= contact / 16
    assert stiff.recommended_dt == pytest.approx(soft.recommended_dt / 10, rel=0.6)
    one = get_system("balls", count=1, contact="linear", stiffness=4e3)
    assert one.recommended_dt <= math.pi * math.sqrt(m / 4e3) / 16  # a wall: m_eff = m


def test_a_ball_through_the_floor_ends_the_run_saying_so():
    # k = 10 N/m cannot hold 1 kg: the static overlap m g / k is 1 m, ten radii
    runner = Runner(get_system("balls", count=3, stiffness=10.0), ["symplectic-euler"])
    runner.advance(round(3.0 / runner.dt))
    lane = runner.lanes[0]
    assert lane.diverged_at is not None and "left the box" in lane.reason


def test_two_balls_overlapping_by_more_than_a_radius_is_a_divergence():
    system = get_system("balls", count=2, gravity=0.0)
    r = system.params["radius"]
    assert system.fault([0.5, 0.5, 0.5 + 1.1 * r, 0.5]) is None
    system.energy([0.5, 0.5, 0.5 + 0.9 * r, 0.5], [0.0] * 4)  # (a cached state, other q)
    assert system.fault([0.5, 0.5, 0.5 + 0.9 * r, 0.5]) == (
        "balls 0 and 1 overlap by more than a radius"
    )
    assert system.fault([-0.01, 0.5, 1.0, 0.5]) == "ball 0 left the box"


def test_forces_do_not_depend_on_what_was_evaluated_before():
    """The contact search keeps its neighbour lists between calls: forces and energy at a
    state are the same, to the bit, as those of a system that never saw another state."""
    system = get_system("balls", count=20)
    runner = Runner(system, ["rk4"], every=25)
    for _ in range(40):
        runner.advance(25)
        q, v = runner.lanes[0].q, runner.lanes[0].v
        fresh = get_system("balls", count=20)
        assert system.forces(q, v, 0.0) == fresh.forces(q, v, 0.0)
        assert system.energy(q, v) == fresh.energy(q, v)
