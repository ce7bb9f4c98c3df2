"""The energy view: what the energy plot's axis shows, decided once for every front end.

Standard library only: the static page's worker runs it in Pyodide (each frame of
:meth:`integrator_lab.views.system_run.SystemRun.frame` carries :meth:`EnergyView.view`), and the
Panel dashboard applies the same frames. The views only draw what it says.

Three views of one system's energy:

``linear`` (the default)
    The signed relative energy error ``ΔE/E₀`` in percent on a linear axis: a gain above
    zero, a loss below. The axis is symmetric about zero and its half-height follows the
    methods that have *not* run away (:func:`half_range`): ``MARGIN`` times the largest
    error of the others when the largest is more than ``OUTLIER`` times beyond the rest,
    never below ``FLOOR``, rounded up to a "nice" value and kept until the errors need
    a wider one or fall well inside it (hysteresis: no jitter from frame to frame). A method
    beyond the axis leaves the plot at its edge, where a label in its colour says how far it
    went (:func:`clipped_marks`: ``"euler +330 % ↑"``). So a bounded method draws a band,
    a drifting one a slope, an exploding one a line that leaves the plot under an arrow.
``log`` (for experts)
    The running maximum of ``|ΔE/E₀|`` on a log axis (:func:`running_log_columns`), solid
    while that maximum was a gain, dashed while a loss: a bounded method's maximum levels
    off (a flat line), a drifting one climbs steadily, an exploding one shoots up.
``breakdown``
    The energies in joules (kinetic, potential, dissipated, total), on an axis that holds
    every part drawn.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Sequence
from typing import Any

#: the view's modes (the page's ``?log=1`` chooses ``log``; the breakdown is its own
#: energy mode)
MODES = ("linear", "log", "breakdown")
#: smallest half-height of the linear axis, as a relative error (1e-6 = 0.0001 %): far
#: above rounding (1e-13 to 1e-10 on these systems), so that an exact-to-rounding method
#: draws a flat line on zero rather than noise filling the plot
FLOOR = 1e-6
#: the axis' half-height is at least this many times the largest error it follows: a
#: band spans at most 1/MARGIN of the height and keeps clear of the top and bottom
MARGIN = 1.5
#: the largest error is an outlier (left to run off the plot) when it is more than this
#: many times the next largest
OUTLIER = 4.0
#: a method runs away when its error is a gain of more than this (+50 % of E₀), besides
#: being an outlier
RUNAWAY = 0.5
#: hysteresis: a half-height is kept until the errors need more, or less than this share
SHRINK = 0.4
#: the "nice" half-heights within a decade (×10^k): the ticks read well, and each step is
#: at most 5/3 of the one before
NICE = (1.0, 1.5, 2.0, 3.0, 5.0, 7.5)
#: the log view's floor: errors below it (rounding) are drawn on it
LOG_FLOOR = 1e-12
#: the breakdown's axis: this share of the span is left above and below
BREAKDOWN_PADDING = 0.05


def nice_above(value: float) -> float:
    """The smallest :data:`NICE` value times a power of ten that is at least ``value``
    (> 0)."""
    exponent = math.floor(math.log10(value))
    for _ in range(2):  # log10 may round across a decade
        scale = 10.0**exponent
        for step in NICE:
            if step * scale >= value * (1.0 - 1e-12):
                return float(f"{step * scale:.12g}")  # 0.3, not 0.30000000000000004
        exponent += 1
    return 10.0**exponent  # pragma: no cover - a decade always holds one


def _extent(value: Any) -> tuple[float, float]:
    """``(gain, loss)`` of an extent: a pair as given, a bare size as a gain."""
    if isinstance(value, tuple | list):
        return float(value[0]), float(value[1])
    return float(value), 0.0


def followed_error(extents: Iterable[Any]) -> float:
    """The error the linear axis follows, from each method's extent so far: ``(gain, loss)``,
    its largest error above zero and its largest below (as sizes; a bare number is a gain).
    That is the largest size, unless that method ran away: its largest error is a gain of
    more than :data:`RUNAWAY` and more than :data:`OUTLIER` times every other method's size
    (then the next largest is followed: one method running away does not squash the others
    onto zero). A loss never runs away (energy lost is at most E₀: the axis holds it, a
    steady slope), nor does a bounded method's swing, however coarse. NaN and infinities (a
    method that diverged) are left out; 0 with no finite size."""
    pairs = []
    for value in extents:
        gain, loss = _extent(value)
        size = max(gain, loss)
        if math.isfinite(size):
            pairs.append((size, gain >= loss))
    pairs.sort(reverse=True)
    if not pairs:
        return 0.0
    (first, gained) = pairs[0]
    if len(pairs) >= 2 and gained and first > RUNAWAY:
        second = pairs[1][0]
        if first > OUTLIER * max(second, FLOOR):
            return second
    return first


def half_range(extents: Iterable[Any], previous: float | None = None) -> float:
    """The linear axis' half-height (a relative error; the axis is ±that): :data:`MARGIN`
    times :func:`followed_error`, at least :data:`FLOOR`, rounded up by :func:`nice_above`;
    ``previous`` (the half-height in force) is kept while it holds the errors and is not more
    than 1/:data:`SHRINK` times what they need."""
    needed = max(FLOOR, MARGIN * followed_error(extents))
    if previous is not None and math.isfinite(previous) and SHRINK * previous <= needed:
        if needed <= previous:
            return previous
    return nice_above(needed)


def percent_text(error: float) -> str:
    """A relative error as a signed percentage for a label: ``"+330 %"``, ``"−0.52 %"``,
    ``"+1.2e+04 %"``; the sign always printed (a minus sign, not a hyphen)."""
    if not math.isfinite(error):
        return "+∞ %" if error > 0 else ("−∞ %" if error < 0 else "–")
    pct = 100.0 * error
    size = abs(pct)
    if size >= 1e4:
        text = f"{size:.1e}"
    elif size >= 100:
        text = f"{size:.0f}"
    else:
        text = f"{size:.2g}"
    sign = "+" if pct >= 0 else "−"
    return f"{sign}{text} %"


#: columns of the clipped marks' source (the energy plot's ``energy:clipped``), one row each
MARK_COLUMNS = ("t", "label_t", "y", "name", "text", "color", "marker", "baseline", "offset")
#: px between two labels stacked at one edge
MARK_ROW = 15


def marks_columns(
    marks: list[dict[str, Any]], colors: dict[str, Any] | None = None, end: float | None = None
) -> dict[str, Any]:
    """:func:`clipped_marks` as the columns :data:`MARK_COLUMNS` of the plot's source: the
    arrow (a triangle) at the edge, the label beside it in the method's colour, stacked
    inwards from that edge."""
    out: dict[str, list[Any]] = {c: [] for c in MARK_COLUMNS}
    # the labels at the plot's right end (the latest time), the arrows where each method
    # left the plot last (a method that diverged stopped earlier)
    if end is None:
        end = max((m["t"] for m in marks), default=0.0)
    for m in marks:
        top = m["side"] > 0
        out["t"].append(m["t"])
        out["label_t"].append(end)
        out["y"].append(m["y"])
        out["name"].append(m["name"])
        out["text"].append(m["text"])
        out["color"].append((colors or {}).get(m["name"], "#555555"))
        out["marker"].append("triangle" if top else "inverted_triangle")
        out["baseline"].append("top" if top else "bottom")
        # screen pixels, downwards: the top edge's labels go down, the bottom's up
        out["offset"].append((1 if top else -1) * (4 + MARK_ROW * m["row"]))
    return out


def clipped_marks(
    last: dict[str, Any], half: float, labels: dict[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The methods whose latest error (``last``: name → ``(t, error)``) lies beyond ±``half``:
    each drawn at that edge with a label saying how far it went, ``"euler +330 % ↑"``
    (``labels`` maps names to the short names shown; the name itself by default). The marks
    at one edge are stacked (``row`` 0, 1, ...) in the order given."""
    marks = []
    rows = {1: 0, -1: 0}
    for name, (t, error) in last.items():
        if not (abs(error) > half) or error != error:
            continue
        side = 1 if error > 0 else -1
        arrow = "↑" if side > 0 else "↓"
        shown = (labels or {}).get(name, name)
        marks.append(
            {
                "name": name,
                "t": t,
                "y": side * half,
                "side": side,
                "row": rows[side],
                "error": error,
                "text": f"{shown} {percent_text(error)} {arrow}",
            }
        )
        rows[side] += 1
    return marks


