"""``integrator-lab study`` checks ``--output`` before it runs, and a full or closed output
ends it with one line or quietly, never a traceback (issue 24, items 16 and 20)."""

from __future__ import annotations

import subprocess
import sys

COMMAND = [sys.executable, "-m", "integrator_lab", "study", "spring"]


def test_an_unwritable_output_is_refused_before_the_study_runs(tmp_path):
    # 300 s of the default study is 15.6 million steps of ten integrators (minutes); the
    # check takes well under the 60 s allowed
    done = subprocess.run(
        [*COMMAND, "--duration", "300", "--output", str(tmp_path / "missing" / "x.json")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        f"integrator-lab: error: argument --output: cannot write "
        f"'{tmp_path / 'missing' / 'x.json'}': No such file or directory\n"
    )


def test_a_bad_option_is_refused_before_the_output_is_created(tmp_path):
    out = tmp_path / "x.json"
    done = subprocess.run(
        [*COMMAND, "--duration", "2", "--points", "3", "--dt-min", "5", "--output", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "argument --dt-min" in done.stderr
    assert not out.exists()


def test_a_full_standard_output_exits_2_with_one_line():
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [*COMMAND, "--duration", "2", "-i", "rk4"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert done.returncode == 2
    assert done.stderr == (
        "integrator-lab: error: cannot write to standard output: No space left on device\n"
    )


def test_a_full_output_file_exits_2_with_one_line():
    done = subprocess.run(
        [*COMMAND, "--duration", "2", "-i", "rk4", "--output", "/dev/full"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr == (
        "integrator-lab: error: argument --output: cannot write '/dev/full': "
        "No space left on device\n"
    )


def test_a_reader_that_goes_away_ends_it_quietly():
    process = subprocess.Popen(
        [*COMMAND, "--duration", "2", "-i", "rk4", "-i", "euler"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    process.stdout.close()  # the reader (e.g. `| head -c 0`) is gone before anything is written
    _, err = process.communicate(timeout=120)
    assert process.returncode == 0
    assert b"Traceback" not in err and b"Exception" not in err, err
