"""Users' own methods (``core.custom``): tableaux, kick/drift sequences and Python code are
validated with messages naming the entry, report the order their coefficients give, run
through the built-ins' machinery, and measure the order they report."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from integrator_lab.core import INTEGRATORS, Runner, get_system, simulate, simulate_many, study
from integrator_lab.core.custom import (
    TEMPLATES,
    DefinitionError,
    definition_problems,
    error_message,
    parse_definition,
)
from integrator_lab.core.integrators.conditions import rooted_trees, splitting_order, tableau_order
from integrator_lab.core.integrators.runge_kutta import DORMAND_PRINCE

TEMPLATE = {key: value["definition"] for key, value in TEMPLATES.items()}

VERLET_CODE = """\
NAME = "my-verlet"
ORDER = 2


def step(accel, q, v, t, dt):
    a = accel(q, v, t)
    half = [u + 0.5 * dt * b for u, b in zip(v, a)]
    q_new = [x + dt * u for x, u in zip(q, half)]
    a_new = accel(q_new, half, t + dt)
    v_new = [u + 0.5 * dt * b for u, b in zip(half, a_new)]
    return q_new, v_new
"""


def python(code, name=None):
    data = {"kind": "python", "code": code}
    if name:
        data["name"] = name
    return data


# -- order conditions -----------------------------------------------------------------------
def test_rooted_trees_give_1_1_2_4_9_conditions_for_orders_1_to_5():
    assert [len(rooted_trees(n)) for n in range(1, 6)] == [1, 1, 2, 4, 9]


@pytest.mark.parametrize(
    "name", [n for n, cls in INTEGRATORS.items() if hasattr(cls, "tableau") and n != "rk45"]
)
def test_computed_order_of_every_builtin_tableau_is_its_declared_order(name):
    tab = INTEGRATORS[name].tableau
    assert tableau_order(tab.a, tab.b).order == INTEGRATORS[name].order


def test_dormand_prince_meets_every_condition_up_to_five():
    result = tableau_order(DORMAND_PRINCE.a, DORMAND_PRINCE.b)
    assert (result.order, result.at_least) == (5, True)


def test_kutta_three_eighths_rule_is_fourth_order_exactly():
    third = Fraction(1, 3)
    a = [[0, 0, 0, 0], [third, 0, 0, 0], [-third, 1, 0, 0], [1, -1, 1, 0]]
    b = [Fraction(1, 8), Fraction(3, 8), Fraction(3, 8), Fraction(1, 8)]
    result = tableau_order(a, b)
    assert (result.order, result.exact, result.at_least) == (4, True, False)


@pytest.mark.parametrize("name", ["symplectic-euler", "velocity-verlet", "leapfrog", "yoshida4"])
def test_computed_order_and_evaluations_of_builtin_splittings(name):
    cls = INTEGRATORS[name]
    definition = parse_definition(
        {"kind": "splitting", "name": "copy", "sequence": [list(entry) for entry in cls.sequence]}
    )
    assert definition.order == cls.order
    assert definition.evaluations == cls.evaluations
    assert definition.symmetric == (name != "symplectic-euler")


def test_ruths_third_order_method_is_third_order_and_not_symmetric():
    """Ruth (1983): kicks 7/24, 3/4, -1/24 alternating with drifts 2/3, -2/3, 1: third order;
    not palindromic, so odd order is possible; read backwards it is third order too."""
    sequence = [
        ["kick", "7/24"],
        ["drift", "2/3"],
        ["kick", "3/4"],
        ["drift", "-2/3"],
        ["kick", "-1/24"],
        ["drift", 1],
    ]
    definition = parse_definition({"kind": "splitting", "name": "ruth3", "sequence": sequence})
    assert (definition.order, definition.symmetric) == (3, False)
    assert definition.result.exact
    assert splitting_order([(k, Fraction(w)) for k, w in reversed(sequence)]).order == 3


def test_yoshida_triple_jump_of_forest_ruth_reaches_the_limit_of_the_check():
    """Composing a symmetric 4th-order method as w1, w0, w1 with 2 w1 + w0 = 1 and
    2 w1^5 + w0^5 = 0 gives 6th order (Yoshida 1990)."""
    w1 = 1 / (2 - 2 ** (1 / 5))
    w0 = 1 - 2 * w1
    base = TEMPLATE["forest-ruth"]["sequence"]
    sequence = [[k, w * f] for f in (w1, w0, w1) for k, w in base]
    definition = parse_definition({"kind": "splitting", "name": "y6", "sequence": sequence})
    assert (definition.order, definition.result.at_least, definition.symmetric) == (6, True, True)


# -- the templates and the done-when ------------------------------------------------------
def test_ralston_is_accepted_reported_second_order_and_measures_second_order():
    definition = parse_definition(TEMPLATE["ralston"])
    info = definition.describe()
    assert (info["order"], info["order_text"], info["order_exact"]) == (2, "order 2", True)
    run = study(
        "spring", [TEMPLATE["ralston"]], duration=2.0, dt_max=0.2, dt_min=0.005, points=8
    ).run("ralston")
    assert run.order == 2 and abs(run.slope - 2) < 0.2, run.to_dict()


def test_ralston_as_rounded_floats_is_second_order_within_the_tolerance():
    data = {
        "kind": "tableau",
        "name": "ralston-floats",
        "a": [[0, 0], [2 / 3, 0]],
        "b": [0.25, 0.75],
        "c": [0, 2 / 3],
    }
    info = parse_definition(data).describe()
    assert (info["order"], info["order_exact"]) == (2, False)


def test_forest_ruth_reports_and_measures_fourth_order_on_the_undamped_spring():
    definition = parse_definition(TEMPLATE["forest-ruth"])
    assert (definition.order, definition.symmetric, definition.evaluations) == (4, True, 3)
    run = study(
        "spring",
        [TEMPLATE["forest-ruth"]],
        duration=2.0,
        dt_max=0.2,
        dt_min=0.005,
        points=8,
        damping=0,
    ).run("forest-ruth")
    assert run.order == 4 and abs(run.slope - 4) < 0.2, run.to_dict()


@pytest.mark.parametrize("system", ["spring", "cradle", "drag"])
def test_euler_template_reproduces_builtin_euler_bitwise(system):
    _, (builtin, mine) = simulate_many(system, ["euler", TEMPLATE["euler-code"]], duration=0.5)
    assert mine.integrator == "my-euler"
    assert (mine.q, mine.v, mine.dissipated) == (builtin.q, builtin.v, builtin.dissipated)


def test_a_tableau_runs_through_the_builtin_stage_loop():
    """RK4's tableau typed in by a user gives the built-in rk4's trajectory bit for bit."""
    rk4 = {
        "kind": "tableau",
        "name": "my-rk4",
        "c": [0, "1/2", "1/2", 1],
        "a": [[0, 0, 0, 0], ["1/2", 0, 0, 0], [0, "1/2", 0, 0], [0, 0, 1, 0]],
        "b": ["1/6", "1/3", "1/3", "1/6"],
    }
    _, (builtin, mine) = simulate_many("pendulum", ["rk4", rk4], duration=2.0, dt=0.05)
    assert parse_definition(rk4).order == 4
    assert (mine.q, mine.v) == (builtin.q, builtin.v)


@pytest.mark.parametrize(
    ("system", "params"), [("pendulum", {"theta0": 2.5}), ("spring", {"damping": 0.0})]
)
def test_python_velocity_verlet_reproduces_the_builtin(system, params):
    _, (builtin, mine) = simulate_many(
        system, ["velocity-verlet", python(VERLET_CODE)], duration=5.0, **params
    )
    assert mine.integrator == "my-verlet"
    worst = max(
        abs(a - b)
        for x, y in ((builtin.q, mine.q), (builtin.v, mine.v))
        for r, s in zip(x, y)
        for a, b in zip(r, s)
    )
    assert worst <= 1e-12


def _energy_error(result):
    return max(abs(total - result.total[0]) for total in result.total)


def test_python_verlet_conserves_the_total_like_the_builtin_on_the_damped_spring():
    """total = K + P + W: the user's Verlet (W integrated with the method's own weights) errs
    about as much as the built-in (whose kicks differ under damping: they take a predicted
    velocity), and far less than the work dissipated, which a method that lost track of W
    would show as its error."""
    _, (builtin, mine) = simulate_many(
        "spring", ["velocity-verlet", python(VERLET_CODE)], duration=5.0
    )
    assert 1 / 3 <= _energy_error(mine) / _energy_error(builtin) <= 3
    assert _energy_error(mine) < 0.01 * mine.dissipated[-1]


RK4_CODE = """\
NAME = "my-rk4"


