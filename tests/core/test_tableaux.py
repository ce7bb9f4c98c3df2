"""Butcher tableaux: consistency, the order conditions of their declared order (and not one
more), and validation of malformed tableaux at construction.

The order conditions are generated from rooted trees (Butcher's theory): a method has order p
iff ``sum_i b_i Phi_i(t) = 1/gamma(t)`` for every rooted tree t with at most p nodes
(Hairer, Norsett & Wanner, Solving ODEs I, II.2, Theorem 2.13).
"""

from __future__ import annotations

import dataclasses
import math
import sys

import pytest

from integrator_lab.core import INTEGRATORS
from integrator_lab.core.integrators import ButcherTableau, RungeKutta, runge_kutta
from integrator_lab.core.integrators.runge_kutta import DORMAND_PRINCE, EULER, HEUN, MIDPOINT

# the classic tableau, taken from the integrator that uses it (see the test just below for why
# not ``runge_kutta.RK4``)
RK4 = INTEGRATORS["rk4"].tableau

EPS = sys.float_info.epsilon

# ---------------------------------------------------------------------------------------------
# rooted trees: a tree is the sorted tuple of its subtrees; the single node is ()


def trees_of_order(n: int) -> list[tuple]:
    """All rooted trees with n nodes (grown by attaching a leaf to every node of the smaller
    trees, then canonicalised)."""
    if n == 1:
        return [()]
    grown = set()
    for tree in trees_of_order(n - 1):
        for bigger in _attach_leaf(tree):
            grown.add(bigger)
    return sorted(grown)


def _attach_leaf(tree):
    yield tuple(sorted(tree + ((),)))  # a new child of the root
    for i, child in enumerate(tree):
        for new_child in _attach_leaf(child):
            yield tuple(sorted(tree[:i] + (new_child,) + tree[i + 1 :]))


def order_of(tree) -> int:
    return 1 + sum(order_of(child) for child in tree)


def density(tree) -> int:
    """gamma(t) = |t| times the densities of the subtrees."""
    return order_of(tree) * math.prod(density(child) for child in tree)


def stage_weights(tab: ButcherTableau, tree, absolute=False) -> list[float]:
    """Phi_i(t) per stage (with absolute values of a, for a rounding-error bound)."""
    s = tab.stages
    weights = [1.0] * s
    for child in tree:
        inner = stage_weights(tab, child, absolute)
        for i in range(s):
            row = tab.a[i]
            total = sum((abs(row[j]) if absolute else row[j]) * inner[j] for j in range(s))
            weights[i] *= total
    return weights


def condition_residual(tab, weights_b, tree) -> tuple[float, float]:
    """(sum b Phi(t) - 1/gamma(t), rounding bound of that sum)."""
    phi = stage_weights(tab, tree)
    phi_abs = stage_weights(tab, tree, absolute=True)
    value = sum(b * p for b, p in zip(weights_b, phi)) - 1.0 / density(tree)
    # each product and sum of at most ~2 * order * stages floating-point operations, each with
    # relative error <= eps on a magnitude bounded by the same sum taken with |a|, |b|
    bound = 64 * EPS * (sum(abs(b) * p for b, p in zip(weights_b, phi_abs)) + 1.0)
    return value, bound


@pytest.mark.parametrize("name", ["EULER", "MIDPOINT", "HEUN", "RK4", "DORMAND_PRINCE"])
def test_tableaux_are_importable_by_name(name):
    """Each tableau is module-level data of ``runge_kutta`` under its own name, not shadowed
    by an integrator class of the same name."""
    assert isinstance(getattr(runge_kutta, name), ButcherTableau)


def test_tree_enumeration_matches_the_known_counts():
    """Number of rooted trees with n nodes, OEIS A000081: 1, 1, 2, 4, 9, 20."""
    assert [len(trees_of_order(n)) for n in range(1, 7)] == [1, 1, 2, 4, 9, 20]
    assert density(((),)) == 2 and density(((), ())) == 3 and density((((),),)) == 6


# tableau, which weights (b or the embedded b_error), declared order
METHODS = [
    pytest.param(EULER, "b", 1, id="euler"),
    pytest.param(MIDPOINT, "b", 2, id="midpoint"),
    pytest.param(HEUN, "b", 2, id="heun"),
    pytest.param(RK4, "b", 4, id="rk4"),
    pytest.param(DORMAND_PRINCE, "b", 5, id="dormand-prince-5"),
    pytest.param(DORMAND_PRINCE, "b_error", 4, id="dormand-prince-embedded-4"),
]


@pytest.mark.parametrize(("tab", "which", "order"), METHODS)
def test_rows_of_a_sum_to_c_and_b_sums_to_one(tab, which, order):
    for i, row in enumerate(tab.a):
        assert sum(row) == pytest.approx(tab.c[i], abs=8 * EPS * (1 + sum(map(abs, row))))
        assert all(x == 0.0 for x in row[i:]), "a must be strictly lower triangular"
    weights = getattr(tab, which)
    assert sum(weights) == pytest.approx(1.0, abs=8 * EPS * sum(map(abs, weights)))


