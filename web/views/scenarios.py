"""The lessons: one-click scenarios, each a view of the lab (a URL query) and two sentences
of what to look for, stated once for the static page, the Panel dashboard and the docs.

A lesson's ``query`` uses the page's link syntax (``static/js/urlstate.js``): ``systems``,
``integrators``, ``speed``, ``play``/``exact``/``log``/``phase`` (0 or 1), ``energy`` and
``<system>.dt`` / ``<system>.<parameter>`` and ``geometry`` (the panels whose geometry view is
open). What the sentences claim is checked against the
core by ``tests/views/test_lessons.py``; keep them true when a lesson or the core changes.

Standard library only, like :mod:`integrator_lab.views.shared`: no Bokeh or Panel.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from integrator_lab.core import INTEGRATORS, SYSTEMS
from integrator_lab.views.shared import DT_RANGE, PANEL_SYSTEMS, SPEED_RANGE

#: the page's 0/1 settings: query key -> state field (as in urlstate.js)
FLAGS = {"play": "playing", "exact": "exact", "log": "log", "phase": "phase"}
ENERGY_MODES = ("error", "breakdown")


@dataclass(frozen=True)
class Claim:
    """What a lesson's note says its energy plot shows, checked on the numbers the page plots
    (:func:`claim_value`): on ``system``, ``integrator``'s signed relative energy error
    (``kind="error"``: its value at time ``t``, a gain above zero), or the largest size of it
    so far (``kind="max"``: what the log view draws at ``t``), lies in ``[low, high]``; or
    (``kind="diverged"``) the integrator is marked diverged before ``t``."""

    system: str
    integrator: str
    t: float
    low: float = -math.inf
    high: float = math.inf
    kind: str = "error"


def claim_value(claim: Claim, t: Iterable[float], error: Iterable[float]) -> float:
    """What ``claim`` is about, from one integrator's plotted samples (``t`` and ``error``
    columns, in time order): the error at the last sample at or before ``claim.t`` (``kind``
    "error"), or the largest finite ``|error|`` up to there ("max"); NaN without a sample."""
    value = math.nan
    largest = math.nan
    for time, e in zip(t, error):
        if time > claim.t + 1e-9:
            break
        value = e
        if math.isfinite(e) and not abs(e) <= largest:
            largest = abs(e)
    return largest if claim.kind == "max" else value


def claim_holds(claim: Claim, value: float) -> bool:
    """Whether ``value`` (:func:`claim_value`) is what the note says."""
    return math.isfinite(value) and claim.low <= value <= claim.high


@dataclass(frozen=True)
class Scenario:
    """One lesson: ``id`` (the page's ``lesson=`` value), a short ``title``, the view as a
    URL ``query`` (the axis, systems, integrators, speed that show its point), ``look_for``,
    two sentences of what to look for there in the words of what is drawn, and the
    ``claims`` those sentences make about the energy plot (:class:`Claim`)."""

    id: str
    title: str
    query: str
    look_for: str
    claims: tuple[Claim, ...] = ()

    def link_query(self) -> str:
        """The query of the page that shows this lesson: its view and its note."""
        return f"lesson={self.id}&{self.query}"

    def settings(self) -> dict[str, Any]:
        """This lesson's settings, validated (see :func:`parse_query`)."""
        return parse_query(self.query)


SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "euler-blows-up",
        "Explicit Euler blows up",
        "systems=spring,cradle&integrators=euler,symplectic-euler&spring.damping=0&spring.dt=0.05",
        "Explicit Euler adds energy at every step: its energy error climbs above zero and "
        "leaves the plot at the top, where its label says how far it went (over +100 % after "
        "1 s on the spring); its block swings wider and wider until, after about 6 s, it is "
        "marked diverged. On the cradle the same happens within a few seconds, while "
        "symplectic Euler, at the same steps, keeps both going: its error stays a band about "
        "zero (within ±15 % on the spring).",
        (
            Claim("spring", "euler", 1.0, low=1.0),
            Claim("spring", "euler", 7.5, kind="diverged"),
            Claim("spring", "symplectic-euler", 5.0, 0.0, 0.15, kind="max"),
            Claim("cradle", "euler", 6.0, kind="diverged"),
            Claim("cradle", "symplectic-euler", 5.0, 0.0, 0.15, kind="max"),
        ),
    ),
    Scenario(
        "symplectic-bounded",
        "Symplectic Euler keeps energy bounded",
        "systems=pendulum,spring&integrators=symplectic-euler,rk4&speed=4&log=1"
        "&pendulum.dt=0.1&spring.damping=0&spring.dt=0.1",
        "This log view draws each method's largest energy error so far (solid while a gain, "
        "dashed while a loss). At a coarse 0.1 s step symplectic Euler's error swings to both "
        "sides of zero, up to about 17 % on the pendulum and 24 % on the spring, but the "
        "swings never grow: its line is flat, however long the run (here at 4× speed). RK4 "
        "starts a hundred times lower, yet its dashed line climbs every second: its error "
        "sinks further below zero and never comes back (on the pendulum −0.05 % at 5 s, "
        "−0.09 % at 10 s).",
        (
            Claim("pendulum", "symplectic-euler", 5.0, 0.15, 0.19, kind="max"),
            Claim("pendulum", "symplectic-euler", 20.0, 0.15, 0.19, kind="max"),
            Claim("spring", "symplectic-euler", 5.0, 0.22, 0.26, kind="max"),
            Claim("spring", "symplectic-euler", 20.0, 0.22, 0.26, kind="max"),
            Claim("pendulum", "rk4", 5.0, -0.0006, -0.0004),
            Claim("pendulum", "rk4", 10.0, -0.0011, -0.0008),
            Claim("spring", "rk4", 10.0, high=-0.002),
        ),
    ),
    Scenario(
        "rk4-loses",
        "RK4 loses energy at dt = 0.25",
        "systems=spring&integrators=rk4,velocity-verlet&spring.damping=0&spring.dt=0.25",
        "The classic case of Glenn Fiedler's “Integration Basics”: an undamped spring "
        "(k = 15 N/m, m = 1 kg) at dt = 0.25 s. RK4, fourth order, loses about 1 % of the "
        "energy every step, so its error sinks steadily, a slope down (a third of the energy "
        "gone after 10 s), and its block's swings shrink, while velocity Verlet's error dips "
        "(to about −23 %) and comes back to zero every half period, with no drift.",
        (
            Claim("spring", "rk4", 5.0, -0.2, -0.15),
            Claim("spring", "rk4", 10.0, -0.38, -0.3),
            Claim("spring", "velocity-verlet", 5.0, 0.2, 0.25, kind="max"),
            Claim("spring", "velocity-verlet", 10.0, 0.2, 0.25, kind="max"),
        ),
    ),
    Scenario(
        "implicit-damps",
        "Implicit Euler damps",
        "systems=pendulum,spring&integrators=implicit-euler,implicit-midpoint"
        "&pendulum.dt=0.05&spring.damping=0&spring.dt=0.05",
        "Nothing here is damped, yet implicit Euler's pendulum and spring come to rest: its "
        "energy error slopes down towards −100 % (below −98 % after 10 s), energy destroyed "
        "by the method alone (numerical dissipation). Implicit midpoint, implicit too but "
        "symplectic, keeps the energy: its error stays on the zero line (within 0.05 % on the "
        "pendulum, rounding on the spring).",
        (
            Claim("pendulum", "implicit-euler", 10.0, -1.0, -0.98),
            Claim("spring", "implicit-euler", 10.0, -1.0, -0.98),
            Claim("pendulum", "implicit-midpoint", 10.0, 0.0, 0.0005, kind="max"),
            Claim("spring", "implicit-midpoint", 10.0, 0.0, 1e-12, kind="max"),
        ),
    ),
    Scenario(
        "stiff-cradle",
        "A stiffer cradle needs a smaller dt",
        "systems=cradle&integrators=symplectic-euler,velocity-verlet,rk4"
        "&cradle.stiffness=20000000&cradle.dt=0.001",
        "The contacts are 1000× stiffer than the default, so a collision is much shorter and "
        "the recommended step drops from 1 ms to 0.05 ms; at the old 1 ms step every "
        "integrator's contact blows up within the first second and is marked diverged. Set "
        "dt to the recommended 5e-05 s and the same cradle runs fine.",
        (
            Claim("cradle", "symplectic-euler", 1.0, kind="diverged"),
            Claim("cradle", "velocity-verlet", 1.0, kind="diverged"),
            Claim("cradle", "rk4", 1.0, kind="diverged"),
        ),
    ),
    Scenario(
        "damping-per-step",
        "Damping per step (game-engine drag)",
        "systems=spring&integrators=symplectic-euler,rk4&speed=0.5&spring.damping=2&spring.dt=0.1",
        "Symplectic Euler, the game engines' integrator, shrinks the spring's phase-space area "
        "by the factor 1 − b·dt/m at every step, as Unity's linear drag multiplies the velocity "
        "by 1 − k·dt: at dt = 0.1 s its block comes to rest sooner than the dashed exact "
        "ghost (half the exact energy left after 3 s), while RK4 follows the ghost. The "
        "energy plot keeps the books: kinetic + potential + the damping work each method "
        "integrates, against E₀. The exact motion's books stay on the zero line, labelled "
        "“exact”; RK4's stay on it (within 0.1 %), symplectic Euler's sit above it, about "
        "+4 % after 3 s: it books more damping work than the energy its motion lost. "
        "Game-engine drag has the same flaw (the drag system is not "
        "on this page: `integrator-lab run drag --set model=unity --dt 0.1 --duration 30`): "
        "its terminal velocity F/(m k)·(1 − k·dt) is 19 m/s at dt = 0.1 s instead of 20 m/s.",
        (
            Claim("spring", "symplectic-euler", 3.0, 0.03, 0.06),
            Claim("spring", "rk4", 3.0, -0.001, 0.001),
        ),
    ),
    Scenario(
        "stability-limit",
        "Slide dt across the stability limit",
        "systems=spring&integrators=velocity-verlet,rk4&spring.damping=0&spring.stiffness=60"
        "&spring.dt=0.2&geometry=spring",
        "The Geometry view shows where each method is stable and where the spring sits: with "
        "k = 60 N/m (ω = 7.75 /s) its points dt·λ = ±1.55i lie inside both regions at "
        "dt = 0.2 s. Type a dt past 2/ω = 0.258 s and velocity Verlet's points leave its "
        "region and turn grey while its block runs away and is marked diverged; RK4's hold "
        "up to 2√2/ω = 0.365 s. Stable is not exact: at dt = 0.2 s Verlet's energy error "
        "dips at most (hω)²/4 = 60 % below zero and comes back, while RK4 keeps "
        "87 % of the energy each step (its stability function at ihω, squared), three "
        "quarters lost after 2 s.",
        (
            # velocity Verlet on q'' = -w^2 q from rest: E/E0 = 1 - (h w)^2/4 sin^2(...)
            # (its modified energy), so the error lies in [-(h w)^2/4, 0] = [-0.6, 0]
            Claim("spring", "velocity-verlet", 10.0, 0.0, 0.6 + 1e-9, kind="max"),
            # RK4 multiplies the energy by |R(i h w)|^2 = 1 - x^6/72 + x^8/576 = 0.8656 a step
            # (x^2 = 2.4): 9 to 11 steps by t = 2 s give -0.727 to -0.795
            Claim("spring", "rk4", 2.0, -0.80, -0.72),
        ),
    ),
    Scenario(
        "ring-area",
        "Euler's ring grows, Verlet's keeps its area",
        "systems=pendulum&integrators=euler,velocity-verlet&pendulum.dt=0.02&geometry=pendulum",
        "In the Geometry view a ring of start states is carried by each method: explicit "
        "Euler's ring swells, its area more than doubled within 10 s, while velocity Verlet's "
        "ring shears but keeps its area (ratio 1). Keeping phase-space area is what makes a "
        "method symplectic, and why Verlet's energy error stays bounded: on the energy plot "
        "Euler's climbs, Verlet's stays within 1 % of zero.",
        (
            Claim("pendulum", "euler", 10.0, low=0.0),
            Claim("pendulum", "velocity-verlet", 10.0, 0.0, 0.01, kind="max"),
        ),
    ),
)

