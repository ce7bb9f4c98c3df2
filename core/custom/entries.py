"""A method wherever the core takes one (the runner, :func:`~integrator_lab.core.simulate`,
the study, the stability and area views): a built-in integrator's name, a parsed definition or
its dict, resolved (:func:`resolve_method`), named (:func:`method_name`), made into a new
integrator (:func:`make_integrator`) and described by its order and force evaluations
(:func:`method_info`) alike.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypeGuard

from ..integrators import INTEGRATORS, Integrator, get_integrator
from .checks import parse_definition
from .definitions import Method, MethodDefinition, MethodEntry


def resolve_method(entry: object) -> Method:
    """An integrator name (str, checked) or a parsed definition, from a name, a dict or a
    definition."""
    if isinstance(entry, str):
        get_integrator(entry)  # unknown names list the valid ones
        return entry
    if isinstance(entry, (dict, MethodDefinition)):
        return parse_definition(entry)
    raise ValueError(
        f"integrator: got {entry!r:.60}, expected an integrator name or a "
        "definition (a dict with 'kind' and 'name')"
    )


def method_name(entry: Method) -> str:
    """The name a run of ``entry`` (a name or a parsed definition) is known by."""
    return entry if isinstance(entry, str) else entry.name


def make_integrator(entry: MethodEntry) -> Integrator:
    """A new integrator for a name, a definition or a definition's dict."""
    entry = resolve_method(entry)
    return get_integrator(entry) if isinstance(entry, str) else entry.integrator()


def method_info(entry: Method, velocity_dependent: bool = False) -> dict[str, Any]:
    """``order`` (None: not declared) and ``evaluations`` (None: unknown) of a name or a
    parsed definition, as declared or computed; with ``velocity_dependent``, the order that
    holds when forces depend on velocity (damping, dashpots: Yoshida's 4 drops to 2), and
    ``undamped_order``, the order without; ``evaluations_note`` (or None) says how a varying
    count varies (``evaluations`` is then the least)."""
    note = ""
    if isinstance(entry, str):
        cls = INTEGRATORS[entry]
        order, undamped, evaluations = cls.damped_order(), cls.order, cls.evaluations
        note = cls.evaluations_note
    else:
        info = entry.describe()
        undamped, evaluations = info["order"], info["evaluations"]
        order = info.get("order_velocity_dependent", undamped)
    return {
        "order": order if velocity_dependent else undamped,
        "undamped_order": undamped,
        "evaluations": evaluations,
        "evaluations_note": note or None,
    }


def is_method_entry(value: object) -> TypeGuard[MethodEntry]:
    """Whether ``value`` is one integrator entry (not a list of them)."""
    return isinstance(value, (str, dict, MethodDefinition))


def method_entries(value: MethodEntry | Iterable[MethodEntry]) -> Iterable[MethodEntry]:
    """The entries ``value`` holds: one entry (a name, a definition or its dict) in a list, or
    the entries as given."""
    # is_method_entry(), spelled out so that mypy narrows both ways (a TypeGuard narrows only
    # where it holds, and typing.TypeIs, which also narrows where it does not, needs 3.13)
    if isinstance(value, (str, dict, MethodDefinition)):
        return [value]
    return value