def log_value(size: float) -> float:
    """Where the log view draws an error of size ``size``: ``log10`` of it, at least
    :data:`LOG_FLOOR`'s (the log axis has no zero)."""
    if not size > LOG_FLOOR:
        return math.log10(LOG_FLOOR)
    if size == math.inf:
        return math.inf
    return math.log10(size)


def running_log_columns(
    errors: Iterable[float], state: dict[str, Any] | None = None
) -> tuple[list[float], list[float], dict[str, Any]]:
    """The log view's two columns for a batch of signed ``errors``: log10 of the running
    maximum of ``|error|`` (:func:`log_value`), in ``gain`` where that maximum was a gain and
    in ``loss`` where a loss (NaN in the other, so that one line is solid and one dashed);
    where the sign of the maximum changes, the sample goes in both, so the line is unbroken.
    ``state`` (``{"size": ..., "sign": ...}``) carries the maximum from batch to batch; the
    new one is returned."""
    size = state["size"] if state else 0.0
    sign = state["sign"] if state else 1
    gain: list[float] = []
    loss: list[float] = []
    nan = math.nan
    for error in errors:
        changed = False
        if error == error and abs(error) > size:
            size = abs(error)
            new_sign = 1 if error > 0 else -1
            changed = new_sign != sign
            sign = new_sign
        value = log_value(size)
        if changed:
            gain.append(value)
            loss.append(value)
        else:
            gain.append(value if sign > 0 else nan)
            loss.append(value if sign < 0 else nan)
    return gain, loss, {"size": size, "sign": sign}


