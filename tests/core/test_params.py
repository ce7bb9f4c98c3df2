"""Bad input is refused with a message that names the culprit and what it accepts.

The cases are generated from each system's declared parameters (``SYSTEMS[name].PARAMS``),
so a parameter added later is covered without touching this file.
"""

from __future__ import annotations

import math

import pytest

from integrator_lab.core import INTEGRATORS, SYSTEMS, Runner, get_integrator, get_system, simulate

# values no numeric parameter may accept, whatever its range
NON_NUMBERS = {
    "nan": math.nan,
    "inf": math.inf,
    "-inf": -math.inf,
    "None": None,
    "True": True,
    "False": False,
    "list": [1.0],
    "empty-list": [],
    "dict": {},
    "abc": "abc",
    "empty-string": "",
    "nan-string": "nan",
    "inf-string": "inf",
}
# values no choice parameter may accept
NON_CHOICES = {
    "unknown": "no-such-choice",
    "empty-string": "",
    "None": None,
    "int": 1,
    "True": True,
    "list": ["linear"],
}


def _declared():
    for system_name, cls in SYSTEMS.items():
        for param in cls.PARAMS:
            yield system_name, param


def _bad_values(param):
    """Every value ``param`` must reject, with a readable id."""
    if param.kind == "choice":
        yield from NON_CHOICES.items()
        return
    yield from NON_NUMBERS.items()
    if param.min is not None:
        # the closest representable number below the range, and one well below it
        yield "just-below-min", math.nextafter(param.min, -math.inf)
        yield "below-min", param.min - 1.0
        if param.min_open:
            yield "at-open-min", param.min
    if param.max is not None:
        yield "just-above-max", math.nextafter(param.max, math.inf)
        yield "above-max", param.max + 1.0
        if param.max_open:
            yield "at-open-max", param.max
    if param.kind == "int":
        inside = param.min if param.min is not None else 0
        yield "non-integer", inside + 0.5
        yield "non-integer-string", f"{inside + 0.5}"


BAD_CASES = [
    pytest.param(system_name, param, value, id=f"{system_name}-{param.name}-{label}")
    for system_name, param in _declared()
    for label, value in _bad_values(param)
]


@pytest.mark.parametrize(("system_name", "param", "value"), BAD_CASES)
def test_bad_parameter_value_is_rejected_naming_it_and_its_range(system_name, param, value):
    with pytest.raises(ValueError) as info:
        get_system(system_name, **{param.name: value})
    message = str(info.value)
    assert f"'{param.name}'" in message
    assert param.accepted() in message


def test_every_declared_parameter_has_a_usable_declaration():
    """The matrix above is only as complete as the declarations: every numeric parameter has
    both bounds (so that 'below min' and 'above max' are tested), every choice has choices."""
    for system_name, param in _declared():
        if param.kind == "choice":
            assert param.choices and param.default in param.choices, (system_name, param.name)
        else:
            assert param.kind in ("float", "int"), (system_name, param.name)
            assert param.min is not None and param.max is not None, (system_name, param.name)
            assert param.min <= param.default <= param.max, (system_name, param.name)


def _closed_bounds():
    for system_name, param in _declared():
        if param.kind == "choice":
            continue
        if not param.min_open:
            yield pytest.param(
                system_name, param.name, param.min, id=f"{system_name}-{param.name}-min"
            )
        if not param.max_open:
            yield pytest.param(
                system_name, param.name, param.max, id=f"{system_name}-{param.name}-max"
            )


# a parameter constrained by another one gets room from that one
CONTEXT = {("cradle", "lifted"): {"balls": 10}}


@pytest.mark.parametrize(("system_name", "name", "value"), list(_closed_bounds()))
def test_closed_bounds_are_accepted(system_name, name, value):
    params = dict(CONTEXT.get((system_name, name), {}))
    params[name] = value
    system = get_system(system_name, **params)
    assert system.params[name] == value


CHOICES = [
    pytest.param(system_name, param.name, choice, id=f"{system_name}-{param.name}-{choice}")
    for system_name, param in _declared()
    if param.kind == "choice"
    for choice in param.choices
]


@pytest.mark.parametrize(("system_name", "name", "choice"), CHOICES)
def test_every_choice_works_with_the_other_parameters_at_their_defaults(system_name, name, choice):
    """A user who picks a choice in a menu and touches nothing else must get a system,
    not an error about a parameter they never set."""
    system = get_system(system_name, **{name: choice})
    assert system.params[name] == choice


def test_numeric_strings_are_accepted_and_converted():
    spring = get_system("spring", mass="1.5", stiffness=" 20 ", damping="0")
    assert spring.params["mass"] == 1.5 and isinstance(spring.params["mass"], float)
    assert spring.params["stiffness"] == 20.0 and isinstance(spring.params["stiffness"], float)
    cradle = get_system("cradle", balls="3", lifted="2.0")
    assert cradle.params["balls"] == 3 and isinstance(cradle.params["balls"], int)
    assert cradle.params["lifted"] == 2 and isinstance(cradle.params["lifted"], int)
    assert cradle.n == 3


@pytest.mark.parametrize("typed", ["1_0", "\u0661", "inf", "nan", "Infinity", "0x10", "1e", ""])
def test_only_decimal_numbers_as_people_write_them_are_read_from_strings(typed):
    """Python's float() also reads "1_0" (10), Arabic-Indic digits, "inf": a field of the
    page refuses them (static/js/params.js, held to this by tests/js/params.test.mjs), and so
    does the core, whatever reads the string (a link, the command line)."""
    with pytest.raises(ValueError, match="mass"):
        get_system("spring", mass=typed)


