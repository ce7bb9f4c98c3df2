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
import json
import shutil
import subprocess
from pathlib import Path

from integrator_lab.site.snapshot import cache_dir

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
#: building takes about a second; more means something is wrong
TIMEOUT = 120.0


class BundleUnavailable(RuntimeError):
    """The editor bundle cannot be made here (no Node packages); the page uses a text box."""


def find_node_modules() -> Path:
    """The ``node_modules`` folder with the editor's packages: in the current directory or a
    parent, or beside this source tree (an editable install)."""
    here = Path(__file__).resolve().parent
    bases = [Path.cwd().resolve(), *Path.cwd().resolve().parents, here, *here.parents]
    for base in bases:
        folder = base / "node_modules"
        if all((folder / name / "package.json").is_file() for name in PACKAGES):
            return folder
    raise BundleUnavailable(
        f"no node_modules with {', '.join(PACKAGES)} (run `npm ci` in the project)"
    )


def _key(node_modules: Path) -> str:
    digest = hashlib.sha256(ENTRY.read_bytes())
    for name in PACKAGES:
        version = json.loads((node_modules / name / "package.json").read_text("utf-8"))["version"]
        digest.update(f"{name}@{version}".encode())
    return digest.hexdigest()[:24]


def build_bundle(dest: Path) -> Path:
    """Bundle :data:`ENTRY` with esbuild into ``dest`` (one minified classic script); raises
    :class:`BundleUnavailable` when Node or the packages are missing or esbuild fails."""
    node_modules = find_node_modules()
    esbuild = node_modules / ".bin" / "esbuild"
    if not esbuild.exists() or shutil.which("node") is None:
        raise BundleUnavailable("esbuild or node is missing")
    dest.parent.mkdir(parents=True, exist_ok=True)
    command = [
        str(esbuild),
        str(ENTRY),
        "--bundle",
        "--minify",
        "--format=iife",
        "--target=es2020",
        "--legal-comments=eof",
        "--log-level=warning",
        f"--outfile={dest}",
    ]
    try:
        subprocess.run(
            command,
            cwd=node_modules.parent,
            check=True,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    except subprocess.CalledProcessError as exc:
        raise BundleUnavailable(f"esbuild failed: {exc.stderr.strip()[:300]}") from exc
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BundleUnavailable(f"esbuild did not run: {exc}") from exc
    return dest


def bundle_path() -> Path:
    """The editor bundle to ship: the wheel's copy, else one built from ``node_modules``
    (cached). Raises :class:`BundleUnavailable` when there is neither."""
    if PACKAGED.is_file():
        return PACKAGED
    node_modules = find_node_modules()
    cached = cache_dir().parent / "editor" / f"editor-{_key(node_modules)}.js"
    if not cached.is_file():
        tmp = cached.with_suffix(".tmp.js")
        build_bundle(tmp)
        tmp.replace(cached)
    return cached
