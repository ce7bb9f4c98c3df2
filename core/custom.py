"""Your own integrator: a method defined as data or as Python code, validated, and raced
against the built-ins by the same runner, simulation and study code.

Three kinds of definition, each a JSON-ready dict with a ``kind`` and a ``name``:

* ``{"kind": "tableau", "name": ..., "a": [[...], ...], "b": [...], "c": [...]}``: an explicit
  Runge-Kutta method. It is validated by the rules the core's own tableaux obey
  (:func:`~integrator_lab.core.integrators.runge_kutta.tableau_problems`) and runs through
  the same stage loop (:class:`~integrator_lab.core.integrators.RungeKutta`); its order comes
  from the order conditions (:func:`~integrator_lab.core.integrators.conditions.tableau_order`).
  Entries are numbers or exact fractions and decimals written as strings (``"2/3"``,
  ``"0.75"``); with exact entries the conditions are checked exactly.
* ``{"kind": "splitting", "name": ..., "sequence": [["kick", w], ["drift", w], ...]}``: a
  composition of drifts (``q += w dt v``) and kicks (``v += w dt a``), run by the built-ins'
  kick/drift machinery (:class:`~integrator_lab.core.integrators.Splitting`, which also
  evaluates kicks at a predicted velocity under damping); the drift weights and the kick
  weights each sum to one. Its order, symmetry (palindromic sequence) and force evaluations
  per step are computed from the sequence.
* ``{"kind": "python", "name": ..., "code": "..."}``: a module that defines
  ``step(accel, q, v, t, dt) -> (q, v)``, and optionally ``NAME = "..."`` (which wins over
  ``name``) and ``ORDER = n`` (declared, not checked). ``accel(q, v, t)`` returns the
  accelerations. See :class:`PythonIntegrator` for how the dissipated work stays right.

:func:`parse_definition` turns a dict into a definition (or raises :class:`DefinitionError`
naming the entry at fault); :func:`definition_problems` lists every problem instead, for an
editor; ``definition.to_dict()`` gives the JSON back and ``definition.describe()`` what a view
shows (order, symmetry, evaluations). :class:`~integrator_lab.core.Runner`,
:func:`~integrator_lab.core.simulate` and :class:`~integrator_lab.core.Study` accept a
definition (or its dict) wherever they accept an integrator name.

**Running Python code is not sandboxed**: CPython (and Pyodide) cannot confine it, so the code
can do anything the process can. The command line runs files the user chose on their own
machine; a server must run visitors' code only when its operator explicitly allowed it
(``parse_definition(..., allow_code=False)`` refuses the ``python`` kind). Code that never
returns cannot be stopped from inside the process: the caller must run it where it can be
killed (the page's worker is replaced; on the command line, Ctrl-C).
"""

from __future__ import annotations

import ast
import inspect
import math
import numbers
import re
import traceback
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from types import CodeType
from typing import TYPE_CHECKING, Any, TypeAlias, TypeGuard, cast

from .integrators import INTEGRATORS, ConvergenceError, Integrator, get_integrator
from .integrators.conditions import (
    TOLERANCE,
    Coefficient,
    is_palindromic,
    kick_evaluations,
    splitting_order,
    tableau_order,
)
from .integrators.runge_kutta import ButcherTableau, RungeKutta, format_number, tableau_problems
from .integrators.splitting import Splitting
from .usercode import CODE_FILENAME, compile_module, reraise_process_wide, run_module

if TYPE_CHECKING:
    from .systems.base import Dynamics, State, Vector

#: a definition as JSON (a dict from a file, a link, a form). Any: parsed JSON, whose values
#: are checked one by one (every problem named) before anything uses them
JSONObject: TypeAlias = dict[str, Any]
#: ``accel(q, v, t)`` as a user's step receives it (see :class:`PythonIntegrator`)
Accel: TypeAlias = Callable[[Sequence[float], Sequence[float], float], list[float]]
#: a user's ``step(accel, q, v, t, dt) -> (q, v)``. Any: what user code returns, checked by
#: :func:`_real_list` after every call
UserStep: TypeAlias = Callable[[Accel, list[float], list[float], float, float], Any]

KINDS = ("tableau", "splitting", "python")
#: limits that keep a definition (from a link, a form) reasonable
MAX_STAGES = 16
MAX_SEQUENCE = 64
MAX_CODE_CHARS = 100_000
MAX_NAME_CHARS = 40
MAX_DECLARED_ORDER = 20
_NAME_PATTERN = r"[^\W_][\w .+\-\u2013()']*"
_KEYS = {
    "tableau": ("kind", "name", "a", "b", "c"),
    "splitting": ("kind", "name", "sequence"),
    "python": ("kind", "name", "code"),
}


class DefinitionError(ValueError):
    """A definition that cannot be run: the message names the entry at fault."""


