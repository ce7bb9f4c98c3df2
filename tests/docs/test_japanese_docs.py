"""The documentation's key pages in Japanese (``docs/ja/``): each is in Japanese, says it is
(``<html lang="ja">``), links to its English page and back, and keeps every equation, code
block, literal, demo and generated lesson of the English page."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from urllib.parse import parse_qsl, urlsplit

import pytest
from docs_helpers import DOCS

from integrator_lab.views.i18n import INTEGRATOR_TITLES_JA, LESSONS_JA
from integrator_lab.views.scenarios import SCENARIOS

#: the pages translated into Japanese: ``ja/NAME`` is the Japanese of ``NAME``
PAGES = ("index", "lessons", "own-method")
#: kana (hiragana, katakana) and kanji: a Japanese text has the first two, a Chinese one not
KANA = r"\u3040-\u30ff"
JAPANESE = rf"{KANA}\u4e00-\u9fff\u3000-\u303f\uff01-\uff60"


class Body(HTMLParser):
    """The main text of a Sphinx page (``div.body``, without the sidebar and footer): its
    words, its links, its demos, its code blocks, its inline literals and its equations."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.depth = 0  # nesting of <div> inside div.body; 0: outside it
        self.words: list[str] = []
        self.links: list[str] = []
        self.demos: list[str] = []
        self.blocks: list[str] = []  # <pre> texts
        self.literals: list[str] = []  # inline ``code``
        self.equations = 0  # <math> elements
        self._pre: list[str] | None = None
        self._literal: list[str] | None = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if tag == "div" and (self.depth or "body" in classes):
            self.depth += 1
        if not self.depth:
            return
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        elif tag == "iframe" and "integrator-lab-demo" in classes:
            self.demos.append(attrs["src"])
        elif tag == "pre":
            self._pre = []
        elif tag == "code" and "literal" in classes and self._pre is None:
            self._literal = []
        elif tag == "math":
            self.equations += 1

    def handle_endtag(self, tag):
        if not self.depth:
            return
        if tag == "div":
            self.depth -= 1
        elif tag == "pre" and self._pre is not None:
            self.blocks.append("".join(self._pre))
            self._pre = None
        elif tag == "code" and self._literal is not None:
            self.literals.append(" ".join("".join(self._literal).split()))
            self._literal = None

    def handle_data(self, data):
        if not self.depth:
            return
        self.words.append(data)
        for part in (self._pre, self._literal):
            if part is not None:
                part.append(data)

    @property
    def text(self) -> str:
        return "".join(self.words)


def read(built_docs, name: str) -> tuple[str, Body]:
    page = (built_docs / f"{name}.html").read_text(encoding="utf-8")
    return page, Body(page)


@pytest.mark.parametrize("name", PAGES)
def test_the_japanese_page_is_in_japanese_and_says_so(built_docs, name):
    page, body = read(built_docs, f"ja/{name}")
    english, _ = read(built_docs, name)
    # the language of the page for browsers (fonts, line breaking) and screen readers
    assert re.search(r'<html lang="ja"[ >]', page)
    assert re.search(r'<html lang="en"[ >]', english)
    text = re.sub(r"\s", "", body.text)
    japanese = re.findall(rf"[{JAPANESE}]", text)
    assert len(re.findall(rf"[{KANA}]", text)) > 100
    # prose in Japanese, not English prose with a Japanese title: most letters are Japanese,
    # except on the page of code listings, which stay as they run
    letters = re.findall(rf"[A-Za-z{JAPANESE}]", "".join(re.findall(r"\S", body.text)))
    assert len(japanese) > (0.3 if name == "own-method" else 0.5) * len(letters)


@pytest.mark.parametrize("name", PAGES)
def test_the_japanese_and_the_english_page_link_to_each_other(built_docs, name):
    _, japanese = read(built_docs, f"ja/{name}")
    _, english = read(built_docs, name)
    assert f"../{name}.html" in japanese.links
    assert f"ja/{name}.html" in english.links
    # said where a reader looks first: right under the title
    assert japanese.text.split("English:", 1)[0].count("\n") < 6
    assert english.text.split("日本語:", 1)[0].count("\n") < 6


