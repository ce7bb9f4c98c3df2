"""Physical systems and their registry: ``SYSTEMS`` maps each name to its class."""

from __future__ import annotations

from .balls import Balls
from .base import SceneGeometry, System
from .cradle import Cradle
from .pendulum import Pendulum
from .simple import ConstantForce, Drag
from .spring import Spring

SYSTEMS: dict[str, type[System]] = {
    cls.name: cls for cls in (Pendulum, Cradle, Spring, Balls, ConstantForce, Drag)
}


def get_system(name: str, **params: object) -> System:
    """An instance of the system called ``name`` with ``params`` validated."""
    try:
        cls = SYSTEMS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown system {name!r}; valid systems: {', '.join(SYSTEMS)}") from None
    return cls(**params)


__all__ = [
    "SYSTEMS",
    "get_system",
    "System",
    "SceneGeometry",
    "Pendulum",
    "Cradle",
    "Spring",
    "ConstantForce",
    "Drag",
    "Balls",
]
