"""The user interface's texts in English and Japanese: the one catalog of both dashboards.

English is the default; ``?lang=ja`` (or a browser whose first language is Japanese) shows the
static page in Japanese, ``integrator-lab serve --lang ja`` (or ``?lang=ja``) the Panel
dashboard. Standard library only.

The texts are data, one JSON file per language beside this module: ``catalog/en.json`` and
``catalog/ja.json`` (UTF-8, read once at import; the wheel carries them as package data). A
``null`` there is a text whose home is Python (:data:`HOMES`: the status line's English,
views.shared's). This module makes the catalog of them and says its texts: lookup,
placeholders, the texts made of the core's declarations. The page does not read the files:
the site's build embeds :func:`catalog` in the page's data (web/site/build.py), and the
worker does not import this module.

How to add a text (a label, a message, a tooltip):

1. Add the key to ``"texts"`` in both files: ``"area.what": "..."``. Both languages are
   required and must use the same ``{placeholders}`` (tests/site/test_i18n.py checks).
   Keys are dotted, grouped by where the text shows, in the same order in both files:
   ``page.`` (the page around the dashboard), ``control.`` (the controls above the panels),
   ``axis.`` and ``energy.`` (the plots), ``dt.`` (the time step), ``status.`` (a panel's
   status line and marks, filled as views.shared fills them), ``a11y.`` (names Bokeh's
   widgets lack, the skip link, the keys, the live description: static/js/a11y.js, keys.js),
   ``msg.`` (messages), ``layout.`` (the phone's bar, static/js/layout.js), ``expect.``,
   ``reject.`` and ``range.`` (a refused parameter value, as static/js/params.js composes it;
   ``unit.`` joins units), ``note.`` (a decimal comma taken as a point, static/js/widgets.js),
   ``study.`` (a panel's study view, static/js/study.js, and its diagrams,
   views.study_figures), ``geometry.`` (a panel's geometry view, static/js/geometry.js; the
   texts the worker computes are in views.geometry), ``lesson.`` (the lessons' menu),
   ``drag.`` (a drag past a parameter's range, static/js/drag.js), ``core.`` (a value the
   core refused: :func:`core_error`), ``editor.`` (the method editor, static/js/editor.js),
   ``method.`` (the Panel dashboard's "Add your method" and its editor: web/server/methods.py,
   method_grid.py), ``legend.``, ``about.`` (a line about an integrator: legend chips,
   bodies' hover), ``boot.`` (booting Python in the page: static/worker.mjs, progress.js).
2. Use it: in Python ``text(key, lang, **values)``; in the page's JavaScript
   ``t(key, values)`` from ``static/js/i18n.js`` (the page gets the whole catalog in its
   build-time data, ``catalog()``).
3. A fixed text of a Bokeh model (a widget's title or label, an axis label) that should follow
   the language goes into :func:`model_texts` instead of being set in code: the page
   (``static/js/localize.js``) applies that table.

Texts that come from the core's declarations are keyed by their names and generated here:
``system.NAME`` (the system's title; the Japanese in :data:`SYSTEM_TITLES_JA`),
``param.SYSTEM.NAME`` (a parameter's label; :data:`PARAM_LABELS_JA`, which needs an entry for
every declared parameter), ``paramtitle.SYSTEM.NAME`` (label, symbol and unit),
``integrator.NAME`` (title) and ``label.NAME`` (the legend's short label). The core's
declarations themselves stay English, and so does ``views.scenarios`` (the lessons): their
English is not repeated in ``en.json``, their Japanese is in ``ja.json`` beside ``"texts"``,
by the names the core declares (one member per table below). The integrators' short names
(``name.NAME``) stay in ``views.integrators.INTEGRATOR_NAMES``, which the worker needs too; the
Japanese grammar of the legend's label (ordinals, :func:`_label_ja`) is code, not text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import replace
from importlib.resources import files
from typing import Any

from integrator_lab.core import INTEGRATORS, SYSTEMS, ParamError
from integrator_lab.core.params import Param
from integrator_lab.views import shared
from integrator_lab.views.scenarios import SCENARIOS
from integrator_lab.views.scene import (
    INTEGRATOR_NAMES,
    integrator_about,
    integrator_label,
    phase_labels,
    shown_name,
)

LANGUAGES = ("en", "ja")
DEFAULT_LANGUAGE = "en"
#: what the language switch shows for each language
LANGUAGE_NAMES = {"en": "EN", "ja": "日本語"}
#: the folder of the JSON files, beside this module (package data of integrator_lab.views)
CATALOG_DIR = "catalog"


def _load(lang: str) -> dict[str, Any]:
    """``catalog/LANG.json``: ``{"texts": {key: text}, ...}`` (read with importlib.resources,
    so that it is found in a wheel and in a zip import alike)."""
    path = files(__package__ or "integrator_lab.views") / CATALOG_DIR / f"{lang}.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


_FILES = {lang: _load(lang) for lang in LANGUAGES}
_JA = _FILES["ja"]
#: texts whose one home is Python elsewhere, by language: ``null`` in that language's file.
#: The status line's English is views.shared's, which the worker says too.
HOMES: dict[str, dict[str, str]] = {
    "en": {
        "status.running": shared.STATUS_TEXT,
        "status.stopped": shared.STOPPED_TEXT,
        "status.paused": shared.PAUSED_TEXT,
        "status.diverged": shared.DIVERGED_TEXT,
    }
}


def _texts(lang: str) -> dict[str, str]:
    """``"texts"`` of ``lang``'s file, each ``null`` filled from :data:`HOMES`."""
    homes = HOMES.get(lang, {})
    texts: dict[str, str | None] = _FILES[lang]["texts"]
    return {key: homes[key] if value is None else value for key, value in texts.items()}