@pytest.mark.parametrize("name", PAGES)
def test_the_japanese_page_keeps_every_equation_code_block_and_demo(built_docs, name):
    _, japanese = read(built_docs, f"ja/{name}")
    _, english = read(built_docs, name)
    assert japanese.equations == english.equations
    # code runs as it is written: the listings are the English page's, character for character
    assert japanese.blocks == english.blocks
    # every inline formula, command, file and name of the English page is in the Japanese one
    # (a lesson's link there opens the lab in Japanese)
    missing = set(english.literals) - {
        literal.removesuffix("&lang=ja") for literal in japanese.literals
    }
    assert missing == set()
    # the same demos, in the same order, with the same settings, each in Japanese
    assert len(japanese.demos) == len(english.demos)
    for ja, en in zip(japanese.demos, english.demos):
        ja_query, en_query = parse_qsl(urlsplit(ja).query), parse_qsl(urlsplit(en).query)
        assert ("lang", "ja") in ja_query and "lang" not in dict(en_query)
        assert [item for item in ja_query if item[0] != "lang"] == en_query
        assert urlsplit(ja).path == "../" + urlsplit(en).path


def test_the_japanese_lessons_are_the_pages_own_japanese_lessons(built_docs):
    page, body = read(built_docs, "ja/lessons")
    text = html.unescape(page)
    words = " ".join(body.text.split())
    for scenario in SCENARIOS:
        title, look_for = LESSONS_JA[scenario.id]
        # each opens the docs' copy of the lab on the lesson's view, in Japanese
        query = f"{scenario.link_query()}&lang=ja"
        assert f'href="../_integrator_lab/index.html?{query}"' in text, scenario.id
        assert title in words, scenario.id
        assert " ".join(look_for.replace("`", "").split()) in words, scenario.id


@pytest.mark.parametrize("name", ("lessons", "ja/lessons"))
def test_a_command_in_a_lessons_note_is_code_as_written(built_docs, name):
    # "--set" stays two hyphens (prose would make them a dash): a reader can copy the command
    _, body = read(built_docs, name)
    command = "integrator-lab run drag --set model=unity --dt 0.1 --duration 30"
    assert command in body.literals


@pytest.mark.parametrize("name", PAGES)
def test_the_japanese_page_names_the_integrators_as_the_lab_does(built_docs, name):
    # the docs and the page's Japanese texts (web/views/i18n.py) agree on the names
    _, japanese = read(built_docs, f"ja/{name}")
    _, english = read(built_docs, name)
    ja_text, en_text = " ".join(japanese.text.split()), " ".join(english.text.split()).lower()
    named = {
        "euler": "explicit euler",
        "symplectic-euler": "symplectic euler",
        "velocity-verlet": "velocity verlet",
        "implicit-euler": "implicit euler",
        "yoshida4": "yoshida's fourth-order",
    }
    for integrator, words in named.items():
        if words in en_text.replace("\u2019", "'"):
            assert INTEGRATOR_TITLES_JA[integrator] in ja_text, (name, integrator)


@pytest.mark.parametrize("name", PAGES)
def test_no_line_break_of_the_source_shows_as_a_space_between_japanese_words(built_docs, name):
    # a line break in a reStructuredText paragraph is a space in HTML, which Japanese does not
    # put between words; the pages end such lines with a backslash
    _, body = read(built_docs, f"ja/{name}")
    gaps = [
        gap for words in body.words for gap in re.findall(rf"[{JAPANESE}]\s+[{JAPANESE}]", words)
    ]
    assert gaps == []


def test_the_test_files_the_lessons_pages_name_exist():
    root = DOCS.parent
    for page in (DOCS / "lessons.rst", DOCS / "ja" / "lessons.rst"):
        named = re.findall(r"``(tests/[\w/]+\.py)``", page.read_text(encoding="utf-8"))
        assert len(named) == 3, page
        for path in named:
            assert (root / path).is_file(), (page.name, path)
