"""The dashboard's Bokeh widgets: the controls that act on every panel (:class:`Controls`,
:func:`build_controls`), and each panel's own: the time step (a field, and a log-scale slider
between ÷2 and ×2 buttons) and a field per parameter the system declares, in one grid
(:class:`PanelSettings`, :func:`build_settings`).

Models only, like the figures, built once for the page's data: the page's front end wires
them to its engine in JavaScript.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, cast

from bokeh.layouts import row
from bokeh.models import CustomJSTickFormatter, GridBox, Row
from bokeh.models.ui import UIElement
from bokeh.models.widgets import (
    Button,
    Checkbox,
    CheckboxButtonGroup,
    MultiChoice,
    RadioButtonGroup,
    Select,
    Slider,
    Spinner,
    Toggle,
)

from integrator_lab.core import INTEGRATORS, SYSTEMS
from integrator_lab.core.params import Param
from integrator_lab.core.systems.base import System
from integrator_lab.views.dashboard_config import DashboardConfig, Namer, model_name
from integrator_lab.views.energy_plot import ENERGY_MODES
from integrator_lab.views.shared import (
    DT_RANGE,
    DT_SLIDER_STEPS,
    SPEED_RANGE,
    dt_mark,
    dt_position,
)

#: the energy-mode buttons' labels, in :data:`~integrator_lab.views.energy_plot.ENERGY_MODES`
#: order
ENERGY_MODE_LABELS = ("Energy error", "Energy breakdown")
#: why "Log scale" is greyed out in breakdown mode (its tooltip, on both dashboards)
LOG_SCALE_TIP = (
    "The energy error on a signed log axis: a gain of 10^k as far above 0 as a loss of 10^k "
    "is below it. Unchecked: a linear axis. The energy breakdown (in joules, on a linear "
    "axis) does not use it."
)
#: a widget's title wraps within its grid cell (Bokeh keeps it on one line, where a long one,
#: such as the dt field's "recommended" note or a unit, ran into the next field or off a phone)
WRAP_TITLE = ".bk-input-group > label { white-space: normal; overflow-wrap: anywhere; }"
#: a field's title wraps in a narrow column (a phone) rather than push the page wider
WRAPPING_TITLE = ".bk-input-group > label { white-space: normal; overflow-wrap: anywhere; }"


# -- the controls of every panel -------------------------------------------------------------
@dataclass
class Controls:
    """Widgets that act on every panel."""

    integrators: MultiChoice
    systems: CheckboxButtonGroup
    play: Toggle
    step: Button
    reset: Button
    speed: Slider
    show_exact: Checkbox
    energy_mode: RadioButtonGroup
    log_scale: Checkbox
    show_phase: Checkbox
    copy_link: Button


def build_controls(config: DashboardConfig) -> Controls:
    def name(role: str) -> str:
        return model_name("controls", role)

    options: list[str | tuple[str, str]] = [(n, n) for n in INTEGRATORS]
    return Controls(
        integrators=MultiChoice(
            title="Integrators",
            # also the input's accessible name (without one it reads "null"); the input is
            # as wide as its placeholder in "ch", too narrow for Japanese characters
            placeholder="add an integrator…",
            # at most two rows of chips, then it scrolls: the controls' bar stays as tall
            # with eleven integrators as with four, and so does the first screen's room
            stylesheets=[
                ".choices__input--cloned { min-width: 10em !important; }",
                ".choices__inner { max-height: 64px; overflow-y: auto; }",
            ],
            options=options,
            value=list(config.integrators),
            name=name("integrators"),
            sizing_mode="stretch_width",
            min_width=280,
            description="Integrators run in lockstep on every system; hover a body in the "
            "animation for its order and properties.",
        ),
        # the page's system picker (the page shows any of the panels it was built with, in
        # the order the state says); the labels are the systems' titles
        systems=CheckboxButtonGroup(
            labels=[SYSTEMS[s].title for s in config.systems],
            active=list(range(len(config.systems))),
            name=name("systems"),
            align="end",
            html_attributes={"title": "Systems shown (at least one)"},
        ),
        play=Toggle(
            label="Pause" if config.playing else "Play",
            active=config.playing,
            button_type="primary",
            name=name("play"),
            width=80,
            align="end",
        ),
        step=Button(
            label="Step",
            name=name("step"),
            width=70,
            align="end",
            html_attributes={"title": "Advance every system by one time step"},
        ),
        reset=Button(
            label="Reset",
            name=name("reset"),
            width=70,
            align="end",
            html_attributes={"title": "Back to t = 0"},
        ),
        speed=Slider(
            title="Speed (× real time)",
            start=SPEED_RANGE[0],
            end=SPEED_RANGE[1],
            step=0.1,
            value=config.speed,
            format="0.0",
            name=name("speed"),
            width=200,
            align="end",
        ),
        show_exact=Checkbox(
            label="Exact solution", active=config.show_exact, name=name("show_exact"), align="end"
        ),
        energy_mode=RadioButtonGroup(
            labels=list(ENERGY_MODE_LABELS),
            active=ENERGY_MODES.index(config.energy_mode),
            name=name("energy_mode"),
            align="end",
        ),
        log_scale=Checkbox(
            label="Log scale",
            active=config.log_scale,
            name=name("log_scale"),
            align="end",
            disabled=config.energy_mode == "breakdown",
            html_attributes={"title": LOG_SCALE_TIP},
        ),
        show_phase=Checkbox(
            label="Phase space", active=config.show_phase, name=name("show_phase"), align="end"
        ),
        copy_link=Button(
            label="Copy link",
            name=name("copy_link"),
            width=90,
            align="end",
            html_attributes={"title": "Copy a link to this exact view"},
        ),
    )


# -- a panel's parameters --------------------------------------------------------------------
def input_step(p: Param) -> float:
    """A spinner step: a tenth of the default's order of magnitude (or of the range)."""
    reference = abs(cast(float, p.default)) if p.default else None
    if reference is None and p.max is not None and p.min is not None:
        reference = (p.max - p.min) / 100.0
    reference = reference or 1.0
    return 10.0 ** (math.floor(math.log10(reference)) - 1)


