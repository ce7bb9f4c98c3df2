"""Render ``:math:`` and ``.. math::`` as MathML at build time (docutils' LaTeX converter).

Browsers draw MathML natively, so the documentation needs no MathJax and loads nothing from a
CDN: it works offline like the rest of Integrator Lab.
"""

from __future__ import annotations

import html

from docutils import nodes
from docutils.utils.math import latex2mathml
from sphinx.util import logging

logger = logging.getLogger(__name__)


def _convert(node, latex: str, *, block: bool) -> str:
    try:
        return latex2mathml.tex2mathml(latex, as_block=block)
    except (SyntaxError, ValueError) as exc:  # unsupported LaTeX: say where, show it as is
        logger.warning(
            "cannot convert math %r to MathML: %s", latex, exc, location=node, type="mathml"
        )
        return f"<code>{html.escape(latex)}</code>"


def visit_math(self, node):
    self.body.append(_convert(node, node.astext(), block=False))
    raise nodes.SkipNode


def visit_math_block(self, node):
    if node.get("label"):
        self.body.append(f'<div class="math" id="{self.attval(node["ids"][0])}">')
        self.body.append(f'<span class="eqno">({node["number"]})</span>')
    else:
        self.body.append('<div class="math">')
    self.body.append(_convert(node, node.astext(), block=True))
    self.body.append("</div>\n")
    raise nodes.SkipNode


def setup(app):
    app.add_html_math_renderer("mathml", (visit_math, None), (visit_math_block, None))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
