"""The build configuration installs every package, and only under integrator_lab."""

from __future__ import annotations

import tomllib
import zipfile
from pathlib import Path

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