_BY_LANGUAGE = {lang: _texts(lang) for lang in LANGUAGES}
#: the fixed texts: ``{key: {"en": ..., "ja": ...}}``, in the order of ``en.json`` (a key one
#: file lacks has no entry for that language: tests/site/test_i18n.py says which)
TEXTS: dict[str, dict[str, str]] = {
    key: {lang: texts[key] for lang, texts in _BY_LANGUAGE.items() if key in texts}
    for key in dict.fromkeys(key for texts in _BY_LANGUAGE.values() for key in texts)
}
#: the systems' titles (``system.NAME``; English: the core's ``title``)
SYSTEM_TITLES_JA: dict[str, str] = _JA["system_titles"]
#: the systems' one-line descriptions (``system.NAME.tip``; English: the core's)
SYSTEM_DESCRIPTIONS_JA: dict[str, str] = _JA["system_descriptions"]
#: the parameters' labels (``param.SYSTEM.NAME``; English: the core's ``Param.label``); every
#: declared parameter needs one (tests/site/test_i18n.py)
PARAM_LABELS_JA: dict[str, dict[str, str]] = _JA["param_labels"]
#: the integrators' titles (``integrator.NAME``; English: the core's ``title``)
INTEGRATOR_TITLES_JA: dict[str, str] = _JA["integrator_titles"]
#: the integrators' short names (``name.NAME``): views.scene's, one table for every view
INTEGRATOR_NAMES_JA = INTEGRATOR_NAMES["ja"]
#: the parameters' help texts (``paramdoc.SYSTEM.NAME``; English: the core's ``Param.doc``)
PARAM_DOCS_JA: dict[str, dict[str, str]] = _JA["param_docs"]
#: the lessons in Japanese, ``(title, text)`` (``lesson.ID.title``, ``lesson.ID.text``;
#: English: views.scenarios, whose claims tests/views/test_lessons.py checks: say the same here)
LESSONS_JA: dict[str, tuple[str, str]] = {
    lesson: (words["title"], words["text"]) for lesson, words in _JA["lessons"].items()
}
#: the integrators' one-line descriptions (``about.NAME``; English: the core's description)
INTEGRATOR_DESCRIPTIONS_JA: dict[str, str] = _JA["integrator_descriptions"]
#: the order notes of the integrators (``order_note()``) in Japanese, by the English note
ORDER_NOTES_JA: dict[str, str] = _JA["order_notes"]
#: the phase plot's axis words (``phase.x.SYSTEM``, ``phase.y.SYSTEM``), put before the
#: symbols of scene.phase_labels; by the unit of the first coordinate
PHASE_WORDS_JA: dict[str, tuple[str, str]] = {
    unit: (words["x"], words["v"]) for unit, words in _JA["phase_words"].items()
}


