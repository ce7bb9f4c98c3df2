"""The page in English and Japanese: the one catalog (integrator_lab.views.i18n) and, in
Chromium against the real built page, ``?lang=ja``, a Japanese browser, ``?lang=en`` over it,
and the EN / 日本語 switch.

The browser checks share one booted page per browser language (``shared_page``, pages.py),
each test's view applied in place: the page opened with ``?lang=ja`` in an English browser,
and a Japanese browser's page. The language is what the in-place view
leaves as it is (``integratorLab.apply`` keeps it): a test that switches it switches it back
through the page's own EN / 日本語 switch, and a test that opens the study view, the editor
or the Lessons menu closes it with the page's own controls.
"""

from __future__ import annotations

import re
import string
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
from pages import (  # noqa: F401 (fixtures)
    NEXT_FRAMES_JS,
    SYSTEMS,
    open_page,
    shared_page,
    shared_pages,
    site,
)

from integrator_lab.core import SYSTEMS as DECLARED_SYSTEMS
from integrator_lab.views import i18n

JAPANESE = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")  # kana and kanji


def _placeholders(template):
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


# -- the catalog ---------------------------------------------------------------------------
def test_every_key_has_english_and_japanese_with_the_same_placeholders():
    catalog = i18n.catalog()
    assert catalog, "empty catalog"
    for key, entry in catalog.items():
        assert set(entry) == set(i18n.LANGUAGES), key
        assert entry["en"], f"{key}: no English"
        assert entry["ja"], f"{key}: no Japanese"
        assert _placeholders(entry["en"]) == _placeholders(entry["ja"]), key


def test_every_declared_parameter_system_and_integrator_has_a_japanese_label():
    catalog = i18n.catalog()
    for system, cls in DECLARED_SYSTEMS.items():
        assert JAPANESE.search(catalog[f"system.{system}"]["ja"]), system
        for p in cls.PARAMS:
            label = i18n.PARAM_LABELS_JA.get(system, {}).get(p.name, "")
            assert JAPANESE.search(label), f"{system}.{p.name}: no Japanese label"
            # the Japanese title keeps the declared symbol and unit
            title = catalog[f"paramtitle.{system}.{p.name}"]["ja"]
            assert title.startswith(label) and p.symbol in title, title
    for name in i18n.INTEGRATORS:
        assert JAPANESE.search(catalog[f"integrator.{name}"]["ja"]), name
        # shown by a Japanese short name (the Runge-Kutta pair by the abbreviation Japanese
        # texts use too); the legend's label starts with it; the URL keeps the code name
        shown = catalog[f"name.{name}"]["ja"]
        assert JAPANESE.search(shown) or shown in ("RK4", "RK45"), name
        assert catalog[f"label.{name}"]["ja"].startswith(shown + " · ")
        assert catalog[f"name.{name}"]["en"] == name


def test_japanese_uses_the_standard_physics_terms():
    def ja(key):
        return i18n.text(key, "ja")

    assert ja("system.pendulum") == "振り子"
    assert ja("system.cradle") == "ニュートンのゆりかご"
    assert ja("system.spring") == "減衰ばね振動子"
    assert ja("control.integrators") == "積分法"
    assert "時間刻み" in ja("dt.title")
    assert ja("control.energy.error") == "エネルギー誤差"
    assert ja("control.phase") == "位相空間"
    assert ja("control.exact") == "厳密解"
    assert ja("integrator.euler") == "陽的オイラー法"
    assert ja("integrator.symplectic-euler") == "シンプレクティック・オイラー法"
    assert ja("integrator.velocity-verlet") == "速度ベルレ法"
    assert "ルンゲ＝クッタ法" in ja("integrator.rk4")
    assert ja("integrator.implicit-euler") == "陰的オイラー法"