#: the energy bar beside each lane: a gain and a loss in colours told apart with any colour
#: vision (the ends of ColorBrewer's PuOr), neutral grey within :data:`BAR_NEUTRAL`; ▲ or ▼
#: is printed too. The gain's end is PuOr's darkest (#7f3b08): its nearer neighbour,
#: #b35806, was within a CIELAB ΔE of 6.5 of explicit Euler's lane colour under a simulated
#: colour-vision deficiency (tests/views/test_energy_range.py measures it)
BAR_GAIN = "#7f3b08"
BAR_LOSS = "#542788"
BAR_NEUTRAL_COLOR = "#8c8c8c"
BAR_NEUTRAL = 5e-5  # |ΔE/E₀| below 0.005 %: prints as 0.00 %
#: the bar's track: the start's energy (its tick) in the middle, a gain filled rightwards and a
#: loss leftwards, by the deviation's order of magnitude: from :data:`BAR_FLOOR` (nothing) to
#: :data:`BAR_CEIL` (the whole half), so that 0.03 % and 3 % look as different as they are
BAR_TOP = 2.0
BAR_FLOOR = 1e-5
BAR_CEIL = 1.0
#: columns of the bars' source (the scene's ``scene:energy-bars``), one row per lane
BAR_COLUMNS = (
    "x0", "x1", "xm", "fl", "fr", "y", "y0", "y1", "text", "fill", "name",
    "tx", "ty", "talign", "tbaseline",
)  # fmt: skip
#: :func:`bar_layout`'s columns: the bar, and where its percentage is printed
BAR_LAYOUT_COLUMNS = ("x0", "x1", "xm", "y", "h", "tx", "ty", "talign", "tbaseline")


def bar_text(error: float) -> str:
    """What a lane's bar prints: ▲ for a gain, ▼ for a loss, and the size in percent
    (``"▲ 0.52 %"``, ``"▼ 31 %"``, ``"▲ 1.2e+04 %"``); ``"0.00 %"`` within
    :data:`BAR_NEUTRAL`."""
    if math.isfinite(error) and abs(error) < BAR_NEUTRAL:
        return "0.00 %"  # neither a gain nor a loss at this precision
    arrow = "▲" if error > 0 else "▼"
    if not math.isfinite(error) or abs(100.0 * error) >= 100.0:
        return f"{arrow} {percent_text(error)[1:]}"
    return f"{arrow} {100.0 * abs(error):.2f} %"


