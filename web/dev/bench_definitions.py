"""How long validating the costliest definitions the core accepts takes (medians).

A user's tableau or splitting is data a visitor may send to a server: its exact order
conditions run in the server's event loop, so the bounds of :mod:`integrator_lab.core.custom`
must keep the worst accepted one cheap. The worst tableau found: a fifth-order method (all 17
conditions computed) padded to the most stages with rows of exact fractions whose denominators
are distinct primes (the least common denominator at its bound), magnitudes near the bound and
rounded ``c``; the same padded with floats over the whole exponent range (their exact binary
values made the check take 0.5 s before floats were checked in floating point). The worst
splitting: the longest sequence of such fractions::

    python -m integrator_lab.dev.bench_definitions [--repeats N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from fractions import Fraction as F

from integrator_lab.core.custom import (
    MAX_COEFFICIENT,
    MAX_DENOMINATOR_DIGITS,
    MAX_SEQUENCE,
    MAX_STAGES,
    parse_definition,
)

# Butcher's six-stage fifth-order method (Butcher 1964; Hairer, Norsett & Wanner, II.5)
_A = [
    [],
    [F(1, 4)],
    [F(1, 8), F(1, 8)],
    [F(0), F(-1, 2), F(1)],
    [F(3, 16), F(0), F(0), F(9, 16)],
    [F(-3, 7), F(2, 7), F(12, 7), F(-12, 7), F(8, 7)],
]
_B = [F(7, 90), F(0), F(32, 90), F(12, 90), F(32, 90), F(7, 90)]


def _prime_pool(start: int) -> list[int]:
    """Consecutive primes from ``start`` whose product stays within the denominator bound."""
    pool, product, n = [], 1, start
    while True:
        n += 1
        if all(n % d for d in range(2, int(n**0.5) + 1)):
            if product * n > 10**MAX_DENOMINATOR_DIGITS:
                return pool
            pool.append(n)
            product *= n


def worst_tableau(pool: list[int], rng: random.Random) -> dict:
    s = MAX_STAGES
    a = [[F(0)] * s for _ in range(s)]
    for i, row in enumerate(_A):
        a[i][: len(row)] = row
    size = int(MAX_COEFFICIENT) // s  # each row's sum stays within the magnitude bound
    for i in range(len(_A), s):
        for j in range(i):
            den = rng.choice(pool)
            a[i][j] = F(rng.randrange(1, den * size), den)
    return {
        "kind": "tableau",
        "name": "worst",
        "a": [[str(x) for x in row] for row in a],
        "b": [str(x) for x in _B] + ["0"] * (s - len(_B)),
        "c": [float(sum(row)) for row in a],
    }


def worst_float_tableau(pool: list[int], rng: random.Random) -> dict:
    """Floats over the whole exponent range in the padding rows (checked in floating point)."""
    data = worst_tableau(pool, rng)
    s = MAX_STAGES
    a = [[float(F(x)) for x in row] for row in data["a"]]
    for i in range(len(_A), s):
        for j in range(i):
            a[i][j] = rng.random() * 10.0 ** rng.randint(-300, 5)
    return data | {"a": a, "c": [sum(row) for row in a]}


def worst_splitting(pool: list[int], rng: random.Random) -> dict:
    size = int(MAX_COEFFICIENT) // MAX_SEQUENCE
    sequence = []
    for i in range(MAX_SEQUENCE - 2):
        den = rng.choice(pool)
        weight = F(rng.randrange(1, den * size), den) * (-1) ** (i // 2)
        sequence.append(["drift" if i % 2 == 0 else "kick", weight])
    for kind in ("drift", "kick"):
        sequence.append([kind, float(1 - sum(w for k, w in sequence if k == kind))])
    return {
        "kind": "splitting",
        "name": "worst",
        "sequence": [[k, str(w) if isinstance(w, F) else w] for k, w in sequence],
    }


def median_seconds(data: dict, repeats: int) -> tuple[float, float]:
    """Median wall and CPU seconds of validating ``data`` (CPU time is what a busy machine
    does not inflate)."""
    wall, cpu = [], []
    for _ in range(repeats):
        began, began_cpu = time.perf_counter(), time.process_time()
        parse_definition(data)
        wall.append(time.perf_counter() - began)
        cpu.append(time.process_time() - began_cpu)
    return statistics.median(wall), statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(24)
    for label, start in (("small primes", 1), ("seven-digit primes", 10**6)):
        pool = _prime_pool(start)
        builds = (
            ("tableau", worst_tableau),
            ("floats", worst_float_tableau),
            ("splitting", worst_splitting),
        )
        for kind, build in builds:
            wall, cpu = median_seconds(build(pool, rng), args.repeats)
            print(
                f"{kind:9}  denominators: {len(pool):2} {label:18}  "
                f"median {wall:.4f} s wall, {cpu:.4f} s CPU"
            )


if __name__ == "__main__":
    main()
