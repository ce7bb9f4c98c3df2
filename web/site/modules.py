"""Folds the page's ES modules (``static/js/``) into one script, for the one-file build.

A page opened from ``file://`` cannot load module files (browsers refuse them without an
origin), so :mod:`.single_file` puts the modules, one after the other, inside a single
``<script type="module">``. That is only correct for a narrow, checked subset of the module
syntax, which the page's modules keep to:

- imports are ``import { a, b } from "./x.js";`` (a file of the same folder, plain names, one
  or more lines), at the start of a line;
- exports are the keyword ``export`` before a top-level ``function``, ``async function``,
  ``class``, ``const``, ``let`` or ``var`` declaration;
- top-level declarations start at the beginning of a line (no indentation) and name one thing
  (``const NAME = ...``, not ``const { a, b } = ...``), and no two modules declare the same
  name: in the one script they share one scope.

:func:`inline_modules` orders the modules so that each comes after the ones it imports (as the
browser evaluates them), drops the import lines and the ``export`` keywords, and concatenates
them. Anything outside the subset raises :class:`ModuleInlineError` naming the file and the
line, so a new module cannot silently break the one file: default exports, re-exports,
``import *``, renaming with ``as``, bare or outer specifiers, an import of a name the other
module does not export, an import cycle, a duplicate top-level name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

#: the supported import: ``import { a, b } from "./x.js";`` (possibly over several lines)
_IMPORT = re.compile(
    r'^import[ \t]*\{(?P<names>[^{}]*)\}\s*from[ \t]*"(?P<path>\./[\w.-]+\.js)";?[ \t]*$\n?',
    re.MULTILINE,
)
#: any import or export left once the supported ones are taken out
_ANY_IMPORT = re.compile(r"^[ \t]*import\b(?![.(])", re.MULTILINE)
_EXPORT_DECL = re.compile(
    r"^export[ \t]+(?=(?:async[ \t]+)?function\b|class\b|const\b|let\b|var\b)", re.MULTILINE
)
_ANY_EXPORT = re.compile(r"^[ \t]*export\b", re.MULTILINE)
#: a top-level declaration (after ``export`` is removed): its keyword and what follows
_DECLARATION = re.compile(
    r"^(?:async[ \t]+)?(?P<kind>function\*?|class|const|let|var)[ \t]*\*?[ \t]*"
    r"(?P<name>[^\s(=;{]*)",
    re.MULTILINE,
)
_NAME = re.compile(r"^[A-Za-z_$][\w$]*$")


class ModuleInlineError(ValueError):
    """The page's modules use a form the one-file build cannot inline."""


@dataclass
class Module:
    """One module file, read and checked: what it imports, exports and declares."""

    name: str  # file name, e.g. "main.js"
    body: str  # the source without its import lines and export keywords
    imports: dict[str, list[str]]  # module file name -> imported names
    exports: set[str]
    declared: list[str]  # top-level names, exported or not


def _line(text: str, at: int) -> int:
    return text.count("\n", 0, at) + 1


def read_module(path: Path) -> Module:
    """Read one module and check that it keeps to the supported subset."""
    source = path.read_text(encoding="utf-8")
    where = path.name
    imports: dict[str, list[str]] = {}
    for match in _IMPORT.finditer(source):
        names = [n.strip() for n in match["names"].split(",") if n.strip()]
        for name in names:
            if not _NAME.match(name):
                raise ModuleInlineError(
                    f"{where}:{_line(source, match.start())}: import of {name!r}: only plain "
                    'names are supported (import { a, b } from "./x.js"), no "as"'
                )
        target = match["path"][2:]
        imports.setdefault(target, []).extend(names)
    body = _IMPORT.sub("", source)
    left = _ANY_IMPORT.search(body)
    if left:
        line = body[left.start() :].split("\n", 1)[0].strip()
        raise ModuleInlineError(
            f"{where}: unsupported import {line!r}; the one-file build inlines only "
            'import { a, b } from "./x.js"; (a module of the same folder, plain names)'
        )
    body = _EXPORT_DECL.sub("", body)
    left = _ANY_EXPORT.search(body)
    if left:
        line = body[left.start() :].split("\n", 1)[0].strip()
        raise ModuleInlineError(
            f"{where}: unsupported export {line!r}; the one-file build inlines only "
            "export before a top-level function, class, const, let or var declaration"
        )
    declared = []
    for match in _DECLARATION.finditer(body):
        name = match["name"]
        if not _NAME.match(name):
            raise ModuleInlineError(
                f"{where}:{_line(body, match.start())}: top-level {match['kind']} "
                f"{name or match.group(0)!r}: one plain name per top-level declaration "
                "(no destructuring), so that names can be checked"
            )
        declared.append(name)
    exports = _exported_names(source)
    return Module(where, body, imports, exports, declared)


def _exported_names(source: str) -> set[str]:
    """The names a module exports (``export const NAME``, ``export function NAME``, ...)."""
    names: set[str] = set()
    for match in _EXPORT_DECL.finditer(source):
        # the declaration right after "export ", read as if it started its line
        rest = _DECLARATION.match(source[match.end() :].split("\n", 1)[0])
        if rest:
            names.add(rest["name"])
    return names


def module_order(modules: dict[str, Module], entry: str) -> list[str]:
    """The modules reachable from ``entry``, each after those it imports (depth first, in
    import order, as the browser evaluates them). An import cycle is refused: inlined, its
    modules would read one another's names before they are set."""
    order: list[str] = []
    visiting: list[str] = []

    def visit(name: str) -> None:
        if name in order:
            return
        if name in visiting:
            cycle = visiting[visiting.index(name) :] + [name]
            raise ModuleInlineError(
                f"import cycle {' -> '.join(cycle)}; the one-file build needs modules "
                "that import one another in one direction only"
            )
        if name not in modules:
            raise ModuleInlineError(f"{visiting[-1]} imports ./{name}, which does not exist")
        visiting.append(name)
        for target in modules[name].imports:
            visit(target)
        visiting.pop()
        order.append(name)

    visit(entry)
    return order


def inline_modules(folder: Path, entry: str = "main.js") -> str:
    """One script made of ``entry`` and the modules it imports, from ``folder``: for a single
    ``<script type="module">``. Raises :class:`ModuleInlineError` on any unsupported form."""
    folder = Path(folder)
    modules = {path.name: read_module(path) for path in sorted(folder.glob("*.js"))}
    if entry not in modules:
        raise ModuleInlineError(f"no entry module {entry} in {folder}")
    order = module_order(modules, entry)
    owners: dict[str, str] = {}
    for name in order:
        module = modules[name]
        for target, names in module.imports.items():
            missing = sorted(set(names) - modules[target].exports)
            if missing:
                raise ModuleInlineError(
                    f"{name} imports {', '.join(missing)} from ./{target}, which does not "
                    "export it (export function/const/let/class NAME)"
                )
        for declared in module.declared:
            if declared in owners:
                raise ModuleInlineError(
                    f"top-level name {declared!r} is declared in both {owners[declared]} and "
                    f"{name}; the one-file build puts all modules in one scope, so top-level "
                    "names must be unique across static/js/"
                )
            owners[declared] = name
    parts = [f"// ---- {name} ----\n{modules[name].body.strip()}\n" for name in order]
    return "\n".join(parts)
