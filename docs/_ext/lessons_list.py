"""``.. lessons-list::``: the lab's lessons (``integrator_lab.views.scenarios``), each with a
link that opens the documentation's own copy of the static page on the lesson's view and its
two sentences of what to look for, so the docs never restate them."""

from __future__ import annotations

import posixpath

from docutils import nodes
from sphinx.util.docutils import SphinxDirective
from sphinx.util.osutil import relative_uri

from integrator_lab.docs.sphinx import SITE_DIR, SITE_PAGE
from integrator_lab.views.scenarios import SCENARIOS


class LessonsList(SphinxDirective):
    has_content = False

    def run(self):
        items = nodes.enumerated_list(classes=["lessons"])
        for scenario in SCENARIOS:
            query = scenario.link_query()
            # the link's path depends on the page that holds it: set once resolved (below)
            title = nodes.reference("", scenario.title, refuri=f"?{query}")
            title["lesson_query"] = query
            head = nodes.paragraph("", "", nodes.strong("", "", title))
            text, _ = self.parse_inline(scenario.look_for)
            body = nodes.paragraph("", "", *text)
            link = nodes.paragraph("", "Link: ", nodes.literal("", f"?{query}"))
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