def step(accel, q, v, t, dt):
    def shift(x, k, h):
        return [xi + h * ki for xi, ki in zip(x, k)]

    a1 = accel(q, v, t)
    q2, v2 = shift(q, v, dt / 2), shift(v, a1, dt / 2)
    a2 = accel(q2, v2, t + dt / 2)
    q3, v3 = shift(q, v2, dt / 2), shift(v, a2, dt / 2)
    a3 = accel(q3, v3, t + dt / 2)
    q4, v4 = shift(q, v3, dt), shift(v, a3, dt)
    a4 = accel(q4, v4, t + dt)
    q_new = [x + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
             for x, k1, k2, k3, k4 in zip(q, v, v2, v3, v4)]
    v_new = [u + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
             for u, k1, k2, k3, k4 in zip(v, a1, a2, a3, a4)]
    return q_new, v_new
"""


def test_python_rk4_integrates_the_dissipated_work_to_fourth_order():
    """The same method coded by hand: the dissipated work agrees with the built-in rk4's to
    rounding, and the error of the total shrinks 16-fold when dt halves (a separate
    second-order quadrature of the power would leave a dt^2 error)."""
    errors = []
    for dt in (0.01, 0.005):
        _, (builtin, mine) = simulate_many(
            "spring", ["rk4", python(RK4_CODE)], duration=5.0, dt=dt, damping=0.5
        )
        assert max(abs(a - b) for a, b in zip(builtin.dissipated, mine.dissipated)) < 1e-12
        errors.append(_energy_error(mine))
    assert 12 < errors[0] / errors[1] < 20


# -- user code failures -----------------------------------------------------------------------
FAILS_AT_STEP_100 = """\
NAME = "fragile"
calls = 0


