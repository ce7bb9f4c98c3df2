"""The dashboard's declared state and its widgets: ``param`` parameters with the core's
bounds, units and docs, and widgets that refuse, with a message, what those parameters
refuse (a value sent past an input's bounds never reaches the core)."""

from __future__ import annotations

import math
import numbers

import panel as pn
import param

from integrator_lab.core import SYSTEMS
from integrator_lab.server import transport
from integrator_lab.views import figures
from integrator_lab.views.shared import DT_RANGE


# -- declared state ----------------------------------------------------------------------------
def _declare(p) -> param.Parameter:
    """A ``param`` parameter with the bounds, unit and doc of a core :class:`Param`."""
    label = p.title  # declared once, in the core (Param.title)
    doc = f"{p.doc}; {p.accepted()}" if p.doc else p.accepted()
    if p.kind == "choice":
        return param.Selector(default=p.default, objects=list(p.choices), label=label, doc=doc)
    bounds = (p.min, p.max)
    inclusive = (not p.min_open, not p.max_open)
    # allow_None: an emptied input arrives as None; the core then names what is accepted
    if p.kind == "int":
        return param.Integer(
            default=p.default,
            bounds=bounds,
            inclusive_bounds=inclusive,
            allow_None=True,
            label=label,
            doc=doc,
        )
    return param.Number(
        default=float(p.default),
        bounds=bounds,
        inclusive_bounds=inclusive,
        allow_None=True,
        step=figures.input_step(p),
        label=label,
        doc=doc,
    )


# -- values from the browser ------------------------------------------------------------------
def _bounds_text(p: param.Number) -> str:
    lo, hi = p.bounds or (None, None)
    low_in, high_in = getattr(p, "inclusive_bounds", (True, True))
    left = "[" if lo is not None and low_in else "("
    right = "]" if hi is not None and high_in else ")"
    low = "-inf" if lo is None else f"{lo:g}"
    high = "inf" if hi is None else f"{hi:g}"
    return f"{left}{low}, {high}{right}"


def _in_bounds(p: param.Number, value: float) -> bool:
    lo, hi = p.bounds or (None, None)
    low_in, high_in = getattr(p, "inclusive_bounds", (True, True))
    return (lo is None or value > lo or (low_in and value == lo)) and (
        hi is None or value < hi or (high_in and value == hi)
    )


def rejection(p: param.Parameter, value) -> str | None:
    """Why a value the browser sent for parameter ``p`` is refused (naming the parameter,
    what was sent and what is accepted), or None when ``p`` takes it."""
    if isinstance(p, param.Number):
        integer = isinstance(p, param.Integer)
        ok = (
            isinstance(value, numbers.Real)
            and not isinstance(value, bool)
            and math.isfinite(value)
            and _in_bounds(p, value)
            and (not integer or float(value).is_integer())
        )
        expected = f"{'an integer' if integer else 'a number'} in {_bounds_text(p)}"
    elif isinstance(p, param.ListSelector):
        objects = list(p.objects)
        ok = (
            isinstance(value, list)
            and all(isinstance(v, str) and v in objects for v in value)
            and len(set(value)) == len(value)
        )
        expected = "distinct names among " + ", ".join(map(str, objects))
    elif isinstance(p, param.Selector):
        objects = list(p.objects)
        ok = isinstance(value, str) and value in objects
        expected = "one of " + ", ".join(map(str, objects))
    else:
        return None
    if ok:
        return None
    got = "the field is empty" if value is None else f"got {value!r}"
    return f"{p.label}: {got}, expected {expected}"


#: the widget kinds :func:`checked_widget` makes
CHECKED_KINDS = (
    pn.widgets.FloatInput,
    pn.widgets.IntInput,
    pn.widgets.Select,
    pn.widgets.FloatSlider,
    pn.widgets.MultiChoice,
)


def checked_widget(kind: type, p: param.Parameter, report, where: str = "", **options):
    """A widget of ``kind`` for parameter ``p`` (``from_param``) that refuses what ``p``
    would refuse, with a message through ``report``.

    A refused value (one a client sent past the input's bounds, or an emptied field) is
    reported, naming the parameter, what was sent and what is accepted (``where`` names
    the system, for its settings), and the browser shows the value in force again.
    """
    widget = transport.refusing_widget_class(kind).from_param(p, **options)

    def refuse(value) -> bool:
        problem = rejection(p, value)
        if problem is not None:
            report(f"{where}{problem}; kept {widget.value!r}.")
        return problem is not None

    transport.set_refusal(widget, refuse)
    return widget


_SETTINGS_CLASSES: dict[str, type] = {}


def settings_class(system_name: str) -> type:
    """A ``param.Parameterized`` class holding ``dt`` and the parameters of one system."""
    if system_name not in _SETTINGS_CLASSES:
        cls = SYSTEMS[system_name]
        recommended = cls().recommended_dt
        declared = {
            "dt": param.Number(
                default=recommended,
                bounds=DT_RANGE,
                step=recommended / 10.0,
                allow_None=True,
                label="time step dt (s)",
                doc=f"fixed time step of every integrator; recommended {recommended:g} s; "
                f"accepted: {DT_RANGE[0]:g} to {DT_RANGE[1]:g} s",
            )
        }
        declared.update((p.name, _declare(p)) for p in cls.PARAMS)
        name = "".join(part.title() for part in system_name.split("-")) + "Settings"
        _SETTINGS_CLASSES[system_name] = param.parameterized_class(name, declared)
    return _SETTINGS_CLASSES[system_name]


def settings_widgets(system_name: str, settings, report) -> list:
    """The checked widgets of one system's ``settings`` (dt first), refusals through
    ``report``."""
    widgets = []
    where = f"{SYSTEMS[system_name].title}: "
    for name in settings.param:
        if name == "name":
            continue
        p = settings.param[name]
        if isinstance(p, param.Selector):
            kind = pn.widgets.Select
        elif isinstance(p, param.Integer):
            kind = pn.widgets.IntInput
        else:
            kind = pn.widgets.FloatInput
        widgets.append(
            checked_widget(
                kind,
                p,
                report,
                where,
                sizing_mode="stretch_width",
                min_width=100,
                css_classes=[f"il-{system_name}-{name}"],
            )
        )
    return widgets