def test_the_catalogs_english_is_what_the_dashboard_is_built_with():
    """The table of the models' texts the page applies in a language (static/js/localize.js)
    names models the page's documents have, and its English is what they are built with; its
    Japanese is Japanese."""
    from bokeh.document import Document

    from integrator_lab.views import figures

    config = figures.DashboardConfig()
    models = figures.build_dashboard(config)
    doc = Document()
    for role in figures.CONTROL_ORDER:
        doc.add_root(getattr(models.controls, role))
    for panel in models.panels.values():
        for part in (panel.scene_box, panel.energy_fig, panel.phase_fig, panel.param_grid):
            doc.add_root(part)
    values = i18n.range_values()

    def said(key, lang):
        """A key's text (filled as the page fills it), or a menu's [value, key] pair's."""
        if isinstance(key, list):
            return (key[0], i18n.text(key[1], lang))
        return i18n.text(key, lang).format(**values)

    for name, prop, key in i18n.model_texts(config.systems):
        model = doc.select_one({"name": name})
        assert model is not None, f"no model named {name}"
        built = getattr(model, prop)
        if isinstance(key, list):  # keys, or [value, key] pairs (a menu's options)
            assert [tuple(k) if isinstance(k, list) else k for k in built] == [
                said(k, "en") for k in key
            ], name
            texts = [said(k, "ja") for k in key]
            shown = " ".join(t[1] if isinstance(t, tuple) else t for t in texts)
        else:
            assert built == said(key, "en"), name
            shown = said(key, "ja")
        assert JAPANESE.search(shown), f"{name}.{prop} = {shown!r}"


def test_an_unknown_language_is_refused_naming_the_accepted_ones():
    # (the page's status line in Japanese, numbers as in English: test_lang_ja_shows_...)
    with pytest.raises(ValueError, match="lang.*en, ja"):
        i18n.language("fr")


# -- the page in Chromium ------------------------------------------------------------------
#: words of the English interface that must not be left in the Japanese page
#: (and the code names of the choices of a parameter, which its help text names:
#: "nonlinear", "hertz"; sin is the function). The integrators are shown by Japanese names.
CODE_NAMES = {c for cls in DECLARED_SYSTEMS.values() for p in cls.PARAMS for c in p.choices}
ALLOWED = re.compile(
    r"Integrator Lab|Python|Pyodide|Web Worker|K\+P|rad|CSV|PNG|sin\(|"
    + "|".join(re.escape(n) for n in sorted(CODE_NAMES, key=len, reverse=True))
)

VISIBLE_TEXTS = """() => {
  const I = window.integratorLab, out = {};
  const q = (sel) => Array.from(document.querySelectorAll(sel)).map((e) => e.textContent);
  out.heading = q(".il-top h1"); out.tagline = q(".il-tagline"); out.footer = q(".il-footer");
  out.titles = q(".il-panel-title"); out.status = q(".il-panel-status");
  out.study = q(".il-study-switch button, .il-study-form label span, .il-study button");
  out.title = [document.title];
  const data = JSON.parse(document.getElementById("il-data").textContent);
  for (const [name, prop] of data.i18n.modelTexts) {
    let v;
    try { v = I.model(name)[prop]; } catch { continue; } // a model only Panel's dashboard has
    // a menu's options are [value, label] pairs: the label is shown
    out[`${name}.${prop}`] = Array.isArray(v) ? v.map((x) => (Array.isArray(x) ? x[1] : x)) : [v];
  }
  out.chips = q(".il-chip-label");
  out.play = [I.model("controls:play").label];
  for (const s of data.systems) {
    out[`${s}.energy`] = [I.model(`${s}:energy:yaxis`).axis_label];
    out[`${s}.dt`] = [I.model(`${s}:dt`).title];
    out[`${s}.legend`] = I.model(`${s}:energy:legend`).items.map((i) => i.label.value);
    // what the scene and the energy plot name the integrators by: the lanes, the
    // "diverged at" marks, the clipped marks
    out[`${s}.lanes`] = I.model(`${s}:scene:fixtures`).data.label;
    out[`${s}.marks`] = I.model(`${s}:scene:marks`).data.text;
    out[`${s}.clipped`] = I.model(`${s}:energy:clipped`).data.text.filter((x) => x);
  }
  return out;
}"""


