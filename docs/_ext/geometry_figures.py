"""Stability regions, their limits and phase-space area, computed by the core
(:mod:`integrator_lab.core.stability`, :mod:`integrator_lab.core.area`) when the documentation
is built and drawn as inline SVG (no plotting library, no image files)::

    .. stability-figure::             one panel per integrator: the region shaded, its boundary
       :integrators: euler, rk4       a line; with :system:, the points dt*lambda of its modes
       :system: spring                at each :dt: (filled: inside, stable; grey ring: outside)
       :set: damping=0
       :dt: 0.4, 0.8

    .. stability-table::              one row per integrator: R(z), limits, A-stability
       :integrators: euler, rk4

    .. area-figure::                  area ratio of a ring of states against time (log axis)
       :system: pendulum
       :integrators: euler, velocity-verlet
       :dt: 0.05
       :steps: 400

A bad option fails the build (exit status 1) with a message naming it.
"""

from __future__ import annotations

import math
from html import escape

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from integrator_lab.core import get_system
from integrator_lab.core.area import area_runs
from integrator_lab.core.stability import (
    WINDOW,
    linear_modes,
    method,
    region,
    scaled_points,
    stability,
)
from integrator_lab.views.scene import FALLBACK_COLOR, INTEGRATOR_COLORS

logger = logging.getLogger(__name__)

#: the colour of a point outside its region (the dashboards' "diverged" grey)
OUTSIDE_COLOR = "#8a8a8a"
#: shading resolution of a region (the boundary line itself is the core's, finer)
SHADE_CELL = 0.1
PANEL = 220  # px, a panel's plotting square
MARGIN = 28


class OptionError(Exception):
    """A bad option: logged with file and line, and the build fails."""


def _names(text):
    return [s.strip() for s in (text or "").split(",") if s.strip()]


def _params(text):
    params = {}
    for item in _names(text):
        name, sep, value = item.partition("=")
        if not sep:
            raise OptionError(f"option :set:: got {item!r}, expected NAME=VALUE, ...")
        params[name.strip()] = value.strip()
    return params


def _floats(text, option):
    try:
        values = [float(x) for x in _names(text)]
    except ValueError:
        raise OptionError(f"option :{option}:: got {text!r}, expected numbers") from None
    if not all(math.isfinite(v) and v > 0 for v in values):
        raise OptionError(f"option :{option}:: got {text!r}, expected positive numbers")
    return values


def _color(name):
    return INTEGRATOR_COLORS.get(name, FALLBACK_COLOR)


def _fmt(x):
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    return f"{x:.4g}".replace("-", "−")


class _Directive(SphinxDirective):
    has_content = False

    def run(self):
        try:
            html = self.render()
        except (OptionError, ValueError) as exc:
            logger.error("%s: %s", self.name, exc, location=(self.env.docname, self.lineno))
            _errors(self.env).setdefault(self.env.docname, []).append(str(exc))
            return []
        return [nodes.raw("", html, format="html")]

    def render(self):
        raise NotImplementedError


def _system_points(options):
    if "system" not in options:
        if "dt" in options or "set" in options:
            raise OptionError("options :dt: and :set: need :system:")
        return []
    system = get_system(options["system"], **_params(options.get("set")))
    dts = _floats(options.get("dt"), "dt") if "dt" in options else [system.recommended_dt]
    modes = linear_modes(system)
    return [(dt, scaled_points(modes, dt)) for dt in dts]


