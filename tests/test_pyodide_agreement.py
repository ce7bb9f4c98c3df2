"""Same inputs, same numbers: the core gives the same trajectories in CPython and in Pyodide."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from integrator_lab.site.pyodide_node import PyodideNotFound, run_python

TRAJECTORIES = Path(__file__).parent / "pyodide" / "trajectories.py"
KEYS = {"t", "q", "v", "kinetic", "potential", "dissipated", "total", "diverged_at"}
RELATIVE_TOLERANCE = 1e-12  # both run IEEE doubles; only libm (sin, exp, ...) may differ
ABSOLUTE_FLOOR = 1e-300  # lets exact zeros compare without dividing by zero
PYODIDE_TIMEOUT = 120.0  # seconds, start-up included
# Set by `make test`: there, a missing Node or Pyodide is a failure, not a skip.
REQUIRE_PYODIDE = os.environ.get("INTEGRATOR_LAB_REQUIRE_PYODIDE") == "1"

pytestmark = pytest.mark.pyodide


def _mismatches(cpython, pyodide, path="", found=None):
    """Paths where the two decoded JSON documents differ beyond the tolerance."""
    found = [] if found is None else found
    if isinstance(cpython, dict) and isinstance(pyodide, dict):
        if cpython.keys() != pyodide.keys():
            found.append(f"{path}: keys {sorted(cpython)} != {sorted(pyodide)}")
        for key in cpython.keys() & pyodide.keys():
            _mismatches(cpython[key], pyodide[key], f"{path}/{key}", found)
    elif isinstance(cpython, list) and isinstance(pyodide, list):
        if len(cpython) != len(pyodide):
            found.append(f"{path}: length {len(cpython)} != {len(pyodide)}")
        for index, (a, b) in enumerate(zip(cpython, pyodide)):
            _mismatches(a, b, f"{path}[{index}]", found)
    elif isinstance(cpython, float | int) and isinstance(pyodide, float | int):
        if math.isnan(cpython) or math.isnan(pyodide):
            if not (math.isnan(cpython) and math.isnan(pyodide)):
                found.append(f"{path}: {cpython!r} != {pyodide!r}")
        elif not math.isclose(cpython, pyodide, rel_tol=RELATIVE_TOLERANCE, abs_tol=ABSOLUTE_FLOOR):
            found.append(f"{path}: {cpython!r} != {pyodide!r}")
    elif cpython != pyodide:
        found.append(f"{path}: {cpython!r} != {pyodide!r}")
    return found


def test_cpython_and_pyodide_trajectories_agree():
    script = TRAJECTORIES.read_text(encoding="utf-8")
    in_cpython = subprocess.run(
        [sys.executable, str(TRAJECTORIES)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert in_cpython.returncode == 0, in_cpython.stderr
    try:
        in_pyodide = run_python(script, filename=TRAJECTORIES.name, timeout=PYODIDE_TIMEOUT)
    except PyodideNotFound as missing:
        if REQUIRE_PYODIDE:
            pytest.fail(str(missing))
        pytest.skip(str(missing))
    assert in_pyodide.returncode == 0, in_pyodide.stderr

    expected = json.loads(in_cpython.stdout)
    actual = json.loads(in_pyodide.stdout)
    assert expected, "the trajectory script produced no runs"
    for run, data in expected.items():
        assert KEYS <= data.keys(), f"{run}: missing {sorted(KEYS - data.keys())}"
    mismatches = _mismatches(expected, actual)
    assert not mismatches, f"{len(mismatches)} numbers differ, first: " + "; ".join(mismatches[:10])


# the worker's own computation of the baked ticks (what static/worker.mjs runs to catch up)
WORKER_TICKS = """
import hashlib, json, sys
sys.path.insert(0, "/bake")
from integrator_lab.views.live import Live
view, ticks = json.loads(sys.argv[1]), int(sys.argv[2])
live = Live()
for name in view["systems"]:
    live.configure(name, view["params"][name], view["dt"][name], view["integrators"])
digest, times = hashlib.sha256(), []
for index in range(ticks):
    for name, frame in live.baked_tick(index).items():
        digest.update(frame["data"].tobytes())
        times.append([index, name, frame["time"]])
print(json.dumps({"sha256": digest.hexdigest(), "times": times}))
"""


def test_the_shipped_baked_frames_are_the_workers_own_bit_for_bit(tmp_path):
    """The page's baked frames (web/site/bake.py, made at build time) are exactly what the
    worker computes for the same ticks in Pyodide, bit for bit: the worker goes on from the
    state the page showed last, with no seam."""
    import gzip
    import hashlib
    import struct
    import zipfile

    from integrator_lab.site.bake import default_view, write_baked
    from integrator_lab.site.build import pack_archive
    from integrator_lab.site.pyodide_node import find_pyodide_dir
    from integrator_lab.views.figures import DashboardConfig
    from integrator_lab.views.live import BAKE_MAGIC, BAKE_TICKS

    config = DashboardConfig()
    archive = pack_archive(tmp_path / "worker.zip")  # the core and the worker's modules
    try:
        pyodide_dir = find_pyodide_dir()
        write_baked(config, tmp_path / "baked.bin.gz", archive, pyodide_dir)
        with zipfile.ZipFile(archive) as files:
            files.extractall(tmp_path / "bake")
        run = run_python(
            WORKER_TICKS,
            core=False,
            files={"/bake": tmp_path / "bake"},
            argv=[json.dumps(default_view(config)), str(BAKE_TICKS)],
            timeout=PYODIDE_TIMEOUT,
        )
    except PyodideNotFound as missing:
        if REQUIRE_PYODIDE:
            pytest.fail(str(missing))
        pytest.skip(str(missing))
    assert run.returncode == 0, run.stderr
    worker = json.loads(run.stdout)
    shipped = gzip.decompress((tmp_path / "baked.bin.gz").read_bytes())
    assert shipped[:4] == BAKE_MAGIC
    length = struct.unpack("<I", shipped[4:8])[0]
    header = json.loads(shipped[8 : 8 + length])
    times = [
        [index, name, frame["time"]]
        for index, frames in enumerate(header["frames"])
        for name, frame in frames.items()
    ]
    assert times == worker["times"]
    assert hashlib.sha256(shipped[8 + length :]).hexdigest() == worker["sha256"]