def _english_leftovers(texts):
    out = []
    for where, values in texts.items():
        for value in values:
            rest = ALLOWED.sub("", value)
            words = [w for w in re.findall(r"[A-Za-z]{3,}", rest)]
            if words:
                out.append((where, value, words))
    return out


def _lang_in_url(page):
    return parse_qs(urlsplit(page.page.url).query).get("lang")


def _japanese_page(shared_page, query="", viewport=(1600, 1000)):  # noqa: F811
    """The module's page of ``?lang=ja`` in an English browser, reset to the view of
    ``?lang=ja&query``: booted from such a link the first time, so in Japanese from its boot
    (a link's ``lang=`` over the browser's language), and in Japanese as every test leaves it
    (the in-place view keeps the language)."""
    query = "?lang=ja" + (f"&{query}" if query else "")
    page = shared_page(query, viewport=viewport, locale="en-US")
    page.wait_live()
    assert page.js("document.documentElement.lang") == "ja"
    return page


def _switch(page, lang):
    """The page's own switch pressed (EN | 日本語): the page re-labelled in ``lang``."""
    name = {"en": "EN", "ja": "日本語"}[lang]
    page.page.get_by_role("button", name=name, exact=True).click()
    page.wait(f"document.documentElement.lang === '{lang}'")


@pytest.mark.browser
def test_lang_ja_shows_the_page_in_japanese_with_no_english_left(shared_page):  # noqa: F811
    # at four times real time: the marks it reads come after seconds of simulated time
    page = _japanese_page(shared_page, "speed=4")
    page.wait("document.querySelector('.il-panel-status').textContent.includes('実時間')")
    # explicit Euler diverges in the cradle (3.6 s) and leaves the pendulum's band: the
    # marks that name it are there to be read
    page.wait("window.integratorLab.model('cradle:scene:marks').data.text.length > 0")
    page.wait("window.integratorLab.model('pendulum:energy:clipped').data.text.some((x) => x)")
    ja = i18n.catalog()
    assert page.js("document.documentElement.lang") == "ja"
    assert page.page.locator(".il-top h1").inner_text() == ja["page.heading"]["ja"]
    assert page.page.locator(".il-tagline").inner_text() == ja["page.tagline"]["ja"]
    assert page.js("window.integratorLab.model('controls:integrators').title") == "積分法"
    assert page.page.locator(".il-panel-title").first.inner_text() == "振り子"
    axis = page.js("window.integratorLab.model('pendulum:energy:yaxis').axis_label")
    assert axis == ja["energy.axis.linear"]["ja"]
    assert page.js("window.integratorLab.model('pendulum:param:theta0').title") == (
        "初期角度 θ₀ (rad)"
    )
    status = page.page.locator("#il-status-spring").inner_text()
    assert re.fullmatch(r"t = \d+\.\d\d s · 実時間の (\d+\.\d\d|–) 倍", status), status
    # the widgets draw what the models say (Bokeh renders into shadow roots)
    assert page.page.get_by_role("button", name="一時停止").count() == 1
    assert page.page.get_by_role("button", name="リセット").count() == 1
    texts = page.js(VISIBLE_TEXTS)
    assert _english_leftovers(texts) == []
    # each integrator by its Japanese name: lanes, marks, menu, legend
    assert texts["pendulum.lanes"] == [
        "陽的オイラー",
        "シンプレクティック・オイラー",
        "速度ベルレ",
        "RK4",
    ]
    assert texts["cradle.marks"][0].startswith("陽的オイラー:\nt = "), texts["cradle.marks"]
    assert re.fullmatch(r"陽的オイラー \+[\d.e+]+ % ↑", texts["pendulum.clipped"][0]), texts
    assert "陽的オイラー" in texts["controls:integrators.options"]
    assert texts["chips"][0].startswith("陽的オイラー · 1 次")
    # paused: the status line says so in Japanese
    page.page.get_by_role("button", name="一時停止").click()
    page.wait("document.querySelector('#il-status-spring').textContent.endsWith('一時停止中')")
    assert page.errors == []