class UserCodeError(ConvergenceError):
    """User code failed during a step; the message gives its line and the exception.

    A :class:`ConvergenceError`, so that every loop that stops one integrator whose step
    failed (the runner, the study) stops this one the same way, with this message, while the
    others go on.
    """


# -- validation helpers ---------------------------------------------------------------------
#: bounds on one coefficient, checked before any arithmetic so that no definition can make the
#: exact (rational) order conditions run long: the characters of an entry written as a
#: string, the decimal exponent it may carry, its magnitude, and the least common denominator
#: of a definition's exact entries (the conditions' fractions have denominators that divide
#: powers of it, so their size stays a few times its digits)
MAX_ENTRY_CHARS = 40
MAX_EXPONENT = 30
MAX_COEFFICIENT = 1e6
MAX_DENOMINATOR_DIGITS = 40
_EXPONENT = r"[eE]\s*([+-]?\d+)"  # a decimal exponent in a string entry


def _number(value: object, where: str, problems: list[str]) -> Coefficient | None:
    """An exact ``Fraction`` (ints, fractions, strings like ``"2/3"`` or ``"0.75"``) or a
    finite float of magnitude at most :data:`MAX_COEFFICIENT`; None (and a problem)
    otherwise."""
    number: Coefficient | None = None
    if isinstance(value, bool):
        pass
    elif isinstance(value, (int, Fraction)):
        number = Fraction(value)
    elif isinstance(value, float):
        if math.isfinite(value):
            number = value
    elif isinstance(value, str):
        text = value.strip()
        if len(text) > MAX_ENTRY_CHARS:
            problems.append(
                f"{where}: got a string of {len(text)} characters, expected at most "
                f"{MAX_ENTRY_CHARS}, like '2/3' or '0.75'"
            )
            return None
        exponent = re.search(_EXPONENT, text)
        if exponent is not None and abs(int(exponent.group(1))) > MAX_EXPONENT:
            problems.append(
                f"{where}: got {text!r}, expected a number in [-{MAX_COEFFICIENT:g}, "
                f"{MAX_COEFFICIENT:g}] with a decimal exponent in [-{MAX_EXPONENT}, {MAX_EXPONENT}]"
            )
            return None
        try:
            number = Fraction(text)
        except (ValueError, ZeroDivisionError):
            pass
    if number is None:
        problems.append(
            f"{where}: got {value!r:.60}, expected a finite number or an exact fraction "
            "or decimal as a string, like '2/3' or '0.75'"
        )
        return None
    if not -MAX_COEFFICIENT <= number <= MAX_COEFFICIENT:
        problems.append(
            f"{where}: got {_short(value)}, expected a number in "
            f"[-{MAX_COEFFICIENT:g}, {MAX_COEFFICIENT:g}]"
        )
        return None
    return number


def _short(value: object) -> str:
    """``value`` for a message: a huge integer by its number of digits."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**30:
        return f"an integer of {len(str(abs(value)))} digits"
    return f"{value!r:.60}"


def _denominators_problem(entries: Iterable[tuple[str, Coefficient]]) -> str | None:
    """Why the exact entries' least common denominator is too large (naming the first entry
    that makes it so), or None."""
    limit = 10**MAX_DENOMINATOR_DIGITS
    common = 1
    for where, x in entries:
        if isinstance(x, Fraction):
            common = math.lcm(common, x.denominator)
            if common > limit:
                return (
                    f"{where}: its denominator makes the entries' least common denominator "
                    f"exceed 10^{MAX_DENOMINATOR_DIGITS}; expected simpler fractions "
                    "(or decimals)"
                )
    return None


def _list(
    value: object, where: str, problems: list[str], length_hint: str = "entries"
) -> list[object] | None:
    if isinstance(value, (list, tuple)):
        return list(value)
    problems.append(
        f"{where}: got {type(value).__name__} {value!r:.40}, expected a list of {length_hint}"
    )
    return None


def _json_number(x: Coefficient) -> int | str | float:
    """An entry as JSON: exact fractions as strings (``"2/3"``; integers as numbers)."""
    if isinstance(x, Fraction):
        return x.numerator if x.denominator == 1 else str(x)
    return x


def name_problem(name: object) -> str | None:
    """Why ``name`` cannot name a method, or None."""
    if name is None:
        return f"name: missing; give the method a name of at most {MAX_NAME_CHARS} characters"
    if not isinstance(name, str) or not name.strip():
        return (
            f"name: got {name!r}, expected a non-empty name of at most {MAX_NAME_CHARS} characters"
        )
    if len(name) > MAX_NAME_CHARS or not re.fullmatch(_NAME_PATTERN, name):
        return (
            f"name: got {name!r}, expected at most {MAX_NAME_CHARS} letters, digits, "
            "spaces or _ . + - ( ) ', starting with a letter or a digit"
        )
    builtin = {n.lower(): n for n in INTEGRATORS}.get(name.lower())
    if builtin is not None:
        return f"name: {name!r} is the built-in integrator {builtin!r}; choose another name"
    return None


def _keys(data: JSONObject, kind: str, problems: list[str]) -> None:
    unknown = [key for key in data if key not in _KEYS[kind]]
    if unknown:
        problems.append(
            f"{unknown[0]}: unknown key for a {kind} definition; expected {', '.join(_KEYS[kind])}"
        )


# -- the definitions --------------------------------------------------------------------------
class MethodDefinition:
    """A validated method of one of the :data:`KINDS`."""

    kind = ""
    name = ""
    order: int | None = None

    def integrator(self) -> Integrator:
        """A new integrator instance running this method."""
        raise NotImplementedError

    def to_dict(self) -> JSONObject:
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:  # Any: JSON-ready values of several types
        """What a view shows: ``name``, ``kind``, ``order`` (None: not declared),
        ``order_text``, ``symplectic``, ``symmetric``, ``evaluations`` (None: unknown) and a
        one-line ``summary``."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{self.kind} method {self.name!r}>"


