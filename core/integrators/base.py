"""The integrator interface: one step of ``(q, v, w)`` under a system's forces.

The public :meth:`Integrator.advance` does the bookkeeping (step and force-evaluation counts,
the engine-style velocity rescaling some systems apply after each step); each method writes
only its numerics in :meth:`Integrator.step`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..systems.base import Dynamics, State, Vector

    #: what :meth:`Integrator.advance` calls with the state after each step: False stops
    #: the call there (the runner's :class:`~integrator_lab.core.divergence.Watch`)
    Watch = Callable[[Vector, Vector, float], bool]


class ConvergenceError(ArithmeticError):
    """An implicit solve or an adaptive step failed: the state would be wrong, so none is given."""


class Integrator:
    """Base class. Subclasses declare the metadata and implement :meth:`step`."""

    name: str = ""
    title: str = ""
    order: int = 0
    #: the order with velocity-dependent forces (damping, dashpots) when it is lower than
    #: ``order``; None when it is the same
    order_velocity_dependent: int | None = None
    symplectic: bool = False
    implicit: bool = False
    #: force evaluations per step (for forces that do not depend on velocity); for a method
    #: whose count varies, the least it makes, and :attr:`evaluations_note` says how it varies
    evaluations: int = 0
    evaluations_note: str = ""
    description: str = ""
    reference: str = ""

    def __init__(self) -> None:
        self.steps = 0

    def step(self, system: Dynamics, q: Vector, v: Vector, w: float, t: float, dt: float) -> State:
        """Return ``(q, v, w)`` one step of length ``dt`` after time ``t``."""
        raise NotImplementedError

    #: whether :meth:`step` applies the system's ``post_step`` itself (splitting methods do
    #: it right after the velocity update, as game engines do); otherwise it follows the step
    applies_post_step = False

    def advance(
        self,
        system: Dynamics,
        q: Vector,
        v: Vector,
        w: float,
        t: float,
        dt: float,
        steps: int,
        watch: Watch | None = None,
    ) -> State:
        """Take ``steps`` steps of length ``dt`` from time ``t``; return ``(q, v, w)``.

        ``watch`` (the runner's :class:`~integrator_lab.core.divergence.Watch`) is called with
        the state after every step; the first state it refuses ends the call, and is returned."""
        step = self.step
        post = None if self.applies_post_step else system.post_step
        taken = 0
        try:
            while taken < steps:
                q, v, w = step(system, q, v, w, t + taken * dt, dt)
                if post is not None:
                    v, w = post(v, w, dt)
                taken += 1
                if watch is not None and not watch(q, v, w):
                    break
        finally:
            self.steps += taken
        return q, v, w

    @classmethod
    def damped_order(cls) -> int:
        """The order with velocity-dependent forces (damping, dashpots)."""
        return cls.order if cls.order_velocity_dependent is None else cls.order_velocity_dependent

    @classmethod
    def order_note(cls) -> str:
        """What to say beside the order (empty, or the order with velocity-dependent forces,
        e.g. "2 with velocity-dependent forces such as damping")."""
        if cls.damped_order() == cls.order:
            return ""
        return f"{cls.damped_order()} with velocity-dependent forces such as damping"

    @classmethod
    def evaluations_text(cls) -> str:
        """The force evaluations per step as a view says them: ``4``, or ``4 or more`` when
        the count varies (:attr:`evaluations_note` says how)."""
        return f"{cls.evaluations} or more" if cls.evaluations_note else str(cls.evaluations)

    @classmethod
    def describe(cls) -> dict[str, Any]:  # Any: JSON-ready values of several types
        return {
            "name": cls.name,
            "title": cls.title,
            "order": cls.order,
            "order_velocity_dependent": cls.damped_order(),
            "order_note": cls.order_note(),
            "symplectic": cls.symplectic,
            "implicit": cls.implicit,
            "evaluations": cls.evaluations,
            "evaluations_note": cls.evaluations_note,
            "evaluations_text": cls.evaluations_text(),
            "description": cls.description,
            "reference": cls.reference,
        }


def axpy(a: float, x: Iterable[float], y: Iterable[float]) -> list[float]:
    """``y + a x`` for lists."""
    return [yi + a * xi for xi, yi in zip(x, y)]


def norm_inf(x: Iterable[float]) -> float:
    return max((abs(e) for e in x), default=0.0)


def all_finite(values: Iterable[float]) -> bool:
    return all(math.isfinite(e) for e in values)
