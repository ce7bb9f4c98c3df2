"""The interface every physical system implements.

A system knows physics only: its coordinates, forces, energy and (where one exists) its exact
solution. It knows nothing about integrators, runners or views.

State convention used everywhere in the core: ``q`` (list of generalized coordinates), ``v``
(list of their time derivatives) and ``w``, the work already dissipated by damping, drag or
contacts, integrated alongside the state so that ``kinetic + potential + w`` is conserved by
the exact dynamics.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

from ..params import Param, resolve

#: a state vector (``q`` or ``v``) or the accelerations: one float per coordinate
Vector: TypeAlias = list[float]
#: a state ``(q, v, w)`` (see above): what an integrator's step takes and gives back
State: TypeAlias = tuple[Vector, Vector, float]
#: an n x n matrix as a list of rows (a Jacobian block)
Matrix: TypeAlias = list[list[float]]
#: ``exact(t)``: ``(q, v)``, or None when there is no closed form
ExactState: TypeAlias = tuple[Vector, Vector] | None
#: ``scalar_forces(x, v, t) -> (a, p)`` of a one-degree-of-freedom system, on plain floats
ScalarForces: TypeAlias = Callable[[float, float, float], tuple[float, float]]
#: ``jacobian(q, v, t) -> (da/dq, da/dv)``
Jacobian: TypeAlias = Callable[[Vector, Vector, float], tuple[Matrix, Matrix]]
#: ``post_step(v, w, dt) -> (v, w)``: an engine's velocity rescaling after each step
PostStep: TypeAlias = Callable[[Vector, float, float], tuple[Vector, float]]
#: ``fault(q) -> reason``: why the positions ``q`` are no state of the system, or None
Fault: TypeAlias = Callable[[Vector], str | None]


@dataclass(frozen=True)
class SceneGeometry:
    """What a view needs to draw a system, in metres, in the frame of :meth:`System.drawing`
    (x to the right, y up): the view reads this, never the system's private fields.

    - ``shape``: ``"circle"`` (a ball or bob, ``body_width`` is its diameter) or ``"rect"``;
    - ``body_width``, ``body_height``: the size of each drawn body;
    - ``pivots``: the fixed points the bodies hang from, one per body (``drawing(q)`` body i
      hangs from ``pivots[i]``), empty when nothing hangs;
    - ``rod``: the distance from a pivot to its body's centre (string or rod length), 0 when
      nothing hangs;
    - ``wall``: the x of the fixed end a spring ties the body to (the spring's rest length
      to the left of ``x = 0``), None without a spring;
    - ``bounds``: ``(x0, x1, y0, y1)``, a box holding every body, whole, wherever the exact
      motion from the initial state can take it (a numerical one may leave it).
    """

    shape: str
    body_width: float
    body_height: float
    bounds: tuple[float, float, float, float]
    pivots: tuple[tuple[float, float], ...] = ()
    rod: float = 0.0
    wall: float | None = None


class Dynamics(Protocol):
    """What an integrator needs of a system: its forces and the optional fast paths.

    :class:`System` has it all; so does a proxy such as the study's force counter, which is
    why integrators should ask for no more than this.
    """

    @property
    def velocity_dependent(self) -> bool: ...

    @property
    def scalar_forces(self) -> ScalarForces | None: ...

    @property
    def jacobian(self) -> Jacobian | None: ...

    @property
    def post_step(self) -> PostStep | None: ...

    def forces(self, q: Vector, v: Vector, t: float) -> tuple[Vector, float]: ...


class System:
    """Base class: subclasses set the class attributes and implement the physics methods."""

    name: str = ""
    title: str = ""
    description: str = ""
    PARAMS: tuple[Param, ...] = ()
    #: names of the generalized coordinates, one per entry of ``q``
    coordinates: tuple[str, ...] = ()
    #: unit of each coordinate (and, divided by s, of each velocity)
    coordinate_units: tuple[str, ...] = ()

    #: the validated parameters by name. Each value is a float, an int or a str as its
    #: :class:`Param` declares (``kind``), which only the declaration at run time knows: Any,
    #: and subclasses give each value its type where ``setup`` copies it to an attribute.
    params: dict[str, Any]

    def __init__(self, **params: object) -> None:
        self.params = resolve(self.PARAMS, params, owner=self.name)
        self.setup()

    # -- to implement -------------------------------------------------------------------
    def setup(self) -> None:
        """Derive constants from ``self.params`` (called once by ``__init__``)."""

    def initial_state(self) -> tuple[Vector, Vector]:
        raise NotImplementedError

    def forces(self, q: Vector, v: Vector, t: float) -> tuple[Vector, float]:
        """Return ``(a, p)``: accelerations (list) and the dissipated power (>= 0)."""
        raise NotImplementedError

    def energy(self, q: Vector, v: Vector) -> tuple[float, float]:
        """Return ``(kinetic, potential)``."""
        raise NotImplementedError

    def energy_scale(self) -> float:
        """A characteristic energy (J), used to decide when an energy error is a runaway."""
        raise NotImplementedError

    def kinetic_bound(self, t: float) -> float:
        """An upper bound (J) of the kinetic energy of the exact motion at any time up to
        ``t`` (so it never decreases with ``t``); the runner's divergence test allows that much
        (times its factor) above the initial mechanical energy. The default, the initial
        kinetic plus potential energy, holds for every passive system (no energy source)
        whose potential energy is never negative."""
        return sum(self.energy(*self.initial_state()))

    def fastest_state(self) -> tuple[Vector, Vector]:
        """The state on the exact motion from :meth:`initial_state` where the linearised
        frequencies are largest: the one whose points ``dt lambda`` decide a step's stability
        (the stability view's). The default, the start state, is right for linear systems."""
        return self.initial_state()

    @property
    def recommended_dt(self) -> float:
        raise NotImplementedError

    #: whether ``forces`` depends on ``v`` (damping); lets splitting methods reuse evaluations
    velocity_dependent: bool = True

    #: why the forces are not smooth functions of the state (contacts that switch on and off),
    #: or None: a method's order rests on smooth forces, so a convergence study then reports
    #: the error's trend, not an order
    not_smooth: str | None = None

    #: optional ``scalar_forces(x, v, t) -> (a, p)`` of a one-degree-of-freedom system on
    #: plain floats: a fast path for integrators, equal to ``forces`` on one-element lists
    scalar_forces: ScalarForces | None = None

    #: optional ``jacobian(q, v, t) -> (da/dq, da/dv)``, each an n x n list of rows;
    #: implicit integrators fall back to finite differences when it is None
    jacobian: Jacobian | None = None

    #: optional ``post_step(v, w, dt) -> (v, w)``: a velocity rescaling applied after every
    #: step, the way game engines apply damping; None for ordinary ODE systems
    post_step: PostStep | None = None

    #: optional ``fault(q) -> reason``: why the positions ``q`` are no state of the system
    #: (a ball outside its box), or None when they are one. The divergence rule
    #: (:mod:`integrator_lab.core.divergence`) asks it of every state it judges sound
    #: otherwise, right after ``energy(q, v)`` of the same state, and a reason ends the run
    #: with it; None for systems whose every finite state is one
    fault: Fault | None = None

    def exact(self, t: float) -> ExactState:
        """Exact ``(q, v)`` at time t, or None when no closed form exists."""
        return None

    def drawing(self, q: Vector) -> dict[str, list[float]]:
        """Coordinates for a view: ``{"x": [...], "y": [...]}`` of each drawn body (metres)."""
        raise NotImplementedError

    def scene_geometry(self) -> SceneGeometry | None:
        """What a view needs to draw the system around :meth:`drawing`'s bodies; None when
        the system has no drawing of its own."""
        return None

    # -- shared -------------------------------------------------------------------------
    @property
    def ndof(self) -> int:
        return len(self.coordinates)

    def energies(self, q: Vector, v: Vector, w: float) -> tuple[float, float, float, float]:
        """Return ``(kinetic, potential, dissipated, total)``."""
        kinetic, potential = self.energy(q, v)
        return kinetic, potential, w, kinetic + potential + w

    @classmethod
    def describe(cls) -> dict[str, Any]:
        """Declaration of the system for listings and user interfaces."""
        example = cls()
        return {
            "name": cls.name,
            "title": cls.title,
            "description": cls.description,
            "coordinates": list(example.coordinates),
            "coordinate_units": list(example.coordinate_units),
            "recommended_dt": example.recommended_dt,
            "has_exact_solution": example.exact(0.0) is not None,
            "params": [p.to_dict() for p in cls.PARAMS],
            # why no method shows its order here (core.study), or None: a smooth system
            "not_smooth": cls.not_smooth,
        }


if TYPE_CHECKING:
    # every system offers what integrators need
    _system_is_dynamics: type[Dynamics] = System
