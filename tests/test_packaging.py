"""The build configuration installs every package, and only under integrator_lab."""

from __future__ import annotations

import re
import tomllib
import zipfile
from fnmatch import fnmatch
from pathlib import Path

import pytest

from integrator_lab import __version__
from integrator_lab.site.pack import core_files, pack_core

ROOT = Path(__file__).resolve().parents[1]


def _setuptools_config():
    with open(ROOT / "pyproject.toml", "rb") as file:
        return tomllib.load(file)["tool"]["setuptools"]


def test_every_python_package_directory_is_listed():
    config = _setuptools_config()
    listed = set(config["packages"])
    mapped = {
        (ROOT / directory).resolve(): name for name, directory in config["package-dir"].items()
    }
    for directory, package in mapped.items():
        for init in directory.rglob("__init__.py"):
            if "__pycache__" in init.parts or init.parent in mapped and init.parent != directory:
                continue  # a directory of its own in package-dir: checked on its own
            relative = init.parent.relative_to(directory).parts
            name = ".".join((package, *relative))
            assert name in listed, f"{name} ({init.parent}) missing from [tool.setuptools] packages"


def test_packages_are_all_inside_the_namespace():
    config = _setuptools_config()
    for name in config["packages"]:
        assert name == "integrator_lab" or name.startswith("integrator_lab."), name
    assert set(config["package-dir"]) <= set(config["packages"])


def test_core_archive_is_deterministic_and_holds_only_the_core(tmp_path):
    first = pack_core(tmp_path / "a" / "core.zip")
    second = pack_core(tmp_path / "b" / "core.zip")
    assert first.read_bytes() == second.read_bytes()
    with zipfile.ZipFile(first) as archive:
        names = archive.namelist()
    assert names == [name for name, _ in core_files()]
    assert "integrator_lab/__init__.py" in names
    assert "integrator_lab/core/__init__.py" in names
    for name in names:
        assert name.endswith(".py") and "__pycache__" not in name, name
        assert name == "integrator_lab/__init__.py" or name.startswith("integrator_lab/core/")


#: what ``make dist`` bundles with esbuild (site/bundle.py) for a wheel to carry: the method
#: editor, the page's and the worker's scripts and the digest of the sources of each
ESBUILD_BUNDLES = (
    "bundle/editor/editor.js",
    "bundle/page/page.js",
    "bundle/page/sources",
    "bundle/worker/worker.mjs",
    "bundle/worker/sources",
)


def test_the_package_data_takes_the_esbuild_bundles():
    patterns = _setuptools_config()["package-data"]["integrator_lab.site"]
    for path in ESBUILD_BUNDLES:
        assert any(fnmatch(path, pattern) for pattern in patterns), path


def test_the_wheel_make_dist_made_carries_the_page_bundle():
    wheels = sorted((ROOT / "dist").glob(f"integrator_lab-{__version__}-*.whl"))
    if not wheels:
        pytest.skip("no wheel of this version in dist/ (make dist)")
    with zipfile.ZipFile(wheels[-1]) as wheel:
        names = set(wheel.namelist())
        sources = wheel.read("integrator_lab/site/bundle/page/sources").decode("ascii")
        page = wheel.read("integrator_lab/site/bundle/page/page.js").decode("utf-8")
    for path in ESBUILD_BUNDLES:
        assert f"integrator_lab/site/{path}" in names, path
    assert re.fullmatch(r"[0-9a-f]{64}\n", sources)
    # one module, minified, that publishes the page's API
    assert "integratorLab" in page and len(page.splitlines()) < 50