def param_widget(system_name: str, p: Param, value: Any) -> Spinner | Select:
    """The widget for one declared parameter: a Select for choices, else a Spinner bounded
    by the declared range (open bounds are enforced by validation, not by the spinner)."""
    title = p.title  # declared once, in the core (Param.title)
    wname = model_name(system_name, f"param:{p.name}")
    description = f"{p.doc}; {p.accepted()}"
    if p.kind == "choice":
        choices: list[str | tuple[Any, str]] = list(p.choices)
        return Select(
            title=title,
            options=choices,
            value=str(value),
            name=wname,
            description=description,
            sizing_mode="stretch_width",
            min_width=90,
            stylesheets=[WRAPPING_TITLE],
        )
    if p.kind == "int":
        return Spinner(
            title=title,
            value=value,
            low=p.min,
            high=p.max,
            step=1,
            mode="int",
            name=wname,
            description=description,
            sizing_mode="stretch_width",
            min_width=90,
            stylesheets=[WRAPPING_TITLE],
        )
    return Spinner(
        title=title,
        value=value,
        low=p.min,
        high=p.max,
        step=input_step(p),
        mode="float",
        format="0[.][000000]",
        name=wname,
        description=description,
        sizing_mode="stretch_width",
        min_width=90,
        stylesheets=[WRAPPING_TITLE],
    )


# -- the time step on a log scale ------------------------------------------------------------
#: the slider's value, log10(dt), as the slider shows it: the time step in seconds
DT_SLIDER_FORMAT = "return Number((10 ** tick).toPrecision(3)) + ' s';"


def dt_slider_css(recommended: float) -> str:
    """The mark of the recommended step on the time-step slider's track (CSS for the
    slider's shadow root). ``--il-dt-mark`` (a percentage of the track) and
    ``--il-dt-mark-text`` set on an ancestor element move it: the recommended step depends
    on the parameters (a stiffer cradle contact is shorter)."""
    at = f"var(--il-dt-mark, {dt_mark(recommended):.3f}%)"
    text = f'var(--il-dt-mark-text, "recommended {recommended:g} s")'
    return (
        ":host { margin-bottom: 18px; }"
        ".bk-slider-title { white-space: normal; }"
        ".noUi-base::after { content: ''; position: absolute; z-index: 1; top: -5px;"
        f" bottom: -5px; left: {at}; width: 2px; margin-left: -1px; background: #3d4247;"
        " pointer-events: none; }"
        f".noUi-base::before {{ content: {text}; position: absolute; top: 15px;"
        f" left: clamp(4em, {at}, calc(100% - 4em)); transform: translateX(-50%);"
        " font-size: 11px; line-height: 1; white-space: nowrap; color: #3d4247;"
        " pointer-events: none; }"
    )