def _label_ja(name: str) -> str:
    """The legend's short label in Japanese: the short name, the order, symplectic or not."""
    text = integrator_label(name).replace(name, INTEGRATOR_NAMES_JA.get(name, name), 1)
    text = re.sub(r" \((\d)(?:st|nd|rd|th) if damped\)", r"（減衰ありは \1 次）", text)
    text = re.sub(r"(\d)(?:st|nd|rd|th) order", r"\1 次", text)
    return text.replace("· symplectic", "· シンプレクティック")


def _about(name: str, lang: str) -> str:
    """:func:`scene.integrator_about` in ``lang``: title, order, symplectic or not, explicit
    or implicit, what it does ("" where a description is missing)."""
    cls = INTEGRATORS[name]
    description = INTEGRATOR_DESCRIPTIONS_JA.get(name, "")
    title = INTEGRATOR_TITLES_JA.get(name, "")
    if not (description and title):
        return ""
    note = cls.order_note()
    order = (
        _fixed("about.order_note", lang, order=cls.order, note=ORDER_NOTES_JA.get(note, note))
        if note
        else _fixed("about.order", lang, order=cls.order)
    )
    return _fixed(
        "about",
        lang,
        title=title,
        order=order,
        kind=_fixed("about.symplectic" if cls.symplectic else "about.not_symplectic", lang),
        how=_fixed("about.implicit" if cls.implicit else "about.explicit", lang),
        description=description,
    )


def _title(label: str, symbol: str, unit: str) -> str:
    """As core.params.Param.title: "initial angle θ₀ (rad)"."""
    text = " ".join(part for part in (label, symbol) if part)
    return f"{text} ({unit})" if unit else text


def _declared() -> dict[str, dict[str, str]]:
    """Catalog entries of what the core declares (see the module docstring)."""
    out: dict[str, dict[str, str]] = {}
    for system, cls in SYSTEMS.items():
        out[f"system.{system}"] = {"en": cls.title, "ja": SYSTEM_TITLES_JA.get(system, "")}
        out[f"system.{system}.tip"] = {
            "en": cls.description,
            "ja": SYSTEM_DESCRIPTIONS_JA.get(system, ""),
        }
        labels = PARAM_LABELS_JA.get(system, {})
        for p in cls.PARAMS:
            ja = labels.get(p.name, "")
            out[f"param.{system}.{p.name}"] = {"en": p.label, "ja": ja}
            out[f"paramdoc.{system}.{p.name}"] = {
                "en": p.doc,
                "ja": PARAM_DOCS_JA.get(system, {}).get(p.name, ""),
            }
            doc_ja = PARAM_DOCS_JA.get(system, {}).get(p.name, "")
            out[f"paramhelp.{system}.{p.name}"] = {
                "en": f"{p.doc}; {p.accepted()}" if p.doc else p.accepted(),
                "ja": f"{doc_ja}。{_fixed('range.accepted', 'ja', expected=expected(p, 'ja'))}"
                if doc_ja
                else "",
            }
            out[f"paramtitle.{system}.{p.name}"] = {
                "en": p.title,
                "ja": _title(ja, p.symbol, p.unit.replace(" or ", " または ")) if ja else "",
            }
        x_label, v_label = phase_labels(cls())
        words = PHASE_WORDS_JA.get(cls().coordinate_units[0], ("", ""))
        out[f"phase.x.{system}"] = {"en": x_label, "ja": f"{words[0]} {x_label}".strip()}
        out[f"phase.y.{system}"] = {"en": v_label, "ja": f"{words[1]} {v_label}".strip()}
    for lesson in SCENARIOS:
        title, look_for = LESSONS_JA.get(lesson.id, ("", ""))
        out[f"lesson.{lesson.id}.title"] = {"en": lesson.title, "ja": title}
        out[f"lesson.{lesson.id}.text"] = {"en": lesson.look_for, "ja": look_for}
    for name, integrator in INTEGRATORS.items():
        out[f"integrator.{name}"] = {
            "en": integrator.title,
            "ja": INTEGRATOR_TITLES_JA.get(name, ""),
        }
        out[f"name.{name}"] = {"en": name, "ja": INTEGRATOR_NAMES_JA.get(name, "")}
        out[f"label.{name}"] = {"en": integrator_label(name), "ja": _label_ja(name)}
        out[f"about.{name}"] = {"en": integrator_about(name), "ja": _about(name, "ja")}
    return out