#: an integrator as callers give it: a built-in's name, or a user's method (parsed, or its JSON)
MethodEntry: TypeAlias = str | MethodDefinition | JSONObject
#: an integrator once resolved: a built-in's name (checked) or a parsed definition
Method: TypeAlias = str | MethodDefinition


class TableauMethod(MethodDefinition):
    """An explicit Runge-Kutta method from its Butcher tableau."""

    kind = "tableau"
    order: int  # computed from the order conditions

    def __init__(
        self, name: str, a: list[list[Coefficient]], b: list[Coefficient], c: list[Coefficient]
    ) -> None:
        self.name, self.a, self.b, self.c = name, a, b, c
        self.result = tableau_order(a, b)
        self.order = self.result.order
        self.tableau = ButcherTableau(
            c=tuple(map(float, c)),
            a=tuple(tuple(map(float, row)) for row in a),
            b=tuple(map(float, b)),
            tolerance=2 * TOLERANCE,
        )

    def integrator(self) -> CustomRungeKutta:
        return CustomRungeKutta(self)

    def to_dict(self) -> JSONObject:
        return {
            "kind": "tableau",
            "name": self.name,
            "a": [[_json_number(x) for x in row] for row in self.a],
            "b": [_json_number(x) for x in self.b],
            "c": [_json_number(x) for x in self.c],
        }

    def describe(self) -> dict[str, Any]:
        result, stages = self.result, len(self.b)
        summary = f"explicit Runge-Kutta, {stages} stage{'s' * (stages > 1)}, {result.text()}"
        if result.unmet is not None:
            text, value = result.unmet
            summary += (
                f" (the order-{result.order + 1} condition {text} gives {format_number(value)})"
            )
        return {
            "name": self.name,
            "kind": self.kind,
            "order": self.order,
            "order_text": result.text(),
            "order_exact": result.exact,
            "symplectic": False,
            "symmetric": False,
            "evaluations": stages,
            "stages": stages,
            "summary": summary,
        }


class SplittingMethod(MethodDefinition):
    """A composition of drifts and kicks."""

    kind = "splitting"
    order: int  # computed from the order conditions

    def __init__(self, name: str, sequence: list[tuple[str, Coefficient]]) -> None:
        self.name, self.sequence = name, sequence
        self.result = splitting_order(sequence)
        self.order = self.result.order
        self.symmetric = is_palindromic(sequence)
        self.evaluations = kick_evaluations(sequence)
        # with velocity-dependent forces, kicks at the predicted velocity are second-order
        # accurate (see Splitting): a higher order drops to 2, as Yoshida's does
        self.order_velocity_dependent = min(self.order, 2)

    def integrator(self) -> CustomSplitting:
        return CustomSplitting(self)

    def to_dict(self) -> JSONObject:
        return {
            "kind": "splitting",
            "name": self.name,
            "sequence": [[kind, _json_number(w)] for kind, w in self.sequence],
        }

    def describe(self) -> dict[str, Any]:
        symmetric = "symmetric" if self.symmetric else "not symmetric"
        return {
            "name": self.name,
            "kind": self.kind,
            "order": self.order,
            "order_velocity_dependent": self.order_velocity_dependent,
            "order_text": self.result.text(),
            "order_exact": self.result.exact,
            "symplectic": True,
            "symmetric": self.symmetric,
            "evaluations": self.evaluations,
            "stages": len(self.sequence),
            "summary": f"splitting, {self.result.text()}, {symmetric}, "
            f"{self.evaluations} force evaluation"
            f"{'s' * (self.evaluations != 1)} per step",
        }


