"""The layout table of the developers' docs (docs/layout.rst) lists every module of the
package, one line each, and nothing that is gone: it cannot fall behind the code."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "docs" / "layout.rst"
#: what is generated, not written: the wheel's bundle (make dist), caches
GENERATED = {"bundle", "__pycache__", "node_modules"}


def modules() -> set[str]:
    """Every Python, JavaScript and JavaScript-module file of core/, web/ and static/."""
    found = set()
    for folder in ("core", "web", "static"):
        for path in (ROOT / folder).rglob("*"):
            parts = path.relative_to(ROOT).parts
            if path.suffix in {".py", ".js", ".mjs"} and not GENERATED & set(parts):
                found.add("/".join(parts))
    return found


def listed() -> list[str]:
    """The files the table names, in its order (each row's first cell: ``path``)."""
    return re.findall(r"^   \* - ``([^`]+)``$", TABLE.read_text(encoding="utf-8"), re.M)


def test_every_module_has_one_line_in_the_layout_table():
    rows = listed()
    assert len(rows) == len(set(rows)), "a file listed twice"
    assert sorted(modules() - set(rows)) == [], "not in docs/layout.rst"
    assert sorted(set(rows) - modules()) == [], "in docs/layout.rst, but gone"


def test_each_line_says_the_files_job_in_one_line():
    text = TABLE.read_text(encoding="utf-8")
    jobs = re.findall(r"^   \* - ``[^`]+``\n     - (.*)$", text, re.M)
    assert len(jobs) == len(listed())
    assert all(job.strip() for job in jobs), "a file without its job"