class StabilityFigure(_Directive):
    option_spec = {
        "integrators": directives.unchanged_required,
        "system": directives.unchanged,
        "set": directives.unchanged,
        "dt": directives.unchanged,
        "caption": directives.unchanged,
    }

    def render(self):
        names = _names(self.options.get("integrators"))
        if not names:
            raise OptionError("option :integrators: is required")
        series = _system_points(self.options)
        panels = [self.panel(name, series) for name in names]
        caption = self.options.get("caption", "")
        return (
            '<figure class="geometry-figure"><div class="geometry-panels">'
            + "".join(panels)
            + "</div>"
            + (f"<figcaption>{escape(caption)}</figcaption>" if caption else "")
            + "</figure>"
        )

    def panel(self, name, series):
        m = method(name)
        x0, x1, y0, y1 = WINDOW
        scale = PANEL / (x1 - x0)
        height = (y1 - y0) * scale
        color = _color(m.name)

        def px(x, y):
            return MARGIN + (x - x0) * scale, MARGIN + (y1 - y) * scale

        parts = [
            f'<svg class="geometry-panel" role="img" viewBox="0 0 {PANEL + 2 * MARGIN} '
            f'{height + 2 * MARGIN + 14}" width="{PANEL + 2 * MARGIN}">',
            f"<title>Stability region of {escape(m.name)}</title>",
            f'<rect x="{MARGIN}" y="{MARGIN}" width="{PANEL}" height="{height}" '
            'fill="#fbfbfa" stroke="#999"/>',
        ]
        # the stable set, shaded row by row in runs of stable cells (overlapping a little;
        # the group's opacity applies once to the whole, so the overlaps do not show)
        parts.append('<g opacity="0.28">')
        n_x = round((x1 - x0) / SHADE_CELL)
        n_y = round((y1 - y0) / SHADE_CELL)
        for j in range(n_y):
            y = y1 - (j + 0.5) * SHADE_CELL
            start = None
            for i in range(n_x + 1):
                stable = i < n_x and m.stable(complex(x0 + (i + 0.5) * SHADE_CELL, y))
                if stable and start is None:
                    start = i
                elif not stable and start is not None:
                    left, top = px(x0 + start * SHADE_CELL, y + 0.5 * SHADE_CELL)
                    parts.append(
                        f'<rect x="{left:.1f}" y="{top:.1f}" '
                        f'width="{(i - start) * SHADE_CELL * scale + 0.3:.1f}" '
                        f'height="{SHADE_CELL * scale + 0.3:.1f}" fill="{color}" '
                        "/>"
                    )
                    start = None
        parts.append("</g>")
        # axes and integer ticks
        ax, ay = px(0, 0)
        parts.append(
            f'<line x1="{MARGIN}" y1="{ay:.1f}" x2="{MARGIN + PANEL}" y2="{ay:.1f}" '
            'stroke="#555" stroke-width="0.8"/>'
            f'<line x1="{ax:.1f}" y1="{MARGIN}" x2="{ax:.1f}" y2="{MARGIN + height}" '
            'stroke="#555" stroke-width="0.8"/>'
        )
        for k in range(math.ceil(x0), math.floor(x1) + 1):
            tx, _ = px(k, 0)
            parts.append(
                f'<text x="{tx:.1f}" y="{MARGIN + height + 12}" font-size="9" '
                f'text-anchor="middle" fill="#444">{_fmt(k)}</text>'
            )
        for k in range(math.ceil(y0), math.floor(y1) + 1):
            _, ty = px(0, k)
            parts.append(
                f'<text x="{MARGIN - 4}" y="{ty + 3:.1f}" font-size="9" text-anchor="end" '
                f'fill="#444">{_fmt(k)}i</text>'
            )
        for piece in region(m):
            path = " ".join(f"{a:.1f},{b:.1f}" for a, b in (px(x, y) for x, y in piece))
            parts.append(
                f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="1.8"/>'
            )
        for dt, points in series:
            # the label goes beside the point farthest out (the stiffest mode) only
            far = max(points, key=lambda z: abs(complex(*z)))
            for x, y in points:
                if not (x0 <= x <= x1 and y0 <= y <= y1):
                    continue
                cx, cy = px(x, y)
                inside = m.stable(complex(x, y))
                fill = "#1a1a1a" if inside else "#ffffff"
                stroke = "#1a1a1a" if inside else OUTSIDE_COLOR
                parts.append(
                    f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="3.6" fill="{fill}" '
                    f'stroke="{stroke}" stroke-width="1.6"><title>dt = {dt:g} s: '
                    f"{'stable' if inside else 'unstable'}</title></circle>"
                )
                if (x, y) == far:
                    parts.append(
                        f'<text x="{cx + 5:.1f}" y="{cy - 4:.1f}" font-size="9" '
                        f'fill="#222">{dt:g} s</text>'
                    )
        parts.append(
            f'<text x="{MARGIN}" y="{MARGIN - 8}" font-size="12" font-weight="bold" '
            f'fill="{color}">{escape(m.name)}</text>'
            f'<text x="{MARGIN + PANEL}" y="{MARGIN + height + 26}" font-size="9" '
            'text-anchor="end" fill="#444">Re hλ</text></svg>'
        )
        return "".join(parts)


class StabilityTable(_Directive):
    option_spec = {"integrators": directives.unchanged_required}

    def render(self):
        names = _names(self.options.get("integrators"))
        if not names:
            raise OptionError("option :integrators: is required")
        rows = []
        for name in names:
            r = stability(name)
            function = r.stability_function or "(2x2 matrix: no scalar R)"
            rows.append(
                "<tr>"
                f"<td><code>{escape(r.integrator)}</code></td><td>{escape(r.kind)}</td>"
                f"<td><code>{escape(function)}</code></td>"
                f"<td>{_fmt(r.imaginary_limit)}</td><td>{_fmt(r.real_limit)}</td>"
                f"<td>{'yes' if r.a_stable else 'no'}</td></tr>"
            )
        return (
            '<table class="docutils align-default stability-table"><thead><tr>'
            "<th>integrator</th><th>kind</th><th>R(z)</th>"
            "<th>imaginary axis: stable for |h ω| &lt;</th>"
            "<th>real axis: stable for h λ &gt;</th><th>A-stable</th></tr></thead><tbody>"
            + "".join(rows)
            + "</tbody></table>"
        )


