"""The Panel dashboard in Japanese: ``integrator-lab serve --lang ja``, or ``?lang=ja`` in
its URL; texts from the one catalog (integrator_lab.views.i18n), as on the static page."""

from __future__ import annotations

import html
import re
import subprocess
import sys

import pytest
from conftest import MESSAGE_JS, TEXT_JS, Server, open_page, wait_until

from integrator_lab.core import SYSTEMS
from integrator_lab.server.app import Dashboard
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
    assert page.get_by_label(i18n.text("control.integrators.add", "ja")).count() == 1
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
        assert page.errors == []
        page.context.close()  # a live page fewer before the next opens
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
    page.context.close()  # a live page fewer before the next opens
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


# -- what was still English in a Japanese dashboard (no browser: the dashboard's own state) --
JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")  # kana and kanji


def test_lessons_clamps_refusals_and_studies_are_said_in_japanese():
    import math
    from types import SimpleNamespace

    import panel as pn

    board = Dashboard(lang="ja")
    try:
        board._update(0.0, show=True)
        # the Lessons menu: its title and every lesson, the values still the lessons' ids
        (menu,) = [
            w for w in board._layout.select(pn.widgets.Select) if "il-lesson" in w.css_classes
        ]
        assert menu.name == i18n.text("lesson.menu", "ja")
        assert menu.options == {
            i18n.text("lesson.choose", "ja"): "",
            **{i18n.text(f"lesson.{s.id}.title", "ja"): s.id for s in i18n.SCENARIOS},
        }
        board.lesson = "implicit-damps"
        note = board.lesson_note.object
        assert i18n.text("lesson.implicit-damps.title", "ja") in note
        assert i18n.text("lesson.implicit-damps.text", "ja") in note
        board.lesson = ""
        board._update(0.0, show=True)
        # the bodies' hover text describes each integrator in Japanese
        bodies = board.panels["pendulum"].scene_sources["bodies"].data
        assert bodies["about"] == [i18n.text(f"about.{n}", "ja") for n in bodies["integrator"]]
        # a drag of a cradle ball to 2 rad, past the declared 0 to 1.5 rad: clamped, said
        run = board.runs["cradle"]
        (px, py), (ox, oy) = run.scene.geometry.pivots[0], run.scene.offsets[0]
        length = run.system.params["length"]
        at = SimpleNamespace(x=px + ox - length * math.sin(2.0), y=py + oy - length * math.cos(2.0))
        board._drag = {"system": "cradle", "lane": 0, "ball": 0, "clamped": {}}
        board._drag_end("cradle", at)
        angle = {p.name: p for p in SYSTEMS["cradle"].PARAMS}["angle"]
        said = i18n.drag_note("cradle", [(angle, 2.0, 1.5)], "ja")
        assert said.startswith("ニュートンのゆりかご、") and "1.5 rad にしました" in said
        board._update(0.0, show=True)
        assert board.settings["cradle"].angle == 1.5
        assert html.unescape(board.message.object) == said
        # a value each field accepts but the core refuses: more balls lifted than there are
        board.settings["cradle"].param.update(balls=3, lifted=5)
        board._update(0.0, show=True)
        refused = {"system": "cradle", "param": "lifted", "value": 5, "min": 0, "max": 3}
        shown = html.unescape(board.message.object)
        # the run in force goes on (the integrators did not change)
        assert shown == i18n.refusal_text({**refused, "then": "kept"}, "ja"), shown
        assert JAPANESE.search(shown) and "expected" not in shown, shown
        # the study: its fields, measures and diagrams
        study = board.studies["spring"]
        study.start()
        assert study.duration.name == i18n.text("study.duration", "ja")
        assert list(study.measure.options) == [
            i18n.text(f"study.measure.{m}", "ja")
            for m in ("error", "position_error", "energy_error")
        ]
        figure = study.figures.figures["convergence"]
        assert figure.title.text == i18n.text("study.title.convergence", "ja")
        assert figure.xaxis.axis_label == i18n.text("study.axis.dt", "ja")
        assert figure.yaxis.axis_label == i18n.text("study.measure.error", "ja")
        assert study.status.object == f"<p>{i18n.text('study.starting', 'ja')}</p>"
        # "Add your method": its controls and what it says
        editor = board.method_editor
        assert editor.run.name == i18n.text("editor.run", "ja")
        assert list(editor.kind.options) == [
            i18n.text(k, "ja")
            for k in ("editor.kind.tableau", "editor.kind.splitting", "editor.kind.python")
        ]
        # the tableau grid's and the splitting list's buttons and labels
        assert editor.grid.add.label == i18n.text("method.add_stage", "ja")
        assert editor.steps.add.label == i18n.text("editor.add_step", "ja")
        assert editor.steps.moves[0].label == i18n.text("method.step.move", "ja", n=1)
        assert editor.panel().title == i18n.text("editor.title", "ja")
        editor.kind.value = "python"  # this dashboard was not started with --allow-code
        assert html.unescape(editor.status.object) == i18n.text("method.code_disabled", "ja")
    finally:
        board.stop()


def test_the_integrators_are_shown_by_their_japanese_names():
    """The lanes, the menu, the legend, the "diverged at" marks and the energy plot's clipped
    marks name each integrator by its Japanese name (the URL and the CSV keep the code
    name)."""
    import panel as pn

    board = Dashboard(lang="ja")
    try:
        board._update(0.0, show=True)
        shown = {n: i18n.text(f"name.{n}", "ja") for n in i18n.INTEGRATORS}
        lanes = board.panels["pendulum"].scene_sources["fixtures"].data
        assert lanes["label"] == [shown[n] for n in lanes["integrator"]]
        assert shown["euler"] == "陽的オイラー" and shown["velocity-verlet"] == "速度ベルレ"
        (menu,) = [
            w
            for w in board._layout.select(pn.widgets.MultiChoice)
            if "il-integrators" in w.css_classes
        ]
        assert menu.options == {shown[n]: n for n in i18n.INTEGRATORS}
        # explicit Euler in the cradle diverges at 3.6 s (its contacts push it off): its mark
        # is said in Japanese and sits on its own lane
        for _ in range(60):
            board._update(0.1, show=True)
            if board._diverged["cradle"]:
                break
        status = board.panels["cradle"].scene_sources["status"].data
        assert status["integrator"] == ["euler"], status
        assert re.fullmatch(r"陽的オイラー: t = [\d.]+ s で発散", status["text"][0]), status
        # the pendulum's explicit Euler has left the ±band: its clipped mark names it
        marks = board.runs["pendulum"].energy.view()["clipped"]
        assert marks["text"] and marks["text"][0].startswith("陽的オイラー +"), marks
    finally:
        board.stop()