class PythonMethod(MethodDefinition):
    """A method written as Python code (see :class:`PythonIntegrator`)."""

    kind = "python"

    def __init__(self, name: str, code: str, order: int | None, code_object: CodeType) -> None:
        self.name, self.code, self.order = name, code, order
        self._code_object = code_object

    def namespace(self) -> dict[str, Any]:
        """The module's globals after running its code once more (a fresh copy per run, so
        that state a method keeps in globals is its own)."""
        return run_module(self._code_object)

    def integrator(self) -> PythonIntegrator:
        return PythonIntegrator(self)

    def to_dict(self) -> JSONObject:
        return {"kind": "python", "name": self.name, "code": self.code}

    def describe(self) -> dict[str, Any]:
        order = "order not declared" if self.order is None else f"order {self.order} (declared)"
        return {
            "name": self.name,
            "kind": self.kind,
            "order": self.order,
            "order_text": order,
            "order_exact": False,
            "symplectic": False,
            "symmetric": False,
            "evaluations": None,
            "stages": None,
            "summary": f"Python code, {order}",
        }


# -- parsing ----------------------------------------------------------------------------------
def definition_problems(data: object, *, allow_code: bool = True) -> list[str]:
    """Every problem of the definition ``data`` (a dict), each a message starting with the
    entry it names; empty when it is valid."""
    problems: list[str] = []
    _parse(data, allow_code, problems)
    return problems


def parse_definition(data: object, *, allow_code: bool = True) -> MethodDefinition:
    """The definition ``data`` (a dict, or an already parsed definition), validated; a
    :class:`DefinitionError` names the first problem. ``allow_code=False`` refuses Python
    code (a server that did not opt in)."""
    if isinstance(data, MethodDefinition):
        if data.kind == "python" and not allow_code:
            raise DefinitionError(_CODE_REFUSED)
        return data
    problems: list[str] = []
    definition = _parse(data, allow_code, problems)
    if problems or definition is None:  # (a definition that is None came with a problem)
        raise DefinitionError(problems[0])
    return definition


_CODE_REFUSED = "kind: 'python' (running Python code) is not allowed here"


def _parse(data: object, allow_code: bool, problems: list[str]) -> MethodDefinition | None:
    if not isinstance(data, dict):
        problems.append(
            f"definition: got {type(data).__name__}, expected an object with "
            f"'kind' ({', '.join(KINDS)}) and 'name'"
        )
        return None
    kind = data.get("kind")
    if kind not in KINDS:
        problems.append(f"kind: got {kind!r}, expected one of: {', '.join(KINDS)}")
        return None
    if kind == "python" and not allow_code:
        problems.append(_CODE_REFUSED)
        return None
    _keys(data, kind, problems)
    if kind == "python":
        return _parse_python(data, problems)
    name = data.get("name")
    problem = name_problem(name)
    if problem:
        problems.append(problem)
    before = len(problems)
    definition = (_parse_tableau if kind == "tableau" else _parse_splitting)(data, problems)
    return definition if len(problems) == before and not problem else None


def _parse_tableau(data: JSONObject, problems: list[str]) -> TableauMethod | None:
    for key in ("a", "b", "c"):
        if key not in data:
            problems.append(f"{key}: missing; a tableau needs a (a square list of rows), b and c")
            return None
    c_entries = _list(data["c"], "c", problems)
    b_entries = _list(data["b"], "b", problems)
    a = _list(data["a"], "a", problems, "rows")
    if c_entries is None or b_entries is None or a is None:
        return None
    if not 1 <= len(c_entries) <= MAX_STAGES:
        problems.append(
            f"c: has {len(c_entries)} entries, expected 1 to {MAX_STAGES} (one per stage)"
        )
        return None
    stages, before = len(c_entries), len(problems)
    # the sizes first, so that no entry of an oversized list is looked at
    if len(a) != stages:
        problems.append(f"a: has {len(a)} rows, expected {stages} (one per entry of c)")
    if len(b_entries) != stages:
        problems.append(f"b: has {len(b_entries)} entries, expected {stages} (one per entry of c)")
    for i, entries in enumerate(a[:stages]):
        if isinstance(entries, (list, tuple)) and len(entries) != stages:
            problems.append(f"a[{i}]: has {len(entries)} entries, expected {stages} (a is square)")
    if len(problems) > before:
        return None
    parsed_c = [_number(x, f"c[{i}]", problems) for i, x in enumerate(c_entries)]
    parsed_b = [_number(x, f"b[{i}]", problems) for i, x in enumerate(b_entries)]
    parsed_rows: list[list[Coefficient | None] | None] = []
    for i, entries in enumerate(a):
        row = _list(entries, f"a[{i}]", problems)
        parsed_rows.append(
            None
            if row is None
            else [_number(x, f"a[{i}][{j}]", problems) for j, x in enumerate(row)]
        )
    if len(problems) > before:
        return None
    # no None is left: each one came with a problem
    c, b = cast(list[Coefficient], parsed_c), cast(list[Coefficient], parsed_b)
    rows = cast(list[list[Coefficient]], parsed_rows)
    too_fine = _denominators_problem(
        [
            *((f"a[{i}][{j}]", x) for i, row in enumerate(rows) for j, x in enumerate(row)),
            *((f"b[{i}]", x) for i, x in enumerate(b)),
            *((f"c[{i}]", x) for i, x in enumerate(c)),
        ]
    )
    if too_fine:
        problems.append(too_fine)
        return None
    exact = all(isinstance(x, Fraction) for x in [*c, *b, *(x for r in rows for x in r)])
    found = tableau_problems(c, rows, b, 0 if exact else TOLERANCE)
    if found:
        problems.extend(found)
        return None
    return None if problems else TableauMethod(data["name"], rows, b, c)