class AreaFigure(_Directive):
    option_spec = {
        "system": directives.unchanged_required,
        "set": directives.unchanged,
        "integrators": directives.unchanged_required,
        "dt": directives.unchanged_required,
        "steps": directives.unchanged_required,
        "caption": directives.unchanged,
    }

    def render(self):
        options = self.options
        for key in ("system", "integrators", "dt", "steps"):
            if key not in options:
                raise OptionError(f"option :{key}: is required")
        system = get_system(options["system"], **_params(options.get("set")))
        (dt,) = _floats(options["dt"], "dt")
        try:
            steps = int(options["steps"])
        except ValueError:
            raise OptionError(f"option :steps:: got {options['steps']!r}") from None
        names = _names(options["integrators"])
        every = max(1, steps // 200)
        runs = area_runs(system, names, dt, steps, every=every)
        width, height = 520, 240
        left, right, top, bottom = 56, 140, 14, 34
        t_end = steps * dt
        logs = [math.log10(a) for run in runs for a in run.area_ratio if a > 0]
        lo = min(-1.0, math.floor(min(logs)))
        hi = max(1.0, math.ceil(max(logs)))

        def px(t, ratio):
            value = math.log10(ratio) if ratio > 0 else lo
            value = min(max(value, lo), hi)
            return (
                left + t / t_end * (width - left - right),
                top + (hi - value) / (hi - lo) * (height - top - bottom),
            )

        parts = [
            f'<svg class="area-figure" role="img" viewBox="0 0 {width} {height}" '
            f'width="{width}"><title>Area ratio of the ring against time</title>',
            f'<rect x="{left}" y="{top}" width="{width - left - right}" '
            f'height="{height - top - bottom}" fill="#fbfbfa" stroke="#999"/>',
        ]
        for k in range(int(lo), int(hi) + 1):
            _, y = px(0, 10.0**k)
            parts.append(
                f'<line x1="{left}" y1="{y:.1f}" x2="{width - right}" y2="{y:.1f}" '
                f'stroke="{"#555" if k == 0 else "#ddd"}" stroke-width="0.8"/>'
                f'<text x="{left - 4}" y="{y + 3:.1f}" font-size="10" text-anchor="end" '
                f'fill="#444">{10.0**k:g}</text>'
            )
        for k in range(6):
            t = t_end * k / 5
            x, _ = px(t, 1.0)
            parts.append(
                f'<text x="{x:.1f}" y="{height - bottom + 14}" font-size="10" '
                f'text-anchor="middle" fill="#444">{t:.3g}</text>'
            )
        parts.append(
            f'<text x="{(width - right + left) / 2}" y="{height - 4}" font-size="10" '
            'text-anchor="middle" fill="#444">t (s)</text>'
        )
        for index, run in enumerate(runs):
            color = _color(run.integrator)
            path = " ".join(
                f"{x:.1f},{y:.1f}" for x, y in (px(t, a) for t, a in zip(run.t, run.area_ratio))
            )
            parts.append(
                f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"/>'
            )
            last = run.area_ratio[-1]
            label = f"{run.integrator} ×{last:.3g}"
            if run.diverged_at is not None:
                label += " (diverged)"
            parts.append(
                f'<text x="{width - right + 6}" y="{top + 14 + 15 * index}" font-size="11" '
                f'fill="{color}">{escape(label)}</text>'
            )
        parts.append("</svg>")
        caption = options.get("caption", "")
        return (
            '<figure class="geometry-figure">'
            + "".join(parts)
            + (f"<figcaption>{escape(caption)}</figcaption>" if caption else "")
            + "</figure>"
        )


def _errors(env) -> dict:
    if not isinstance(getattr(env, "geometry_figure_errors", None), dict):
        env.geometry_figure_errors = {}
    return env.geometry_figure_errors


def _purge(app, env, docname):
    _errors(env).pop(docname, None)


def _finish(app, exception):
    if exception is None and _errors(app.env):
        app.statuscode = 1


def setup(app):
    app.add_directive("stability-figure", StabilityFigure)
    app.add_directive("stability-table", StabilityTable)
    app.add_directive("area-figure", AreaFigure)
    app.connect("env-purge-doc", _purge)
    app.connect("build-finished", _finish)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
