"""The packages depend on each other one way only:

    core <- views <- site <- server <- {docs, dev} <- cli

and inside every package the modules do too: no import cycle, of any length, between modules
(a package's ``__init__`` counts as a module of it).

``core`` imports nothing of the web layer, ``views`` only the core, the static site only views
and core, the Panel server those and the site (it hosts the page the site builds: one front
end), docs and dev anything below them, and the command line anything. Checked on the source
(every ``import``, also those inside functions), so a back-edge hidden in a rarely taken branch
counts too."""

from __future__ import annotations

import ast
from pathlib import Path

import integrator_lab
import integrator_lab.core

WEB = Path(integrator_lab.__file__).resolve().parent
CORE = Path(integrator_lab.core.__file__).resolve().parent

#: what each part of the package may import, besides itself; "root" is ``integrator_lab``
#: itself (``web/__init__.py``: the version, importing nothing)
ALLOWED: dict[str, set[str]] = {
    "root": set(),
    "core": set(),
    "views": {"root", "core"},
    "site": {"root", "core", "views"},
    "server": {"root", "core", "views", "site"},
    "docs": {"root", "core", "views", "server", "site"},
    "dev": {"root", "core", "views", "server", "site"},
    "cli": {"root", "core", "views", "server", "site", "docs", "dev"},
}
#: the modules directly in ``web/`` and the part each belongs to
TOP_MODULES = {"__init__": "root", "__main__": "cli", "sphinx": "docs"}
#: back-edges known and not yet removed: (importing file, imported module). Empty: keep it so.
KNOWN_BACK_EDGES: set[tuple[str, str]] = set()


def part_of(module: str) -> str | None:
    """The part of the package a dotted module name belongs to (None: not ours)."""
    names = module.split(".")
    if names[0] != "integrator_lab":
        return None
    if len(names) == 1:
        return "root"
    if names[1] in TOP_MODULES:
        return TOP_MODULES[names[1]]
    # anything else directly in integrator_lab (``__version__``) is the root's
    return names[1] if names[1] in ALLOWED else "root"


def module_name(path: Path, web: Path, core: Path) -> str:
    """The dotted name of a source file of the package laid out as web/ and core/."""
    if path.is_relative_to(core):
        parts = ("core", *path.relative_to(core).with_suffix("").parts)
    else:
        parts = path.relative_to(web).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(("integrator_lab", *parts))


