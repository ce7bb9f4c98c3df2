"""The page's scripts, each bundled by esbuild into one: the page's ES modules (``static/js/``,
entry ``main.js``, into ``static/page.js``) and the simulation worker's (``static/worker.mjs``
and its ``static/worker-*.mjs``, into the site's ``static/worker.mjs``).

A browser finds a module's imports only once it has parsed it: the three levels of
``static/js`` cost about a fifth of a second before the first draw, and a page opened from
``file://`` (the one-file build) cannot load module files at all, nor can its ``data:`` URL
worker. So the site's page loads one script, ``static/page.js``, and one worker module; the
one-file page carries them inline: what esbuild makes of each entry (:data:`PAGE`,
:data:`WORKER`: one ES module with no import left; the page's minified, for ES2020, the level
of the module workers every browser the page supports has; the worker's left readable, for
ES2022, as the one-file build finds two expressions in it by their text:
web/site/single_file.py). No ``eval``, which the page's Content-Security-Policy would not need
to allow for it. The modules are plain ES modules: whatever esbuild bundles is fine.

Where a bundle comes from (:func:`bundle_of`):

- a wheel carries one (``bundle/NAME/FILE``, put there by ``make dist``: site/bundle.py),
  with the digest of the sources it was made from beside it (``bundle/NAME/sources``);
  it is used only for those same sources (an editable checkout may have changed them);
- otherwise esbuild makes it from ``node_modules`` (the pinned devDependency), cached by the
  content of every source file and esbuild's version (site/esbuild.py);
- otherwise there is none (:class:`~integrator_lab.site.esbuild.BundleUnavailable`): the site
  loads ``static/js/main.js`` as its module, and the worker's modules as they are, and the
  browser resolves the imports (a little later to the first draw); the one-file build cannot,
  and stops.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from integrator_lab.site.esbuild import (
    cached_bundle,
    find_node_modules,
    package_versions,
    run_esbuild,
)

#: where a wheel carries the bundles (inside this package): ``bundle/NAME/``
BUNDLES = Path(__file__).resolve().with_name("bundle")


@dataclass(frozen=True)
class Script:
    """A script the site bundles: its ``name`` (the wheel's folder, the cache's), its ``entry``
    module and its modules (``pattern``) in one folder, where the built site has the bundle
    (``site_path``), and esbuild's ``flags``."""

    name: str
    entry: str
    pattern: str
    site_path: str
    flags: tuple[str, ...]

    @property
    def packaged(self) -> Path:
        """Where a wheel carries this bundle."""
        return BUNDLES / self.name / Path(self.site_path).name

    @property
    def packaged_sources(self) -> Path:
        """Where a wheel carries the digest of the sources its bundle was made from."""
        return BUNDLES / self.name / "sources"


#: the page's modules: one ES module, no import left, minified (module workers: every browser
#: the page runs in has ES2020)
PAGE = Script(
    name="page",
    entry="main.js",
    pattern="*.js",
    site_path="static/page.js",
    flags=("--bundle", "--format=esm", "--minify", "--target=es2020", "--legal-comments=eof"),
)
#: the simulation worker's modules (static/): one ES module, no import left (its dynamic
#: import of Pyodide stays), readable (the one-file build finds its Pyodide import and
#: ``import.meta.url`` by their text)
WORKER = Script(
    name="worker",
    entry="worker.mjs",
    pattern="worker*.mjs",
    site_path="static/worker.mjs",
    flags=("--bundle", "--format=esm", "--target=es2022", "--legal-comments=eof"),
)
#: the page's entry module, in the folder of its modules, and where the built site has its
#: bundle, relative to its root
ENTRY = PAGE.entry
SITE_PATH = PAGE.site_path
FLAGS = PAGE.flags


def sources_digest(folder: Path, pattern: str = PAGE.pattern) -> str:
    """The SHA-256 of the modules in ``folder`` (every file of ``pattern``: names and
    contents)."""
    digest = hashlib.sha256()
    for path in sorted(Path(folder).glob(pattern)):
        digest.update(path.name.encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def packaged_bundle(sources: str, script: Script = PAGE) -> Path | None:
    """The wheel's bundle of ``script``, if it was made from the sources of digest
    ``sources``."""
    packaged, digest = script.packaged, script.packaged_sources
    if not (packaged.is_file() and digest.is_file()):
        return None
    return packaged if digest.read_text("ascii").strip() == sources else None


def bundle_of(folder: Path, script: Script = PAGE) -> Path:
    """The bundle of ``script``'s modules in ``folder``: the wheel's, if made from the same
    sources, else esbuild's (cached). Raises
    :class:`~integrator_lab.site.esbuild.BundleUnavailable` when there is neither."""
    folder = Path(folder)
    sources = sources_digest(folder, script.pattern)
    packaged = packaged_bundle(sources, script)
    if packaged is not None:
        return packaged
    node_modules = find_node_modules(("esbuild",))
    key = hashlib.sha256(
        "\n".join((sources, *package_versions(node_modules, ("esbuild",)), *script.flags)).encode()
    ).hexdigest()[:24]
    return cached_bundle(
        script.name,
        key,
        lambda dest: run_esbuild(folder / script.entry, dest, script.flags, node_modules),
    )


def page_bundle(folder: Path) -> Path:
    """The bundle of the page's modules in ``folder`` (:func:`bundle_of` :data:`PAGE`)."""
    return bundle_of(folder, PAGE)


def worker_bundle(folder: Path) -> Path:
    """The bundle of the worker's modules in ``folder`` (:func:`bundle_of` :data:`WORKER`)."""
    return bundle_of(folder, WORKER)


def package_bundle(folder: Path, bundle: Path, script: Script = PAGE) -> Path:
    """Put the bundle of ``script``'s modules in ``folder`` into ``bundle/NAME/`` (``make
    dist``), with the digest of those sources; returns the bundle's path. The modules are read
    once, from a copy: the bundle and its digest describe the same files."""
    target = bundle / script.name / script.packaged.name
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"integrator-lab-{script.name}-") as tmp:
        copy = Path(tmp)
        for path in Path(folder).glob(script.pattern):
            shutil.copyfile(path, copy / path.name)
        shutil.copyfile(bundle_of(copy, script), target)
        (target.parent / script.packaged_sources.name).write_text(
            sources_digest(copy, script.pattern) + "\n", encoding="ascii"
        )
    return target


def package_page_bundle(folder: Path, bundle: Path) -> Path:
    """:func:`package_bundle` of the page's modules."""
    return package_bundle(folder, bundle, PAGE)
