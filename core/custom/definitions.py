"""What a user's method is, once parsed: :class:`MethodDefinition` and the two kinds given as
data, :class:`TableauMethod` (a Butcher tableau) and :class:`SplittingMethod` (a kick/drift
sequence), each with its JSON (``to_dict``), what a view shows of it (``describe``: order,
symmetry, evaluations, from the order conditions of
:mod:`integrator_lab.core.integrators.conditions`) and the integrator it runs on, the
built-ins' own machinery (:class:`CustomRungeKutta`, :class:`CustomSplitting`). The types
callers pass methods as (:data:`MethodEntry`, :data:`Method`) are here too.

The third kind, Python code, is :mod:`.python_code`'s; checking a dict and building one of these
from it is :mod:`.checks`'.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, TypeAlias

from ..integrators import Integrator
from ..integrators.conditions import (
    TOLERANCE,
    Coefficient,
    is_palindromic,
    kick_evaluations,
    splitting_order,
    tableau_order,
)
from ..integrators.runge_kutta import ButcherTableau, RungeKutta, format_number
from ..integrators.splitting import Splitting

#: a definition as JSON (a dict from a file, a link, a form). Any: parsed JSON, whose values
#: are checked one by one (every problem named) before anything uses them
JSONObject: TypeAlias = dict[str, Any]

#: the kinds of definition: two as data (here), Python code (:mod:`.python_code`)
KINDS = ("tableau", "splitting", "python")


def _json_number(x: Coefficient) -> int | str | float:
    """An entry as JSON: exact fractions as strings (``"2/3"``; integers as numbers)."""
    if isinstance(x, Fraction):
        return x.numerator if x.denominator == 1 else str(x)
    return x


class MethodDefinition:
    """A validated method of one of the :data:`KINDS`."""

    kind = ""
    name = ""
    order: int | None = None

    def integrator(self) -> Integrator:
        """A new integrator instance running this method."""
        raise NotImplementedError

    def to_dict(self) -> JSONObject:
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:  # Any: JSON-ready values of several types
        """What a view shows: ``name``, ``kind``, ``order`` (None: not declared),
        ``order_text``, ``symplectic``, ``symmetric``, ``evaluations`` (None: unknown) and a
        one-line ``summary``."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{self.kind} method {self.name!r}>"


#: an integrator as callers give it: a built-in's name, or a user's method (parsed, or its JSON)
MethodEntry: TypeAlias = str | MethodDefinition | JSONObject
#: an integrator once resolved: a built-in's name (checked) or a parsed definition
Method: TypeAlias = str | MethodDefinition


class TableauMethod(MethodDefinition):
    """An explicit Runge-Kutta method from its Butcher tableau."""

    kind = "tableau"
    order: int  # computed from the order conditions

    def __init__(
        self, name: str, a: list[list[Coefficient]], b: list[Coefficient], c: list[Coefficient]
    ) -> None:
        self.name, self.a, self.b, self.c = name, a, b, c
        self.result = tableau_order(a, b)
        self.order = self.result.order
        self.tableau = ButcherTableau(
            c=tuple(map(float, c)),
            a=tuple(tuple(map(float, row)) for row in a),
            b=tuple(map(float, b)),
            tolerance=2 * TOLERANCE,
        )

    def integrator(self) -> CustomRungeKutta:
        return CustomRungeKutta(self)

    def to_dict(self) -> JSONObject:
        return {
            "kind": "tableau",
            "name": self.name,
            "a": [[_json_number(x) for x in row] for row in self.a],
            "b": [_json_number(x) for x in self.b],
            "c": [_json_number(x) for x in self.c],
        }

    def describe(self) -> dict[str, Any]:
        result, stages = self.result, len(self.b)
        summary = f"explicit Runge-Kutta, {stages} stage{'s' * (stages > 1)}, {result.text()}"
        if result.unmet is not None:
            text, value = result.unmet
            summary += (
                f" (the order-{result.order + 1} condition {text} gives {format_number(value)})"
            )
        return {
            "name": self.name,
            "kind": self.kind,
            "order": self.order,
            "order_text": result.text(),
            "order_exact": result.exact,
            "symplectic": False,
            "symmetric": False,
            "evaluations": stages,
            "stages": stages,
            "summary": summary,
        }


class SplittingMethod(MethodDefinition):
    """A composition of drifts and kicks."""

    kind = "splitting"
    order: int  # computed from the order conditions

    def __init__(self, name: str, sequence: list[tuple[str, Coefficient]]) -> None:
        self.name, self.sequence = name, sequence
        self.result = splitting_order(sequence)
        self.order = self.result.order
        self.symmetric = is_palindromic(sequence)
        self.evaluations = kick_evaluations(sequence)
        # with velocity-dependent forces, kicks at the predicted velocity are second-order
        # accurate (see Splitting): a higher order drops to 2, as Yoshida's does
        self.order_velocity_dependent = min(self.order, 2)

    def integrator(self) -> CustomSplitting:
        return CustomSplitting(self)

    def to_dict(self) -> JSONObject:
        return {
            "kind": "splitting",
            "name": self.name,
            "sequence": [[kind, _json_number(w)] for kind, w in self.sequence],
        }

    def describe(self) -> dict[str, Any]:
        symmetric = "symmetric" if self.symmetric else "not symmetric"
        return {
            "name": self.name,
            "kind": self.kind,
            "order": self.order,
            "order_velocity_dependent": self.order_velocity_dependent,
            "order_text": self.result.text(),
            "order_exact": self.result.exact,
            "symplectic": True,
            "symmetric": self.symmetric,
            "evaluations": self.evaluations,
            "stages": len(self.sequence),
            "summary": f"splitting, {self.result.text()}, {symmetric}, "
            f"{self.evaluations} force evaluation"
            f"{'s' * (self.evaluations != 1)} per step",
        }


# -- the integrators they run on ---------------------------------------------------------------
class CustomRungeKutta(RungeKutta):
    """A user's tableau: the built-ins' Runge-Kutta stage loop, with the user's data."""

    def __init__(self, definition: TableauMethod):
        self.definition = definition
        self.tableau = definition.tableau
        self.name = self.title = definition.name
        self.order = definition.order
        self.evaluations = definition.tableau.stages
        self.description = definition.describe()["summary"]
        super().__init__()

    # an instance's description (the class has none); the registry, whose classes are
    # described, holds built-ins only
    def describe(self) -> dict[str, Any]:  # type: ignore[override]
        return self.definition.describe()


class CustomSplitting(Splitting):
    """A user's kick/drift sequence on the built-ins' splitting machinery."""

    def __init__(self, definition: SplittingMethod):
        self.definition = definition
        self.sequence = tuple((kind, float(w)) for kind, w in definition.sequence)
        self.name = self.title = definition.name
        self.order = definition.order
        self.order_velocity_dependent = definition.order_velocity_dependent
        self.evaluations = definition.evaluations
        # as the built-ins: a first-order method (symplectic Euler) kicks at the current
        # velocity; higher orders at the predicted mid-kick velocity under damping
        self.predict_velocity = definition.order >= 2
        self.description = definition.describe()["summary"]
        super().__init__()

    def describe(self) -> dict[str, Any]:  # type: ignore[override]  # (as CustomRungeKutta)
        return self.definition.describe()