def imported_modules(path: Path, name: str, submodules: bool = False):
    """(line, dotted module) of every import in the file, relative ones resolved; for
    ``from integrator_lab import x`` the name ``integrator_lab.x`` (x may be a subpackage); with
    ``submodules``, for ``from package import x`` ``package.x`` too (x may be a module)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            if base == "integrator_lab":
                for alias in node.names:
                    yield node.lineno, f"integrator_lab.{alias.name}"
            else:
                yield node.lineno, base
                # ``from package import module``: that module too (a name that is no module
                # resolves to the package again: import_cycles)
                for alias in node.names if submodules else ():
                    if alias.name != "*":
                        yield node.lineno, f"{base}.{alias.name}"


def back_edges(web: Path, core: Path, known=frozenset()) -> list[str]:
    """Every import against the graph in the tree, as "file:line imports module (part -> part)",
    leaving out the ``known`` (file relative to ``web``'s parent, module) pairs."""
    found = []
    for path in sorted({*web.rglob("*.py"), *core.rglob("*.py")}):
        name = module_name(path, web, core)
        source = part_of(name)
        where = path.relative_to(web.parent).as_posix()
        for line, module in imported_modules(path, name):
            target = part_of(module)
            if target is None or target == source or target in ALLOWED.get(source, set()):
                continue
            if (where, module) in known:
                continue
            found.append(f"{where}:{line} imports {module} ({source} -> {target})")
    return found


def import_cycles(web: Path, core: Path) -> list[list[str]]:
    """The import cycles between the package's modules: each strongly connected component of
    more than one module of the graph "imports" (every import, type-only and inside functions
    too; ``from package import name`` is an edge to the module ``package.name`` if there is
    one, else to the package), as sorted lists, sorted (Tarjan's algorithm)."""
    files = {module_name(p, web, core): p for p in {*web.rglob("*.py"), *core.rglob("*.py")}}

    def resolve(module: str) -> str | None:
        while module and module not in files:
            module = module.rpartition(".")[0]
        return module or None

    graph: dict[str, set[str]] = {name: set() for name in files}
    for name, path in files.items():
        for _line, module in imported_modules(path, name, submodules=True):
            target = resolve(module) if part_of(module) is not None else None
            if target is not None and target != name:
                graph[name].add(target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for following in sorted(graph[node]):
            if following not in index:
                visit(following)
                low[node] = min(low[node], low[following])
            elif following in stack:
                low[node] = min(low[node], index[following])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_no_module_imports_itself_through_others():
    assert import_cycles(WEB, CORE) == []


def test_the_cycle_finder_finds_a_planted_cycle(tmp_path):
    tree = dict(CLEAN)
    tree["web/site/pack.py"] += "\n\ndef f():\n    from integrator_lab.site import build\n"
    tree["web/site/extra.py"] = "from . import pack\n"
    assert import_cycles(*_tree(tmp_path, CLEAN)) == []
    assert import_cycles(*_tree(tmp_path, tree)) == [
        ["integrator_lab.site.build", "integrator_lab.site.pack"]
    ]


def test_the_package_sources_are_found():
    parts = {part_of(module_name(p, WEB, CORE)) for p in [*WEB.rglob("*.py"), *CORE.rglob("*.py")]}
    assert parts == set(ALLOWED)


def test_the_packages_import_one_way_only():
    assert back_edges(WEB, CORE, KNOWN_BACK_EDGES) == []


def test_the_known_back_edges_still_exist():
    """An exception that is gone is taken off the list, so that it cannot come back."""
    everything = set()
    for path in [*WEB.rglob("*.py"), *CORE.rglob("*.py")]:
        where = path.relative_to(WEB.parent).as_posix()
        everything |= {(where, m) for _, m in imported_modules(path, module_name(path, WEB, CORE))}
    assert KNOWN_BACK_EDGES <= everything


def _tree(tmp_path: Path, files: dict[str, str]) -> tuple[Path, Path]:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path / "web", tmp_path / "core"


CLEAN = {
    "web/__init__.py": "",
    "web/views/__init__.py": "",
    "web/views/shared.py": "from integrator_lab.core import get_system\n",
    "web/site/__init__.py": "",
    "web/site/build.py": "from integrator_lab.views import shared\nfrom . import pack\n",
    "web/site/pack.py": "import zipfile\n",
    "web/cli/__init__.py": "",
    "web/cli/main.py": "from integrator_lab import site, __version__\n",
    "core/__init__.py": "from .systems import get_system\n",
    "core/systems.py": "import math\n",
}


def test_the_checker_passes_a_clean_tree(tmp_path):
    assert back_edges(*_tree(tmp_path, CLEAN)) == []


def test_the_checker_finds_a_planted_back_edge_inside_a_function(tmp_path):
    tree = dict(CLEAN)
    tree["web/views/shared.py"] += "\n\ndef f():\n    from integrator_lab.cli.main import x\n"
    tree["core/systems.py"] += "from ..views import shared\n"  # relative, out of the core
    tree["web/site/pack.py"] += "import integrator_lab.server.app\n"  # site -> server
    found = back_edges(*_tree(tmp_path, tree))
    assert found == [
        "core/systems.py:2 imports integrator_lab.views (core -> views)",
        "web/site/pack.py:2 imports integrator_lab.server.app (site -> server)",
        "web/views/shared.py:5 imports integrator_lab.cli.main (views -> cli)",
    ]
    known = {("web/site/pack.py", "integrator_lab.server.app")}
    assert len(back_edges(tmp_path / "web", tmp_path / "core", known)) == 2
