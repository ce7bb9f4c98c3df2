"""How each integrator is shown, the same in every view: its colour, its short name in each
language, its legend label and its one-line description (tooltips); and the colour of the
exact solution's ghost.

Pure Python and standard library only (no Bokeh): the Pyodide worker's loop colours and
labels its lanes with it, the site's build hands these tables to the page's JavaScript, and
:mod:`integrator_lab.views.i18n` takes its ``name.NAME`` texts from :data:`INTEGRATOR_NAMES`.
:mod:`integrator_lab.views.scene`, where these names lived before, re-exports them.
"""

from __future__ import annotations

from integrator_lab.core import INTEGRATORS

#: one colour per integrator, the same in every plot and legend: Okabe & Ito's colour-blind
#: safe set (black, vermillion, blue, bluish green, orange, sky blue) completed with Paul
#: Tol's sand, pink, dark red, dark yellow and purple, chosen so that every pair differs by at
#: least 18 CIELAB ΔE*ab for normal vision and under simulated deuteranopia and protanopia
#: (tests/site/test_legend_layout.py checks it)
INTEGRATOR_COLORS = {
    "euler": "#d55e00",
    "symplectic-euler": "#0072b2",
    "velocity-verlet": "#009e73",
    "leapfrog": "#33bbee",
    "midpoint": "#ddcc77",
    "heun": "#666633",
    "rk4": "#e69f00",
    "implicit-euler": "#aa3377",
    "implicit-midpoint": "#663333",
    "yoshida4": "#ffaabb",
    "rk45": "#000000",
}
FALLBACK_COLOR = "#555555"
#: the colour of a user's own method (any name that is not a built-in's): none of the above
USER_COLOR = "#e6007e"
#: colour of the exact solution's ghost
GHOST_COLOR = "#9a9a9a"

#: the integrators' short names in each language but English (where the code name is the
#: name), shown wherever the English shows the code name: the lanes, the legend, the menu of
#: integrators, the energy plot's marks, "diverged at", the study's and the geometry's lines
#: (views.i18n's ``name.NAME``; the URL, the CLI and the CSV keep the code names)
INTEGRATOR_NAMES = {
    "ja": {
        "euler": "陽的オイラー",
        "symplectic-euler": "シンプレクティック・オイラー",
        "velocity-verlet": "速度ベルレ",
        "leapfrog": "リープフロッグ",
        "midpoint": "陽的中点",
        "heun": "ホイン",
        "rk4": "RK4",
        "implicit-euler": "陰的オイラー",
        "implicit-midpoint": "陰的中点",
        "yoshida4": "吉田 4 次",
        "rk45": "RK45",
    },
}


def shown_name(name: str, lang: str = "en") -> str:
    """The name integrator ``name`` is shown by in ``lang``: a built-in's short name, a
    user's method (or a language without a table) its own name."""
    return INTEGRATOR_NAMES.get(lang, {}).get(name, name)


def color_of(name: str) -> str:
    """An integrator's colour; a name that is not a built-in's is the user's own method."""
    if name in INTEGRATORS:
        return INTEGRATOR_COLORS.get(name, FALLBACK_COLOR)
    return USER_COLOR


def _ordinal(n: int) -> str:
    return {1: "1st", 2: "2nd", 3: "3rd"}.get(n, f"{n}th")


def integrator_label(name: str) -> str:
    """Short legend label: name, order (and the lower one with damping, where it drops), and
    whether the method is symplectic."""
    cls = INTEGRATORS[name]
    order = f"{_ordinal(cls.order)} order"
    if cls.damped_order() != cls.order:
        order += f" ({_ordinal(cls.damped_order())} if damped)"
    return f"{name} · {order}" + (" · symplectic" if cls.symplectic else "")


def integrator_about(name: str) -> str:
    """One line for tooltips: title, order, symplectic or not, explicit or implicit."""
    if name not in INTEGRATORS:
        return f"{name}: your own method"
    cls = INTEGRATORS[name]
    kind = "symplectic" if cls.symplectic else "not symplectic"
    how = "implicit" if cls.implicit else "explicit"
    order = f"order {cls.order}" + (f" ({cls.order_note()})" if cls.order_note() else "")
    return f"{cls.title}: {order}, {kind}, {how}. {cls.description}"