def _parse_splitting(data: JSONObject, problems: list[str]) -> SplittingMethod | None:
    if "sequence" not in data:
        problems.append(
            "sequence: missing; a splitting needs a list of [kind, weight] pairs, "
            "kinds 'kick' and 'drift'"
        )
        return None
    sequence = _list(data["sequence"], "sequence", problems, "[kind, weight] pairs")
    if sequence is None:
        return None
    if not 2 <= len(sequence) <= MAX_SEQUENCE:
        problems.append(f"sequence: has {len(sequence)} entries, expected 2 to {MAX_SEQUENCE}")
        return None
    before = len(problems)
    parsed: list[tuple[str, Coefficient]] = []
    for i, entry in enumerate(sequence):
        if not (isinstance(entry, (list, tuple)) and len(entry) == 2):
            problems.append(
                f"sequence[{i}]: got {entry!r:.40}, expected a pair [kind, weight]"
                ", e.g. ['kick', 0.5]"
            )
            continue
        kind, weight = entry
        if kind not in ("kick", "drift"):
            problems.append(f"sequence[{i}]: kind {kind!r}, expected 'kick' or 'drift'")
            continue
        number = _number(weight, f"sequence[{i}]", problems)
        if number is None:  # (a problem is said)
            continue
        if number == 0:
            problems.append(f"sequence[{i}]: weight 0 (a {kind} that does nothing); remove it")
            continue
        parsed.append((kind, number))
    if len(problems) > before:
        return None
    too_fine = _denominators_problem((f"sequence[{i}]", w) for i, (_, w) in enumerate(parsed))
    if too_fine:
        problems.append(too_fine)
        return None
    for kind in ("drift", "kick"):
        weights = [w for k, w in parsed if k == kind]
        if not weights:
            problems.append(f"sequence: has no {kind}, expected drifts and kicks")
            continue
        total = sum(Fraction(w) for w in weights)
        exact = all(isinstance(w, Fraction) for w in weights)
        size = sum(abs(float(w)) for w in weights)
        # (abs() of a Fraction | int is one of them, but mypy joins them to an abstract type)
        limit = TOLERANCE * max(1.0, size)
        off = abs(total - 1)
        if (total != 1) if exact else off > limit:  # type: ignore[operator]
            problems.append(
                f"sequence: the {kind} weights sum to {format_number(total)}, "
                f"expected 1 (the {kind}s together cover one step)"
            )
    if len(problems) > before:
        return None
    return None if problems else SplittingMethod(data["name"], parsed)


def _parse_python(data: JSONObject, problems: list[str]) -> PythonMethod | None:
    code = data.get("code")
    if not isinstance(code, str) or not code.strip():
        problems.append(
            "code: missing or empty; expected Python code that defines step(accel, q, v, t, dt)"
        )
        return None
    if len(code) > MAX_CODE_CHARS:
        problems.append(f"code: {len(code)} characters, expected at most {MAX_CODE_CHARS}")
        return None
    try:
        code_object = compile_module(code)
        namespace = run_module(code_object)
    except BaseException as exc:  # any failure of the user's module, sys.exit() too
        reraise_process_wide(exc)
        problems.append(error_message(exc))
        return None
    step = namespace.get("step")
    if not callable(step):
        problems.append(
            "step: not defined; the code must define def step(accel, q, v, t, dt): ... return q, v"
        )
        return None
    try:
        inspect.signature(step).bind(None, None, None, None, None)
    except TypeError:
        line = getattr(getattr(step, "__code__", None), "co_firstlineno", None)
        problems.append(
            f"{f'line {line}: ' if line else ''}step must take five arguments (accel, q, v, t, dt)"
        )
        return None
    except ValueError:
        pass  # no signature to inspect (a builtin): calling it will tell
    name = namespace.get("NAME", data.get("name"))
    if name is None:
        problems.append('name: missing; set NAME = "..." in the code')
        return None
    problem = name_problem(name)
    if problem:
        problems.append(problem.replace("name:", "NAME:", 1) if "NAME" in namespace else problem)
        return None
    order = namespace.get("ORDER")
    if order is not None and (
        isinstance(order, bool)
        or not isinstance(order, int)
        or not 1 <= order <= MAX_DECLARED_ORDER
    ):
        problems.append(f"ORDER: got {order!r}, expected an integer in [1, {MAX_DECLARED_ORDER}]")
        return None
    return PythonMethod(name, code, order, code_object)