@pytest.mark.parametrize(("tab", "which", "order"), METHODS)
def test_order_conditions_hold_up_to_the_declared_order(tab, which, order):
    weights = getattr(tab, which)
    checked = 0
    for n in range(1, order + 1):
        for tree in trees_of_order(n):
            value, bound = condition_residual(tab, weights, tree)
            assert abs(value) <= bound, f"order-{n} condition for tree {tree}: off by {value}"
            checked += 1
    # 1, 2, 4, 8, 17 conditions for orders 1 to 5
    assert checked == {1: 1, 2: 2, 4: 8, 5: 17}[order]


@pytest.mark.parametrize(("tab", "which", "order"), METHODS)
def test_declared_order_is_sharp(tab, which, order):
    """At least one condition of order p + 1 fails by far more than rounding (the smallest
    violation for these methods is a rational like 1/120 or 1/2400, not 1e-6)."""
    weights = getattr(tab, which)
    worst = max(
        abs(condition_residual(tab, weights, tree)[0]) for tree in trees_of_order(order + 1)
    )
    assert worst > 1e-4


def test_classic_rk4_conditions_by_hand():
    """The eight order-4 conditions written out (b, c, A of Kutta's method)."""
    b, c, a = RK4.b, RK4.c, RK4.a
    ac = [sum(a[i][j] * c[j] for j in range(4)) for i in range(4)]
    ac2 = [sum(a[i][j] * c[j] ** 2 for j in range(4)) for i in range(4)]
    aac = [sum(a[i][j] * ac[j] for j in range(4)) for i in range(4)]
    tol = 1e-15  # single sums of four terms of size <= 1
    assert sum(b) == pytest.approx(1, abs=tol)
    assert sum(bi * ci for bi, ci in zip(b, c)) == pytest.approx(1 / 2, abs=tol)
    assert sum(bi * ci**2 for bi, ci in zip(b, c)) == pytest.approx(1 / 3, abs=tol)
    assert sum(bi * x for bi, x in zip(b, ac)) == pytest.approx(1 / 6, abs=tol)
    assert sum(bi * ci**3 for bi, ci in zip(b, c)) == pytest.approx(1 / 4, abs=tol)
    assert sum(bi * ci * x for bi, ci, x in zip(b, c, ac)) == pytest.approx(1 / 8, abs=tol)
    assert sum(bi * x for bi, x in zip(b, ac2)) == pytest.approx(1 / 12, abs=tol)
    assert sum(bi * x for bi, x in zip(b, aac)) == pytest.approx(1 / 24, abs=tol)


def test_dormand_prince_is_first_same_as_last():
    """The last stage is evaluated at the new solution: c_7 = 1 and row 7 of a equals b."""
    assert DORMAND_PRINCE.c[-1] == 1.0
    assert DORMAND_PRINCE.a[-1] == DORMAND_PRINCE.b
    assert DORMAND_PRINCE.b_error is not None


RK_CLASSES = [
    pytest.param(cls, id=name) for name, cls in INTEGRATORS.items() if issubclass(cls, RungeKutta)
]


@pytest.mark.parametrize("cls", RK_CLASSES)
def test_declared_integrator_order_is_the_order_of_its_tableau(cls):
    tab = cls.tableau
    for n in range(1, cls.order + 1):
        for tree in trees_of_order(n):
            value, bound = condition_residual(tab, tab.b, tree)
            assert abs(value) <= bound
    assert (
        max(abs(condition_residual(tab, tab.b, tree)[0]) for tree in trees_of_order(cls.order + 1))
        > 1e-4
    )
    # "first same as last": the last stage is the next step's first, one evaluation saved
    fsal = tab.c[-1] == 1.0 and tuple(tab.a[-1]) == tuple(tab.b)
    assert cls.evaluations == (tab.stages - 1 if fsal else tab.stages)


INVALID = {
    "row-not-summing-to-c": dict(c=(0.0, 0.4), a=((0.0, 0.0), (0.5, 0.0)), b=(0.0, 1.0)),
    "b-not-summing-to-1": dict(c=(0.0, 0.5), a=((0.0, 0.0), (0.5, 0.0)), b=(0.5, 0.6)),
    "diagonal-entry": dict(c=(0.0, 0.5), a=((0.0, 0.0), (0.25, 0.25)), b=(0.0, 1.0)),
    "upper-entry": dict(c=(0.5, 0.5), a=((0.0, 0.5), (0.5, 0.0)), b=(0.5, 0.5)),
    "first-row-nonzero-diagonal": dict(c=(0.1,), a=((0.1,),), b=(1.0,)),
    "b-too-short": dict(c=(0.0, 0.5), a=((0.0, 0.0), (0.5, 0.0)), b=(1.0,)),
    "a-not-square": dict(c=(0.0, 0.5), a=((0.0,), (0.5, 0.0)), b=(0.0, 1.0)),
    "embedded-not-summing-to-1": dict(
        c=(0.0, 1.0), a=((0.0, 0.0), (1.0, 0.0)), b=(0.5, 0.5), b_error=(1.0, 0.5)
    ),
}


@pytest.mark.parametrize("fields", list(INVALID.values()), ids=list(INVALID))
def test_malformed_tableaux_are_rejected_when_built(fields):
    with pytest.raises(ValueError, match="Butcher tableau"):
        ButcherTableau(**fields)


def test_tableaux_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        RK4.b = (1.0, 0.0, 0.0, 0.0)