def catalog() -> dict[str, dict[str, str]]:
    """Every text: ``{key: {"en": ..., "ja": ...}}`` (an empty string: not translated yet)."""
    return {**TEXTS, **_declared()}


def language(value: str | None) -> str:
    """``value`` if it is one of :data:`LANGUAGES`, else ValueError naming the accepted ones."""
    if value is None:
        return DEFAULT_LANGUAGE
    if value not in LANGUAGES:
        raise ValueError(f"lang: got {value!r}, expected one of {', '.join(LANGUAGES)}")
    return value


def text(key: str, lang: str = DEFAULT_LANGUAGE, **values: Any) -> str:
    """The text ``key`` in ``lang`` (English where that is missing), placeholders filled."""
    entry = _CATALOG[key]
    template = entry.get(lang) or entry["en"]
    return template.format(**values) if values else template


def integrator_name(name: str, lang: str = DEFAULT_LANGUAGE) -> str:
    """The name an integrator is shown by in ``lang`` (``name.NAME``): a built-in's short name,
    a user's method its own name."""
    return shown_name(name, lang)


def model_texts(systems: Iterable[str]) -> list[list[Any]]:
    """Fixed texts of the dashboard's Bokeh models: ``[model name, property, key]``; a list
    of keys for a list property (a button group's labels). ``{lo}`` and ``{hi}`` of the
    time-step slider's title are the accepted range (the page fills them in)."""
    rows: list[list[Any]] = [
        ["controls:integrators", "title", "control.integrators"],
        ["controls:integrators", "description", "control.integrators.tip"],
        ["controls:integrators", "placeholder", "control.integrators.add"],
        # the menu's entries: [value, key] pairs (the value stays the code name)
        ["controls:integrators", "options", [[n, f"name.{n}"] for n in INTEGRATORS]],
        ["controls:systems", "labels", [f"system.{s}" for s in systems]],
        ["controls:step", "label", "control.step"],
        ["controls:reset", "label", "control.reset"],
        ["controls:speed", "title", "control.speed"],
        ["controls:show_exact", "label", "control.exact"],
        ["controls:energy_mode", "labels", ["control.energy.error", "control.energy.breakdown"]],
        ["controls:log_scale", "label", "control.log"],
        ["controls:show_phase", "label", "control.phase"],
        ["controls:copy_link", "label", "control.copy"],
    ]
    for s in systems:
        rows += [
            [f"{s}:energy:xaxis", "axis_label", "axis.time"],
            [f"{s}:energy:exact-label", "text", "energy.exact.zero"],
            [f"{s}:phase:xaxis", "axis_label", f"phase.x.{s}"],
            [f"{s}:phase:yaxis", "axis_label", f"phase.y.{s}"],
            [f"{s}:dt:slider", "title", "dt.slider"],
        ]
        for p in SYSTEMS[s].PARAMS:
            rows += [
                [f"{s}:param:{p.name}", "title", f"paramtitle.{s}.{p.name}"],
                [f"{s}:param:{p.name}", "description", f"paramhelp.{s}.{p.name}"],
            ]
    return rows


def range_values() -> dict[str, str]:
    """The placeholders of the model texts: the accepted time steps."""
    return {"lo": f"{shared.DT_RANGE[0]:g}", "hi": f"{shared.DT_RANGE[1]:g}"}


# -- parameters and refusals, as static/js/params.js says them --------------------------------
def _short(x: float) -> str:
    """A number as the page shows it (6 significant digits, no trailing zeros)."""
    return f"{float(f'{x:.6g}'):g}" if abs(x) < 1e16 else f"{x:.6g}"


def _fixed(key: str, lang: str, **values: Any) -> str:
    """A text of :data:`TEXTS` (usable while the catalog is being made)."""
    template = TEXTS[key].get(lang) or TEXTS[key]["en"]
    return template.format(**values) if values else template


def _with_unit(words: str, p: Param, lang: str = DEFAULT_LANGUAGE) -> str:
    unit = p.unit.replace(" or ", _fixed("unit.or", lang))
    return f"{words} {unit}" if unit else words


