"""``.. lessons-list::``: the lab's lessons (``integrator_lab.views.scenarios``), each with a
link that opens the documentation's own copy of the static page on the lesson's view and its
two sentences of what to look for, so the docs never restate them.

``:lang: ja`` writes the lessons as the page's Japanese texts say them
(``integrator_lab.views.i18n.LESSONS_JA``), and their links open the page in Japanese.
"""

from __future__ import annotations

import posixpath

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util.docutils import SphinxDirective
from sphinx.util.osutil import relative_uri

from integrator_lab.docs.sphinx import SITE_DIR, SITE_PAGE
from integrator_lab.views.i18n import LESSONS_JA
from integrator_lab.views.scenarios import SCENARIOS

#: the word before each lesson's link, by language
LINK_WORD = {"en": "Link: ", "ja": "リンク："}


def _language(value: str | None) -> str:
    return directives.choice((value or "").strip(), tuple(LINK_WORD))


def _note(text: str) -> list[nodes.Node]:
    """A lesson's note as the page shows it (``static/js/scenarios.js``): plain text, with
    each `code` span (a command to try) as code, kept as written (no "--" made a dash)."""
    return [
        nodes.literal(part, part) if i % 2 else nodes.Text(part)
        for i, part in enumerate(text.split("`"))
        if part
    ]


class LessonsList(SphinxDirective):
    has_content = False
    option_spec = {"lang": _language}

    def run(self):
        lang = self.options.get("lang", "en")
        items = nodes.enumerated_list(classes=["lessons"])
        for scenario in SCENARIOS:
            query = scenario.link_query() + ("" if lang == "en" else f"&lang={lang}")
            title, look_for = (
                (scenario.title, scenario.look_for) if lang == "en" else LESSONS_JA[scenario.id]
            )
            # the link's path depends on the page that holds it: set once resolved (below)
            reference = nodes.reference("", title, refuri=f"?{query}")
            reference["lesson_query"] = query
            head = nodes.paragraph("", "", nodes.strong("", "", reference))
            body = nodes.paragraph("", "", *_note(look_for))
            link = nodes.paragraph("", LINK_WORD[lang], nodes.literal("", f"?{query}"))
            items += nodes.list_item("", head, body, link)
        return [items]


def _link_to_the_site(app, doctree, docname):
    """Lesson links point at the site built into SITE_DIR of the output (it is built when a
    page holds a demo, as index.rst does), relative to the page that holds them."""
    here = app.builder.get_target_uri(docname)
    page = relative_uri(here, posixpath.join(SITE_DIR, SITE_PAGE))
    for ref in doctree.findall(nodes.reference):
        if "lesson_query" in ref:
            ref["refuri"] = f"{page}?{ref['lesson_query']}"


def setup(app):
    app.add_directive("lessons-list", LessonsList)
    app.connect("doctree-resolved", _link_to_the_site)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