def step(accel, q, v, t, dt):
    global calls
    calls += 1
    divisor = 0.0 if calls == 100 else 1.0
    a = accel(q, v, t)
    q = [x + dt * u / divisor for x, u in zip(q, v)]
    return q, [u + dt * b for u, b in zip(v, a)]
"""


def test_exception_at_step_100_names_its_line_and_the_others_continue():
    runner = Runner(get_system("spring"), ["euler", python(FAILS_AT_STEP_100)], dt=0.01)
    runner.advance(300)
    euler, fragile = runner.lanes
    assert euler.diverged_at is None and euler.history[-1][0] == pytest.approx(3.0)
    assert fragile.diverged_at is not None
    # (Python 3.14, in Pyodide, words it "division by zero", 3.11 "float division by zero")
    assert fragile.reason.startswith("line 10: ZeroDivisionError: ")
    assert "division by zero" in fragile.reason
    assert "step 100" in fragile.reason


def test_error_message_of_a_syntax_error_gives_its_line():
    problems = definition_problems(
        python("NAME = 'x'\n\ndef step(accel, q, v, t, dt)\n    return q, v\n")
    )
    assert len(problems) == 1 and problems[0].startswith("line 3: SyntaxError: "), problems


def test_error_message_outside_user_code_has_no_line():
    assert error_message(ZeroDivisionError("float division by zero")) == (
        "ZeroDivisionError: float division by zero"
    )


NON_FINITE = """\
def step(accel, q, v, t, dt):
    return [x * 1e300 for x in q], [u * 1e300 for u in v]
