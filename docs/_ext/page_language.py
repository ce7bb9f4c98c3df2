"""The language of a page's ``<html lang>``: pages in a folder named after a language are in it.

Sphinx writes one language, ``language`` of ``conf.py``, into every page; this documentation is
English with a few pages translated into ``ja/``. ``page_language_folders = {"ja": "ja"}``
(folder -> language tag) gives those pages ``<html lang="ja">``, so that browsers pick Japanese
fonts and line breaking and screen readers a Japanese voice.
"""

from __future__ import annotations


def _set_language(app, pagename, templatename, context, doctree):
    folder = pagename.split("/", 1)[0] if "/" in pagename else None
    language = app.config.page_language_folders.get(folder)
    if language:
        context["language"] = language


def setup(app):
    app.add_config_value("page_language_folders", {}, "html", types=frozenset({dict}))
    app.connect("html-page-context", _set_language)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
