"""The "Write your own integrator" page: its examples are definitions the core accepts, with
the orders the text gives them, and its Euler listing is the shipped template."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

from integrator_lab.core.custom import TEMPLATES, parse_definition

PAGE = Path(__file__).resolve().parents[2] / "docs" / "own-method.rst"


def _blocks(language):
    text = PAGE.read_text(encoding="utf-8")
    pattern = rf"\.\. code-block:: {language}\n\n((?:   .*\n|\n)+)"
    return [textwrap.dedent(block).strip() + "\n" for block in re.findall(pattern, text)]


def test_json_examples_are_accepted_with_the_orders_the_page_states():
    described = {
        d["name"]: d
        for d in (parse_definition(json.loads(block)).describe() for block in _blocks("json"))
    }
    assert described["ralston"]["order_text"] == "order 2"
    assert (
        described["forest-ruth"]["order"],
        described["forest-ruth"]["symmetric"],
        described["forest-ruth"]["evaluations"],
    ) == (4, True, 3)


def test_the_euler_listing_is_the_template_without_its_comments():
    listing = _blocks("python")[0]
    template = TEMPLATES["euler-code"]["definition"]["code"]
    assert listing == "".join(
        line + "\n" for line in template.splitlines() if not line.lstrip().startswith("#")
    )
