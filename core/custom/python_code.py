"""A method written as Python code: :class:`PythonMethod` (the ``python`` kind of definition)
and :class:`PythonIntegrator`, which runs its ``step(accel, q, v, t, dt)`` with the dissipated
work carried along as one more degree of freedom, checks what every call returns and turns a
failure in the user's code into a :class:`UserCodeError` whose message
(:func:`error_message`) names the line.

Nothing here confines the code (see the package's docstring): compiling and running the module
is :mod:`integrator_lab.core.usercode`'s; checking a definition's code when it is parsed (it
compiles, defines ``step`` with five arguments, ``NAME`` and ``ORDER`` are sound) is
:mod:`.checks`'.
"""

from __future__ import annotations

import ast
import numbers
import traceback
from collections.abc import Callable, Iterable, Sequence
from types import CodeType
from typing import TYPE_CHECKING, Any, TypeAlias

from ..integrators import ConvergenceError, Integrator
from ..usercode import CODE_FILENAME, reraise_process_wide, run_module
from .definitions import JSONObject, MethodDefinition

if TYPE_CHECKING:
    from ..integrators.base import Watch
    from ..systems.base import Dynamics, State, Vector

#: ``accel(q, v, t)`` as a user's step receives it (see :class:`PythonIntegrator`)
Accel: TypeAlias = Callable[[Sequence[float], Sequence[float], float], list[float]]
#: a user's ``step(accel, q, v, t, dt) -> (q, v)``. Any: what user code returns, checked by
#: :func:`_real_list` after every call
UserStep: TypeAlias = Callable[[Accel, list[float], list[float], float, float], Any]


class UserCodeError(ConvergenceError):
    """User code failed during a step; the message gives its line and the exception.

    A :class:`ConvergenceError`, so that every loop that stops one integrator whose step
    failed (the runner, the study) stops this one the same way, with this message, while the
    others go on.
    """


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


# -- the integrator ---------------------------------------------------------------------------
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
        self,
        system: Dynamics,
        q: Vector,
        v: Vector,
        w: float,
        t: float,
        dt: float,
        steps: int,
        watch: Watch | None = None,
    ) -> State:
        accel = _make_accel(system, len(q))
        post, call, first = system.post_step, self._call, self.steps + 1
        taken = 0
        try:
            while taken < steps:
                q, v, w = call(accel, q, v, w, t + taken * dt, dt, first + taken)
                if post is not None:
                    v, w = post(v, w, dt)
                taken += 1
                if watch is not None and not watch(q, v, w):
                    break
        finally:
            self.steps += taken
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