def bar_share(error: float) -> float:
    """How much of its half of the track a deviation ``error`` fills: its order of magnitude
    between :data:`BAR_FLOOR` (0) and :data:`BAR_CEIL` (1)."""
    if not math.isfinite(error):
        return 1.0
    size = abs(error)
    if size <= BAR_FLOOR:
        return 0.0
    return min(1.0, math.log10(size / BAR_FLOOR) / math.log10(BAR_CEIL / BAR_FLOOR))


def bar_layout(
    boxes: Sequence[Sequence[float]],
    label_ys: Sequence[float],
    label_xs: Sequence[float] | None = None,
) -> dict[str, Any]:
    """Where each lane's energy bar goes, from the scene's lane ``boxes`` (``x0, x1, y0,
    y1``, the bodies' room) and its labels' heights.

    Without ``label_xs`` (a wide lane: the spring's rows span the scene) the bar shares the
    label's strip, on the right of the lane (the label is on its left), its percentage printed
    under it. With ``label_xs`` (the cells of the pendulum and the cradle, a third of a
    phone's width or less: "symplectic-euler" would run into a bar beside it) the bar has its
    own row under the label, from the label's left, its percentage after it. Returns columns
    ``x0, x1, xm, y, h`` and where the percentage goes: ``tx, ty, talign, tbaseline``."""
    out: dict[str, list[Any]] = {c: [] for c in BAR_LAYOUT_COLUMNS}
    for i, ((bx0, bx1, _, by1), ly) in enumerate(zip(boxes, label_ys)):
        w, strip = bx1 - bx0, abs(by1 - ly)  # strip: half the label's strip
        h = 0.9 * strip
        if label_xs is None:
            x0, x1, y = bx0 + 0.68 * w, bx0 + 0.97 * w, ly
            text = (x1, y - h / 2.0, "right", "top")
        else:
            x0, y = label_xs[i], ly - 2.2 * strip
            x1 = x0 + 0.3 * w
            text = (x1 + 0.03 * w, y, "left", "middle")
        for column, value in zip(
            BAR_LAYOUT_COLUMNS, (x0, x1, x0 + (x1 - x0) / BAR_TOP, y, h, *text)
        ):
            out[column].append(value)
    return out


def bars_columns(
    layout: dict[str, Any],
    names: Sequence[str],
    last: dict[str, Any],
    stopped: Collection[str] = (),
) -> dict[str, Any]:
    """Each lane's energy bar for its latest error (``last``: name → ``(t, error)``): from
    the start's energy (the tick at ``xm``) rightwards for a gain, leftwards for a loss, as
    far as :func:`bar_share` says (``fl`` to ``fr``), in the gain or loss colour, with ▲ or ▼
    and the size (:func:`bar_text`). A lane whose run has
    ``stopped`` (diverged) has none: its "diverged at t = …" note takes the bar's place, and
    the energy plot's clipped mark says how far it went."""
    out: dict[str, list[Any]] = {c: [] for c in BAR_COLUMNS}
    for i, name in enumerate(names):
        if i >= len(layout["x0"]):
            break
        if name in stopped:
            continue
        error = last.get(name, (0.0, 0.0))[1]
        x0, x1, xm = layout["x0"][i], layout["x1"][i], layout["xm"][i]
        reach = bar_share(error) * ((x1 - xm) if error > 0 else (x0 - xm))
        if abs(error) < BAR_NEUTRAL:
            fill = BAR_NEUTRAL_COLOR
        else:
            fill = BAR_GAIN if error > 0 else BAR_LOSS
        out["x0"].append(x0)
        out["x1"].append(x1)
        out["xm"].append(xm)
        out["fl"].append(min(xm, xm + reach))
        out["fr"].append(max(xm, xm + reach))
        y, h = layout["y"][i], layout["h"][i]
        out["y"].append(y)
        out["y0"].append(y - h / 2.0)
        out["y1"].append(y + h / 2.0)
        out["text"].append(bar_text(error))
        out["fill"].append(fill)
        out["name"].append(name)
        for column in ("tx", "ty", "talign", "tbaseline"):
            out[column].append(layout[column][i])
    return out