def expected(p: Param, lang: str = DEFAULT_LANGUAGE) -> str:
    """What parameter declaration ``p`` accepts, in ``lang`` (params.js ``expected``)."""
    if p.kind == "choice":
        return _fixed("range.one_of", lang, names=", ".join(p.choices))
    what = _fixed("range.whole" if p.kind == "int" else "range.number", lang)
    lo = None if p.min is None else _short(p.min)
    hi = None if p.max is None else _short(p.max)
    low = "" if lo is None else _fixed("range.above" if p.min_open else "range.from", lang, lo=lo)
    up_to = "range.up_to" if lo is None else "range.to"
    high = "" if hi is None else _fixed("range.below" if p.max_open else up_to, lang, hi=hi)
    join = _fixed("range.join_open" if p.min_open and hi is not None else "range.join", lang)
    words = join.join(part for part in (low, high) if part)
    return _with_unit(
        _fixed("range.expected", lang, what=what, span=words) if words else what, p, lang
    )


def span(p: Param, lang: str = DEFAULT_LANGUAGE) -> str:
    """``p``'s range as "lo–hi unit", open ends said (params.js ``span``)."""
    lo = "−∞" if p.min is None else _short(p.min)
    hi = "∞" if p.max is None else _short(p.max)
    excluded = [
        v
        for v, is_open in (
            (lo, p.min_open and p.min is not None),
            (hi, p.max_open and p.max is not None),
        )
        if is_open
    ]
    note = (
        _fixed("range.excluded", lang, values=_fixed("range.and", lang).join(excluded))
        if excluded
        else ""
    )
    return _with_unit(f"{lo}–{hi}", p, lang) + note


def param_name(system: str, p: Param, lang: str = DEFAULT_LANGUAGE) -> str:
    """What people read for ``p`` of ``system``: label and symbol ("initial angle θ₀")."""
    key = f"param.{system}.{p.name}"
    label = text(key, lang) if key in _CATALOG else p.label
    return " ".join(part for part in (label or p.name, p.symbol) if part)


def core_error(error: Exception, lang: str = DEFAULT_LANGUAGE) -> str:
    """What the core objected to, in ``lang``: a refused parameter value
    (``core.ParamError``) from its parts; any other error as the core said it (English),
    so that nothing is lost."""
    if lang == DEFAULT_LANGUAGE or not isinstance(error, ParamError) or not error.owner:
        return str(error)
    system, p = error.owner, error.param
    return text(
        "core.rejected",
        lang,
        system=text(f"system.{system}", lang) if f"system.{system}" in _CATALOG else system,
        name=param_name(system, p, lang),
        value=repr(error.value) if isinstance(error.value, str) else str(error.value),
        expected=expected(p, lang),
    )


def refusal_text(refused: dict[str, Any], lang: str = DEFAULT_LANGUAGE) -> str | None:
    """A refusal of views.live's ``refusal`` (system, parameter, value, range, ``then``) in
    ``lang``; None if it names no declared parameter (then the core's sentence is said)."""
    system = refused.get("system", "")
    declared = {p.name: p for p in getattr(SYSTEMS.get(system), "PARAMS", ())}
    p = declared.get(refused.get("param", ""))
    if p is None:
        return None
    bounds = ("min", "max", "min_open", "max_open")
    p = replace(p, **{k: refused[k] for k in bounds if k in refused})
    value = refused.get("value")
    error = text(
        "core.rejected",
        lang,
        system=text(f"system.{system}", lang),
        name=param_name(system, p, lang),
        value=repr(value) if isinstance(value, str) else value,
        expected=expected(p, lang),
    )
    return text(
        "core.kept" if refused.get("then") == "kept" else "core.defaults", lang, error=error
    )


def drag_note(
    system: str, clamped: Iterable[tuple[Param, float, float]], lang: str = DEFAULT_LANGUAGE
) -> str:
    """What a drag past a parameter's range says: ``clamped`` is ``[(p, dragged to, set)]``
    (the page: params.js ``clampNoteText``, held to this by tests/js/params.test.mjs)."""

    def unit(p: Param) -> str:
        return f" {p.unit}" if p.unit else ""

    parts = [
        text(
            "drag.clamped",
            lang,
            name=param_name(system, p, lang),
            value=f"{value:g}{unit(p)}",
            span=span(p, lang),
            set=f"{kept:g}{unit(p)}",
        )
        for p, value, kept in clamped
    ]
    return text(
        "drag.note",
        lang,
        system=text(f"system.{system}", lang),
        parts=text("drag.join", lang).join(parts),
    )


# after every function it uses (expected, span)
_CATALOG = catalog()
