"""The page's build-time data: everything its JavaScript is handed in index.html, and the
panels' HTML elements that data is drawn into.

:func:`page_data` is the one object embedded as the page's ``{{DATA}}``: the dashboard's Bokeh
documents (the controls, a document per panel whose parts are drawn into elements of their
own, each system's study diagrams), the systems' and integrators' declarations, the default
view, the lessons, the method templates, the shared constants (:mod:`integrator_lab.views.shared`),
the integrators' colours and labels, the texts in every language and the energy plot's
axes. :func:`panel_sections` writes each panel's ``<section>``, with an element per
:data:`PANEL_PARTS`. :mod:`integrator_lab.site.build` fills them into the page template and
re-exports these names, where they were defined before.
"""

from __future__ import annotations

import html

from bokeh.embed.util import OutputDocumentFor, standalone_docs_json
from bokeh.models import Column

from integrator_lab import __version__
from integrator_lab.core import INTEGRATORS, SYSTEMS
from integrator_lab.core.custom import TEMPLATES
from integrator_lab.views import energy_figures, figures, i18n
from integrator_lab.views import layout as first_screen
from integrator_lab.views.integrators import INTEGRATOR_COLORS, integrator_about, integrator_label
from integrator_lab.views.scenarios import page_lessons
from integrator_lab.views.shared import page_constants
from integrator_lab.views.study import study_page_data
from integrator_lab.views.study_figures import StudyFigures

#: the parts of a panel, each drawn into an element of its own, so that the page's CSS lays
#: them out: stacked, or the animation beside its plots where the panel is wide (see
#: static/style.css)
PANEL_PARTS = ("scene", "plots", "params")


def _multi_root_item(roots: dict) -> dict:
    """One Bokeh document with several roots: ``{"doc", "roots": {part: root id}}``;
    ``Bokeh.embed.embed_items`` draws each root into an element of its own."""
    with OutputDocumentFor(list(roots.values())) as doc:
        doc.title = ""
        [doc_json] = standalone_docs_json(list(roots.values())).values()
    return {"doc": doc_json, "roots": {part: model.id for part, model in roots.items()}}


def _panel_item(models: figures.SystemFigures) -> dict:
    plots = Column(
        models.energy_fig,
        models.phase_fig,
        sizing_mode="stretch_width",
        name=f"{models.system_name}:plots",
    )
    return _multi_root_item(dict(zip(PANEL_PARTS, (models.scene_box, plots, models.param_grid))))


def _controls_item(controls: figures.Controls) -> dict:
    """The controls as separate roots: the page's CSS wraps them on narrow screens (a Bokeh
    row would not)."""
    return _multi_root_item({role: getattr(controls, role) for role in figures.CONTROL_ORDER})


def page_data(config: figures.DashboardConfig) -> dict:
    """Everything the page's JavaScript needs, embedded in index.html."""
    models = figures.build_dashboard(config)
    systems = list(config.systems)
    return {
        "version": __version__,
        "items": {
            "controls": _controls_item(models.controls),
            "panels": {name: _panel_item(p) for name, p in models.panels.items()},
            # each system's study diagrams: a document of their own, drawn when opened
            "study": {name: _multi_root_item(StudyFigures(name).roots()) for name in systems},
        },
        "study": study_page_data(systems),
        "systems": systems,
        "declarations": {name: SYSTEMS[name].describe() for name in systems},
        "integrators": [cls.describe() for cls in INTEGRATORS.values()],
        "defaults": {
            "integrators": list(config.integrators),
            "speed": config.speed,
            "playing": config.playing,
            "exact": config.show_exact,
            "energy": config.energy_mode,
            "log": config.log_scale,
            "phase": config.show_phase,
            "embed": False,
            "dt": {name: config.dt_of(name) for name in systems},
            "params": {name: dict(config.system(name).params) for name in systems},
        },
        "energyModes": list(figures.ENERGY_MODES),
        # how a panel's scene and energy view share the first screen (views.layout)
        "firstScreen": first_screen.page_data(),
        "lessons": page_lessons(),  # the Lessons menu (views.scenarios)
        # the method editor's starting points (core.custom.TEMPLATES)
        "methodTemplates": TEMPLATES,
        # ranges, rollover, sample columns, frame layout, status texts (views.shared)
        **page_constants(),
        "colors": dict(INTEGRATOR_COLORS),
        "labels": {name: integrator_label(name) for name in INTEGRATORS},
        "abouts": {name: integrator_about(name) for name in INTEGRATORS},
        "lineStyles": _line_styles(),
        # the texts in every language, and which Bokeh model shows which (views.i18n)
        "i18n": {
            "catalog": i18n.catalog(),
            "modelTexts": i18n.model_texts(systems),
            "values": i18n.range_values(),
            "languages": dict(i18n.LANGUAGE_NAMES),
            "default": i18n.DEFAULT_LANGUAGE,
        },
        # the energy plot's axes and breakdown lines (figures.SystemFigures._show_view)
        "energyView": energy_figures.PAGE_DATA,
        "energyAxis": {
            "tickCode": figures.SIGNED_LOG_TICK_CODE,
            "columns": dict(figures.ERROR_COLUMNS),
            "labels": dict(figures.ENERGY_AXIS_LABELS),
            "breakdownKinds": list(figures.BREAKDOWN_KINDS),
            "breakdownLabels": dict(figures.BREAKDOWN_LABELS),
            "heights": {
                "error": figures.ENERGY_HEIGHT,
                "breakdown": figures.ENERGY_HEIGHT + figures.BREAKDOWN_EXTRA_HEIGHT,
            },
        },
    }


def _line_styles() -> dict:
    """figures.LINE_STYLES with dash names resolved to the arrays BokehJS takes."""
    from bokeh.models import Line

    out = {}
    for kind, style in figures.LINE_STYLES.items():
        style = dict(style)
        if "line_dash" in style:
            style["line_dash"] = list(Line(line_dash=style["line_dash"]).line_dash)
        out[kind] = style
    return out


def panel_sections(systems) -> str:
    """The panels of ``systems`` in index.html: title, status, alert, loading note and an
    element per :data:`PANEL_PARTS` that the panel's Bokeh document draws into."""
    sections = []
    for name in systems:
        title = html.escape(SYSTEMS[name].title)
        sections.append(
            f'<section class="il-panel" data-system="{name}" aria-label="{title}">'
            f'<h2 class="il-panel-title" data-i18n="system.{name}">{title}</h2>'
            f'<p class="il-panel-status" id="il-status-{name}">t = 0.00 s</p>'
            f'<p class="il-panel-alert" id="il-alert-{name}" role="alert" hidden></p>'
            f'<div class="il-loading" data-system="{name}"><span data-i18n="page.loading">'
            f"{html.escape(i18n.text('page.loading'))}</span></div>"
            '<div class="il-panel-body">'
            + "".join(
                f'<div class="il-root il-part-{part}" id="il-panel-{name}-{part}"></div>'
                for part in PANEL_PARTS
            )
            # a value typed into this panel's fields and refused says why here, by the field
            + f'</div><p class="il-panel-note" id="il-note-{name}" role="status" hidden></p>'
            "</section>"
        )
    return "\n    ".join(sections)
