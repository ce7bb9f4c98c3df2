"""The user interface's texts in English and Japanese: the one catalog of both dashboards.

English is the default; ``?lang=ja`` (or a browser whose first language is Japanese) shows the
static page in Japanese, ``integrator-lab serve --lang ja`` (or ``?lang=ja``) the Panel
dashboard. Standard library only.

How to add a text (a label, a message, a tooltip):

1. Add an entry to :data:`TEXTS`: ``"area.what": {"en": "...", "ja": "..."}``. Both languages
   are required and must use the same ``{placeholders}`` (tests/site/test_i18n.py checks).
   Keys are dotted, grouped by where the text shows (``page.``, ``control.``, ``energy.``,
   ``dt.``, ``status.``, ``msg.``, ``boot.``, ``study.``...).
2. Use it: in Python ``text(key, lang, **values)``; in the page's JavaScript
   ``t(key, values)`` from ``static/js/i18n.js`` (the page gets the whole catalog in its
   build-time data, ``catalog()``).
3. A fixed text of a Bokeh model (a widget's title or label, an axis label) that should follow
   the language goes into :func:`model_texts` instead of being set in code: the page
   (``static/js/localize.js``) and the Panel dashboard (:func:`localize`) apply that table.

Texts that come from the core's declarations are keyed by their names and generated here:
``system.NAME`` (the system's title; the Japanese in :data:`SYSTEM_TITLES_JA`),
``param.SYSTEM.NAME`` (a parameter's label; :data:`PARAM_LABELS_JA`, which needs an entry for
every declared parameter), ``paramtitle.SYSTEM.NAME`` (label, symbol and unit),
``integrator.NAME`` (title) and ``label.NAME`` (the legend's short label). The core's
declarations themselves stay English.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import replace
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
#: the energy breakdown's line styles (figures.BREAKDOWN_KINDS): ``energy.KIND`` names them
BREAKDOWN_KINDS = ("total", "kinetic", "potential", "dissipated")
DEFAULT_LANGUAGE = "en"
#: what the language switch shows for each language
LANGUAGE_NAMES = {"en": "EN", "ja": "日本語"}

TEXTS: dict[str, dict[str, str]] = {
    # -- the page around the dashboard
    "page.title": {
        "en": "Integrator Lab: numerical integrators side by side",
        "ja": "Integrator Lab：数値積分法を並べて比べる",
    },
    "page.heading": {"en": "Integrator Lab", "ja": "Integrator Lab 数値積分ラボ"},
    # an embed's link to the whole lab with the same settings (static/js/embed.js)
    "page.open": {"en": "Open in Integrator Lab ↗", "ja": "Integrator Lab で開く ↗"},
    "page.tagline": {
        "en": "What a time integrator does to a pendulum, a Newton's cradle and a damped "
        "spring: every selected integrator runs at once, in its own colour; the dashed grey "
        "ghost is the exact solution.",
        "ja": "時間積分法が振り子、ニュートンのゆりかご、減衰ばね振動子に何をするかを見る："
        "選んだ積分法がすべて同時に、それぞれの色で動きます。灰色の破線の影が厳密解です。",
    },
    "page.footer": {
        "en": "The physics runs in Python (Pyodide, in a Web Worker) in this browser tab; no "
        "server code runs. Hover a body for its integrator's order and properties.",
        "ja": "物理計算はこのブラウザのタブの中の Python（Web Worker 上の Pyodide）で動き、"
        "サーバー側では何も実行されません。物体にポインタを重ねると、その積分法の次数と性質が"
        "表示されます。",
    },
    "page.loading": {
        "en": "Starting Python in your browser…",
        "ja": "ブラウザで Python を起動しています…",
    },
    "page.language": {"en": "Language", "ja": "言語"},
    "page.file_url": {
        "en": "This page must be served over HTTP to run (browsers block its Web Worker from "
        "file://): run `integrator-lab preview`, or `python3 -m http.server` in this folder, "
        "and open the printed http://127.0.0.1 address.",
        "ja": "このページは HTTP で配信しないと動きません（ブラウザは file:// からの Web Worker "
        "を止めます）：`integrator-lab preview` か、このフォルダで `python3 -m http.server` を"
        "実行し、表示された http://127.0.0.1 のアドレスを開いてください。",
    },
    "page.script_failed": {
        "en": "The page could not start: {file} did not load. Reload the page; if this happens "
        "again, the site is missing that file or its host refuses it.",
        "ja": "ページを開始できませんでした：{file} を読み込めませんでした。ページを再読み込みし"
        "てください。繰り返し起きる場合は、サイトにそのファイルがないか、サーバーが配信を拒否"
        "しています。",
    },
    "page.script_failed.short": {
        "en": "Not running: {file} did not load (see above)",
        "ja": "停止中：{file} を読み込めませんでした（上を参照）",
    },
    "page.file_url.short": {
        "en": "Not running: open this page over HTTP (see above)",
        "ja": "停止中：このページを HTTP で開いてください（上を参照）",
    },
    # -- the controls above the panels
    "control.integrators": {"en": "Integrators", "ja": "積分法"},
    "control.integrators.tip": {
        "en": "Integrators run in lockstep on every system; hover a body in the animation for "
        "its order and properties.",
        "ja": "選んだ積分法はすべての系で同じ時間刻みで同時に進みます。アニメーションの物体に"
        "ポインタを重ねると、次数と性質が表示されます。",
    },
    "control.integrators.add": {"en": "add an integrator…", "ja": "積分法を追加…"},
    "control.systems.tip": {
        "en": "Systems shown (at least one)",
        "ja": "表示する系（1 つ以上）",
    },
    "control.play": {"en": "Play", "ja": "再生"},
    "control.pause": {"en": "Pause", "ja": "一時停止"},
    "control.step": {"en": "Step", "ja": "1 ステップ"},
    "control.step.tip": {
        "en": "Advance every system by one time step",
        "ja": "すべての系を時間刻み 1 つ分だけ進める",
    },
    "control.reset": {"en": "Reset", "ja": "リセット"},
    "control.reset.tip": {"en": "Back to t = 0", "ja": "t = 0 に戻す"},
    "control.speed": {"en": "Speed (× real time)", "ja": "速度（実時間の何倍か）"},
    "control.exact": {"en": "Exact solution", "ja": "厳密解"},
    "control.energy.error": {"en": "Energy error", "ja": "エネルギー誤差"},
    "control.energy.breakdown": {"en": "Energy breakdown", "ja": "エネルギーの内訳"},
    "control.log": {"en": "Log scale", "ja": "対数目盛"},
    "control.log.tip": {
        "en": "For experts: the largest energy error so far, |ΔE/E₀|, on a log axis (solid "
        "while it was a gain, dashed while a loss): a bounded method levels off, a drifting one "
        "climbs. Unchecked: the signed error in percent on a linear axis. The energy breakdown "
        "(in joules, on a linear axis) does not use it.",
        "ja": "上級者向け：これまでの最大エネルギー誤差 |ΔE/E₀| を対数軸で描きます（増加なら"
        "実線、減少なら破線）：有界な方法は平らに、ドリフトする方法は上がり続けます。チェックを"
        "外すと符号付き誤差（%）を線形軸で。エネルギーの内訳（ジュール、線形軸）には使いません。",
    },
    "control.phase": {"en": "Phase space", "ja": "位相空間"},
    "control.copy": {"en": "Copy link", "ja": "リンクをコピー"},
    "control.download_csv": {"en": "Download CSV", "ja": "CSV をダウンロード"},
    "control.copy.tip": {
        "en": "Copy a link to this exact view",
        "ja": "この表示そのままへのリンクをコピー",
    },
    # -- the plots
    "axis.time": {"en": "t (s)", "ja": "時刻 t (s)"},
    "energy.axis.linear": {"en": "ΔE/E₀ (%): ↑ gain, ↓ loss", "ja": "ΔE/E₀ (%)：↑ 増加、↓ 減少"},
    "energy.axis.log": {
        "en": "max |ΔE/E₀| (%), dashed: loss",
        "ja": "最大 |ΔE/E₀| (%)、破線：減少",
    },
    "energy.axis.breakdown": {"en": "energy (J)", "ja": "エネルギー (J)"},
    "energy.total": {"en": "total K+P+dissipated", "ja": "合計 K+P+散逸"},
    "energy.kinetic": {"en": "kinetic", "ja": "運動エネルギー"},
    "energy.potential": {"en": "potential", "ja": "位置エネルギー"},
    "energy.dissipated": {"en": "dissipated", "ja": "散逸"},
    "energy.exact": {"en": "exact", "ja": "厳密"},
    "energy.gain": {"en": "gain", "ja": "増加"},
    "energy.loss": {"en": "loss", "ja": "減少"},
    # -- the time step
    "dt.title": {"en": "time step dt (s)", "ja": "時間刻み dt (s)"},
    "dt.title.coarse": {
        "en": "time step dt (s): {recommended} recommended",
        "ja": "時間刻み dt (s)：推奨 {recommended}",
    },
    "dt.tip": {
        "en": "fixed time step of every integrator; recommended {recommended} s for these "
        "parameters; accepted: {lo} to {hi} s",
        "ja": "すべての積分法に共通の固定時間刻み。このパラメータでの推奨値は {recommended} s、"
        "受け付ける範囲は {lo}〜{hi} s",
    },
    "dt.slider": {
        "en": "time step dt, log scale ({lo} to {hi} s)",
        "ja": "時間刻み dt、対数目盛（{lo}〜{hi} s）",
    },
    "dt.half": {"en": "Halve the time step (÷2)", "ja": "時間刻みを半分に (÷2)"},
    "dt.double": {"en": "Double the time step (×2)", "ja": "時間刻みを 2 倍に (×2)"},
    "dt.mark": {"en": "recommended {dt} s", "ja": "推奨 {dt} s"},
    "dt.name": {"en": "time step", "ja": "時間刻み"},
    "dt.clamped": {
        "en": "{system}, {name}: {wanted} s is outside {span}; {set} s is the {end} accepted.",
        "ja": "{system}、{name}：{wanted} s は範囲 {span} の外です。受け付ける{end}値 {set} s "
        "にしました。",
    },
    "dt.smallest": {"en": "smallest", "ja": "最小"},
    "dt.largest": {"en": "largest", "ja": "最大"},
    # -- a panel's status line and marks (views.shared fills them the same way)
    "status.running": {"en": shared.STATUS_TEXT, "ja": "t = {time} s · 実時間の {rtf} 倍"},
    "status.stopped": {"en": shared.STOPPED_TEXT, "ja": "t = {time} s · 停止"},
    "status.paused": {"en": shared.PAUSED_TEXT, "ja": "t = {time} s · 一時停止中"},
    # the page's baked first seconds are over and its worker is not running yet
    "status.starting": {
        "en": "t = {time} s · starting Python…",
        "ja": "t = {time} s · Python を起動中…",
    },
    "status.diverged": {"en": shared.DIVERGED_TEXT, "ja": "{name}: t = {at} s で発散"},
    # -- accessibility (static/js/a11y.js, keys.js): names Bokeh's widgets lack, the skip
    # link, the keyboard shortcuts and the live description of the energy plots
    # (the spinner's arrows: the field beside them says what; a name with the field's title
    # would make the title find three elements, not the field)
    "a11y.increase": {"en": "Increase", "ja": "増やす"},
    "a11y.decrease": {"en": "Decrease", "ja": "減らす"},
    "a11y.skip": {"en": "Skip to the simulations", "ja": "シミュレーションへ移動"},
    "a11y.keys": {
        "en": "Keyboard: Space play/pause · . one step · r reset · [ and ] halve and double "
        "every shown system's dt · Tab moves between controls.",
        "ja": "キーボード：スペース 再生/一時停止 · . 1ステップ · r リセット · [ と ] "
        "表示中の全系の dt を半分/2倍 · タブキーで操作部品を移動。",
    },
    "a11y.system": {
        "en": "{system} at {time} s: {parts}.",
        "ja": "{system}（{time} s）：{parts}。",
    },
    "a11y.separator": {"en": "; ", "ja": "、"},
    "a11y.gains": {"en": "{name} gains {pct} %", "ja": "{name}はエネルギーが {pct} % 増加"},
    "a11y.loses": {"en": "{name} loses {pct} %", "ja": "{name}はエネルギーが {pct} % 減少"},
    "a11y.keeps": {
        "en": "{name} keeps energy within {pct} %",
        "ja": "{name}はエネルギーを {pct} % 以内に保つ",
    },
    "a11y.and_diverged": {"en": "{text} and diverged at {at} s", "ja": "{text}、{at} s で発散"},
    "a11y.diverged": {"en": "{name} diverged at {at} s", "ja": "{name}は {at} s で発散"},
    # -- messages
    # the phone's bar (static/js/layout.js): the systems as tabs, the other controls folded
    "msg.dismiss": {"en": "Dismiss", "ja": "閉じる"},
    "layout.tabs": {"en": "Systems: show one", "ja": "系：表示するもの"},
    "layout.more": {"en": "Settings ▾", "ja": "設定 ▾"},
    "layout.controls": {"en": "Lessons and controls", "ja": "レッスンと操作"},
    "msg.choose_integrator": {
        "en": "Choose at least one integrator.",
        "ja": "積分法を 1 つ以上選んでください。",
    },
    "msg.choose_system": {
        "en": "Choose at least one system.",
        "ja": "系を 1 つ以上選んでください。",
    },
    "msg.copied": {
        "en": "Link copied to the clipboard.",
        "ja": "リンクをクリップボードにコピーしました。",
    },
    "msg.link": {"en": "Link to this view: {link}", "ja": "この表示へのリンク：{link}"},
    "msg.link_not_taken": {
        "en": "Not taken from the link: {what}.",
        "ja": "リンクから適用しなかった設定：{what}。",
    },
    "msg.draw_failed": {
        "en": "The dashboard could not be drawn: {error}",
        "ja": "ダッシュボードを描画できませんでした：{error}",
    },
    "msg.link_setting": {
        "en": 'Link setting "{key}": got {raw}, expected {expected}; using {shown}.',
        "ja": "リンクの設定「{key}」：{raw} は受け付けられません（{expected}）。{shown} を"
        "使います。",
    },
    "msg.unknown_setting": {
        "en": "Link setting {key} ignored: unknown setting.",
        "ja": "リンクの設定 {key} は無視しました：そのような設定はありません。",
    },
    "msg.unknown_param": {
        "en": "Link setting {key} ignored: {system} has no parameter {name} (parameters: {names}).",
        "ja": "リンクの設定 {key} は無視しました：{system} にパラメータ {name} はありません"
        "（パラメータ：{names}）。",
    },
    "msg.the_default": {"en": "the default", "ja": "既定値"},
    "msg.default_value": {"en": "the default {value}", "ja": "既定値 {value}"},
    "expect.list": {
        "en": "a comma-separated list of {names}",
        "ja": "{names} をコンマで区切って並べたもの",
    },
    "expect.range": {"en": "a number in [{lo}, {hi}]", "ja": "[{lo}, {hi}] の数"},
    "expect.dt": {"en": "a time step in [{lo}, {hi}] s", "ja": "[{lo}, {hi}] s の時間刻み"},
    "expect.flag": {"en": "0 or 1", "ja": "0 か 1"},
    "expect.one_of": {"en": "one of {names}", "ja": "{names} のどれか"},
    "expect.language": {"en": "one of {names}", "ja": "{names} のどれか"},
    # what a refused parameter value says (static/js/params.js composes these)
    "reject.empty": {
        "en": "{head}empty; expected {expected}{tail}",
        "ja": "{head}空欄です。{expected} を入力してください{tail}",
    },
    "reject.nan": {
        "en": "{head}{text} is not a number; expected {expected}{tail}",
        "ja": "{head}{text} は数ではありません。{expected} を入力してください{tail}",
    },
    "reject.comma": {
        "en": "{head}{text} has a decimal comma; write it with a point, {fixed}{tail}",
        "ja": "{head}{text} は小数点にコンマを使っています。"
        "{fixed} のように点で書いてください{tail}",
    },
    # a decimal comma typed into a field is taken as a point (static/js/widgets.js)
    "note.comma": {
        "en": "{head}the decimal comma is read as a point: {fixed}",
        "ja": "{head}小数点のコンマを点として読みます：{fixed}",
    },
    "reject.int": {
        "en": "{head}{text} is not a whole number; expected {expected}{tail}",
        "ja": "{head}{text} は整数ではありません。{expected} を入力してください{tail}",
    },
    "reject.range": {
        "en": "{head}{text} is outside {span}{tail}",
        "ja": "{head}{text} は範囲 {span} の外です{tail}",
    },
    "reject.head": {"en": "{system}, {name}: ", "ja": "{system}、{name}："},
    "reject.tail": {"en": "; kept {kept}.", "ja": "。{kept} のままにします。"},
    "range.number": {"en": "a number", "ja": "数"},
    "range.whole": {"en": "a whole number", "ja": "整数"},
    "range.from": {"en": "from {lo}", "ja": "{lo} 以上"},
    "range.above": {"en": "above {lo}", "ja": "{lo} より大きく"},
    "range.to": {"en": "to {hi}", "ja": "{hi} 以下"},
    "range.up_to": {"en": "up to {hi}", "ja": "{hi} 以下"},
    "range.below": {"en": "below {hi}", "ja": "{hi} 未満"},
    "range.join": {"en": " ", "ja": "、"},
    "range.join_open": {"en": " and up ", "ja": "、"},
    "range.expected": {"en": "{what} {span}", "ja": "{span}の{what}"},
    "range.one_of": {"en": "one of {names}", "ja": "{names} のどれか"},
    "range.excluded": {"en": " ({values} excluded)", "ja": "（{values} を除く）"},
    "range.and": {"en": " and ", "ja": " と "},
    "range.accepted": {"en": "accepted: {expected}", "ja": "受け付ける値：{expected}"},
    # -- the study view of a panel (static/js/study.js)
    "study.live": {"en": "Live", "ja": "ライブ"},
    "study.study": {"en": "Study", "ja": "収束の調査"},
    "study.switch": {"en": "Live view or study", "ja": "ライブ表示か収束の調査か"},
    "study.intro": {
        "en": "Error at T against the time step and against the cost (force evaluations), "
        "every selected integrator, log–log; dashed: slopes 1, 2 and 4; × marks a point left "
        "out of the fit (tap or hover it for why). The live view goes on meanwhile.",
        "ja": "時刻 T での誤差を、時間刻みに対して、また計算量（力の評価回数）に対して、選んだ"
        "積分法ごとに両対数で描きます。破線は傾き 1、2、4。× は当てはめから除いた点です"
        "（タップかポインタで理由を表示）。その間もライブ表示は続きます。",
    },
    "study.duration": {"en": "Duration T (s)", "ja": "時間 T (s)"},
    "study.dt_max": {"en": "dt max (s)", "ja": "dt 最大 (s)"},
    "study.dt_min": {"en": "dt min (s)", "ja": "dt 最小 (s)"},
    "study.points": {"en": "Points", "ja": "点の数"},
    "study.error": {"en": "Error", "ja": "誤差"},
    "study.run": {"en": "Run study", "ja": "調査を実行"},
    "study.stop": {"en": "Stop", "ja": "停止"},
    "study.png": {"en": "Download PNG", "ja": "PNG をダウンロード"},
    "study.progress": {"en": "study progress", "ja": "調査の進み具合"},
    "study.starting": {"en": "Starting the study…", "ja": "調査を始めています…"},
    "study.restarted": {
        "en": "The simulation worker was restarted: the study starts again…",
        "ja": "シミュレーションのワーカーを再起動したため、調査をやり直しています…",
    },
    "study.stopped": {
        "en": "Stopped after {points} of {total} points.",
        "ja": "{total} 点のうち {points} 点で停止しました。",
    },
    "study.failed": {"en": "The study did not run.", "ja": "調査を実行できませんでした。"},
    "study.failed.why": {"en": "Study: {error}", "ja": "調査：{error}"},
    "study.done": {
        "en": "Done: {points} points in {seconds} s. Fitted slopes: {slopes}.",
        "ja": "完了：{points} 点を {seconds} 秒で計算。当てはめた傾き：{slopes}。",
    },
    "study.running": {
        "en": "Running: {points} of {total} points. Slopes so far: {slopes}.",
        "ja": "実行中：{total} 点のうち {points} 点。ここまでの傾き：{slopes}。",
    },
    # -- the lessons (static/js/scenarios.js; the Panel dashboard's menu): each lesson's
    # title and note are ``lesson.ID.title`` / ``lesson.ID.text`` (:data:`LESSONS_JA`)
    "lesson.menu": {"en": "Lessons", "ja": "レッスン"},
    "lesson.menu.tip": {
        "en": "One-click views that each show one thing an integrator does",
        "ja": "積分法のふるまいを 1 つずつ見せる、ワンクリックの表示",
    },
    "lesson.choose": {"en": "Choose a lesson…", "ja": "レッスンを選ぶ…"},
    "lesson.note": {"en": "Lesson: {title}. ", "ja": "レッスン：{title}。"},
    "lesson.look_for": {"en": "What to look for", "ja": "見どころ"},
    "lesson.close": {"en": "Close this note", "ja": "このメモを閉じる"},
    "lesson.replay": {"en": "Replay", "ja": "もう一度"},
    "lesson.replay.tip": {
        "en": "Start this lesson again from t = 0, in its own view",
        "ja": "このレッスンを t = 0 から、その表示でもう一度",
    },
    "energy.exact.zero": {"en": "0 = exact", "ja": "0 = 厳密"},
    "lesson.close.label": {"en": "Close the lesson's note", "ja": "レッスンのメモを閉じる"},
    # -- dragging a body past its parameter's range (static/js/drag.js, the Panel dashboard)
    "drag.clamped": {
        "en": "{name}: dragged to {value}, outside {span}; set to {set}",
        "ja": "{name}：ドラッグした値 {value} は範囲 {span} の外なので {set} にしました",
    },
    "drag.note": {"en": "{system}, {parts}.", "ja": "{system}、{parts}。"},
    "drag.join": {"en": "; ", "ja": "。"},
    # -- a value the core refused (core.params.ParamError, formatted by :func:`core_error`)
    "core.rejected": {
        "en": "{system}: {name}: got {value}, expected {expected}",
        "ja": "{system}、{name}：{value} は受け付けられません（{expected}）",
    },
    "core.kept": {
        "en": "{error}; kept the settings in force.",
        "ja": "{error}。今の設定のままです。",
    },
    "core.defaults": {"en": "{error}; using the defaults.", "ja": "{error}。既定値を使います。"},
    "msg.none_hidden": {"en": "none hidden", "ja": "隠すものなし"},
    "msg.none": {"en": "none", "ja": "なし"},
    "msg.simulation": {"en": "Simulation: {text}", "ja": "シミュレーション：{text}"},
    # -- the study's diagrams (views.study_figures; static/js/study.js)
    "study.title.convergence": {
        "en": "Convergence: error against time step",
        "ja": "収束：時間刻みに対する誤差",
    },
    "study.title.work": {
        "en": "Work–precision: error against cost",
        "ja": "計算量と精度：計算量に対する誤差",
    },
    "study.axis.dt": {"en": "time step dt (s)", "ja": "時間刻み dt (s)"},
    "study.axis.evaluations": {
        "en": "force evaluations (cost)",
        "ja": "力の評価回数（計算量）",
    },
    "study.measure.error": {
        "en": "relative state error at T",
        "ja": "時刻 T での状態の相対誤差",
    },
    "study.measure.position_error": {
        "en": "position error at T",
        "ja": "時刻 T での位置の誤差",
    },
    "study.measure.energy_error": {
        "en": "relative energy error at T",
        "ja": "時刻 T でのエネルギーの相対誤差",
    },
    "study.open": {
        "en": "Study: convergence and work–precision",
        "ja": "調査：収束と計算量・精度",
    },
    "study.open.tip": {
        "en": "Open this system's convergence and work–precision study",
        "ja": "この系の収束と計算量・精度の調査を開く",
    },
    "study.csv.tip": {
        "en": "The study's points in the columns of `integrator-lab study --format csv` "
        "(PNG: the diagrams' save tool)",
        "ja": "調査の点を `integrator-lab study --format csv` と同じ列で（PNG は図の保存ツールで）",
    },
    "study.of": {"en": "Study of {system}: {error}", "ja": "{system}の調査：{error}"},
    "study.of.stopped": {
        "en": "Study of {system} stopped: {error}",
        "ja": "{system}の調査が止まりました：{error}",
    },
    "study.setting": {
        "en": 'Study setting "{name}": got {raw}, expected {expected}; keeping {kept}.',
        "ja": "調査の設定「{name}」：{raw} は受け付けられません（{expected}）。{kept} のままに"
        "します。",
    },
    "study.auto": {"en": "auto", "ja": "自動"},
    "expect.duration": {"en": "a duration in [{lo}, {hi}] s", "ja": "[{lo}, {hi}] s の時間"},
    "expect.dt_or_empty": {
        "en": "a time step in [{lo}, {hi}] s, or empty for the default",
        "ja": "[{lo}, {hi}] s の時間刻み、または既定値なら空欄",
    },
    "expect.int": {"en": "an integer in [{lo}, {hi}]", "ja": "[{lo}, {hi}] の整数"},
    "expect.study_setting": {
        "en": "a study setting ({names})",
        "ja": "調査の設定（{names}）のどれか",
    },
    "msg.no_study": {"en": "no study", "ja": "調査なし"},
    "msg.nothing": {"en": "nothing", "ja": "なし"},
    "study.slope": {"en": "{name}: slope {slope}", "ja": "{name}：傾き {slope}"},
    "study.no_slope": {"en": "{name}: no slope", "ja": "{name}：傾きなし"},
    "study.hover.integrator": {"en": "integrator", "ja": "積分法"},
    "study.hover.evaluations": {"en": "evaluations", "ja": "評価回数"},
    "study.hover.error": {"en": "error", "ja": "誤差"},
    # -- the method editor, "Add your method" (static/js/editor.js)
    "editor.title": {"en": "Add your method", "ja": "自分の積分法を追加"},
    "editor.intro": {
        "en": "Race your own integrator against the selected ones: it runs on every panel in its "
        "own colour (magenta). Your code runs only in this browser tab.",
        "ja": "自分の積分法を、選んだ積分法と競わせます：すべてのパネルで自分の色（マゼンタ）で動き"
        "ます。コードはこのブラウザのタブの中だけで動きます。",
    },
    "editor.kind.python": {"en": "Python code", "ja": "Python コード"},
    "editor.kind.tableau": {
        "en": "Butcher tableau (explicit Runge–Kutta)",
        "ja": "ブッチャー表（陽的ルンゲ＝クッタ法）",
    },
    "editor.kind.splitting": {
        "en": "Splitting (drifts and kicks)",
        "ja": "分割法（ドリフトとキック）",
    },
    "editor.kind": {"en": "kind of method", "ja": "手法の種類"},
    "editor.template": {"en": "template", "ja": "テンプレート"},
    "editor.template.choose": {"en": "Start from a template…", "ja": "テンプレートから始める…"},
    "editor.name": {"en": "Name", "ja": "名前"},
    "editor.name.label": {"en": "name of your method", "ja": "自分の積分法の名前"},
    "editor.fallback": {
        "en": "The code editor (static/vendor/editor.js) is not part of this page: a plain text "
        "box instead, without highlighting or line numbers.",
        "ja": "コードエディタ（static/vendor/editor.js）がこのページにありません：代わりに、色分け"
        "も行番号もない普通のテキスト欄を使います。",
    },
    "editor.code": {"en": "Python code of your method", "ja": "自分の積分法の Python コード"},
    "editor.python.hint": {
        "en": "Define step(accel, q, v, t, dt) returning (q, v); accel(q, v, t) gives the "
        'accelerations. Optionally NAME = "..." and ORDER = n.',
        "ja": "(q, v) を返す step(accel, q, v, t, dt) を定義してください。accel(q, v, t) が加速度を"
        '返します。NAME = "..." と ORDER = n は省略できます。',
    },
    "editor.stages": {"en": "Stages", "ja": "段数"},
    "editor.tableau.hint": {
        "en": "Entries are numbers or fractions such as 2/3; a is strictly lower triangular "
        "(explicit), each row of a sums to its c.",
        "ja": "各要素は数か 2/3 のような分数です。a は狭義下三角（陽的）で、a の各行の和はその行の "
        "c に等しくします。",
    },
    "editor.add_step": {"en": "Add a step", "ja": "ステップを追加"},
    "editor.splitting.hint": {
        "en": "A drift moves q += w·dt·v, a kick v += w·dt·a; the drift weights and the kick weight"
        "s each sum to 1.",
        "ja": "ドリフトは q += w·dt·v、キックは v += w·dt·a。ドリフトの重みの和とキックの重みの和は"
        "それぞれ 1 にします。",
    },
    "editor.move": {"en": "kick or drift", "ja": "キックかドリフト"},
    "editor.weight": {"en": "weight", "ja": "重み"},
    "editor.remove_step": {"en": "remove this step", "ja": "このステップを削除"},
    "editor.remove": {"en": "Remove", "ja": "削除"},
    "editor.run": {"en": "Run", "ja": "実行"},
    "editor.ready": {
        "en": "Write a method, or start from a template, and press Run.",
        "ja": "積分法を書くかテンプレートから始めて、「実行」を押してください。",
    },
    "editor.checking": {
        "en": "Checking and starting your method…",
        "ja": "積分法を確認して開始しています…",
    },
    "editor.removing": {"en": "Removing your method…", "ja": "積分法を取り除いています…"},
    "editor.fix": {
        "en": "Not running: fix what is said below and press Run again.",
        "ja": "停止中：下に示した点を直して、もう一度「実行」を押してください。",
    },
    "editor.none": {"en": "No method of yours is running.", "ja": "自分の積分法は動いていません。"},
    "editor.runs": {
        "en": "{name} runs on every panel in its own colour: {order}. {summary}.",
        "ja": "{name} がすべてのパネルで自分の色で動いています：{order}。{summary}。",
    },
    "editor.stopped": {
        "en": "{system}: {name} stopped at t = {at} s: {why}",
        "ja": "{system}：{name} は t = {at} s で止まりました：{why}",
    },
    "editor.stopped.why": {
        "en": "its state became non-finite or ran away",
        "ja": "状態が有限でなくなったか、発散しました",
    },
    "editor.hung": {
        "en": "{what} did not return for {seconds} s (code that never returns, like while True: "
        "pass), so the simulation was stopped and restarted without it. Your code is kept in "
        "the editor: fix it and press Run.",
        "ja": "{what}が {seconds} 秒たっても戻らなかったため（while True: pass のように終わらないコ"
        "ード）、シミュレーションを止めて、それ抜きで再開しました。コードはエディタに残ってい"
        "ます：直して「実行」を押してください。",
    },
    "editor.your_method": {"en": "Your method", "ja": "自分の積分法"},
    "editor.your_method.named": {"en": "Your method {name}", "ja": "自分の積分法 {name} "},
    "editor.not_running": {"en": "Not running.", "ja": "停止中。"},
    "editor.too_long": {
        "en": "The link's method is too long ({chars} characters); it was left out.",
        "ja": "リンクの積分法が長すぎるため（{chars} 文字）、読み込みませんでした。",
    },
    "editor.too_big": {
        "en": "The link's method would take more than {kb} kB, more than any method needs; "
        "it was left out.",
        "ja": "リンクの積分法は {kb} kB を超えるため（積分法に必要な大きさを超えています）、"
        "読み込みませんでした。",
    },
    "editor.too_deep": {
        "en": "its data nests more than {depth} levels deep",
        "ja": "データの入れ子が {depth} 段を超えています",
    },
    "editor.python_link": {
        "en": "This link brings a method written in Python. It has not run: read the code below, "
        "then press Run to race it against the built-ins.",
        "ja": "このリンクには Python で書かれた積分法が含まれています。まだ実行していません：下のコ"
        "ードを読んでから「実行」を押すと、組み込みの積分法と競わせます。",
    },
    "editor.link_banner": {
        "en": "This link contains a Python method: read it, then press Run.",
        "ja": "このリンクには Python の積分法が含まれています："
        "読んでから「実行」を押してください。",
    },
    "editor.link_banner.show": {"en": "Show the code", "ja": "コードを表示"},
    "editor.unreadable": {
        "en": "The link's method could not be read ({error}); it was left out.",
        "ja": "リンクの積分法を読めなかったため（{error}）、読み込みませんでした。",
    },
    "editor.stages.bad": {
        "en": "stages: got {got}, expected 1 to {max}",
        "ja": "段数：{got} は受け付けられません（1〜{max}）",
    },
    # -- the Panel dashboard's "Add your method" (web/server/methods.py; the rest: editor.*)
    "method.kind": {"en": "Kind", "ja": "種類"},
    "method.start_from": {"en": "Start from", "ja": "テンプレート"},
    "method.a_template": {"en": "(a template)", "ja": "（テンプレートを選ぶ）"},
    "method.ready": {
        "en": "Start from a template, or write a method, and press Run.",
        "ja": "テンプレートから始めるか積分法を書いて、「実行」を押してください。",
    },
    "method.not_running": {"en": "Not running: {problems}", "ja": "停止中：{problems}"},
    "method.code_banner": {
        "en": "This server runs Python code sent by its visitors (it was started with "
        "integrator-lab serve --allow-code): anyone who can open this page can run any code on "
        "this machine, with the server's rights.",
        "ja": "このサーバーは訪問者が送った Python コードを実行します（integrator-lab serve "
        "--allow-code で起動されています）：このページを開ける人は誰でも、このマシンで"
        "サーバーの権限のまま任意のコードを実行できます。",
    },
    "method.code_disabled": {
        "en": "Python code is disabled on this server: it would run visitors' code on the "
        "server's machine. Tableaux and splittings work; its operator can allow code with "
        "integrator-lab serve --allow-code.",
        "ja": "このサーバーでは Python コードは無効です：訪問者のコードをサーバーのマシンで"
        "実行することになるためです。ブッチャー表と分割法は使えます。運営者は "
        "integrator-lab serve --allow-code でコードを許可できます。",
    },
    # -- the Panel dashboard's method editor: code editor, tableau grid, splitting list
    # (web/server/methods.py, web/server/method_grid.py)
    "method.intro": {
        "en": "Race your own integrator against the selected ones: it runs on every panel in "
        "its own colour (magenta). Choose a kind, fill it in, and press Run.",
        "ja": "自分の積分法を、選んだ積分法と競わせます：すべてのパネルで自分の色（マゼンタ）で"
        "動きます。種類を選んで書き込み、「実行」を押してください。",
    },
    "method.add_stage": {"en": "Add a stage", "ja": "段を追加"},
    "method.remove_stage": {"en": "Remove the last stage", "ja": "最後の段を削除"},
    "method.step.move": {"en": "step {n}", "ja": "ステップ {n}"},
    "method.step.weight": {"en": "weight of step {n}", "ja": "ステップ {n} の重み"},
    "method.step.remove": {"en": "remove step {n}", "ja": "ステップ {n} を削除"},
    "method.step.field": {
        "en": "step {n} (sequence[{index}])",
        "ja": "ステップ {n}（sequence[{index}]）",
    },
    "method.drift": {"en": "drift", "ja": "ドリフト"},
    "method.kick": {"en": "kick", "ja": "キック"},
    "method.entry.empty": {
        "en": "{field}: empty; write a number such as 0.75 or 2/3",
        "ja": "{field}：空欄です。0.75 や 2/3 のような数を書いてください",
    },
    "method.entry.bad": {
        "en": "{field}: “{got}” is not a number; write a number such as 0.75 or 2/3",
        "ja": "{field}：「{got}」は数ではありません。0.75 や 2/3 のような数を書いてください",
    },
    "legend.label": {
        "en": "Integrators shown: press one to hide or show it in every panel",
        "ja": "表示中の積分法：押すと、すべてのパネルでその積分法を隠す・表示する",
    },
    "unit.or": {"en": " or ", "ja": " または "},
    # a line about an integrator (legend chips, bodies' hover): views.scene.integrator_about
    "about": {
        "en": "{title}: {order}, {kind}, {how}. {description}",
        "ja": "{title}：{order}、{kind}、{how}。{description}",
    },
    "about.order": {"en": "order {order}", "ja": "{order} 次"},
    "about.order_note": {"en": "order {order} ({note})", "ja": "{order} 次（{note}）"},
    "about.symplectic": {"en": "symplectic", "ja": "シンプレクティック"},
    "about.not_symplectic": {"en": "not symplectic", "ja": "非シンプレクティック"},
    "about.explicit": {"en": "explicit", "ja": "陽的"},
    "about.implicit": {"en": "implicit", "ja": "陰的"},
    # -- booting Python in the page
    "boot.failed": {
        "en": "The simulation could not start: {file} did not load ({detail}). {advice}",
        "ja": "シミュレーションを開始できませんでした：{file} を読み込めませんでした"
        "（{detail}）。{advice}",
    },
    "boot.failed.short": {
        "en": "Not running: {file} did not load (see the message at the top)",
        "ja": "停止中：{file} を読み込めませんでした（上のメッセージを参照）",
    },
    "boot.slow": {
        "en": "Still starting after {seconds} s, loading {what}. A slow connection may need "
        "longer; if nothing changes, reload the page.",
        "ja": "{seconds} 秒たっても起動中です（{what} を読み込み中）。回線が遅いと時間が"
        "かかります。変化がなければページを再読み込みしてください。",
    },
    # what the worker is loading (static/worker.mjs posts the key with its English text)
    "boot.python": {"en": "Loading Python (Pyodide)…", "ja": "Python（Pyodide）を読み込み中…"},
    "boot.core": {"en": "Loading the physics core…", "ja": "物理計算のコアを読み込み中…"},
    # the progress bar while Python downloads (static/js/progress.js): megabytes as sent
    "boot.progress": {
        "en": "Python {loaded} of {total} MB",
        "ja": "Python {loaded} / {total} MB",
    },
    "boot.progress.starting": {"en": "Starting Python…", "ja": "Python を起動中…"},
    "boot.queued": {
        "en": "your change will apply when Python is ready",
        "ja": "変更は Python の準備ができしだい反映されます",
    },
    "boot.slow.short": {"en": "Still loading {what}…", "ja": "{what} を読み込み中…"},
    "boot.reload": {
        "en": "Reload the page to try again.",
        "ja": "ページを再読み込みしてもう一度試してください。",
    },
    "boot.missing": {
        "en": "The host has no {file}: publish the whole folder that `integrator-lab build` "
        "writes, not just index.html.",
        "ja": "ホストに {file} がありません：index.html だけでなく、`integrator-lab build` が"
        "書き出すフォルダ全体を公開してください。",
    },
    "boot.refused": {
        "en": "The host refused {file}; check its logs.",
        "ja": "ホストが {file} を拒否しました。ホストのログを確認してください。",
    },
    "boot.connection": {
        "en": "If it keeps failing, check the connection: a proxy, firewall or browser "
        "extension may block {file}.",
        "ja": "失敗が続く場合は接続を確認してください：プロキシ、ファイアウォール、ブラウザの"
        "拡張機能が {file} をブロックしているかもしれません。",
    },
    "boot.wasm": {
        "en": "The host must serve .wasm files as application/wasm.",
        "ja": "ホストは .wasm ファイルを application/wasm として配信する必要があります。",
    },
    "boot.js": {
        "en": "The host must serve .{ext} files as JavaScript (text/javascript).",
        "ja": "ホストは .{ext} ファイルを JavaScript（text/javascript）として配信する必要が"
        "あります。",
    },
    "boot.worker": {
        "en": "the simulation worker (static/worker.mjs)",
        "ja": "シミュレーションの Worker（static/worker.mjs）",
    },
}

#: the systems' titles (``system.NAME``; English: the core's ``title``)
SYSTEM_TITLES_JA = {
    "pendulum": "振り子",
    "cradle": "ニュートンのゆりかご",
    "spring": "減衰ばね振動子",
    "constant-force": "一定の力を受ける物体",
    "drag": "抵抗を受ける物体",
}
#: the systems' one-line descriptions (``system.NAME.tip``; English: the core's)
SYSTEM_DESCRIPTIONS_JA = {
    "pendulum": "剛体の棒の先のおもりが重力で振れる。",
    "cradle": "糸でつるした球が、柔らかく減衰のある接触（DEM）で衝突する。",
    "spring": "ばねと粘性ダンパーにつながれた質量：m x'' = -k x - b x'。",
    "constant-force": "一定の力で押される物体：m x'' = F。",
    "drag": "一定の力で押され、抵抗（実際の抵抗またはゲームエンジン流）を受ける物体。",
}
#: the parameters' labels (``param.SYSTEM.NAME``; English: the core's ``Param.label``); every
#: declared parameter needs one (tests/site/test_i18n.py)
PARAM_LABELS_JA = {
    "pendulum": {
        "length": "棒の長さ",
        "gravity": "重力加速度",
        "mass": "おもりの質量",
        "theta0": "初期角度",
        "omega0": "初期角速度",
        "model": "モデル",
    },
    "cradle": {
        "balls": "球の数",
        "lifted": "持ち上げる球の数",
        "angle": "持ち上げる角度",
        "length": "糸の長さ",
        "radius": "球の半径",
        "mass": "球の質量",
        "mass_ratio": "持ち上げる球の質量比",
        "stiffness": "接触の剛性",
        "restitution": "反発係数",
        "gap": "すき間",
        "contact": "接触則",
        "gravity": "重力加速度",
    },
    "spring": {
        "mass": "質量",
        "stiffness": "ばね定数",
        "damping": "減衰係数",
        "x0": "初期位置",
        "v0": "初速度",
    },
    "constant-force": {"mass": "質量", "force": "力", "x0": "初期位置", "v0": "初速度"},
    "drag": {"mass": "質量", "force": "力", "drag": "抵抗率", "v0": "初速度", "model": "モデル"},
}
#: the integrators' titles (``integrator.NAME``; English: the core's ``title``)
INTEGRATOR_TITLES_JA = {
    "euler": "陽的オイラー法",
    "symplectic-euler": "シンプレクティック・オイラー法",
    "velocity-verlet": "速度ベルレ法",
    "leapfrog": "リープフロッグ法（位置ベルレ法）",
    "midpoint": "陽的中点法",
    "heun": "ホイン法",
    "rk4": "4 次のルンゲ＝クッタ法",
    "implicit-euler": "陰的オイラー法",
    "implicit-midpoint": "陰的中点法",
    "yoshida4": "吉田の 4 次法",
    "rk45": "ドルマン＝プリンス法 5(4)、適応刻み",
}
#: the integrators' short names (``name.NAME``): views.scene's, one table for every view
INTEGRATOR_NAMES_JA = INTEGRATOR_NAMES["ja"]
#: the parameters' help texts (``paramdoc.SYSTEM.NAME``; English: the core's ``Param.doc``)
PARAM_DOCS_JA = {
    "pendulum": {
        "length": "棒の長さ",
        "gravity": "重力加速度",
        "mass": "おもりの質量",
        "theta0": "鉛直下向きから測った初期角度",
        "omega0": "初期角速度",
        "model": "nonlinear：sin(θ)、linear：小角近似 θ",
    },
    "cradle": {
        "balls": "球の数",
        "lifted": "左端から何個の球を引き上げて始めるか",
        "angle": "引き上げた球を左へ引く角度",
        "length": "糸の長さ",
        "radius": "球の半径",
        "mass": "球 1 個の質量",
        "mass_ratio": "ほかの球に対する、引き上げる球の質量の比",
        "stiffness": "接触の剛性 k（linear は N/m、hertz は N/m^1.5）",
        "restitution": "1 回の衝突の反発係数 e",
        "gap": "静止時の隣り合う球のすき間",
        "contact": "法線方向の接触則：linear は k d、hertz は k d^1.5",
        "gravity": "重力加速度",
    },
    "spring": {
        "mass": "質量",
        "stiffness": "ばね定数 k",
        "damping": "減衰係数 b",
        "x0": "初期変位",
        "v0": "初速度",
    },
    "constant-force": {
        "mass": "質量",
        "force": "加える一定の力 F",
        "x0": "初期位置",
        "v0": "初速度",
    },
    "drag": {
        "mass": "質量",
        "force": "加える一定の力 F",
        "drag": "抵抗率 k（bullet では 1 秒あたりに失う速度の割合）",
        "v0": "初速度",
        "model": "linear：実際の抵抗力 -m k v。unity、physx、box2d、bullet：各ステップ後に"
        "そのエンジン流に速度を縮める",
    },
}
#: the lessons in Japanese (``lesson.ID.title``, ``lesson.ID.text``; English:
#: views.scenarios, whose claims tests/views/test_lessons.py checks: say the same here)
LESSONS_JA = {
    "euler-blows-up": (
        "陽的オイラー法は発散する",
        "陽的オイラー法はステップごとにエネルギーを増やします：エネルギー誤差は 0 より上へ"
        "上がり続け、ばねのブロックの振れはどんどん大きくなり、約 6 s 後に発散と表示されます。"
        "ゆりかごでも数秒のうちに同じことが起きますが、同じ時間刻みのシンプレクティック・"
        "オイラー法はどちらも動き続けます。",
    ),
    "symplectic-bounded": (
        "シンプレクティック・オイラー法はエネルギーを保つ",
        "0.1 s という粗い時間刻みでも、シンプレクティック・オイラー法のエネルギー誤差は 0 の"
        "上下に振れるだけで、どれだけ長く走らせても（ここでは 4 倍速）振れ幅は大きくなりません。"
        "RK4 は最初ははるかに正確ですが、誤差は 1 秒ごとに少しずつ 0 の下へ沈み、戻りません。",
    ),
    "rk4-loses": (
        "RK4 は dt = 0.25 でエネルギーを失う",
        "Glenn Fiedler の「Integration Basics」の定番の例：減衰のないばね（k = 15 N/m、"
        "m = 1 kg）を dt = 0.25 s で。4 次の RK4 は 1 ステップごとにエネルギーの約 1 % を失う"
        "ので、誤差は着実に沈み、ブロックの振れは小さくなります。速度ベルレ法の誤差は半周期"
        "ごとに沈んでは 0 に戻り、ずれていきません。",
    ),
    "implicit-damps": (
        "陰的オイラー法は減衰させる",
        "ここには減衰が何もないのに、陰的オイラー法の振り子とばねは止まってしまいます："
        "エネルギー誤差は −100 % に向かって沈み、手法だけでエネルギーが失われます（数値散逸）。"
        "同じく陰的でもシンプレクティックな陰的中点法はエネルギーを保ち、誤差は 0 の近くに"
        "とどまります（振り子で 10⁻³ 未満、ばねでは丸め誤差程度）。",
    ),
    "stability-limit": (
        "dt で安定限界をまたぐ",
        "幾何ビューは各手法が安定な領域と、ばねの位置を示します：k = 60 N/m（ω = 7.75 /s）では "
        "dt = 0.2 s で点 dt·λ = ±1.55i は両方の領域の内側にあります。dt を 2/ω = 0.258 s より"
        "大きくすると、速度ベルレ法の点は領域の外に出て灰色になり、そのブロックは暴走して発散と"
        "表示されます。RK4 の点は 2√2/ω = 0.365 s まで内側にとどまります。安定は正確という"
        "意味ではありません：dt = 0.2 s でベルレ法のエネルギー誤差はゼロより最大 (hω)²/4 = 60 % "
        "下がっては戻り、RK4 は 1 ステップごとにエネルギーの 87 %"
        "（ihω での安定性関数の絶対値の 2 乗）を保つだけで、"
        "2 s 後には 4 分の 3 を失います。",
    ),
    "ring-area": (
        "オイラー法の輪は広がり、ベルレ法は面積を保つ",
        "幾何ビューでは初期状態の輪を各手法が運びます：陽的オイラー法の輪は膨らみ、面積は 10 s "
        "以内に 2 倍を超えますが、速度ベルレ法の輪はせん断されても面積を保ちます（比 1）。"
        "位相空間の面積を保つことがシンプレクティックであることで、ベルレ法のエネルギー誤差が"
        "有界にとどまる理由です：エネルギーのグラフではオイラー法の誤差は上がり続け、ベルレ法の"
        "誤差はゼロから 1 % 以内にとどまります。",
    ),
    "stiff-cradle": (
        "硬いゆりかごには小さな dt が要る",
        "接触が既定の 1000 倍硬いので衝突はずっと短く、推奨の時間刻みは 1 ms から 0.05 ms に"
        "下がります。元の 1 ms では、どの積分法も最初の 1 秒以内に接触が発散し、発散と表示"
        "されます。dt を推奨の 5e-05 s にすると、同じゆりかごが問題なく動きます。",
    ),
    "damping-per-step": (
        "ステップごとの減衰（ゲームエンジン流の抵抗）",
        "ゲームエンジンの積分法であるシンプレクティック・オイラー法は、ばねの位相空間の面積を"
        "ステップごとに 1 − b·dt/m 倍に縮めます。Unity の linear drag が速度を 1 − k·dt 倍"
        "するのと同じです：dt = 0.1 s ではブロックは破線の厳密解の影より早く止まり、3 s 後に"
        "残るエネルギーは厳密解の半分です。RK4 は影に沿って動きます。ゲームエンジン流の抵抗にも"
        "同じ欠点があります（抵抗の系はこのページにはありません："
        "`integrator-lab run drag --set model=unity --dt 0.1 --duration 30`）：終端速度 "
        "F/(m k)·(1 − k·dt) は、dt = 0.1 s では 20 m/s ではなく 19 m/s です。",
    ),
}
#: the integrators' one-line descriptions (``about.NAME``; English: the core's description)
INTEGRATOR_DESCRIPTIONS_JA = {
    "euler": "x += v dt; v += a(x) dt、どちらも古い状態から：1 次、どの振動子でも"
    "エネルギーが増える",
    "symplectic-euler": "v += a(x) dt; x += v dt は新しい v で：1 次、シンプレクティック、"
    "エネルギー誤差は有界。ほとんどのゲームエンジンが使う方法",
    "velocity-verlet": "半キック、ドリフト、半キック：2 次、シンプレクティック、時間反転対称、"
    "1 ステップに力の評価 1 回",
    "leapfrog": "半ドリフト、キック、半ドリフト：2 次、シンプレクティック、時間反転対称",
    "midpoint": "オイラー法で半ステップ進み、その中点の傾きで 1 ステップ：2 次",
    "heun": "台形則の予測子・修正子（陽的 RK2）：2 次",
    "rk4": "古典的な 4 段のルンゲ＝クッタ法：4 次、非シンプレクティック：大きな dt では振動子の"
    "エネルギーを少しずつ失う",
    "implicit-euler": "後退オイラー法：1 次、無条件安定、エネルギーを人工的に減衰させる",
    "implicit-midpoint": "陰的中点則：2 次、シンプレクティック、A 安定、時間反転対称",
    "yoshida4": "速度ベルレ法の 3 つの小ステップ（1 つは時間を逆向きに）：4 次、シンプレクティック",
    "rk45": "埋め込み型の適応 RK 対（誤差制御、rtol 1e-9）：高精度の参照解。評価回数は内部ステップ"
    "ごと",
}
#: the order notes of the integrators (``order_note()``) in Japanese
ORDER_NOTES_JA = {
    "2 with velocity-dependent forces such as damping": "減衰など速度に依存する力では 2 次"
}
#: the phase plot's axis words (``phase.x.SYSTEM``, ``phase.y.SYSTEM``), put before the
#: symbols of scene.phase_labels; by the unit of the first coordinate
PHASE_WORDS_JA = {"rad": ("角度", "角速度"), "m": ("位置", "速度")}


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


def diverged_text(name: str, at: float, lang: str = DEFAULT_LANGUAGE) -> str:
    """:func:`shared.diverged_text` in ``lang``: ``"euler: diverged at t = 3.21 s"``."""
    at_text = f"{at:.{shared.TEXT_DIGITS['at']}g}"
    return text("status.diverged", lang, name=integrator_name(name, lang), at=at_text)


def status_text(lang: str, time: float, rtf: float | None, *, paused: bool = False) -> str:
    """:func:`shared.status_text` in ``lang``."""
    digits = shared.TEXT_DIGITS
    if paused:  # no rate: the clock stands
        return text("status.paused", lang, time=f"{time:.{digits['time']}f}")
    rate = shared.NO_RATE if rtf is None else f"{rtf:.{digits['rtf']}f}"
    return text("status.running", lang, time=f"{time:.{digits['time']}f}", rtf=rate)


def model_texts(systems: Iterable[str]) -> list[list[Any]]:
    """Fixed texts of the dashboard's Bokeh models: ``[model name, property, key]``; a list
    of keys for a list property (a button group's labels). ``{lo}`` and ``{hi}`` of the
    time-step slider's title are the accepted range (:func:`localize` and the page fill it)."""
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
            [f"{s}:title", "text", f"system.{s}"],
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


def _entry(key: str | list[str], lang: str) -> Any:
    """An item of a list property: a key's text, or a ``[value, key]`` pair's ``(value,
    text)``."""
    if isinstance(key, list):
        return (key[0], text(key[1], lang))
    return text(key, lang)


def localize(find: Callable[[str], Any], systems: Iterable[str], lang: str) -> None:
    """Set the texts of :func:`model_texts` on Bokeh models; ``find(name)`` returns the model
    of that name or None (a model the dashboard does not have is skipped)."""
    values = range_values()
    for name, prop, key in model_texts(systems):
        model = find(name)
        if model is None:
            continue
        if isinstance(key, list):  # keys, or [value, key] pairs (a menu's options)
            setattr(model, prop, [_entry(k, lang) for k in key])
        else:
            setattr(model, prop, text(key, lang).format(**values))
    # the legends' entries there are so far (lines are made on demand)
    for s in systems:
        for name in INTEGRATORS:
            item = find(f"{s}:legend:{name}")
            if item is not None:
                item.label = {"value": text(f"label.{name}", lang)}
        for kind in BREAKDOWN_KINDS:
            item = find(f"{s}:legend-style:{kind}")
            if item is not None:
                item.label = {"value": text(f"energy.{kind}", lang)}


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
    (drag.js ``clampNote``)."""

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
