"""What a dashboard is built from, and how its Bokeh models are named.

:class:`DashboardConfig` says what to show (systems, integrators, each system's parameters
and time step, speed, view options, language); :func:`model_name` names every model
(``"<system>:<role>"`` or ``"controls:<role>"``) so that JavaScript finds it with
``document.get_model_by_name``. The figure and widget modules beside it
(:mod:`~integrator_lab.views.figures` and the modules it assembles) build from these.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from integrator_lab.core import DEFAULT_INTEGRATORS, get_system
from integrator_lab.core.systems.base import System
from integrator_lab.views import i18n
from integrator_lab.views.shared import PANEL_SYSTEMS

#: names the models of one owner: ``n(role)`` is ``model_name(owner, role)``
Namer = Callable[[str], str]


def model_name(owner: str, role: str) -> str:
    """The ``name`` of a model: ``owner`` is a system name or ``"controls"``."""
    return f"{owner}:{role}"


@dataclass
class DashboardConfig:
    """What the dashboard shows. Missing ``params``/``dt`` entries mean the defaults."""

    systems: Sequence[str] = PANEL_SYSTEMS
    integrators: Sequence[str] = DEFAULT_INTEGRATORS
    params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    dt: Mapping[str, float] = field(default_factory=dict)
    speed: float = 1.0
    playing: bool = True
    show_exact: bool = True
    energy_mode: str = "error"
    log_scale: bool = False  # the linear energy view is the default (views.energy)
    show_phase: bool = False
    #: integrators toggled off in the legend: they run, but are not drawn
    hidden: Sequence[str] = ()
    #: the language of the texts the figures set as they change (views.i18n); the static
    #: page sets its own in the page
    lang: str = i18n.DEFAULT_LANGUAGE

    def system(self, name: str) -> System:
        """The core system ``name`` with this config's parameters (ValueError if invalid)."""
        return get_system(name, **dict(self.params.get(name, {})))

    def dt_of(self, name: str) -> float:
        dt = self.dt.get(name)
        return float(dt) if dt is not None else self.system(name).recommended_dt