@pytest.mark.browser
def test_a_japanese_browser_gets_japanese_and_lang_en_overrides_it(shared_page):  # noqa: F811
    # the module's page of a Japanese browser (one page per browser language)
    page = shared_page("", locale="ja-JP")
    page.wait_live()
    assert page.js("navigator.languages[0]").startswith("ja")
    assert page.js("document.documentElement.lang") == "ja"
    assert page.js("window.integratorLab.model('controls:play').label") == "一時停止"
    assert page.page.locator(".il-panel-title").nth(2).inner_text() == "減衰ばね振動子"
    assert _lang_in_url(page) is None  # the browser's own language needs no mention
    assert page.errors == []

    # lang=en in the link, as the switch writes it: a link's lang= is taken over the
    # browser's language when the page boots (i18n.js language(); booted so by every test
    # on the ?lang=ja page, in an English browser), and the page is English throughout
    _switch(page, "en")
    assert page.js("document.documentElement.lang") == "en"
    assert page.page.locator(".il-top h1").inner_text() == "Integrator Lab"
    assert page.js("window.integratorLab.model('controls:play').label") == "Pause"
    assert page.page.locator(".il-panel-title").first.inner_text() == "Pendulum"
    assert _lang_in_url(page) == ["en"]  # kept: it is not what this browser asks for
    assert page.errors == []
    _switch(page, "ja")  # back to the browser's own language, as the next test takes it
    assert _lang_in_url(page) is None


@pytest.mark.browser
def test_the_switch_toggles_the_language_and_the_url(shared_page):  # noqa: F811
    page = _japanese_page(shared_page, "systems=spring")
    # an English browser: its own language needs no mention in the link, Japanese does
    assert page.js("navigator.languages[0]") == "en-US"
    _switch(page, "en")
    assert page.js("document.documentElement.lang") == "en"
    assert page.page.locator("#il-lang button[aria-pressed=true]").inner_text() == "EN"
    assert _lang_in_url(page) is None
    assert page.js("window.integratorLab.model('spring:param:stiffness').title") == (
        "stiffness k (N/m)"
    )
    page.wait("document.querySelector('#il-status-spring').textContent.includes('real time')")
    _switch(page, "ja")
    assert _lang_in_url(page) == ["ja"]
    assert parse_qs(urlsplit(page.page.url).query)["systems"] == ["spring"]  # the rest stays
    assert page.js("window.integratorLab.state().lang") == "ja"
    assert page.page.locator(".il-top h1").inner_text() == i18n.text("page.heading", "ja")
    assert page.js("window.integratorLab.model('spring:param:stiffness').title") == (
        "ばね定数 k (N/m)"
    )
    assert page.js("window.integratorLab.model('controls:play').label") == "一時停止"
    page.wait("document.querySelector('#il-status-spring').textContent.includes('実時間')")
    assert page.page.locator("#il-lang button[aria-pressed=true]").inner_text() == "日本語"
    # the lanes, and the marks the worker makes from then on, name the integrators in
    # Japanese (explicit Euler leaves the spring's band within a second)
    lanes = page.js("window.integratorLab.model('spring:scene:fixtures').data.label")
    assert lanes[0] == "陽的オイラー" and "RK4" in lanes, lanes
    page.wait(
        "window.integratorLab.model('spring:energy:clipped').data.text"
        ".some((x) => x.startsWith('陽的オイラー '))"
    )
    # the link carries the language (lang=ja, above), and a page loaded from such a link is
    # in Japanese: this module's ?lang=ja page boots from one (_japanese_page)
    assert page.errors == []


