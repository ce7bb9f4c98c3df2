"""Checking a definition: :func:`parse_definition` turns a dict (a file, a link, a form) into a
definition or raises :class:`DefinitionError` naming the entry at fault, and
:func:`definition_problems` lists every problem instead, for an editor.

It owns the limits that keep a definition reasonable (stages, sequence length, code size, a
name's characters) and the bounds on each coefficient, checked before any arithmetic so that no
definition can make the exact order conditions run long; the rules a tableau obeys are the
built-ins' own (:func:`~integrator_lab.core.integrators.runge_kutta.tableau_problems`). Python
code is compiled and run once here, to check that it defines ``step`` and a sound ``NAME`` and
``ORDER``.
"""

from __future__ import annotations

import inspect
import math
import re
from collections.abc import Iterable
from fractions import Fraction
from typing import cast

from ..integrators import INTEGRATORS
from ..integrators.conditions import TOLERANCE, Coefficient
from ..integrators.runge_kutta import format_number, tableau_problems
from ..usercode import compile_module, reraise_process_wide, run_module
from .definitions import KINDS, JSONObject, MethodDefinition, SplittingMethod, TableauMethod
from .python_code import PythonMethod, error_message

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
