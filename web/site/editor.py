"""The page's code editor: CodeMirror 6 with its Python mode, bundled into one script.

The site hosts everything itself, the editor too: :func:`bundle_path` gives the bundle that
``integrator-lab build`` copies to ``static/vendor/editor.js``. A wheel ships a copy
(``integrator_lab/site/bundle/editor/editor.js``, put there by ``make dist``: site/bundle.py);
in a checkout it is made from ``js/editor_entry.js`` by esbuild, from the pinned npm
devDependencies (``codemirror``, ``@codemirror/lang-python``, ``esbuild``), and cached by the
content of everything that goes into it. Without either (no Node, no ``node_modules``) the
page falls back to a plain text box and says so.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from integrator_lab.site.esbuild import (
    cached_bundle,
    find_node_modules,
    package_versions,
    run_esbuild,
)

ENTRY = Path(__file__).resolve().with_name("js") / "editor_entry.js"
#: where a wheel carries the bundle (inside this package)
PACKAGED = Path(__file__).resolve().with_name("bundle") / "editor" / "editor.js"
#: where the built site has it, relative to its root (static/js/editor.js looks for its API)
SITE_PATH = "static/vendor/editor.js"
#: the page's reference to the bundle: not a script the browser runs with the page (parsing it
#: cost a tenth of the first draw) but where static/js/editor.js finds it when the editor opens
LAZY_TAG = f'<script type="text/plain" id="il-editor-bundle" data-url="{SITE_PATH}"></script>'
#: the npm packages the bundle is made of (and the bundler)
PACKAGES = ("codemirror", "@codemirror/lang-python", "esbuild")
#: one minified classic script
FLAGS = ("--bundle", "--minify", "--format=iife", "--target=es2020", "--legal-comments=eof")


def _key(node_modules: Path) -> str:
    digest = hashlib.sha256(ENTRY.read_bytes())
    for version in package_versions(node_modules, PACKAGES):
        digest.update(version.encode())
    return digest.hexdigest()[:24]


def build_bundle(dest: Path) -> Path:
    """Bundle :data:`ENTRY` with esbuild into ``dest``; raises
    :class:`~integrator_lab.site.esbuild.BundleUnavailable` when Node or the packages are
    missing or esbuild fails."""
    return run_esbuild(ENTRY, dest, FLAGS, find_node_modules(PACKAGES))


def bundle_path() -> Path:
    """The editor bundle to ship: the wheel's copy, else one built from ``node_modules``
    (cached). Raises :class:`~integrator_lab.site.esbuild.BundleUnavailable` when there is
    neither."""
    if PACKAGED.is_file():
        return PACKAGED
    node_modules = find_node_modules(PACKAGES)
    return cached_bundle("editor", _key(node_modules), build_bundle)