@pytest.mark.parametrize("system_name", list(SYSTEMS))
def test_unknown_parameter_name_lists_the_valid_ones(system_name):
    with pytest.raises(ValueError) as info:
        get_system(system_name, no_such_parameter=1.0)
    message = str(info.value)
    assert "no_such_parameter" in message
    for param in SYSTEMS[system_name].PARAMS:
        assert param.name in message


@pytest.mark.parametrize(
    "name",
    ["pendulums", "", "Spring", None, 3, ["spring"]],
    ids=["typo", "empty", "wrong-case", "None", "int", "list"],
)
def test_unknown_system_lists_the_valid_names(name):
    with pytest.raises(ValueError) as info:
        get_system(name)
    for valid in SYSTEMS:
        assert valid in str(info.value)


@pytest.mark.parametrize(
    "name",
    ["rk5", "", "Euler", None, 4, ["rk4"]],
    ids=["typo", "empty", "wrong-case", "None", "int", "list"],
)
def test_unknown_integrator_lists_the_valid_names(name):
    with pytest.raises(ValueError) as info:
        get_integrator(name)
    for valid in INTEGRATORS:
        assert valid in str(info.value)


def test_simulate_with_unknown_integrator_lists_the_valid_names():
    with pytest.raises(ValueError) as info:
        simulate("spring", "verlet", duration=1.0)
    for valid in INTEGRATORS:
        assert valid in str(info.value)


BAD_TIMES = {
    "zero": 0.0,
    "negative": -0.01,
    "nan": math.nan,
    "inf": math.inf,
    "-inf": -math.inf,
    "abc": "abc",
    "bool": True,
    "list": [0.01],
}


@pytest.mark.parametrize("value", list(BAD_TIMES.values()), ids=list(BAD_TIMES))
def test_simulate_rejects_bad_dt_naming_it(value):
    with pytest.raises(ValueError, match="'dt'"):
        simulate("spring", "euler", dt=value, duration=1.0)


@pytest.mark.parametrize("value", [*BAD_TIMES.values(), None], ids=[*BAD_TIMES, "None"])
def test_simulate_rejects_bad_duration_naming_it(value):
    with pytest.raises(ValueError, match="'duration'"):
        simulate("spring", "euler", dt=0.01, duration=value)


def test_simulate_accepts_numeric_strings_for_dt_and_duration():
    result = simulate("spring", "euler", dt="0.01", duration="0.1")
    assert result.t[-1] == pytest.approx(0.1, rel=1e-12)
    assert len(result.t) == 11  # t = 0 plus ten steps of 0.01 s


@pytest.mark.parametrize("every", [0, -1, 1.5, True, "2", None])
def test_runner_rejects_bad_sampling_interval(every):
    with pytest.raises(ValueError, match="'every'"):
        Runner(get_system("spring"), ["euler"], every=every)


@pytest.mark.parametrize(
    "names", [[], ["euler", "euler"], ["euler", "nope"]], ids=["none", "duplicate", "unknown"]
)
def test_runner_rejects_bad_integrator_lists(names):
    with pytest.raises(ValueError, match="integrator"):
        Runner(get_system("spring"), names)


@pytest.mark.parametrize(("balls", "lifted"), [(2, 3), (5, 6), (3, 10)])
def test_cradle_cannot_lift_more_balls_than_it_has(balls, lifted):
    with pytest.raises(ValueError) as info:
        get_system("cradle", balls=balls, lifted=lifted)
    message = str(info.value)
    assert "'lifted'" in message
    assert f"[0, {balls}]" in message


@pytest.mark.parametrize("drag", [1.0, 1.5, 1000.0])
def test_bullet_drag_is_a_fraction_below_one(drag):
    """Bullet's factor (1 - k)^dt is only a damping for k < 1 (k = 1 stops the body dead;
    k > 1 makes a negative base)."""
    with pytest.raises(ValueError) as info:
        get_system("drag", model="bullet", drag=drag)
    message = str(info.value)
    assert "'drag'" in message and "[0, 1)" in message
    # the same value is fine for the models where k is a rate in 1/s
    assert get_system("drag", model="unity", drag=drag).params["drag"] == drag


def test_parameters_go_with_a_system_name_not_an_instance():
    with pytest.raises(ValueError):
        simulate(get_system("spring"), "euler", duration=1.0, mass=2.0)


# -- what people read: label, symbol and unit, declared once ----------------------------------
ALL_PARAMS = [(system, p) for system, cls in SYSTEMS.items() for p in cls.PARAMS]


@pytest.mark.parametrize("system, p", ALL_PARAMS, ids=[f"{s}.{p.name}" for s, p in ALL_PARAMS])
def test_every_parameter_declares_a_readable_title(system, p):
    # a label in words (not the code name with its underscores), and a unit as it is printed
    assert p.label and "_" not in p.label
    assert "^" not in p.unit, "units are written as read: m/s², not m/s^2"
    words = f"{p.label} {p.symbol}" if p.symbol else p.label
    assert p.title == (f"{words} ({p.unit})" if p.unit else words)
    data = p.to_dict()
    assert (data["label"], data["symbol"], data["title"]) == (p.label, p.symbol, p.title)


def test_titles_carry_the_textbook_symbols_and_units():
    def title(system, name):
        return next(p for p in SYSTEMS[system].PARAMS if p.name == name).title

    assert title("pendulum", "theta0") == "initial angle θ₀ (rad)"
    assert title("pendulum", "omega0") == "initial angular velocity ω₀ (rad/s)"
    assert title("pendulum", "gravity") == "gravity g (m/s²)"
    assert title("cradle", "gravity") == "gravity g (m/s²)"
    assert title("spring", "x0") == "initial position x₀ (m)"
    assert title("spring", "damping") == "damping b (N·s/m)"