def error_message(exc: BaseException) -> str:
    """One line saying where user code failed and how, e.g.
    ``line 7: ZeroDivisionError: float division by zero`` (the line is the innermost one of
    the user's code; omitted when the failure is not in it)."""
    line = None
    if isinstance(exc, SyntaxError) and exc.filename == CODE_FILENAME:
        line, text = exc.lineno, exc.msg
    else:
        for frame, lineno in traceback.walk_tb(exc.__traceback__):
            if frame.f_code.co_filename == CODE_FILENAME:
                line = lineno
        text = str(exc)
    text = " ".join(text.split())
    what = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
    return f"line {line}: {what}" if line else what


# -- the integrators --------------------------------------------------------------------------
class CustomRungeKutta(RungeKutta):
    """A user's tableau: the built-ins' Runge-Kutta stage loop, with the user's data."""

    def __init__(self, definition: TableauMethod):
        self.definition = definition
        self.tableau = definition.tableau
        self.name = self.title = definition.name
        self.order = definition.order
        self.evaluations = definition.tableau.stages
        self.description = definition.describe()["summary"]
        super().__init__()

    # an instance's description (the class has none); the registry, whose classes are
    # described, holds built-ins only
    def describe(self) -> dict[str, Any]:  # type: ignore[override]
        return self.definition.describe()


class CustomSplitting(Splitting):
    """A user's kick/drift sequence on the built-ins' splitting machinery."""

    def __init__(self, definition: SplittingMethod):
        self.definition = definition
        self.sequence = tuple((kind, float(w)) for kind, w in definition.sequence)
        self.name = self.title = definition.name
        self.order = definition.order
        self.order_velocity_dependent = definition.order_velocity_dependent
        self.evaluations = definition.evaluations
        # as the built-ins: a first-order method (symplectic Euler) kicks at the current
        # velocity; higher orders at the predicted mid-kick velocity under damping
        self.predict_velocity = definition.order >= 2
        self.description = definition.describe()["summary"]
        super().__init__()

    def describe(self) -> dict[str, Any]:  # type: ignore[override]  # (as CustomRungeKutta)
        return self.definition.describe()


def _make_accel(system: Dynamics, n: int) -> Accel:
    """The ``accel(q, v, t)`` a user's step receives: the system's accelerations, plus the
    dissipated power as the acceleration of the extra entry (see :class:`PythonIntegrator`)."""
    forces = system.forces
    size = n + 1

    def accel(q: Sequence[float], v: Sequence[float], t: float) -> list[float]:
        if len(q) != size or len(v) != size:
            raise ValueError(
                f"accel(q, v, t): got q with {len(q)} and v with {len(v)} "
                f"entries, expected {size} each, as step received them"
            )
        a, p = forces(list(q[:n]), list(v[:n]), t)
        return [*a, p]

    return accel


class _BadResult(Exception):
    """What a user's step returned is not ``(q, v)``: the message says what it was."""


def _what(value: Any) -> str:
    """A returned value as a message names it: ``None``, ``a float``, ``a list of 2 numbers``."""
    # Any: whatever the user's step returned
    if value is None:
        return "None"
    if isinstance(value, (list, tuple)):
        kind = "a list" if isinstance(value, list) else "a tuple"
        if all(isinstance(x, numbers.Real) and not isinstance(x, bool) for x in value):
            return f"{kind} of {len(value)} number{'s' * (len(value) != 1)}"
        return f"{kind} of {len(value)} entries"
    article = "an" if type(value).__name__[:1] in "aeiou" else "a"
    return f"{article} {type(value).__name__}"


def _real_list(values: Any, what: str, size: int) -> list[float]:
    """``values`` (the returned ``q`` or ``v``) as floats; :class:`_BadResult` otherwise."""
    # Any: whatever the user's step returned
    try:
        items: list[Any] = list(values)
    except TypeError:
        raise _BadResult(
            f"step returned {what} as {_what(values)}, expected a list of {size} numbers"
        ) from None
    if len(items) != size:
        raise _BadResult(
            f"step returned {what} with {len(items)} entries, expected {size} "
            "(as many as it received)"
        )
    out: list[float] = []
    for i, x in enumerate(items):
        if type(x) is not float and (isinstance(x, bool) or not isinstance(x, numbers.Real)):
            raise _BadResult(f"step returned {x!r:.40} in {what}[{i}], expected real numbers")
        try:
            out.append(float(x))
        except OverflowError:
            digits = len(str(abs(int(x)))) if isinstance(x, int) else None
            size_text = f"an integer of {digits} digits" if digits else f"{x!r:.40}"
            raise _BadResult(
                f"step returned {size_text} in {what}[{i}], too large for a float; "
                "expected real numbers"
            ) from None
    return out


