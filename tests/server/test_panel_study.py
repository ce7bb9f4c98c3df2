"""The Panel dashboard's study view: the session's periodic callback runs the study in slices
beside the live view, and it completes with the methods' orders as slopes and the command
line's CSV."""

from __future__ import annotations

import csv
import re

import pytest
from conftest import sim_time, wait_until

from integrator_lab.cli.study import CSV_COLUMNS
from integrator_lab.views import i18n
from integrator_lab.views.study_figures import study_name

pytestmark = pytest.mark.browser

ORDERS = {"euler": 1, "symplectic-euler": 1, "velocity-verlet": 2, "rk4": 4}


STATUS_JS = """() => {
    for (const model of Bokeh.documents[0].all_models) {
        if (model.css_classes && model.css_classes.includes("il-spring-study-status")) {
            return model.text;
        }
    }
    return "";
}"""


def status(page) -> str:
    return page.evaluate(STATUS_JS)


def test_study_completes_in_the_panel_dashboard(new_page, tmp_path):
    page = new_page()
    page.locator(".il-spring-study-open button").click()
    page.locator(".il-spring-study-run button").click()
    began = sim_time(page, "spring")
    wait_until(lambda: "Running" in status(page), timeout=30, what="the study running")
    wait_until(lambda: "Done:" in status(page), timeout=180, what="the study done")
    # the live simulation went on meanwhile
    assert sim_time(page, "spring") > began + 0.5
    text = status(page)
    slopes = dict(re.findall(r"([a-z0-9-]+) (\d+\.\d\d)", text.split("Fitted slopes:")[1]))
    # the damped spring (b = 0.1): damping is a smooth force, every order holds
    for name, order in ORDERS.items():
        assert float(slopes[name]) == pytest.approx(order, abs=0.15), name
    with page.expect_download() as info:
        page.locator(".il-spring-study-download button").click()
    path = tmp_path / "study.csv"
    info.value.save_as(path)
    rows = list(csv.reader(path.read_text().splitlines()))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert len(rows) == 1 + 12 * len(ORDERS)
    assert page.errors == []


AXIS_JS = """(name) => {
    const fig = Bokeh.documents[0].get_model_by_name(name);
    return fig ? fig.left[0].axis_label : null;
}"""


def test_the_first_study_labels_its_diagrams_with_the_measure_chosen(new_page):
    """The diagrams are made with the first study and labelled with its measure in the
    callback that shows them: the label must reach the page (a change made to models in the
    callback that adds them was once lost on the way, web/server/geometry.py)."""
    page = new_page()
    page.locator(".il-spring-study-open button").click()
    chosen = i18n.text("study.measure.energy_error", "en")
    page.locator(".il-spring-study-measure select").select_option(label=chosen)
    page.locator(".il-spring-study-run button").click()
    for role in ("convergence", "work"):
        wait_until(
            lambda role=role: page.evaluate(AXIS_JS, study_name("spring", role)) == chosen,
            what=f"the {role} diagram's axis to name the measure",
        )
    assert page.errors == []
