"""A user's step that returns something other than ``(q, v)`` stops with the line, the step
and what was expected (issue 24, item 7)."""

from __future__ import annotations

import pytest

from integrator_lab.core import Runner, get_system

HEAD = 'NAME = "bad"\n\n\ndef step(accel, q, v, t, dt):\n'  # def on line 4


def reason(body):
    runner = Runner(get_system("spring"), [{"kind": "python", "code": HEAD + body}], 0.01)
    runner.advance(3)
    lane = runner.lanes[0]
    assert lane.diverged_at == pytest.approx(0.01)  # the first step failed
    return lane.reason


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # one list alone: the spring's q (with the work's extra entry) has two numbers
        ("    return q\n", "line 5: step returned a list of 2 numbers, expected (q, v)"),
        # no return at all: the def is the place
        ("    pass\n", "line 4 (def step): step returned None, expected (q, v)"),
        (
            "    return [10**400, 0.0], v\n",
            "line 5: step returned an integer of 401 digits in q[0], too large for a float",
        ),
        ("    return q, None\n", "line 5: step returned v as None, expected a list of 2 numbers"),
        ("    return q, v, t\n", "line 5: step returned a tuple of 3 entries, expected (q, v)"),
        ("    return q[:1], v\n", "line 5: step returned q with 1 entries, expected 2"),
        (
            "    if t < 1:\n        return q\n    return q, v\n",
            "line 4 (def step): step returned a list of 2 numbers",
        ),
    ],
    ids=["return-q", "pass", "huge-int", "v-none", "triple", "short", "two-returns"],
)
def test_a_bad_return_names_the_line_the_step_and_what_was_expected(body, expected):
    message = reason(body)
    assert message.startswith(expected), message
    assert message.endswith("(step 1, t = 0 s)"), message


def test_an_exception_in_the_step_keeps_its_own_line():
    message = reason("    x = 1\n    return 1 / (x - 1)\n")
    assert message.startswith("line 6: ZeroDivisionError") and "(step 1, t = 0 s)" in message


def test_a_returned_object_that_fails_while_read_is_reported_not_raised():
    # a generator that raises while the core reads it: still a message with line and step
    body = (
        "    def bad():\n"
        "        yield 0.0\n"
        "        raise RuntimeError('read me')\n"
        "    return bad(), v\n"
    )
    message = reason(body)
    assert message.startswith("line 7: RuntimeError: read me"), message
    assert message.endswith("(step 1, t = 0 s)")