def dt_slider_options(recommended: float) -> dict[str, Any]:
    """What a time-step slider (Bokeh's ``Slider``, Panel's ``FloatSlider``) takes: log10(dt)
    across :data:`DT_RANGE`, shown as seconds, with the recommended step marked."""
    lo, hi = (math.log10(x) for x in DT_RANGE)
    return {
        "start": lo,
        "end": hi,
        "step": (hi - lo) / DT_SLIDER_STEPS,
        "format": CustomJSTickFormatter(code=DT_SLIDER_FORMAT),
        "stylesheets": [dt_slider_css(recommended)],
    }


DT_SLIDER_TITLE = f"time step dt, log scale ({DT_RANGE[0]:g} to {DT_RANGE[1]:g} s)"
DT_HALF_TITLE = "Halve the time step (÷2)"
DT_DOUBLE_TITLE = "Double the time step (×2)"


# -- a panel's own widgets -------------------------------------------------------------------
@dataclass
class PanelSettings:
    """A panel's settings: the time step as a field (``dt``) and on a log-scale slider
    (``dt_slider``) between ÷2 and ×2 buttons (``dt_half``, ``dt_double``; the three in
    ``dt_row``), and a field per declared parameter (``params``), all in ``grid``."""

    dt: Spinner
    dt_slider: Slider
    dt_half: Button
    dt_double: Button
    dt_row: Row
    params: dict[str, Spinner | Select]
    grid: GridBox


def dt_field(n: Namer, system: System, dt: float) -> Spinner:
    """The time-step field (for typing a value; the slider beside it sets it too)."""
    return Spinner(
        title="time step dt (s)",
        value=dt,
        low=DT_RANGE[0],
        high=DT_RANGE[1],
        step=system.recommended_dt / 10.0,
        mode="float",
        format="0[.][000000]",
        name=n("dt"),
        sizing_mode="stretch_width",
        min_width=90,
        stylesheets=[WRAPPING_TITLE],
        description=(
            f"fixed time step of every integrator; recommended "
            f"{system.recommended_dt:g} s; accepted: {DT_RANGE[0]:g} to "
            f"{DT_RANGE[1]:g} s"
        ),
    )


def dt_buttons(n: Namer) -> tuple[Button, Button]:
    """The ÷2 and ×2 buttons beside the time-step slider."""
    half, double = (
        Button(
            label=label,
            name=n(f"dt:{role}"),
            width=44,
            align="center",
            html_attributes={"title": tip},
        )
        for label, role, tip in (
            ("÷2", "half", DT_HALF_TITLE),
            ("×2", "double", DT_DOUBLE_TITLE),
        )
    )
    return half, double


def build_settings(n: Namer, system_name: str, system: System, dt: float) -> PanelSettings:
    """The settings of the panel of ``system`` (called ``system_name``) at time step ``dt``."""
    field = dt_field(n, system, dt)
    # the time step on a log scale, with ×2 / ÷2 (the field above stays for typing)
    slider = Slider(
        title=DT_SLIDER_TITLE,
        value=dt_position(dt),
        name=n("dt:slider"),
        sizing_mode="stretch_width",
        min_width=120,
        **dt_slider_options(system.recommended_dt),
    )
    half, double = dt_buttons(n)
    dt_row = row(half, slider, double, sizing_mode="stretch_width", name=n("dt:row"))
    params = {
        p.name: param_widget(system_name, p, system.params[p.name]) for p in type(system).PARAMS
    }
    widgets: list[Spinner | Select] = [field, *params.values()]
    for widget in widgets:
        widget.stylesheets = [*widget.stylesheets, WRAP_TITLE]
    cells: list[tuple[UIElement, int, int] | tuple[UIElement, int, int, int, int]] = [
        (dt_row, 0, 0, 1, 3)
    ]
    cells += [(w, 1 + k // 3, k % 3) for k, w in enumerate(widgets)]
    grid = GridBox(
        children=cells,
        sizing_mode="stretch_width",
        name=n("params"),
        spacing=(2, 8),  # type: ignore[arg-type]  # (Bokeh's hint: a Property, not its value)
    )
    return PanelSettings(field, slider, half, double, dt_row, params, grid)