BY_ID = {s.id: s for s in SCENARIOS}


def get_scenario(scenario_id: str) -> Scenario:
    """The lesson called ``scenario_id``; an unknown id is an error listing the valid ones."""
    try:
        return BY_ID[scenario_id]
    except KeyError:
        raise ValueError(
            f"lesson: got {scenario_id!r}, expected one of {', '.join(BY_ID)}"
        ) from None


def _number(key: str, raw: str, low: float, high: float, unit: str = "") -> float:
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and low <= value <= high):
        raise ValueError(f"{key!r}: got {raw!r}, expected a number in [{low:g}, {high:g}]{unit}")
    return value


def parse_query(query: str) -> dict[str, Any]:
    """The settings a page query sets, validated as the page validates them: ``systems``,
    ``integrators`` (lists), ``speed``, ``playing``/``exact``/``log``/``phase`` (bools),
    ``energy``, ``dt`` (``{system: s}``) and ``params`` (``{system: {name: value}}``);
    what the query leaves out is left out. Anything the page would refuse raises
    ``ValueError`` naming the key."""
    out: dict[str, Any] = {"dt": {}, "params": {}}
    for key, raw in parse_qsl(query, keep_blank_values=True, strict_parsing=True):
        if key in ("systems", "integrators"):
            valid = PANEL_SYSTEMS if key == "systems" else tuple(INTEGRATORS)
            names = [n.strip() for n in raw.split(",") if n.strip()]
            bad = [n for n in names if n not in valid]
            if bad or not names or len(set(names)) != len(names):
                raise ValueError(
                    f"{key!r}: got {raw!r}, expected distinct names among {', '.join(valid)}"
                )
            out[key] = names
        elif key == "speed":
            out["speed"] = _number(key, raw, *SPEED_RANGE)
        elif key in FLAGS:
            if raw not in ("0", "1"):
                raise ValueError(f"{key!r}: got {raw!r}, expected 0 or 1")
            out[FLAGS[key]] = raw == "1"
        elif key == "geometry":
            names = [n.strip() for n in raw.split(",") if n.strip()]
            if not names or any(n not in PANEL_SYSTEMS for n in names):
                raise ValueError(
                    f"{key!r}: got {raw!r}, expected names among {', '.join(PANEL_SYSTEMS)}"
                )
            out["geometry"] = names
        elif key == "energy":
            if raw not in ENERGY_MODES:
                raise ValueError(f"{key!r}: got {raw!r}, expected one of {ENERGY_MODES}")
            out["energy"] = raw
        elif "." in key and key.split(".")[0] in PANEL_SYSTEMS:
            system, name = key.split(".", 1)
            if name == "dt":
                out["dt"][system] = _number(key, raw, *DT_RANGE, " s")
                continue
            decl = {p.name: p for p in SYSTEMS[system].PARAMS}.get(name)
            if decl is None:
                raise ValueError(f"{key!r}: {system} has no parameter {name!r}")
            value: object = raw
            if decl.kind != "choice":
                try:
                    value = float(raw)
                except ValueError:
                    pass  # validate names what is accepted
            try:
                value = decl.validate(value, owner=system)
            except ValueError as exc:
                raise ValueError(f"{key!r}: {exc}") from None
            out["params"].setdefault(system, {})[name] = value
        else:
            raise ValueError(f"{key!r}: unknown setting")
    return out


def _json_claim(claim: Claim) -> dict[str, Any]:
    """A claim for JSON: an open bound (infinite) is None."""
    return {
        k: (None if isinstance(v, float) and not math.isfinite(v) else v)
        for k, v in dataclasses.asdict(claim).items()
    }


def page_lessons() -> list[dict[str, Any]]:
    """The lessons as the static page's data (``lessons`` in its build-time JSON)."""
    return [
        {
            "id": s.id,
            "title": s.title,
            "query": s.query,
            "text": s.look_for,
            # what the note claims the energy plot shows (tests check it on the page)
            "claims": [_json_claim(c) for c in s.claims],
        }
        for s in SCENARIOS
    ]


def link(scenario: Scenario, site: str = "") -> str:
    """A link to ``scenario`` on the static page at ``site`` (a folder URL or ``""``)."""
    return f"{site}?{scenario.link_query()}"


__all__ = [
    "SCENARIOS",
    "Claim",
    "claim_holds",
    "claim_value",
    "Scenario",
    "get_scenario",
    "link",
    "page_lessons",
    "parse_query",
]
