"""The Panel dashboard in Japanese: ``integrator-lab serve --lang ja``, or ``?lang=ja`` in
its URL; texts from the one catalog (integrator_lab.views.i18n), as on the static page."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from conftest import MESSAGE_JS, TEXT_JS, Server, open_page, wait_until

from integrator_lab.views import i18n

pytestmark = pytest.mark.browser

STATUS_JA = re.compile(r"t = \d+\.\d\d s · 実時間の (\d+\.\d\d|–) 倍")
#: a Panel widget's label (its Bokeh model's title or label), found by its css class
WIDGET_JS = """(cls) => {
    for (const model of Bokeh.documents[0].all_models) {
        if (model.css_classes && model.css_classes.includes(cls)) {
            return model.title ?? model.label ?? null;
        }
    }
    return null;
}"""
MODEL_JS = "([name, prop]) => Bokeh.documents[0].get_model_by_name(name)[prop]"


def _japanese_labels(page):
    status = wait_until(
        lambda: STATUS_JA.fullmatch(page.evaluate(TEXT_JS, "spring:status")),
        what="a Japanese status line",
    )
    assert status
    assert page.evaluate(MODEL_JS, ["pendulum:energy:xaxis", "axis_label"]) == "時刻 t (s)"
    assert page.evaluate(MODEL_JS, ["pendulum:phase:yaxis", "axis_label"]) == ("角速度 θ̇ (rad/s)")
    assert page.evaluate(WIDGET_JS, "il-pendulum-theta0") == "初期角度 θ₀ (rad)"
    assert page.evaluate(WIDGET_JS, "il-spring-stiffness") == "ばね定数 k (N/m)"
    assert page.evaluate(WIDGET_JS, "il-spring-dt") == "時間刻み dt (s)"
    assert page.evaluate(WIDGET_JS, "il-integrators") == "積分法"
    assert page.evaluate(WIDGET_JS, "il-playing") == "一時停止"
    # the one legend's toggles, in Japanese
    legend = page.locator(".il-legend .bk-btn").all_inner_texts()
    assert i18n.text("label.symplectic-euler", "ja") in legend, legend
    assert page.get_by_text(i18n.text("page.heading", "ja")).count() >= 1
    # the widgets draw what the models say
    assert page.get_by_role("button", name="リセット").count() == 1
    assert page.get_by_role("button", name="エネルギーの内訳").count() == 1


def test_serve_lang_ja_shows_the_dashboard_in_japanese(browser, tmp_path):
    server = Server(tmp_path / "server.log", extra_args=("--lang", "ja"))
    try:
        page = open_page(browser, server.url)
        _japanese_labels(page)
        # pausing says so in Japanese, on the button and in the status line
        page.get_by_role("button", name="一時停止").click()
        wait_until(lambda: page.evaluate(WIDGET_JS, "il-playing") == "再生", what="the play label")
        # the energy modes, labelled in Japanese, still switch the plots
        page.get_by_role("button", name="エネルギーの内訳").click()
        wait_until(
            lambda: page.evaluate(
                "() => { const m = Bokeh.documents[0].get_model_by_name("
                "'spring:line:kinetic:rk4'); return m != null && m.visible; }"
            ),
            timeout=40,
            what="the breakdown view",
        )
        # ?lang=en in the URL overrides the server's language
        page = open_page(browser, server.url + "?lang=en")
        wait_until(
            lambda: "real time" in page.evaluate(TEXT_JS, "spring:status"),
            what="an English status line",
        )
        assert page.evaluate(WIDGET_JS, "il-pendulum-theta0") == "initial angle θ₀ (rad)"
        assert page.errors == []
    finally:
        server.stop()


def test_lang_ja_in_the_url_and_a_refused_lang(browser, server):
    page = open_page(browser, server.url + "?lang=ja")
    _japanese_labels(page)
    assert page.errors == []
    page = open_page(browser, server.url + "?lang=fr")
    message = wait_until(lambda: page.evaluate(MESSAGE_JS), what="a message")
    assert "lang" in message and "fr" in message and "en, ja" in message, message
    assert page.evaluate(WIDGET_JS, "il-integrators") == "Integrators"


def test_serve_refuses_an_unknown_language():
    result = subprocess.run(
        [sys.executable, "-m", "integrator_lab.cli.main", "serve", "--lang", "fr", "--no-show"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "--lang" in result.stderr and "'en', 'ja'" in result.stderr, result.stderr
