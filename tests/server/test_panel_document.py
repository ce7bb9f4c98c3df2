"""The dashboard's Bokeh document passes Bokeh's own checks (``check_integrity``: a renderer
naming a column its source lacks, a layout with a child twice, ...) with no error and no
warning, for every kind of session the server builds.

The server does not run these checks per session (``server.make_server``): they took 0.15 to
0.21 s of each visitor's 2.1 to 2.5 s, on a document every session builds by the same code.
They run here instead, once per kind of session: the default, another language, a subset of
systems, a lesson's link (its integrators, settings and views), the method editor.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

import pytest
from bokeh.core.validation.check import check_integrity
from bokeh.document import Document

from integrator_lab.server.app import Dashboard
from integrator_lab.server.links import read_link
from integrator_lab.views.scenarios import SCENARIOS

#: a lesson's link: its integrators, settings and the views it opens (the first lesson's)
LESSON_QUERY = SCENARIOS[0].query

SESSIONS = {
    "default": ({}, ""),
    "japanese": ({"lang": "ja"}, ""),
    "one system": ({"shown": ["cradle"]}, ""),
    "a lesson's link": ({}, LESSON_QUERY),
    "method editor": ({"allow_code": True}, ""),
}


@pytest.mark.parametrize("kind", SESSIONS)
def test_every_kind_of_session_passes_bokehs_checks(kind):
    options, query = SESSIONS[kind]
    dashboard = Dashboard(**options)
    try:
        if query:
            link, problems = read_link(parse_qsl(query))
            assert problems == []
            dashboard.apply_link(link)
        doc = Document()
        dashboard.__panel__().server_doc(doc)
        issues = check_integrity(doc.models)
        assert len(doc.models) > 100  # the whole dashboard was checked, not an empty page
        assert [f"{i.code} {i.name}: {i.text}" for i in issues.error] == []
        assert [f"{i.code} {i.name}: {i.text}" for i in issues.warning] == []
    finally:
        dashboard.stop()
