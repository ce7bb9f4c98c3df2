"""The page's script: its ES modules (``static/js/``, entry ``main.js``) bundled into one.

A browser finds a module's imports only once it has parsed it: the three levels of
``static/js`` cost about a fifth of a second before the first draw, and a page opened from
``file://`` (the one-file build) cannot load module files at all. So the site's page loads one
script, ``static/page.js``, and the one-file page carries it in one inline
``<script type="module">``: what esbuild makes of ``main.js`` (:data:`FLAGS`: one ES module
with no import left, minified, for ES2020, the level of the module workers every browser the
page supports has; no ``eval``, which the page's Content-Security-Policy would not need to
allow for it). The modules are plain ES modules: whatever esbuild bundles is fine.

Where the bundle comes from (:func:`page_bundle`):

- a wheel carries one (``bundle/page/page.js``, put there by ``make dist``: site/bundle.py),
  with the digest of the ``static/js`` it was made from beside it (``bundle/page/sources``);
  it is used only for those same sources (an editable checkout may have changed them);
- otherwise esbuild makes it from ``node_modules`` (the pinned devDependency), cached by the
  content of every ``static/js`` file and esbuild's version (site/esbuild.py);
- otherwise there is none (:class:`~integrator_lab.site.esbuild.BundleUnavailable`): the site
  loads ``static/js/main.js`` as its module and the browser resolves the imports (a little
  later to the first draw); the one-file build cannot, and stops.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from pathlib import Path

from integrator_lab.site.esbuild import (
    cached_bundle,
    find_node_modules,
    package_versions,
    run_esbuild,
)

#: the page's entry module, in the folder of its modules
ENTRY = "main.js"
#: where the built site has the bundle, relative to its root
SITE_PATH = "static/page.js"
#: where a wheel carries the bundle (inside this package), and the digest of its sources
PACKAGED = Path(__file__).resolve().with_name("bundle") / "page" / "page.js"
PACKAGED_SOURCES = PACKAGED.with_name("sources")
#: one ES module, no import left (module workers: every browser the page runs in has ES2020)
FLAGS = (
    "--bundle",
    "--format=esm",
    "--minify",
    "--target=es2020",
    "--legal-comments=eof",
)


def sources_digest(folder: Path) -> str:
    """The SHA-256 of the page's modules in ``folder`` (every ``*.js``: names and contents)."""
    digest = hashlib.sha256()
    for path in sorted(Path(folder).glob("*.js")):
        digest.update(path.name.encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def packaged_bundle(sources: str) -> Path | None:
    """The wheel's bundle, if it was made from the sources of digest ``sources``."""
    if not (PACKAGED.is_file() and PACKAGED_SOURCES.is_file()):
        return None
    return PACKAGED if PACKAGED_SOURCES.read_text("ascii").strip() == sources else None


def page_bundle(folder: Path) -> Path:
    """The bundle of the modules in ``folder`` (entry :data:`ENTRY`): the wheel's, if made from
    the same sources, else esbuild's (cached). Raises
    :class:`~integrator_lab.site.esbuild.BundleUnavailable` when there is neither."""
    folder = Path(folder)
    sources = sources_digest(folder)
    packaged = packaged_bundle(sources)
    if packaged is not None:
        return packaged
    node_modules = find_node_modules(("esbuild",))
    key = hashlib.sha256(
        "\n".join((sources, *package_versions(node_modules, ("esbuild",)), *FLAGS)).encode()
    ).hexdigest()[:24]
    return cached_bundle(
        "page", key, lambda dest: run_esbuild(folder / ENTRY, dest, FLAGS, node_modules)
    )


def package_page_bundle(folder: Path, bundle: Path) -> Path:
    """Put the bundle of the modules in ``folder`` into ``bundle/page/`` (``make dist``), with
    the digest of those sources; returns the bundle's path. The modules are read once, from
    a copy: the bundle and its digest describe the same files."""
    target = bundle / "page" / PACKAGED.name
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="integrator-lab-page-") as tmp:
        copy = Path(tmp)
        for path in Path(folder).glob("*.js"):
            shutil.copyfile(path, copy / path.name)
        shutil.copyfile(page_bundle(copy), target)
        (target.parent / PACKAGED_SOURCES.name).write_text(
            sources_digest(copy) + "\n", encoding="ascii"
        )
    return target