class EnergyView:
    """One system's energy view: fed each lane's new samples (:meth:`add`), it says the axes
    and marks of every mode (:meth:`view`), keeping the linear half-height from call to call
    (hysteresis)."""

    def __init__(
        self,
        labels: dict[str, Any] | None = None,
        colors: dict[str, Any] | None = None,
        names: Iterable[str] = (),
        bars: dict[str, Any] | None = None,
    ) -> None:
        self.labels = dict(labels or {})
        self.colors = dict(colors or {})
        #: the lanes in order, and where their energy bars go (:func:`bar_layout`)
        self.names = list(names)
        self.bars = bars
        self.reset()

    def reset(self) -> None:
        #: per lane: largest gain and loss so far (sizes), its latest (t, error), its
        #: log-view maximum
        self.extents: dict[str, tuple[float, float]] = {}
        self.last: dict[str, tuple[float, float]] = {}
        self.log_state: dict[str, dict[str, Any]] = {}
        #: the lanes whose run diverged (set by the runner's owner, views.live): no bar
        self.stopped: set[str] = set()
        self.half: float | None = None
        #: the breakdown's extremes (J): every part of every lane
        self.low = math.inf
        self.high = -math.inf

    def add(self, name: str, columns: dict[str, Any]) -> dict[str, Any]:
        """Take lane ``name``'s new sample ``columns`` (``t``, ``error`` and the breakdown's
        parts); returns the log view's columns for them (``gain`` and ``loss``, see
        :func:`running_log_columns`)."""
        errors = columns["error"]
        gain, loss = self.extents.get(name, (0.0, 0.0))
        for e in errors:
            if math.isfinite(e):
                if e > gain:
                    gain = e
                elif -e > loss:
                    loss = -e
        self.extents[name] = (gain, loss)
        times = columns["t"]
        for i in range(len(errors) - 1, -1, -1):
            if math.isfinite(errors[i]):
                self.last[name] = (times[i], errors[i])
                break
        for part in ("kinetic", "potential", "dissipated", "total"):
            for v in columns.get(part, ()):
                if math.isfinite(v):
                    if v < self.low:
                        self.low = v
                    if v > self.high:
                        self.high = v
        log_gain, log_loss, self.log_state[name] = running_log_columns(
            errors, self.log_state.get(name)
        )
        return {"gain": log_gain, "loss": log_loss}

    def linear_half(self) -> float:
        self.half = half_range(self.extents.values(), self.half)
        return self.half

    def view(self) -> dict[str, Any]:
        """Every mode's y-range and the linear view's clipped marks (JSON-ready)."""
        half = self.linear_half()
        logs = [log_value(max(g, lo)) for g, lo in self.extents.values()]
        top = max(logs, default=log_value(0.0))
        # a decade of room above the highest line: a flat one does not hide in the frame
        log_range = [math.log10(LOG_FLOOR), max(math.log10(LOG_FLOOR) + 2.0, top + 1.0)]
        if self.low <= self.high:
            pad = max(self.high - self.low, abs(self.high), 1e-12) * BREAKDOWN_PADDING
            breakdown = [self.low - pad, self.high + pad]
        else:
            breakdown = [-1.0, 1.0]
        return {
            "linear": [-half, half],
            "log": [round(v, 6) for v in log_range],
            "breakdown": breakdown,
            "clipped": marks_columns(
                clipped_marks(self.last, half, self.labels),
                self.colors,
                max((t for t, _ in self.last.values()), default=0.0),
            ),
            "followed": followed_error(self.extents.values()),
            "bars": (
                bars_columns(self.bars, self.names, self.last, self.stopped) if self.bars else None
            ),
        }
