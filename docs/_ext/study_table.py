"""``.. study-table::``: convergence and cost tables computed by the core's study
(:mod:`integrator_lab.core.study`) when the documentation is built, so the numbers in the text
are the core's, never typed by hand.

Two forms::

    .. study-table::                  one row per integrator and time step
       :system: spring
       :set: damping=0
       :duration: 10, 1000            one block of rows per duration
       :runs: euler 0.001, rk4 0.1    integrator and dt (s); dt must divide the duration

    .. study-table::                  one row per integrator: fitted slope against order
       :system: spring
       :duration: 2
       :integrators: velocity-verlet, yoshida4
       :dt-max: 0.5
       :dt-min: 0.001
       :points: 12

A bad option fails the build (exit status 1, with or without ``-W``) with a message naming it.
"""

from __future__ import annotations

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from integrator_lab.core import study

logger = logging.getLogger(__name__)


class OptionError(Exception):
    """A bad option of one table: logged with file and line, and the build fails."""


def _number(text):
    return f"{text:.2g}" if text is not None else "--"


def _dt(value):
    return f"{value:.4g}"


class StudyTable(SphinxDirective):
    has_content = False
    option_spec = {
        "system": directives.unchanged_required,
        "set": directives.unchanged,
        "duration": directives.unchanged_required,
        "runs": directives.unchanged,
        "integrators": directives.unchanged,
        "dt-max": directives.unchanged,
        "dt-min": directives.unchanged,
        "points": directives.unchanged,
        "caption": directives.unchanged,
    }

    def fail(self, message):
        raise OptionError(message)

    def parse(self):
        options = self.options
        if "system" not in options or "duration" not in options:
            self.fail("options :system: and :duration: are required")
        params = {}
        for item in filter(None, (s.strip() for s in options.get("set", "").split(","))):
            name, sep, value = item.partition("=")
            if not sep:
                self.fail(f"option :set:: got {item!r}, expected NAME=VALUE, ...")
            params[name.strip()] = value.strip()
        try:
            durations = [float(d) for d in options["duration"].split(",")]
        except ValueError:
            self.fail(
                f"option :duration:: got {options['duration']!r}, expected seconds, comma-separated"
            )
        if ("runs" in options) == ("integrators" in options):
            self.fail("give exactly one of :runs: (integrator dt, ...) and :integrators:")
        return options["system"], params, durations

    def run(self):
        try:
            system, params, durations = self.parse()
            if "runs" in self.options:
                header, rows, caption = self.point_rows(system, params, durations)
            else:
                header, rows, caption = self.slope_rows(system, params, durations)
        except (OptionError, ValueError) as exc:
            logger.error("study-table: %s", exc, location=(self.env.docname, self.lineno))
            _errors(self.env).setdefault(self.env.docname, []).append(str(exc))
            return []
        return [self.table(header, rows, self.options.get("caption", caption))]

    def point_rows(self, system, params, durations):
        runs = []
        for item in filter(None, (s.strip() for s in self.options["runs"].split(","))):
            try:
                name, dt = item.split()
                runs.append((name, float(dt)))
            except ValueError:
                self.fail(f"option :runs:: got {item!r}, expected 'INTEGRATOR DT', ...")
        rows, reference = [], None
        for duration in durations:
            for name, dt in runs:
                steps = round(duration / dt)
                if steps < 1 or abs(steps * dt - duration) > 1e-9 * duration:
                    self.fail(
                        f"option :runs:: dt = {dt:g} s does not divide the duration {duration:g} s"
                    )
                result = study(system, [name], duration=duration, steps=[steps], **params)
                reference = result.reference["method"]
                run = result.runs[0]
                cells = [
                    f"``{name}``",
                    _dt(run.dt[0]),
                    f"{steps:,}",
                    f"{run.evaluations[0]:,}",
                    _number(run.to_dict()["error"][0]),
                    _number(run.to_dict()["energy_error"][0]),
                ]
                rows.append(([f"{duration:g}"] if len(durations) > 1 else []) + cells)
        header = (["T (s)"] if len(durations) > 1 else []) + [
            "integrator",
            "dt (s)",
            "steps",
            "force evaluations",
            "error at T",
            "energy error at T",
        ]
        caption = f"{self.describe(system, params)}, error against the {reference} solution" + (
            f", T = {durations[0]:g} s" if len(durations) == 1 else ""
        )
        return header, rows, caption

    def slope_rows(self, system, params, durations):
        if len(durations) != 1:
            self.fail("option :duration:: give one duration with :integrators:")
        names = [s.strip() for s in self.options["integrators"].split(",") if s.strip()]
        kwargs = {}
        for option, key, kind in (
            ("dt-max", "dt_max", float),
            ("dt-min", "dt_min", float),
            ("points", "points", int),
        ):
            if option in self.options:
                try:
                    kwargs[key] = kind(self.options[option])
                except ValueError:
                    self.fail(f"option :{option}:: got {self.options[option]!r}")
        result = study(system, names, duration=durations[0], **kwargs, **params)
        rows = []
        for run in result.runs:
            excluded = sum(1 for reason in run.excluded if reason is not None)
            fitted = (
                "--"
                if run.slope_range is None
                else f"{_dt(run.slope_range[0])} to {_dt(run.slope_range[1])}"
            )
            rows.append(
                [
                    f"``{run.integrator}``",
                    str(run.order),
                    "--" if run.slope is None else f"{run.slope:.2f}",
                    fitted,
                    f"{excluded} of {len(run.dt)}",
                    run.note or run.order_note or "",
                ]
            )
        header = [
            "integrator",
            "order",
            "fitted slope",
            "fitted over dt (s)",
            "points excluded",
            "note",
        ]
        first, last = result.runs[0].dt[0], result.runs[0].dt[-1]
        caption = (
            f"{self.describe(system, params)}, T = {durations[0]:g} s, "
            f"{len(result.runs[0].dt)} time steps from {_dt(first)} s to "
            f"{_dt(last)} s; error against the {result.reference['method']} solution"
        )
        return header, rows, caption

    @staticmethod
    def describe(system, params):
        given = ", ".join(f"{k} = {v}" for k, v in params.items())
        return f"{system}" + (f" ({given})" if given else "")

    def table(self, header, rows, caption):
        table = nodes.table(classes=["study-table"])
        group = nodes.tgroup(cols=len(header))
        table += group
        group.extend(nodes.colspec(colwidth=1) for _ in header)
        head, body = nodes.thead(), nodes.tbody()
        group += head
        group += body
        for target, lines in ((head, [header]), (body, rows)):
            for cells in lines:
                row = nodes.row()
                for cell in cells:
                    entry = nodes.entry()
                    parsed, _ = self.parse_inline(cell)
                    entry += nodes.paragraph("", "", *parsed)
                    row += entry
                target += row
        table.insert(0, nodes.title("", caption))
        return table


def _errors(env) -> dict:
    if not isinstance(getattr(env, "study_table_errors", None), dict):
        env.study_table_errors = {}
    return env.study_table_errors


def _purge(app, env, docname):
    _errors(env).pop(docname, None)


def _finish(app, exception):
    if exception is None and _errors(app.env):
        app.statuscode = 1


def setup(app):
    app.add_directive("study-table", StudyTable)
    app.connect("env-purge-doc", _purge)
    app.connect("build-finished", _finish)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
