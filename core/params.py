"""Declared parameters: name, unit, default and accepted range, plus validation.

Every number a user can set passes through :func:`Param.validate`, so bad input is rejected
with one message that names the parameter and what is accepted.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias, overload

#: a parameter's value: a float, an int or a str, as its ``kind`` declares
Value: TypeAlias = float | int | str


class ParamError(ValueError):
    """A value that a parameter does not accept. ``str()`` is the English sentence; the parts
    let a view say it in another language: ``owner`` (the system's name, or ""), ``param``
    (the declaration, with the range that applied) and ``value`` (what was given)."""

    def __init__(self, message: str, *, owner: str, param: Param, value: object) -> None:
        super().__init__(message)
        self.owner = owner
        self.param = param
        self.value = value


@dataclass(frozen=True)
class Param:
    """One tunable parameter of a system.

    ``kind`` is ``"float"``, ``"int"`` or ``"choice"``. Ranges are closed unless
    ``min_open``/``max_open`` say otherwise (for quantities that must be strictly positive).

    ``name`` is what code, links and the command line use (``theta0``); ``label`` (words,
    "initial angle") and ``symbol`` (the textbook's, "θ₀") are what people read: every
    view titles the parameter with :attr:`title` ("initial angle θ₀ (rad)"), declared here
    once. ``unit`` is written as people read it too ("m/s²").
    """

    name: str
    default: Value
    unit: str = ""
    doc: str = ""
    kind: str = "float"
    min: float | None = None
    max: float | None = None
    min_open: bool = False
    max_open: bool = False
    choices: tuple[str, ...] = field(default_factory=tuple)
    label: str = ""
    symbol: str = ""

    @property
    def title(self) -> str:
        """What a view calls the parameter: label, symbol and unit, e.g. ``"initial angle θ₀
        (rad)"`` (the name where no label is declared)."""
        words = " ".join(filter(None, (self.label or self.name, self.symbol)))
        return f"{words} ({self.unit})" if self.unit else words

    def accepted(self) -> str:
        """Human-readable description of the accepted values."""
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices)
        lo = "-inf" if self.min is None else _fmt(self.min)
        hi = "inf" if self.max is None else _fmt(self.max)
        left = "(" if (self.min_open or self.min is None) else "["
        right = ")" if (self.max_open or self.max is None) else "]"
        what = "an integer" if self.kind == "int" else "a finite number"
        unit = f" {self.unit}" if self.unit else ""
        return f"{what} in {left}{lo}, {hi}{right}{unit}"

    def validate(self, value: object, *, owner: str = "") -> Value:
        """Return ``value`` converted to this parameter's type, or raise ``ValueError``."""
        if self.kind == "choice":
            if isinstance(value, str) and value in self.choices:
                return value
            raise self.error(value, owner=owner)
        number = _to_number(value)
        if number is None or not math.isfinite(number):
            raise self.error(value, owner=owner)
        if self.kind == "int":
            if number != int(number):
                raise self.error(value, owner=owner)
            number = int(number)
        else:
            number = float(number)
        if self.min is not None and (number < self.min or (self.min_open and number == self.min)):
            raise self.error(value, owner=owner)
        if self.max is not None and (number > self.max or (self.max_open and number == self.max)):
            raise self.error(value, owner=owner)
        return number

    def error(self, value: object, *, owner: str = "", note: str = "") -> ParamError:
        """The error that refuses ``value``: names the parameter, ``value`` and what is
        accepted (then ``note``, in parentheses)."""
        label = f"{owner} parameter '{self.name}'" if owner else f"parameter '{self.name}'"
        extra = f" ({note})" if note else ""
        return ParamError(
            f"{label}: got {value!r}, expected {self.accepted()}{extra}",
            owner=owner,
            param=self,
            value=value,
        )

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "label": self.label or self.name,
            "symbol": self.symbol,
            "title": self.title,
            "kind": self.kind,
            "default": self.default,
            "unit": self.unit,
            "doc": self.doc,
            "accepted": self.accepted(),
        }
        if self.kind == "choice":
            out["choices"] = list(self.choices)
        else:
            out.update(min=self.min, max=self.max, min_open=self.min_open, max_open=self.max_open)
        return out


def _fmt(x: float) -> str:
    return f"{x:g}"


_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _to_number(value: object) -> int | float | None:
    """Accept ints, floats and numeric strings; reject bools, None and everything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        # a decimal number as people write it (the page's fields read the same grammar):
        # not Python's other spellings ("1_0", "inf", Arabic-Indic digits, ...)
        text = value.strip()
        if _DECIMAL.fullmatch(text) is None:
            return None
        try:
            return int(text)
        except ValueError:
            return float(text)
    return None


def resolve(params: tuple[Param, ...], given: dict[str, object], *, owner: str) -> dict[str, Value]:
    """Validate ``given`` against ``params`` and fill in defaults; unknown names are errors."""
    by_name = {p.name: p for p in params}
    for name in given:
        if name not in by_name:
            valid = ", ".join(by_name) or "(none)"
            raise ValueError(f"{owner}: unknown parameter '{name}'; valid parameters: {valid}")
    return {
        p.name: p.validate(given[p.name], owner=owner) if p.name in given else p.default
        for p in params
    }


@overload
def positive_time(name: str, value: object, *, allow_none: Literal[False] = False) -> float: ...


@overload
def positive_time(name: str, value: object, *, allow_none: bool) -> float | None: ...


def positive_time(name: str, value: object, *, allow_none: bool = False) -> float | None:
    """Validate a time span (dt, duration): a finite number > 0."""
    if value is None and allow_none:
        return None
    number = _to_number(value)
    if number is None or not math.isfinite(number) or number <= 0:
        raise ValueError(f"'{name}': got {value!r}, expected a finite number > 0 (seconds)")
    return float(number)