@pytest.mark.browser
def test_refused_values_and_diverged_marks_are_said_in_japanese(shared_page):  # noqa: F811
    page = _japanese_page(
        shared_page,
        "systems=spring&integrators=euler,rk4&spring.dt=0.5&spring.damping=0"
        "&spring.mass=abc&lang2=1",
    )
    messages = page.messages()
    assert any(m.startswith("リンクの設定「spring.mass」") for m in messages), messages
    assert any("lang2" in m and "無視しました" in m for m in messages), messages
    # explicit Euler multiplies the undamped energy by 1 + (ω dt)² every step: it runs away
    page.wait("window.integratorLab.status().systems.spring.integrators.euler.divergedAt !== null")
    page.wait("window.integratorLab.model('spring:scene:status').data.text.length > 0")
    marks = page.js("window.integratorLab.model('spring:scene:status').data.text")
    assert marks and re.fullmatch(r"陽的オイラー: t = [\d.e+-]+ s で発散", marks[0]), marks
    # a typed value out of range: the message names the parameter in Japanese
    page.set_model("spring:param:mass", "value", -1)
    page.wait("document.querySelector('#il-note-spring').textContent.length > 0")
    note = page.page.locator("#il-note-spring").inner_text()
    assert note.startswith("減衰ばね振動子、質量 m：") and "範囲" in note, note
    assert page.errors == []


@pytest.mark.browser
def test_japanese_fits_a_phone(shared_page):  # noqa: F811
    page = _japanese_page(shared_page, viewport=(390, 844))
    page.js(NEXT_FRAMES_JS)  # laid out for the phone's width
    assert page.js("document.documentElement.scrollWidth") <= 390
    # the header and the panel titles are not clipped
    clipped = page.js(
        "Array.from(document.querySelectorAll('.il-top > *, .il-panel-title, .il-panel-status'))"
        ".filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent)"
    )
    assert clipped == []
    # the Lessons menu open, and a lesson's note, fit too
    page.page.locator("#il-lessons summary").click()
    page.wait("document.getElementById('il-lessons').open")
    width = page.js("document.documentElement.scrollWidth")
    menu = page.js("document.querySelector('#il-lessons ol').getBoundingClientRect().right")
    assert width <= 390 and menu <= 390, (width, menu)
    assert page.errors == []
    page.page.keyboard.press("Escape")  # the menu closed again, with its own key
    page.wait("!document.getElementById('il-lessons').open")


HEADER_JS = """(() => {
    const box = (sel) => document.querySelector(sel).getBoundingClientRect();
    const top = box(".il-top"), h1 = box(".il-top h1"), lang = box("#il-lang");
    const tag = document.querySelector(".il-top .il-tagline");
    const tagline = tag.getBoundingClientRect();
    const apart = (a, b) => a.right <= b.left || b.right <= a.left || a.bottom <= b.top
        || b.bottom <= a.top;
    return { right: top.right - lang.right, shown: tag.getClientRects().length > 0,
             below: tagline.top - Math.max(h1.bottom, lang.bottom),
             between: tagline.left >= h1.right && tagline.right <= lang.left,
             taglineApart: apart(tagline, h1) && apart(tagline, lang),
             overlap: !apart(lang, h1) };
})()"""


