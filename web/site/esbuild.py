"""esbuild, the bundler of the page's own script (:mod:`.page_bundle`) and of its method editor
(:mod:`.editor`): where it is, how it runs, where its bundles are cached.

esbuild comes with the pinned npm devDependencies (``npm ci``, package.json). An installed
package has no ``node_modules``: it uses the bundles its wheel carries (``make dist``:
site/bundle.py). Bundles made here are cached under ``~/.cache/integrator-lab/NAME/``, named
by a key of everything that goes into them, so that a build runs esbuild only when something
changed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from integrator_lab.site.snapshot import cache_dir

#: building takes about a second; more means something is wrong
TIMEOUT = 120.0


class BundleUnavailable(RuntimeError):
    """A bundle cannot be made here: no Node, no ``node_modules`` with the packages it needs,
    or esbuild failed (the message says which)."""


def find_node_modules(packages: Sequence[str]) -> Path:
    """The ``node_modules`` folder that holds ``packages``: in the current directory or a
    parent, or beside this source tree (an editable install)."""
    here = Path(__file__).resolve().parent
    bases = [Path.cwd().resolve(), *Path.cwd().resolve().parents, here, *here.parents]
    for base in bases:
        folder = base / "node_modules"
        if all((folder / name / "package.json").is_file() for name in packages):
            return folder
    raise BundleUnavailable(
        f"no node_modules with {', '.join(packages)} (run `npm ci` in the project)"
    )


def package_versions(node_modules: Path, packages: Sequence[str]) -> list[str]:
    """``name@version`` of each package, as installed in ``node_modules``."""
    return [
        f"{name}@{json.loads((node_modules / name / 'package.json').read_text('utf-8'))['version']}"
        for name in packages
    ]


def run_esbuild(entry: Path, dest: Path, flags: Sequence[str], node_modules: Path) -> Path:
    """Bundle ``entry`` into ``dest`` with esbuild and ``flags``; raises
    :class:`BundleUnavailable` when Node or esbuild is missing or esbuild fails."""
    esbuild = node_modules / ".bin" / "esbuild"
    if not esbuild.exists() or shutil.which("node") is None:
        raise BundleUnavailable("esbuild or node is missing (run `npm ci` in the project)")
    dest.parent.mkdir(parents=True, exist_ok=True)
    command = [str(esbuild), str(entry), *flags, "--log-level=warning", f"--outfile={dest}"]
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


def cached_bundle(name: str, key: str, make) -> Path:
    """The cached bundle ``NAME/NAME-KEY.js``, made by ``make(path)`` when it is not there yet
    (into a file of this process first: two builds at once do not see half a bundle)."""
    cached = cache_dir().parent / name / f"{name}-{key}.js"
    if not cached.is_file():
        tmp = cached.with_name(f"{cached.stem}.{os.getpid()}.tmp.js")
        try:
            make(tmp)
            tmp.replace(cached)
        finally:
            tmp.unlink(missing_ok=True)
    return cached
