"""``.. terminal-velocity-table::``: terminal velocities of the drag models, simulated by the
core when the documentation is built and set beside the closed forms of the text."""

from __future__ import annotations

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from integrator_lab.core import get_system, simulate

FORCE, MASS = 10.0, 1.0  # N, kg
#: (model, drag setting k) shown; Bullet's k must stay below 1
MODELS = (("linear", 1.0), ("unity", 1.0), ("box2d", 1.0), ("bullet", 0.5))
STEPS = (0.01, 0.1, 0.5)  # s
DURATION = 60.0  # s: many relaxation times, so the velocity has settled


def rows():
    for model, k in MODELS:
        system = get_system("drag", model=model, drag=k, force=FORCE, mass=MASS)
        cells = [f"``{model}``", f"{k:g}", f"{system.terminal_velocity():.4g}"]
        for dt in STEPS:
            result = simulate(system, "symplectic-euler", dt=dt, duration=DURATION)
            cells.append(f"{result.v[-1][0]:.4g} ({system.terminal_velocity(dt):.4g})")
        yield cells


class TerminalVelocityTable(SphinxDirective):
    has_content = False

    def run(self):
        header = ["model", "k", "limit dt → 0"] + [f"dt = {dt:g} s" for dt in STEPS]
        table = nodes.table(classes=["terminal-velocities"])
        group = nodes.tgroup(cols=len(header))
        table += group
        group.extend(nodes.colspec(colwidth=1) for _ in header)
        head, body = nodes.thead(), nodes.tbody()
        group += head
        group += body
        for target, cells in ((head, [header]), (body, rows())):
            for cells_ in cells:
                row = nodes.row()
                for cell in cells_:
                    entry = nodes.entry()
                    parsed, _ = self.parse_inline(cell)
                    entry += nodes.paragraph("", "", *parsed)
                    row += entry
                target += row
        title = nodes.title(
            "",
            f"Terminal velocity (m/s) for F = {FORCE:g} N, m = {MASS:g} kg: "
            "simulated with symplectic Euler (closed form in parentheses)",
        )
        table.insert(0, title)
        return [table]


def setup(app):
    app.add_directive("terminal-velocity-table", TerminalVelocityTable)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