@pytest.mark.browser
def test_the_header_keeps_language_switch_and_tagline_apart(shared_page):  # noqa: F811
    """The header's rows (static/style.css): the language switch at the right of the title,
    never over it; the tagline between the two on a wide window (>= 1000 px, one row for
    the first screen's room), on its own row below them on a narrow one, left out on a
    phone (<= 600 px). One page, its window resized through the widths (the rules are
    media queries, applied as the window changes)."""
    viewports = [(390, 844), (800, 900), (1440, 900), (1920, 1080)]
    page = _japanese_page(shared_page, viewport=viewports[0])
    for width, height in viewports:
        page.page.set_viewport_size({"width": width, "height": height})
        page.wait(f"window.innerWidth === {width}")
        page.js(NEXT_FRAMES_JS)  # laid out for the new width
        header = page.js(HEADER_JS)
        assert abs(header["right"]) <= 1, (width, header)  # at the header's right edge
        assert not header["overlap"], (width, header)
        if width <= 600:
            assert not header["shown"], (width, header)
        elif width >= 1000:
            assert header["shown"] and header["between"] and header["taglineApart"], header
        else:
            assert header["shown"] and header["below"] >= 0, (width, header)
    assert page.errors == []


@pytest.mark.browser
def test_the_file_url_note_is_in_the_browsers_language(open_page, shared_pages, site):  # noqa: F811
    # a tab of its own: its subject is another document, the page opened from disk (not
    # loaded from the site first: deferred); the module's pages wait paused meanwhile
    shared_pages.pause()
    page = open_page("", defer=True, locale="ja-JP")
    page.page.goto(Path(site["dir"], "index.html").as_uri())
    page.wait("!document.getElementById('il-served').hidden", timeout=20_000)
    assert page.page.locator("#il-served").inner_text() == i18n.text("page.file_url", "ja")
    loading = page.page.locator(".il-loading span").first.inner_text()
    assert loading == i18n.text("page.file_url.short", "ja")


# -- what was still English in Japanese mode -------------------------------------------------
def test_a_value_the_core_refuses_is_said_in_japanese_from_its_parts():
    """The core raises ParamError (English, stdlib only); the catalog says it from the parts:
    the system, the parameter's Japanese label, the value and the range that applied."""
    from integrator_lab.core import ParamError
    from integrator_lab.views.live import Live

    with pytest.raises(ParamError) as caught:
        DECLARED_SYSTEMS["cradle"](balls=3, lifted=5)
    assert caught.value.param.max == 3  # at most 'balls', not the declared 10
    english = str(caught.value)
    assert "'lifted'" in english and "[0, 3]" in english  # the English stays as it was
    ja = i18n.core_error(caught.value, "ja")
    label = i18n.PARAM_LABELS_JA["cradle"]["lifted"]
    assert ja.startswith(f"ニュートンのゆりかご、{label}：5 ") and "3 以下の整数" in ja, ja
    # the live loop hands the same parts on (the page's worker has no catalog)
    result = Live().configure("cradle", {"balls": 3, "lifted": 5}, integrators=["rk4"])
    refused = result["refused"]
    assert (refused["param"], refused["value"], refused["max"]) == ("lifted", 5, 3)
    said = i18n.refusal_text(refused, "ja")
    assert said.startswith(ja) and said.endswith("既定値を使います。"), said
    # English: the core's own sentence, as before
    assert result["errors"] == [f"Newton's cradle: {english}; using the defaults."]


@pytest.mark.browser
def test_the_lessons_menu_and_note_are_in_japanese(shared_page):  # noqa: F811
    page = _japanese_page(
        shared_page, "lesson=rk4-loses&systems=spring&integrators=rk4,velocity-verlet"
    )
    summary = page.page.locator("#il-lessons summary")
    assert summary.inner_text() == i18n.text("lesson.menu", "ja")
    summary.click()
    links = page.page.locator("#il-lessons a[data-lesson]")
    ids = links.evaluate_all("(as) => as.map((a) => a.dataset.lesson)")
    assert links.all_inner_texts() == [i18n.text(f"lesson.{i}.title", "ja") for i in ids]
    assert all(JAPANESE.search(text) for text in links.all_inner_texts())
    note = page.page.locator("#il-lesson")
    title = i18n.text("lesson.note", "ja", title=i18n.text("lesson.rk4-loses.title", "ja"))
    assert note.locator("strong").inner_text() == title.strip()
    assert note.locator("span").inner_text() == i18n.text("lesson.rk4-loses.text", "ja")
    assert note.get_attribute("aria-label") == i18n.text("lesson.look_for", "ja")
    # the switch re-labels them in place
    page.page.keyboard.press("Escape")
    page.wait("!document.getElementById('il-lessons').open")
    _switch(page, "en")
    page.wait("document.querySelector('#il-lessons summary').textContent === 'Lessons'")
    assert note.locator("strong").inner_text().strip() == "Lesson: RK4 loses energy at dt = 0.25."
    assert page.errors == []
    _switch(page, "ja")


