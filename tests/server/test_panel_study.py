"""The Panel dashboard's study view: the session's periodic callback runs the study in slices
beside the live view, and it completes with the methods' orders as slopes and the command
line's CSV."""

from __future__ import annotations

import csv
import re

import pytest
from conftest import sim_time, wait_until

from integrator_lab.cli.study import CSV_COLUMNS

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
