"""What a study found: per integrator a :class:`StudyRun` (its points, the fitted slope, the
points left out with their reasons, and a note when the slope is no order or differs from the
order that applies), gathered in a :class:`StudyResult` with the reference used; both as JSON
(``to_dict``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from ..custom import method_info
from .fit import MIN_FIT_POINTS, _local_slope, fit_power_law, roundoff_floor
from .measure import StudyPoint

if TYPE_CHECKING:
    from ..custom import Method
    from ..systems import System
    from .measure import Reference

#: orders are integers: a fitted slope this far from the declared one is a different order
ORDER_MISMATCH = 0.5


class StudyRun:
    """One integrator's points, coarse to fine, and the fitted slope over its asymptotic range."""

    def __init__(
        self,
        integrator: str,
        points: list[StudyPoint],
        floors: list[float],
        info: dict[str, Any] | None = None,
        not_smooth: str | None = None,
    ) -> None:
        info = info or method_info(integrator)
        self.integrator = integrator
        #: declared or computed order that applies to the system (with velocity-dependent
        #: forces, the order that holds then); None for code that declares none
        self.order = info["order"]
        undamped = info.get("undamped_order", self.order)
        #: why the order compared is not the method's headline one, or None
        self.order_note = (
            None
            if undamped == self.order
            else f"order {self.order} with velocity-dependent forces ({undamped} without)"
        )
        #: declared force evaluations per step (the least, for a count that varies) and how
        #: they vary, or None; the diagrams use the counted ``evaluations``
        self.declared_evaluations = info["evaluations"]
        self.declared_evaluations_note = info.get("evaluations_note")
        self.dt = [p.dt for p in points]
        self.steps = [p.steps for p in points]
        self.error = [p.error for p in points]
        self.position_error = [p.position_error for p in points]
        self.energy_error = [p.energy_error for p in points]
        self.evaluations = [p.evaluations for p in points]
        self.seconds = [p.seconds for p in points]
        self.slope, fit, reasons = fit_power_law(self.dt, self.error, floors, not_smooth)
        self.excluded = [
            f"diverged: {p.failure}" if p.failure is not None else reason
            for p, reason in zip(points, reasons)
        ]
        self.slope_range = None if fit is None else [self.dt[fit[1]], self.dt[fit[0]]]
        #: the points the slope is taken over
        self.fit_points = 0 if fit is None else sum(r is None for r in self.excluded)
        #: the error stops following the power law at finer steps, above rounding: the slope
        #: of the coarser points is no order
        self.leaves_power_law = (
            fit is not None
            and self.slope is not None
            and any(
                r is not None
                and r.startswith("off the power law")
                and abs(_local_slope(self.dt, self.error, k - 1, k) - self.slope) > ORDER_MISMATCH
                for k, r in enumerate(self.excluded)
                if k > fit[1]
            )
        )
        #: None when there is no slope, else whether it agrees with the declared order
        self.order_matches: bool | None = None
        self.note: str | None = None
        if not_smooth is not None:
            # the method's order rests on smooth forces: there is none to compare with
            self.note = f"the system is not smooth: {not_smooth}; no order to compare with"
            if self.slope is not None:
                self.note += (
                    f"; {self.slope:.2f} is the error's trend over the {self.fit_points} finest "
                    "points, not a method's order"
                )
        elif self.slope is None:
            if points and all(r is not None and r.startswith("roundoff") for r in reasons):
                self.note = (
                    "every error is at the roundoff floor: exact for this system, no slope to fit"
                )
            else:
                self.note = (
                    f"no power-law range: a fit needs {MIN_FIT_POINTS} consecutive points "
                    "that follow one, and fewer do; the slope is not fitted"
                )
        elif self.leaves_power_law:
            self.note = (
                f"slope {self.slope:.2f} over {self.fit_points} points only: the error "
                f"leaves the power law at finer steps, above rounding; no order to compare with"
            )
        elif self.order is None:
            self.note = f"fitted slope {self.slope:.2f}; the method declares no order"
        else:
            self.order_matches = abs(self.slope - self.order) <= ORDER_MISMATCH
            if not self.order_matches:
                which = "declared order" if self.order_note is None else "order that applies,"
                self.note = f"fitted slope {self.slope:.2f} differs from the {which} {self.order}"
                if self.order_note is not None:
                    self.note += f" ({self.order_note})"

    def to_dict(self) -> dict[str, Any]:
        def finite(values: list[float]) -> list[float | None]:
            return [x if math.isfinite(x) else None for x in values]

        return {
            "integrator": self.integrator,
            "order": self.order,
            "order_note": self.order_note,
            "dt": self.dt,
            "steps": self.steps,
            "error": finite(self.error),
            "position_error": finite(self.position_error),
            "energy_error": finite(self.energy_error),
            "evaluations": self.evaluations,
            "declared_evaluations": self.declared_evaluations,
            "declared_evaluations_note": self.declared_evaluations_note,
            "seconds": self.seconds,
            "excluded": self.excluded,
            "slope": self.slope,
            "slope_range": self.slope_range,
            "fit_points": self.fit_points,
            "order_matches": self.order_matches,
            "note": self.note,
        }


class StudyResult:
    """What a study found: the reference used and one :class:`StudyRun` per integrator."""

    def __init__(
        self,
        system: System,
        duration: float,
        reference: Reference,
        methods: dict[str, Method],
        points: list[StudyPoint],
    ) -> None:
        """``methods``: integrator name -> its entry, in the study's order; ``points``: the
        measured points of every integrator."""
        self.system = system
        self.duration = duration
        self.reference = reference.describe()
        self.runs: list[StudyRun] = []
        for name, method in methods.items():
            own = [p for p in points if p.integrator == name]
            floors = [roundoff_floor(p.steps, reference.error) for p in own]
            info = method_info(method, system.velocity_dependent)
            self.runs.append(StudyRun(name, own, floors, info, system.not_smooth))

    def run(self, integrator: str) -> StudyRun:
        for run in self.runs:
            if run.integrator == integrator:
                return run
        raise ValueError(
            f"integrator: {integrator!r} is not part of this study; studied: "
            f"{', '.join(r.integrator for r in self.runs)}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "system": self.system.name,
            "params": self.system.params,
            "duration": self.duration,
            "reference": self.reference,
            "error_measure": "max(|q - q_ref| / Q, |v - v_ref| / V) at T, Q and V the "
            "largest |q| and |v| along the reference",
            "energy_error_measure": "|E(T) - E(0)| / E_scale, E = kinetic + potential + dissipated",
            "not_smooth": self.system.not_smooth,
            "runs": [run.to_dict() for run in self.runs],
        }
