"""The Panel dashboard's link, in the static page's words: the same query keys
(``static/js/urlstate.js``; validated by :func:`integrator_lab.views.scenarios.parse_query`),
read when a session starts and written back into the page's address as the dashboard changes,
so that a link copied from either front end opens the same view in the other.

A key the dashboard does not take is said, never silently dropped; ``systems`` and ``lang``
are read by :mod:`integrator_lab.server.server` before the dashboard is made.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlencode

from integrator_lab.core import DEFAULT_INTEGRATORS, INTEGRATORS
from integrator_lab.views.scenarios import FLAGS, SCENARIOS, parse_query

#: read before the dashboard is made (server.session_systems, server.session_language)
READ_BEFORE = ("systems", "lang")
LESSONS = {s.id for s in SCENARIOS}
#: the dashboard's parameters a link says (links.link_query)
DASHBOARD_KEYS = (
    "shown",
    "integrators",
    "hidden",
    "speed",
    "playing",
    "show_exact",
    "log_scale",
    "show_phase",
    "energy_mode",
    "lesson",
    "lang",
)
#: parse_query's names of them -> the dashboard's parameters
SETTING_PARAMS = {
    "speed": "speed",
    "playing": "playing",
    "exact": "show_exact",
    "log": "log_scale",
    "phase": "show_phase",
    "energy": "energy_mode",
    "integrators": "integrators",
}
#: the page's 0/1 keys and the dashboard's parameters they set (FLAGS: key -> page field)
FLAG_PARAMS = {key: SETTING_PARAMS[field] for key, field in FLAGS.items()}


def number_text(x: Any) -> str:
    """A number as the page writes it (JavaScript's ``String``): ``5``, not ``5.0``."""
    if isinstance(x, bool) or not isinstance(x, int | float):
        return str(x)
    x = float(x)
    return str(int(x)) if x.is_integer() and abs(x) < 1e16 else repr(x)


def read_link(args: Iterable[tuple[str, str]]) -> tuple[dict[str, Any], list[str]]:
    """What a link's query ``args`` (key, value) sets, and what it said that is refused or not
    taken here. Returns ``(link, problems)``, ``link`` with the keys of ``parse_query``
    (``dt`` and ``params`` per system) plus ``lesson`` and ``hide`` when given."""
    link: dict[str, Any] = {"dt": {}, "params": {}}
    problems: list[str] = []
    for key, raw in args:
        if key in READ_BEFORE:
            continue
        if key == "lesson":
            if raw in LESSONS:
                link["lesson"] = raw
            else:
                problems.append(f"{key!r}: no lesson {raw!r}")
        elif key == "hide":
            names = [n.strip() for n in raw.split(",") if n.strip()]
            bad = [n for n in names if n not in INTEGRATORS]
            if bad:
                problems.append(f"{key!r}: no integrator {', '.join(map(repr, bad))}")
            link["hide"] = [n for n in names if n in INTEGRATORS]
        elif key == "study" or ".study." in key:
            problems.append(f"{key!r}: study settings are not taken from a link here")
        else:
            try:
                one = parse_query(urlencode({key: raw}))
            except ValueError as exc:
                problems.append(str(exc))
                continue
            for system, dt in one.pop("dt").items():
                link["dt"][system] = dt
            for system, values in one.pop("params").items():
                link["params"].setdefault(system, {}).update(values)
            link.update(one)
    return link, problems


def link_query(
    state: Mapping[str, Any],
    systems: Iterable[str],
    defaults: Mapping[str, Any],
    settings: Mapping[str, Mapping[str, Any]],
    setting_defaults: Mapping[str, Mapping[str, Any]],
) -> str:
    """The page's query for a dashboard: what differs from the defaults, in the order the
    page writes it. ``state``: the dashboard's parameters (``shown``, ``integrators``,
    ``hidden``, ``speed``, the flags, ``energy_mode``, ``lesson``, ``lang``, ``geometry``: the
    systems whose geometry view is open); ``systems``:
    every system in the dashboard's order; ``settings``: per system its ``dt`` and
    parameters, ``setting_defaults`` theirs by default."""
    query: list[tuple[str, str]] = []
    if state.get("lesson"):
        query.append(("lesson", state["lesson"]))
    if list(state["shown"]) != list(systems):
        query.append(("systems", ",".join(state["shown"])))
    if list(state["integrators"]) != list(DEFAULT_INTEGRATORS):
        query.append(("integrators", ",".join(state["integrators"])))
    hidden = [n for n in state["hidden"] if n in state["integrators"]]
    if hidden:
        query.append(("hide", ",".join(hidden)))
    if state["speed"] != defaults["speed"]:
        query.append(("speed", number_text(state["speed"])))
    for key in FLAGS:
        name = FLAG_PARAMS[key]
        if state[name] != defaults[name]:
            query.append((key, "1" if state[name] else "0"))
    if state["energy_mode"] != defaults["energy_mode"]:
        query.append(("energy", state["energy_mode"]))
    for system in systems:
        values, default = settings[system], setting_defaults[system]
        for name, value in values.items():
            if value is not None and value != default.get(name):
                query.append((f"{system}.{name}", number_text(value)))
    if state.get("geometry"):  # the geometry views open
        query.append(("geometry", ",".join(state["geometry"])))
    if state.get("lang") and state["lang"] != defaults["lang"]:
        query.append(("lang", state["lang"]))
    return urlencode(query)  # (commas as %2C: URLSearchParams writes them so)
