"""What a user's tableau or splitting may cost is bounded before any arithmetic: entries beyond
the float range, huge decimal exponents, oversized lists and fractions whose common denominator
would make the exact order conditions run long are refused with a message naming the entry and
the accepted range (issue 24, items 5, 10 and 15)."""

from __future__ import annotations

import math

import pytest

from integrator_lab.core.custom import (
    MAX_COEFFICIENT,
    MAX_DENOMINATOR_DIGITS,
    MAX_ENTRY_CHARS,
    MAX_EXPONENT,
    MAX_STAGES,
    DefinitionError,
    definition_problems,
    parse_definition,
)

#: the audit's entries beyond the float range (issue 24, item 5)
HUGE_TABLEAU = {
    "kind": "tableau",
    "name": "huge",
    "a": [[0, 0], ["1e400", 0]],
    "b": [1, 0],
    "c": [0, "1e400"],
}
HUGE_SPLITTING = {
    "kind": "splitting",
    "name": "huge",
    "sequence": [["drift", "1e400"], ["kick", 1], ["drift", "-1e400"]],
}


def _primes(count):
    found, n = [], 1
    while len(found) < count:
        n += 1
        if all(n % p for p in found if p * p <= n):
            found.append(n)
    return found


@pytest.mark.parametrize(
    ("data", "entry"),
    [(HUGE_TABLEAU, "c[1]"), (HUGE_SPLITTING, "sequence[0]")],
    ids=["tableau", "splitting"],
)
def test_an_entry_beyond_the_float_range_is_refused_naming_it(data, entry):
    with pytest.raises(DefinitionError) as caught:
        parse_definition(data)
    message = str(caught.value)
    assert message.startswith(f"{entry}: got '1e400'"), message
    assert f"[-{MAX_COEFFICIENT:g}, {MAX_COEFFICIENT:g}]" in message


@pytest.mark.parametrize("value", [10**400, "1" * 30 + "e10", -2e6, "4000001/2"])
def test_an_entry_beyond_the_magnitude_bound_is_refused(value):
    data = {"kind": "tableau", "name": "big", "a": [[0, 0], [value, 0]], "b": [1, 0], "c": [0, 1]}
    problems = definition_problems(data)
    assert problems and problems[0].startswith("a[1][0]: got "), problems
    assert "expected a number in" in problems[0]
    # a huge integer is named by its size, not printed
    assert len(problems[0]) < 200


@pytest.mark.parametrize("text", ["1e10000000", "1e-10000000", f"2e{MAX_EXPONENT + 1}"])
def test_a_huge_decimal_exponent_is_refused_before_it_is_expanded(text):
    # "1e10000000" as an exact fraction is a ten-million-digit integer: the audit's two such
    # entries kept the Panel server's event loop busy for 14 s
    data = {"kind": "tableau", "name": "big", "a": [[0, 0], [text, 0]], "b": [1, 0], "c": [0, text]}
    problems = definition_problems(data)
    assert problems[0].startswith("c[1]: got ") and "decimal exponent in" in problems[0]


def test_a_long_string_entry_is_refused():
    text = "0." + "3" * MAX_ENTRY_CHARS
    problems = definition_problems(
        {"kind": "splitting", "name": "long", "sequence": [["drift", text], ["kick", 1]]}
    )
    assert problems[0].startswith(f"sequence[0]: got a string of {len(text)} characters")


def test_an_oversized_list_is_refused_before_its_entries_are_read():
    # the audit's 200,000-row tableau kept the server busy 1 s; its entries are not even read
    rows = [["not a number"] * 2] * 200_000
    problems = definition_problems(
        {"kind": "tableau", "name": "rows", "a": rows, "b": [1, 0], "c": [0, 0]}
    )
    assert problems == ["a: has 200000 rows, expected 2 (one per entry of c)"]
    problems = definition_problems(
        {"kind": "tableau", "name": "cols", "a": [[0] * 200_000, [0, 0]], "b": [1, 0], "c": [0, 0]}
    )
    assert problems == ["a[0]: has 200000 entries, expected 2 (a is square)"]
    stages = MAX_STAGES + 1
    problems = definition_problems(
        {"kind": "tableau", "name": "s", "a": [[0] * stages] * stages, "b": [0] * stages}
        | {"c": [0] * stages}
    )
    assert problems[0].startswith(f"c: has {stages} entries, expected 1 to {MAX_STAGES}")


def test_fractions_whose_common_denominator_is_too_large_are_refused():
    # 1/p for distinct primes: the least common denominator is their product, and the exact
    # order conditions' fractions grow with its powers
    primes = [p for p in _primes(400) if p > 1000][: MAX_STAGES - 1]  # four digits each
    n = len(primes)
    a = [[0] * (n + 1) for _ in range(n + 1)]
    for j, p in enumerate(primes[:n]):
        a[n][j] = f"1/{p}"
    c = [0] * n + [str(sum(1 / p for p in primes[:n]))]
    b = [0] * n + [1]
    problems = definition_problems({"kind": "tableau", "name": "fine", "a": a, "b": b, "c": c})
    product, culprit = 1, None
    for j, p in enumerate(primes[:n]):
        product *= p
        if product > 10**MAX_DENOMINATOR_DIGITS:
            culprit = j
            break
    assert culprit is not None
    assert problems[0].startswith(f"a[{n}][{culprit}]: its denominator makes")


def test_exact_decimals_of_thirty_digits_and_textbook_fractions_are_accepted():
    ralston = {"a": [[0, 0], ["2/3", 0]], "b": ["1/4", "3/4"], "c": [0, "2/3"]}
    assert parse_definition({"kind": "tableau", "name": "ralston", **ralston}).order == 2
    third, rest = "0." + "3" * 30, "0." + "6" * 29 + "7"
    sequence = [["drift", third], ["kick", "1/2"], ["drift", rest], ["kick", "1/2"]]
    assert parse_definition({"kind": "splitting", "name": "thirds", "sequence": sequence}).order


def test_a_large_float_row_that_sums_to_c_within_rounding_runs():
    # rounding in a row of size 3e5 is ~1e-11: a tolerance relative to the terms' size accepts
    # it in the parser and in the stage loop alike (an absolute one let the parser accept what
    # the stage loop then refused)
    x, y = 300000.1, 0.2
    total = math.fsum([x, y])
    method = parse_definition(
        {
            "kind": "tableau",
            "name": "wide",
            "a": [[0, 0, 0], [0.5, 0, 0], [x, y, 0]],
            "b": [0.5, 0.5, 0],
            "c": [0, 0.5, total],
        }
    )
    assert method.integrator().tableau.stages == 3
