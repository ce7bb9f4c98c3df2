"""What the wheel carries besides code, so that an installed package builds the static page
with no Node, no npm and no network: Pyodide's core files, a prebuilt memory snapshot and the
page's scripts bundled by esbuild.

``make dist`` runs ``python -m integrator_lab.site.bundle`` before building the wheel. It fills
``web/site/bundle/`` (generated, not in git) with::

    pyodide/            the files the page loads (build.PYODIDE_FILES) from the pinned npm
                        package, its package.json (the version) and its licence
    editor/editor.js    the method editor (CodeMirror 6 bundled by esbuild: site/editor.py)
    page/page.js        the page's modules (static/js/) bundled by esbuild (site/page_bundle.py)
    page/sources        the digest of the static/js it was made from: a build uses the bundle
                        only for those sources (an editable checkout may have changed them)
    worker/worker.mjs   the worker's modules (static/worker*.mjs) bundled, and worker/sources
    snapshots/KEY.bin.gz  the page's Pyodide memory snapshot, made with Node, named by the key
                        of everything that goes into it (snapshot.snapshot_key)

An installed package finds Pyodide there when no ``node_modules/pyodide`` is at hand (see
``site.pyodide_node.find_pyodide_dir``), and uses the prebuilt snapshot when its key matches the
build's (the same core, the same Pyodide), so a build needs Node only when something changed.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from integrator_lab.site.bundled import BUNDLE

#: Pyodide is distributed under the Mozilla Public License 2.0 (its package.json's licence)
LICENCE = Path(__file__).with_name("licenses") / "pyodide-MPL-2.0.txt"
LICENCE_NOTE = (
    "Pyodide {version} (https://pyodide.org), the files in this folder, is distributed under\n"
    "the Mozilla Public License 2.0, whose text follows. Its WebAssembly binary and standard\n"
    "library hold CPython, under the Python Software Foundation License.\n\n"
)


def make_bundle(pyodide_dir: Path, bundle: Path = BUNDLE) -> dict:
    """Fill ``bundle`` from ``pyodide_dir`` (node_modules/pyodide); needs Node for the snapshot.

    Returns ``{"pyodide": version, "snapshot": path, "editor": path, "page": path, "bytes":
    total size}``.
    """
    from integrator_lab.site.build import PYODIDE_FILES, pack_archive, static_dir
    from integrator_lab.site.snapshot import make_snapshot, pyodide_version, snapshot_key

    pyodide_dir = Path(pyodide_dir)
    shutil.rmtree(bundle, ignore_errors=True)
    target = bundle / "pyodide"
    target.mkdir(parents=True)
    for name in (*PYODIDE_FILES, "package.json"):
        shutil.copyfile(pyodide_dir / name, target / name)
    version = pyodide_version(target)
    (target / "LICENSE").write_text(
        LICENCE_NOTE.format(version=version) + LICENCE.read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    with tempfile.TemporaryDirectory(prefix="integrator-lab-bundle-") as tmp:
        archive = pack_archive(Path(tmp) / "integrator_lab.zip")
        key = snapshot_key(archive.read_bytes(), target)
        snapshot = bundle / "snapshots" / f"{key}.bin.gz"
        # never from this bundle (just emptied): from the user's cache, or made with Node
        make_snapshot(archive, target, snapshot, bundle=None)
    # the method editor (CodeMirror), bundled by esbuild: needs Node too
    from integrator_lab.site.editor import bundle_path

    editor = bundle / "editor" / "editor.js"
    editor.parent.mkdir(parents=True)
    shutil.copyfile(bundle_path(), editor)
    # the page's own modules (static/js/) and the worker's, bundled by esbuild too
    from integrator_lab.site.page_bundle import WORKER, package_bundle, package_page_bundle

    page = package_page_bundle(Path(str(static_dir().joinpath("js"))), bundle)
    package_bundle(Path(str(static_dir())), bundle, WORKER)
    size = sum(path.stat().st_size for path in bundle.rglob("*") if path.is_file())
    return {
        "pyodide": version,
        "snapshot": snapshot,
        "editor": editor,
        "page": page,
        "bytes": size,
    }


def main(argv=None) -> int:
    from integrator_lab.site.esbuild import BundleUnavailable
    from integrator_lab.site.pyodide_node import PyodideNotFound, find_pyodide_dir
    from integrator_lab.site.snapshot import SnapshotUnavailable

    parser = argparse.ArgumentParser(
        prog="python -m integrator_lab.site.bundle",
        description="Copy Pyodide's core files, a prebuilt snapshot and the page's scripts "
        "bundled by esbuild into the package (make dist runs it before building the wheel).",
    )
    parser.add_argument("--out", type=Path, default=BUNDLE, help=f"default {BUNDLE}")
    args = parser.parse_args(argv)
    try:
        made = make_bundle(find_pyodide_dir(packaged=False), args.out)
    except (PyodideNotFound, SnapshotUnavailable, BundleUnavailable) as exc:
        print(f"integrator-lab: {exc}", file=sys.stderr)
        return 2
    print(
        f"Integrator Lab: bundled Pyodide {made['pyodide']}, its snapshot and the page's "
        f"scripts into {args.out} ({made['bytes'] / 1e6:.1f} MB)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