def _check_result(result: Any, size: int) -> tuple[list[float], list[float]]:
    """The ``(q, v)`` a user's step returned, as lists of ``size`` floats."""
    # Any: whatever the user's step returned
    # (a pair of numbers is one list returned alone, e.g. 'return q' on one coordinate)
    if not (isinstance(result, (tuple, list)) and len(result) == 2) or all(
        isinstance(x, numbers.Real) for x in result
    ):
        raise _BadResult(
            f"step returned {_what(result)}, expected (q, v): a pair of lists of "
            f"{size} numbers, as in 'return q_new, v_new'"
        )
    return _real_list(result[0], "q", size), _real_list(result[1], "v", size)


def _return_place(code: str) -> str:
    """Where the module's top-level ``step`` returns, for a message: ``line 7: `` when it has
    one ``return``, else ``line 3 (def step): `` naming its ``def`` (a step with no return
    returns None); empty if not found."""
    try:
        tree = ast.parse(code)
    except SyntaxError:  # (it compiled before; kept safe)
        return ""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "step":
            returns = [n for n in _own_nodes(node) if isinstance(n, ast.Return)]
            if len(returns) == 1:
                return f"line {returns[0].lineno}: "
            return f"line {node.lineno} (def step): "
    return ""


def _own_nodes(function: ast.FunctionDef) -> Iterable[ast.AST]:
    """The nodes of ``function``'s body, not those of functions or classes defined in it."""
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))


class PythonIntegrator(Integrator):
    """A user's ``step(accel, q, v, t, dt) -> (q, v)`` as an integrator.

    **The dissipated work.** The core integrates the work ``w`` done by damping, drag and
    contacts alongside the state (``w' = p``, the dissipated power), with the method's own
    weights, so that ``kinetic + potential + w`` measures the method's energy error and nothing
    else. A user's step knows nothing about ``w``, so it gets it as one more degree of freedom:
    ``q`` and ``v`` hold one entry more than the system has coordinates, the extra velocity is
    ``w`` and its acceleration, returned by ``accel`` as the last entry, is the dissipated power
    at the state ``accel`` was called with (the extra position is a dummy, 0 at every step).
    Any method that treats the entries of ``v`` alike (as every integrator does) therefore
    integrates ``w' = p`` exactly as it integrates ``v' = a``, with the same stages and weights:
    what the built-in Runge-Kutta methods do with their flat state ``q + v + [w]`` and the
    splitting methods with ``w += h p`` at each kick. Computing ``w`` from the energy balance
    instead would hide the method's energy error (the total would be constant by
    construction), and a separate quadrature of ``p`` would have its own order, not the
    method's.

    Exceptions in the user's code become a :class:`UserCodeError` with the line, the exception
    and the step; the runner stops this method there and the others go on.
    """

    definition: PythonMethod
    _step: UserStep
    replayable = False  # its module's globals are its own state

    def __init__(self, definition: PythonMethod) -> None:
        super().__init__()
        self.definition = definition
        self.name = self.title = definition.name
        self.order = definition.order or 0
        self.description = definition.describe()["summary"]
        try:
            self._step = definition.namespace()["step"]
        except BaseException as exc:  # the module ran before; it may not again
            reraise_process_wide(exc)
            raise UserCodeError(f"{error_message(exc)} (loading the code)") from None

    def describe(self) -> dict[str, Any]:  # type: ignore[override]  # (as CustomRungeKutta)
        return self.definition.describe()

    def step(self, system: Dynamics, q: Vector, v: Vector, w: float, t: float, dt: float) -> State:
        return self._call(_make_accel(system, len(q)), q, v, w, t, dt, self.steps + 1)

    def advance(
        self, system: Dynamics, q: Vector, v: Vector, w: float, t: float, dt: float, steps: int
    ) -> State:
        accel = _make_accel(system, len(q))
        post, call, first = system.post_step, self._call, self.steps + 1
        for i in range(steps):
            q, v, w = call(accel, q, v, w, t + i * dt, dt, first + i)
            if post is not None:
                v, w = post(v, w, dt)
        self.steps += steps
        return q, v, w

    def advance_trail(
        self,
        system: Dynamics,
        q: Vector,
        v: Vector,
        w: float,
        t: float,
        dt: float,
        steps: int,
        trail: list[State],
    ) -> State:
        accel = _make_accel(system, len(q))
        post, call, first = system.post_step, self._call, self.steps + 1
        append, kept = trail.append, len(trail)
        try:
            for i in range(steps):
                q, v, w = call(accel, q, v, w, t + i * dt, dt, first + i)
                if post is not None:
                    v, w = post(v, w, dt)
                append((q, v, w))
        finally:
            self.steps += len(trail) - kept
        return q, v, w

    def _call(
        self, accel: Accel, q: Vector, v: Vector, w: float, t: float, dt: float, number: int
    ) -> State:
        n = len(q)
        try:
            result = self._step(accel, [*q, 0.0], [*v, w], t, dt)
        except BaseException as exc:  # any failure of the user's step, sys.exit() too
            reraise_process_wide(exc)
            raise UserCodeError(f"{error_message(exc)} (step {number}, t = {t:.6g} s)") from None
        try:
            q1, v1 = _check_result(result, n + 1)
        except _BadResult as exc:
            where = _return_place(self.definition.code)
            raise UserCodeError(f"{where}{exc} (step {number}, t = {t:.6g} s)") from None
        except Exception as exc:  # noqa: BLE001 - user objects' own __iter__, __float__
            raise UserCodeError(f"{error_message(exc)} (step {number}, t = {t:.6g} s)") from None
        return q1[:n], v1[:n], v1[n]