"""


def test_a_non_finite_result_marks_the_method_diverged():
    result = simulate("spring", python(NON_FINITE, name="blows-up"), duration=1.0)
    assert result.diverged_at is not None
    assert result.integrator == "blows-up"


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("x = 1\n", "step: not defined"),
        ("def step(q, v):\n    return q, v\n", "line 1: step must take five arguments"),
        (
            "NAME = 'rk4'\ndef step(accel, q, v, t, dt):\n    return q, v\n",
            "NAME: 'rk4' is the built-in integrator 'rk4'",
        ),
        (
            "ORDER = 0\nNAME = 'a'\ndef step(accel, q, v, t, dt):\n    return q, v\n",
            "ORDER: got 0, expected an integer in [1, 20]",
        ),
        ("import no_such_module_here\n", "line 1: ModuleNotFoundError"),
        ("def step(accel, q, v, t, dt):\n    return q, v\n", "name: missing"),
    ],
)
def test_bad_code_is_rejected_with_a_message_naming_the_fault(code, expected):
    problems = definition_problems(python(code))
    assert len(problems) == 1 and problems[0].startswith(expected), problems


WRONG_RETURN = "NAME = 'short'\ndef step(accel, q, v, t, dt):\n    return q[:1], v[:1]\n"


def test_a_step_returning_the_wrong_shape_stops_with_a_message():
    result = simulate("spring", python(WRONG_RETURN), duration=0.1)
    # the first step fails: dated at its end, like any failing step
    assert result.diverged_at == result.dt
    runner = Runner(get_system("spring"), [python(WRONG_RETURN)])
    runner.advance(1)
    assert "step returned q with 1 entries, expected 2" in runner.lanes[0].reason


def test_python_code_can_be_refused():
    with pytest.raises(DefinitionError, match="not allowed"):
        parse_definition(python(VERLET_CODE), allow_code=False)
    assert parse_definition(TEMPLATE["ralston"], allow_code=False).order == 2


# -- validation of data -------------------------------------------------------------------------
def tableau(**fields):
    data = {
        "kind": "tableau",
        "name": "t",
        "a": [[0, 0, 0], ["1/2", 0, 0], ["1/4", "1/4", 0]],
        "b": [0, 0, 1],
        "c": [0, "1/2", "1/2"],
    }
    data.update(fields)
    return data


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"c": [0, "1/2", "3/4"]}, "a[2][1]: row 2 of a sums to 1/2 but c[2] = 3/4"),
        (
            {"a": [[0, 1, 0], ["1/2", 0, 0], ["1/4", "1/4", 0]], "c": [1, "1/2", "1/2"]},
            "a[0][1]: must be 0 (explicit methods: a strictly lower triangular)",
        ),
        ({"b": [0, "1/2", "1/4"]}, "b: sums to 3/4, expected 1"),
        ({"b": [0, 1]}, "b: has 2 entries, expected 3"),
        ({"a": [[0, 0, 0], ["1/2", 0]]}, "a: has 2 rows, expected 3"),
        ({"c": [0, "half", "1/2"]}, "c[1]: got 'half', expected a finite number"),
        ({"b": [0, 0, float("nan")]}, "b[2]: got nan, expected a finite number"),
        ({"b": [0, 0, True]}, "b[2]: got True"),
        ({"name": "Euler"}, "name: 'Euler' is the built-in integrator 'euler'"),
        ({"name": "a,b"}, "name: got 'a,b', expected at most 40 letters"),
        ({"d": 1}, "d: unknown key for a tableau definition"),
        ({"kind": "rk"}, "kind: got 'rk', expected one of: tableau, splitting, python"),
    ],
)
def test_bad_tableaux_name_the_entry(fields, expected):
    problems = definition_problems(tableau(**fields))
    assert problems and problems[0].startswith(expected), problems
    with pytest.raises(
        DefinitionError,
        match="^"
        + expected.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(").replace(")", r"\)"),
    ):
        parse_definition(tableau(**fields))


def splitting(sequence):
    return {"kind": "splitting", "name": "s", "sequence": sequence}


@pytest.mark.parametrize(
    ("sequence", "expected"),
    [
        ([["kick", 1], ["drift", "1/2"]], "sequence: the drift weights sum to 1/2, expected 1"),
        ([["kick", 0.5], ["drift", 1.0], ["kick", 0.4]], "sequence: the kick weights sum to 0.9"),
        ([["kick", 1], ["jump", 1]], "sequence[1]: kind 'jump', expected 'kick' or 'drift'"),
        ([["kick", 1], ["drift", 1], ["kick", 0]], "sequence[2]: weight 0"),
        ([["kick", 1], ["kick", 0]], "sequence[1]: weight 0"),
        ([["kick", 1], ["kick", "x"]], "sequence[1]: got 'x'"),
        ([["kick", 1], "drift"], "sequence[1]: got 'drift', expected a pair"),
        ([["kick", 1]], "sequence: has 1 entries, expected 2 to 64"),
        ([["kick", 0.5], ["kick", 0.5]], "sequence: has no drift"),
    ],
)
def test_bad_sequences_name_the_entry(sequence, expected):
    problems = definition_problems(splitting(sequence))
    assert problems and problems[0].startswith(expected), problems


def test_definitions_round_trip_through_json():
    for data in TEMPLATE.values():
        definition = parse_definition(data)
        again = parse_definition(json.loads(json.dumps(definition.to_dict())))
        assert again.to_dict() == definition.to_dict()
        assert again.describe() == definition.describe()
    assert parse_definition(TEMPLATE["ralston"]).to_dict()["a"] == [[0, 0], ["2/3", 0]]


def test_runner_rejects_two_methods_of_one_name():
    with pytest.raises(ValueError, match="duplicates"):
        Runner(get_system("spring"), [TEMPLATE["ralston"], dict(TEMPLATE["ralston"])])


def test_simulate_accepts_a_parsed_definition_and_names_the_run_after_it():
    definition = parse_definition(TEMPLATE["forest-ruth"])
    result = simulate("pendulum", definition, duration=1.0)
    assert result.integrator == "forest-ruth" and result.diverged_at is None
    with pytest.raises(ValueError, match="expected an integrator name or a definition"):
        simulate("pendulum", 3, duration=1.0)
