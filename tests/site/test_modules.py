"""The inliner of the page's ES modules (integrator_lab.site.modules), used by the one-file
build: modules in evaluation order, and every form it cannot inline refused by name."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from integrator_lab.site.modules import ModuleInlineError, inline_modules

ROOT = Path(__file__).resolve().parents[2]


def _write(folder: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def _order(script: str) -> list[str]:
    return re.findall(r"^// ---- (\S+) ----$", script, re.MULTILINE)


def test_each_module_comes_after_what_it_imports_as_a_browser_evaluates_them(tmp_path):
    # main imports b then a; b imports c; a imports c and d: ES evaluation is depth-first,
    # post-order, in import order: c, b, d, a, main (each once)
    _write(
        tmp_path,
        {
            "main.js": 'import { fromB } from "./b.js";\nimport { fromA } from "./a.js";\n'
            "fromB(fromA);\n",
            # an import over several lines
            "a.js": 'import {\n  fromD,\n} from "./d.js";\n'
            'import { fromC } from "./c.js";\nexport const fromA = fromC + fromD;\n',
            "b.js": 'import { fromC } from "./c.js";\n'
            "export function fromB(x) { return x + fromC; }\n",
            "c.js": "export const fromC = 1;\n",
            "d.js": "export let fromD = 2;\n",
            "unused.js": "export const notImported = 3;\n",
        },
    )
    script = inline_modules(tmp_path, "main.js")
    assert _order(script) == ["c.js", "b.js", "d.js", "a.js", "main.js"]
    assert "import" not in script and "export" not in script
    assert "notImported" not in script  # not reachable from the entry


def test_the_inlined_modules_run_in_node_and_compute_what_the_modules_do(tmp_path):
    _write(
        tmp_path,
        {
            "main.js": 'import { total } from "./sum.js";\nconsole.log(total([1, 2, 3]));\n',
            "sum.js": 'import { add } from "./add.js";\n'
            "export function total(xs) { return xs.reduce(add, 0); }\n",
            "add.js": "export const add = (a, b) => a + b;\n",
        },
    )
    (tmp_path / "out.mjs").write_text(inline_modules(tmp_path, "main.js"))
    run = subprocess.run(["node", str(tmp_path / "out.mjs")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "6"


def test_an_import_cycle_is_refused(tmp_path):
    _write(
        tmp_path,
        {
            "main.js": 'import { a } from "./a.js";\na();\n',
            "a.js": 'import { b } from "./b.js";\nexport function a() { b(); }\n',
            "b.js": 'import { a } from "./a.js";\nexport function b() { a(); }\n',
        },
    )
    with pytest.raises(ModuleInlineError, match=r"import cycle a\.js -> b\.js -> a\.js"):
        inline_modules(tmp_path, "main.js")


@pytest.mark.parametrize(
    ("line", "what"),
    [
        ('import * as lib from "./lib.js";', "unsupported import"),
        ('import lib from "./lib.js";', "unsupported import"),
        ('import "./lib.js";', "unsupported import"),
        ('import { x } from "lib";', "unsupported import"),
        ('import { x } from "../lib.js";', "unsupported import"),
        ('import { x as y } from "./lib.js";', 'no "as"'),
        ("export default 1;", "unsupported export"),
        ('export { x } from "./lib.js";', "unsupported export"),
        ('export * from "./lib.js";', "unsupported export"),
        ("const { p, q } = { p: 1, q: 2 };", "no destructuring"),
    ],
)
def test_unsupported_forms_are_refused_naming_the_file(tmp_path, line, what):
    _write(tmp_path, {"main.js": line + "\n", "lib.js": "export const x = 1;\n"})
    with pytest.raises(ModuleInlineError, match=rf"main\.js.*{re.escape(what)}"):
        inline_modules(tmp_path, "main.js")


def test_a_name_declared_in_two_modules_is_refused(tmp_path):
    _write(
        tmp_path,
        {
            "main.js": 'import { x } from "./lib.js";\nfunction helper() { return x; }\n',
            "lib.js": "export const x = 1;\nlet helper = 2;\n",
        },
    )
    with pytest.raises(ModuleInlineError, match="'helper' is declared in both lib.js and main.js"):
        inline_modules(tmp_path, "main.js")


def test_importing_a_name_that_is_not_exported_is_refused(tmp_path):
    _write(
        tmp_path,
        {"main.js": 'import { y } from "./lib.js";\ny();\n', "lib.js": "function y() {}\n"},
    )
    with pytest.raises(ModuleInlineError, match=r"main\.js imports y from \./lib\.js"):
        inline_modules(tmp_path, "main.js")


def test_the_page_modules_inline_completely_and_all_of_them_are_used():
    folder = ROOT / "static/js"
    script = inline_modules(folder, "main.js")
    assert _order(script)[-1] == "main.js"
    assert sorted(_order(script)) == sorted(p.name for p in folder.glob("*.js"))
    assert not re.search(r"^\s*(import|export)\b", script, re.MULTILINE)
