"""``.. cli-help:: [SUBCOMMAND]``: the real ``--help`` text of the ``integrator-lab`` command,
taken from its argument parser when the documentation is built, so it never goes stale."""

from __future__ import annotations

import argparse
import os
from unittest import mock

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

#: line width of the help text (argparse reads COLUMNS)
HELP_COLUMNS = "88"


def help_text(command: str | None) -> str:
    from integrator_lab.cli.main import build_parser

    with mock.patch.dict(os.environ, {"COLUMNS": HELP_COLUMNS}):
        parser = build_parser()
        if command:
            sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
            parser = sub.choices[command]
        return parser.format_help()


class CliHelp(SphinxDirective):
    optional_arguments = 1
    has_content = False

    def run(self):
        command = self.arguments[0] if self.arguments else None
        try:
            text = help_text(command)
        except KeyError:
            raise self.error(f"cli-help: no subcommand {command!r}") from None
        block = nodes.literal_block(text, text, language="text")
        self.set_source_info(block)
        return [block]


def setup(app):
    app.add_directive("cli-help", CliHelp)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
