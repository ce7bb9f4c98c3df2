"""The method editor's starting points (:data:`TEMPLATES`): one definition of each kind, keyed
by a short id, with a title.
"""

from __future__ import annotations

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