@pytest.mark.browser
def test_bad_links_and_a_core_refusal_are_said_in_japanese(shared_page):  # noqa: F811
    """hide= and lesson= naming nothing, and a value each field accepts but the core
    refuses (more balls lifted than there are): every message is the catalog's Japanese."""
    page = _japanese_page(
        shared_page, "systems=cradle&hide=nope&lesson=nope&cradle.balls=3&cradle.lifted=5"
    )
    page.wait(
        "document.querySelectorAll('#il-messages li, .il-panel-note:not([hidden])').length >= 3"
    )
    messages = page.messages()
    names = ", ".join(i18n.INTEGRATORS)
    link_setting = i18n.catalog()["msg.link_setting"]["ja"]
    hide = link_setting.format(
        key="hide",
        raw='"nope"',
        expected=i18n.text("expect.list", "ja", names=names),
        shown=i18n.text("msg.none_hidden", "ja"),
    )
    lessons = ", ".join(s.id for s in i18n.SCENARIOS)
    lesson = link_setting.format(
        key="lesson",
        raw='"nope"',
        expected=i18n.text("expect.one_of", "ja", names=lessons),
        shown=i18n.text("msg.none", "ja"),
    )
    refused = {
        "system": "cradle",
        "param": "lifted",
        "value": 5,
        "min": 0,
        "max": 3,
        "min_open": False,
        "max_open": False,
        "then": "defaults",
    }
    core = i18n.refusal_text(refused, "ja")
    assert hide in messages and lesson in messages, messages
    assert core in messages, messages
    assert not [m for m in messages if "expected" in m or "got" in m], messages
    assert page.errors == []


@pytest.mark.browser
def test_a_study_in_japanese_labels_its_diagrams_from_the_catalog(shared_page):  # noqa: F811
    page = _japanese_page(shared_page, "systems=spring&integrators=rk4,euler")
    # the study view, which the in-place view keeps as it is (as study=spring and
    # spring.study.points=4 in a link would set it): opened, set and run through its own
    # controls, and closed again at the end
    page.page.locator("#il-study-spring-study").click()
    page.page.locator("#il-study-spring-stop").click()  # (it started with the default points)
    page.settle()
    field = page.page.locator("#il-study-spring-points")
    field.fill("4")
    field.press("Enter")
    page.wait("location.search.includes('spring.study.points=4')")
    page.page.locator("#il-study-spring-run").click()
    page.wait("window.integratorLab.study('spring').done", timeout=120_000)
    model = (
        "(n) => { const f = window.integratorLab.model(n); return [f.title.text, "
        "f.below[0].axis_label, f.left[0].axis_label]; }"
    )
    assert page.js(model, "spring:study-convergence") == [
        i18n.text("study.title.convergence", "ja"),
        i18n.text("study.axis.dt", "ja"),
        i18n.text("study.measure.error", "ja"),
    ]
    assert page.js(model, "spring:study-work")[:2] == [
        i18n.text("study.title.work", "ja"),
        i18n.text("study.axis.evaluations", "ja"),
    ]
    slopes = page.js("window.integratorLab.study('spring').slopes")
    labels = page.js("window.integratorLab.model('spring:study-source-lines').data.label")
    # each line by its integrator's Japanese name
    names = {n: i18n.text(f"name.{n}", "ja") for n in slopes}
    expected = [
        i18n.text("study.no_slope", "ja", name=names[n])
        if s is None
        else i18n.text("study.slope", "ja", name=names[n], slope=f"{s:.2f}")
        for n, s in slopes.items()
    ]
    assert sorted(labels) == sorted(expected) and "slope" not in " ".join(labels), labels
    assert any(label.startswith("陽的オイラー：") for label in labels), labels
    status = page.page.locator("#il-study-spring-status").inner_text()
    assert status.startswith("完了：") and "slope" not in status, status
    assert "陽的オイラー" in status and "euler" not in status, status
    options = page.page.locator("#il-study-spring-error option").all_inner_texts()
    assert options == [
        i18n.text(f"study.measure.{m}", "ja") for m in ("error", "position_error", "energy_error")
    ]
    assert page.errors == []
    page.page.locator("#il-study-spring-live").click()
    page.wait("!window.integratorLab.study('spring').open")


