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

The package in four parts, each a module of its own:

* :mod:`.definitions`: what a parsed method is (the tableau and splitting kinds, their JSON and
  description, the built-in machinery they run on) and the types callers pass methods as;
* :mod:`.python_code`: the Python-code kind, run step by step with its results checked and its
  failures named (:class:`UserCodeError`, :func:`error_message`);
* :mod:`.checks`: a dict checked and parsed into a definition, every problem named, within the
  limits (``MAX_*``);
* :mod:`.entries`: names and definitions resolved alike wherever the core takes a method.

:mod:`.templates` holds the editor's starting points. Every public name is importable from the
package itself (``from integrator_lab.core.custom import parse_definition``).
"""

from __future__ import annotations

from .checks import (
    MAX_CODE_CHARS,
    MAX_COEFFICIENT,
    MAX_DECLARED_ORDER,
    MAX_DENOMINATOR_DIGITS,
    MAX_ENTRY_CHARS,
    MAX_EXPONENT,
    MAX_NAME_CHARS,
    MAX_SEQUENCE,
    MAX_STAGES,
    DefinitionError,
    definition_problems,
    name_problem,
    parse_definition,
)
from .definitions import (
    KINDS,
    CustomRungeKutta,
    CustomSplitting,
    JSONObject,
    Method,
    MethodDefinition,
    MethodEntry,
    SplittingMethod,
    TableauMethod,
)
from .entries import (
    is_method_entry,
    make_integrator,
    method_entries,
    method_info,
    method_name,
    resolve_method,
)
from .python_code import (
    Accel,
    PythonIntegrator,
    PythonMethod,
    UserCodeError,
    UserStep,
    error_message,
)
from .templates import EULER_CODE, TEMPLATES

__all__ = [
    # definitions
    "KINDS",
    "JSONObject",
    "MethodDefinition",
    "MethodEntry",
    "Method",
    "TableauMethod",
    "SplittingMethod",
    "CustomRungeKutta",
    "CustomSplitting",
    # Python code
    "Accel",
    "UserStep",
    "PythonMethod",
    "PythonIntegrator",
    "UserCodeError",
    "error_message",
    # checks
    "MAX_STAGES",
    "MAX_SEQUENCE",
    "MAX_CODE_CHARS",
    "MAX_NAME_CHARS",
    "MAX_DECLARED_ORDER",
    "MAX_ENTRY_CHARS",
    "MAX_EXPONENT",
    "MAX_COEFFICIENT",
    "MAX_DENOMINATOR_DIGITS",
    "DefinitionError",
    "definition_problems",
    "parse_definition",
    "name_problem",
    # entries
    "resolve_method",
    "method_name",
    "make_integrator",
    "method_info",
    "is_method_entry",
    "method_entries",
    # templates
    "EULER_CODE",
    "TEMPLATES",
]
