"""Order conditions: the order of a Butcher tableau and of a kick/drift composition, computed
from their coefficients (for methods people define themselves; the built-ins declare theirs).

**Runge-Kutta methods** (Butcher; Hairer, Norsett & Wanner, Solving ODEs I, II.2, Theorem
2.13 and Table 2.1): a method has order p iff ``sum_i b_i Phi_i(t) = 1/gamma(t)`` for every
rooted tree t with at most p nodes, where for ``t = [t_1, ..., t_m]`` (the subtrees of the
root) ``Phi_i(t) = prod_k sum_j a_ij Phi_j(t_k)`` and ``gamma(t) = |t| prod_k gamma(t_k)``.
There are 1, 1, 2, 4 and 9 trees of orders 1 to 5 (17 conditions up to order 5).

**Splitting methods** ``exp(a_1 h A) exp(b_1 h B) ...`` (A the drift, B the kick): the
composition has order p iff its product, expanded as a series in the non-commuting A and B,
equals ``exp(h (A + B))`` up to terms of degree p, i.e. every word of at most p letters has the
coefficient ``1/len(word)!`` (``(A + B)^n`` is the sum of all words of length n). That is the
order for every problem split into two exactly solved parts; for mechanical problems with a
quadratic kinetic energy the bracket ``[B, [B, [B, A]]]`` vanishes, and a sequence designed for
them (Runge-Kutta-Nystrom splittings) may reach a higher order there than reported here.

Both checks use exact rational arithmetic (``fractions.Fraction``) when every coefficient is
exact; a coefficient given as a float was rounded, so the conditions then hold within
:data:`TOLERANCE` (relative to the size of the terms).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import TypeAlias

#: a condition holds within this (relative) when some coefficient is a rounded float
TOLERANCE = 1e-12
#: highest order checked: tableaux (17 conditions) and compositions (words of 6 letters)
MAX_TABLEAU_ORDER = 5
MAX_SPLITTING_ORDER = 6

#: a coefficient: exact (``Fraction``, or ``int``) or a rounded ``float``
Coefficient: TypeAlias = Fraction | float
#: a rooted tree: the sorted tuple of its subtrees (the single node is ``()``)
Tree: TypeAlias = tuple["Tree", ...]
#: a composition: ``(kind, weight)`` pairs, kinds ``"kick"`` and ``"drift"``
Composition: TypeAlias = Sequence[tuple[str, Coefficient]]


# -- rooted trees ---------------------------------------------------------------------------
def rooted_trees(order: int) -> list[Tree]:
    """All rooted trees with ``order`` nodes; a tree is the sorted tuple of its subtrees (the
    single node is ``()``), grown by attaching a leaf to every node of the smaller trees."""
    if order == 1:
        return [()]
    grown: set[Tree] = set()
    for tree in rooted_trees(order - 1):
        grown.update(_attach_leaf(tree))
    return sorted(grown)


def _attach_leaf(tree: Tree) -> Iterator[Tree]:
    yield tuple(sorted(tree + ((),)))
    for i, child in enumerate(tree):
        for new_child in _attach_leaf(child):
            yield tuple(sorted(tree[:i] + (new_child,) + tree[i + 1 :]))


def tree_order(tree: Tree) -> int:
    return 1 + sum(tree_order(child) for child in tree)


def density(tree: Tree) -> int:
    """``gamma(t)``: the tree's order times the densities of its subtrees."""
    return tree_order(tree) * math.prod(density(child) for child in tree)


def condition_text(tree: Tree) -> str:
    """The condition as it is written by hand, e.g. ``sum b_i a_ij c_j = 1/6``."""
    letters = iter("ijklmnopqrs")

    def phi(node: Tree, index: str) -> str:
        leaves = sum(1 for child in node if not child)
        factors = [f"c_{index}" + (f"^{leaves}" if leaves > 1 else "")] if leaves else []
        inner = [child for child in node if child]
        for child in inner:
            j = next(letters)
            factor = f"a_{index}{j} " + phi(child, j)
            factors.append(f"({factor})" if len(inner) > 1 else factor)
        return " ".join(factors) or "1"

    body = phi(tree, next(letters))
    gamma = density(tree)
    return f"sum b_i{'' if body == '1' else ' ' + body} = " + ("1" if gamma == 1 else f"1/{gamma}")


def _stage_weights(
    a: Sequence[Sequence[Coefficient]],
    tree: Tree,
    absolute: bool = False,
    memo: dict[tuple[Tree, bool], list[Coefficient]] | None = None,
) -> list[Coefficient]:
    """``Phi_i(tree)`` for every stage i (of ``|a|`` with ``absolute``), exact for exact
    entries; ``memo`` keeps the subtrees' weights, which the trees of one order share (a
    16-stage tableau of long exact fractions then takes a third of the time)."""
    if memo is None:
        memo = {}
    key = (tree, absolute)
    if key in memo:
        return memo[key]
    s = len(a)
    weights: list[Coefficient] = [Fraction(1)] * s  # (times a float, a float)
    for child in tree:
        inner = _stage_weights(a, child, absolute, memo)
        for i in range(s):
            row = a[i]
            # abs() of a Fraction | float is one of them, but mypy joins them to object
            weights[i] *= sum(
                (abs(row[j]) if absolute else row[j]) * inner[j]  # type: ignore[misc, operator]
                for j in range(i)
            )
    memo[key] = weights
    return weights


class OrderResult:
    """The order found, whether the check stopped at its limit (``at_least``), and the first
    condition that fails (``unmet``: its text and what the coefficients give instead)."""

    def __init__(
        self,
        order: int,
        at_least: bool,
        unmet: tuple[str, Coefficient] | None = None,
        exact: bool = True,
    ) -> None:
        self.order, self.at_least, self.unmet, self.exact = order, at_least, unmet, exact

    def text(self) -> str:
        """``order 2``, or ``order 5 or higher`` at the limit of the check."""
        return f"order {self.order}" + (" or higher" if self.at_least else "")