@pytest.mark.browser
def test_the_method_editor_is_in_japanese(shared_page):  # noqa: F811
    page = _japanese_page(shared_page, "systems=spring")
    editor = page.page.locator("#il-editor")
    editor.locator("summary").click()

    def ja(key):
        return i18n.text(key, "ja")

    assert editor.locator("summary").inner_text() == ja("editor.title")
    assert page.page.locator("#il-editor-run").inner_text() == ja("editor.run")
    assert page.page.locator("#il-editor-info").inner_text() == ja("editor.ready")
    kinds = page.page.locator("#il-editor-kind option").all_inner_texts()
    assert kinds == [ja(f"editor.kind.{k}") for k in ("python", "tableau", "splitting")]
    hints = editor.locator(".il-editor-hint").all_inner_texts()
    assert ja("editor.intro") in hints and ja("editor.python.hint") in hints, hints
    # a splitting step's control, made on demand, too
    page.page.locator("#il-editor-kind").select_option("splitting")
    assert editor.locator(".il-editor-sequence button").first.inner_text() == ja("editor.remove")
    _switch(page, "en")
    page.wait("document.querySelector('#il-editor summary').textContent === 'Add your method'")
    assert page.page.locator("#il-editor-run").inner_text() == "Run"
    assert page.errors == []
    # left as the next test takes it: the first kind, the editor closed, in Japanese
    page.page.locator("#il-editor-kind").select_option("python")
    editor.locator("summary").click()
    page.wait("!document.querySelector('#il-editor details').open")
    _switch(page, "ja")


@pytest.mark.browser
def test_the_legend_and_the_bodies_describe_the_integrators_in_japanese(shared_page):  # noqa: F811
    page = _japanese_page(shared_page, "systems=pendulum&integrators=euler,yoshida4")
    legend = page.page.locator("#il-legend")
    assert legend.get_attribute("aria-label") == i18n.text("legend.label", "ja")
    titles = legend.locator(".il-chip").evaluate_all("(cs) => cs.map((c) => c.title)")
    assert titles == [i18n.text(f"about.{n}", "ja") for n in ("euler", "yoshida4")]
    assert all(JAPANESE.search(t) and "order" not in t for t in titles), titles
    # the bodies' hover text: the same line, per body
    page.wait("window.integratorLab.model('pendulum:scene:bodies').data.about.length > 0")
    data = page.js(
        "(() => { const d = window.integratorLab.model('pendulum:scene:bodies').data;"
        " return [Array.from(d.integrator), Array.from(d.about)]; })()"
    )
    assert data[1] == [i18n.text(f"about.{n}", "ja") for n in data[0]]
    _switch(page, "en")
    about = page.js("window.integratorLab.model('pendulum:scene:bodies').data.about[0]")
    assert about.startswith("Explicit Euler: order 1")
    assert page.errors == []
    _switch(page, "ja")