# -- registry-like helpers ---------------------------------------------------------------------
def resolve_method(entry: object) -> Method:
    """An integrator name (str, checked) or a parsed definition, from a name, a dict or a
    definition."""
    if isinstance(entry, str):
        get_integrator(entry)  # unknown names list the valid ones
        return entry
    if isinstance(entry, (dict, MethodDefinition)):
        return parse_definition(entry)
    raise ValueError(
        f"integrator: got {entry!r:.60}, expected an integrator name or a "
        "definition (a dict with 'kind' and 'name')"
    )


def method_name(entry: Method) -> str:
    """The name a run of ``entry`` (a name or a parsed definition) is known by."""
    return entry if isinstance(entry, str) else entry.name


def make_integrator(entry: MethodEntry) -> Integrator:
    """A new integrator for a name, a definition or a definition's dict."""
    entry = resolve_method(entry)
    return get_integrator(entry) if isinstance(entry, str) else entry.integrator()


def method_info(entry: Method, velocity_dependent: bool = False) -> dict[str, Any]:
    """``order`` (None: not declared) and ``evaluations`` (None: unknown) of a name or a
    parsed definition, as declared or computed; with ``velocity_dependent``, the order that
    holds when forces depend on velocity (damping, dashpots: Yoshida's 4 drops to 2), and
    ``undamped_order``, the order without; ``evaluations_note`` (or None) says how a varying
    count varies (``evaluations`` is then the least)."""
    note = ""
    if isinstance(entry, str):
        cls = INTEGRATORS[entry]
        order, undamped, evaluations = cls.damped_order(), cls.order, cls.evaluations
        note = cls.evaluations_note
    else:
        info = entry.describe()
        undamped, evaluations = info["order"], info["evaluations"]
        order = info.get("order_velocity_dependent", undamped)
    return {
        "order": order if velocity_dependent else undamped,
        "undamped_order": undamped,
        "evaluations": evaluations,
        "evaluations_note": note or None,
    }


def is_method_entry(value: object) -> TypeGuard[MethodEntry]:
    """Whether ``value`` is one integrator entry (not a list of them)."""
    return isinstance(value, (str, dict, MethodDefinition))


def method_entries(value: MethodEntry | Iterable[MethodEntry]) -> Iterable[MethodEntry]:
    """The entries ``value`` holds: one entry (a name, a definition or its dict) in a list, or
    the entries as given."""
    # is_method_entry(), spelled out so that mypy narrows both ways (a TypeGuard narrows only
    # where it holds, and typing.TypeIs, which also narrows where it does not, needs 3.13)
    if isinstance(value, (str, dict, MethodDefinition)):
        return [value]
    return value


# -- templates -------------------------------------------------------------------------------
_THETA = 1.0 / (2.0 - 2.0 ** (1.0 / 3.0))

EULER_CODE = '''\
"""Explicit Euler, written by hand: both updates from the old state."""
NAME = "my-euler"
ORDER = 1


def step(accel, q, v, t, dt):
    # accel(q, v, t) gives the accelerations at a state; q and v are lists of floats
    # (with one extra entry that carries the dissipated work: treat every entry alike)
    a = accel(q, v, t)
    q_new = [x + dt * u for x, u in zip(q, v)]
    v_new = [u + dt * b for u, b in zip(v, a)]
    return q_new, v_new
'''

#: what the page's editor offers to start from, keyed by a short id
TEMPLATES = {
    "euler-code": {
        "title": "Explicit Euler (Python)",
        "definition": {"kind": "python", "name": "my-euler", "code": EULER_CODE},
    },
    "ralston": {
        "title": "Ralston (tableau)",
        "definition": {
            "kind": "tableau",
            "name": "ralston",
            "a": [[0, 0], ["2/3", 0]],
            "b": ["1/4", "3/4"],
            "c": [0, "2/3"],
        },
    },
    "forest-ruth": {
        "title": "Forest\u2013Ruth (splitting)",
        "definition": {
            "kind": "splitting",
            "name": "forest-ruth",
            "sequence": [
                ["drift", _THETA / 2],
                ["kick", _THETA],
                ["drift", (1 - _THETA) / 2],
                ["kick", 1 - 2 * _THETA],
                ["drift", (1 - _THETA) / 2],
                ["kick", _THETA],
                ["drift", _THETA / 2],
            ],
        },
    },
}