def tableau_order(
    a: Sequence[Sequence[Coefficient]], b: Sequence[Coefficient], max_order: int = MAX_TABLEAU_ORDER
) -> OrderResult:
    """The order of the explicit Runge-Kutta method ``a``, ``b``: exactly when every entry is
    exact (``int``/``Fraction``); otherwise in floating point, a condition then holding within
    :data:`TOLERANCE` times the size of its terms (its rounding is ~1e-16 of that size; exact
    rationals of floats spanning many binary exponents made a 16-stage check take 0.5 s)."""
    exact = all(isinstance(x, (int, Fraction)) for x in [*b, *(x for row in a for x in row)])
    convert = Fraction if exact else float
    ea: list[list[Coefficient]] = [[convert(x) for x in row] for row in a]
    eb: list[Coefficient] = [convert(x) for x in b]
    memo: dict[tuple[Tree, bool], list[Coefficient]] = {}
    for order in range(1, max_order + 1):
        for tree in rooted_trees(order):
            phi = _stage_weights(ea, tree, False, memo)
            value: Coefficient = sum(bi * p for bi, p in zip(eb, phi))
            if exact:
                holds = value == Fraction(1, density(tree))
            else:
                weights = _stage_weights(ea, tree, True, memo)
                size = sum(abs(float(bi)) * float(p) for bi, p in zip(eb, weights))
                holds = abs(float(value) - 1.0 / density(tree)) <= TOLERANCE * max(1.0, size)
            if not holds:
                return OrderResult(order - 1, False, (condition_text(tree), value), exact)
    return OrderResult(max_order, True, None, exact)


# -- compositions ---------------------------------------------------------------------------
def _exp_product(
    sequence: Composition, degree: int, absolute: bool = False
) -> dict[str, Coefficient]:
    """Coefficients of the words (strings over ``A`` drift, ``B`` kick) of at most ``degree``
    letters in the product of ``exp(weight X)`` over the sequence."""
    series: dict[str, Coefficient] = {"": 1}
    for kind, weight in sequence:
        letter = "A" if kind == "drift" else "B"
        if absolute:
            weight = abs(float(weight))
        powers: list[Coefficient] = [1]
        for k in range(1, degree + 1):
            powers.append(powers[-1] * weight / k)
        grown = dict(series)
        for word, coef in series.items():
            for k in range(1, degree - len(word) + 1):
                key = word + letter * k
                grown[key] = grown.get(key, 0) + coef * powers[k]
        series = grown
    return series


def splitting_order(sequence: Composition, max_order: int = MAX_SPLITTING_ORDER) -> OrderResult:
    """The order of the composition ``sequence`` of ``(kind, weight)`` pairs, kinds ``kick``
    and ``drift`` (see the module's docstring)."""
    exact = all(isinstance(w, (int, Fraction)) for _, w in sequence)
    if exact:
        series = _exp_product([(k, Fraction(w)) for k, w in sequence], max_order)
        sizes: dict[str, Coefficient] = {}  # not used: exact conditions hold exactly
    else:
        series = _exp_product([(k, float(w)) for k, w in sequence], max_order)
        sizes = _exp_product(sequence, max_order, absolute=True)
    for order in range(1, max_order + 1):
        target = Fraction(1, math.factorial(order)) if exact else 1.0 / math.factorial(order)
        for word in _words(order):
            value = series.get(word, 0)
            if exact:
                holds = value == target
            else:
                # abs() of a Fraction | float is one of them, but mypy joins them to object
                holds = abs(value - target) <= TOLERANCE * max(  # type: ignore[operator]
                    1.0, sizes.get(word, 0.0)
                )
            if not holds:
                return OrderResult(order - 1, False, (word, value), exact)
    return OrderResult(max_order, True, None, exact)


def _words(length: int) -> list[str]:
    words = [""]
    for _ in range(length):
        words = [w + x for w in words for x in "AB"]
    return words


def merged(sequence: Composition) -> list[tuple[str, Coefficient]]:
    """The sequence with adjacent entries of the same kind merged into one."""
    out: list[tuple[str, Coefficient]] = []
    for kind, weight in sequence:
        if out and out[-1][0] == kind:
            out[-1] = (kind, out[-1][1] + weight)
        else:
            out.append((kind, weight))
    return out


def is_palindromic(sequence: Composition) -> bool:
    """Whether the sequence reads the same backwards (within :data:`TOLERANCE` for floats):
    such a composition is symmetric (time-reversible), hence of even order."""
    seq = merged(sequence)
    for (k1, w1), (k2, w2) in zip(seq, reversed(seq)):
        if k1 != k2:
            return False
        if isinstance(w1, float) or isinstance(w2, float):
            # abs() of a Fraction | float is one of them, but mypy joins them to object
            if abs(w1 - w2) > TOLERANCE * max(1.0, abs(w1)):  # type: ignore[call-overload]
                return False
        elif w1 != w2:
            return False
    return True


def kick_evaluations(sequence: Composition) -> int:
    """Force evaluations per step for forces that do not depend on velocity: one per run of
    consecutive kicks, counted cyclically (a kick right after the last kick of the previous
    step, with no drift between them, reuses its evaluation, as :class:`Splitting` does)."""
    kinds = [kind for kind, _ in merged(sequence)]
    runs = sum(1 for kind in kinds if kind == "kick")
    if len(kinds) > 1 and kinds[0] == kinds[-1] == "kick":
        runs -= 1
    return runs
