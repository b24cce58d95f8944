"""Charts as inline SVG: a plot area with axes, and the marks the report draws on it (lines, min/max bands, marker
lines, labelled segments, shaded spans), plus a stacked bar. Colours come from the page's CSS classes.

Coordinates are rounded to a tenth of a unit of the view box: the page stays small, the picture is the same.
"""

from __future__ import annotations

import math
from typing import Callable, List, Optional, Sequence, Tuple

from tfguard.runtime.output.html.downsample import Bucket
from tfguard.runtime.output.html.markup import esc

WIDTH, HEIGHT = 520, 210
LEFT, RIGHT, TOP, BOTTOM = 58, 14, 16, 30


def nice_ticks(low: float, high: float, count: int = 5) -> List[float]:
    """About `count` round tick values (1, 2 or 5 times a power of ten apart) covering [low, high]."""
    if high <= low:
        high = low + 1.0
    raw = (high - low) / max(1, count)
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(low / step - 1e-9) * step
    ticks = []
    value = first
    while value <= high + step * 1e-9:
        ticks.append(round(value, 12))
        value += step
    return ticks


def _n(value: float) -> str:
    text = "%.1f" % value
    return text[:-2] if text.endswith(".0") else text


class Plot:
    """One chart: data ranges mapped onto the view box; marks are added in drawing order, then `svg()`."""

    def __init__(self, x_range: Tuple[float, float], y_range: Tuple[float, float],
                 y_format: Callable[[float], str], unit: str, x_name: str = "run") -> None:
        self.x0, self.x1 = x_range
        if self.x1 <= self.x0:
            self.x1 = self.x0 + 1
        self.ticks = nice_ticks(y_range[0], y_range[1])
        self.y0 = min(y_range[0], self.ticks[0])
        self.y1 = max(y_range[1], self.ticks[-1])
        self.y_format, self.unit, self.x_name = y_format, unit, x_name
        self.marks: List[str] = []

    def sx(self, x: float) -> float:
        """The view box's x of data position `x`."""
        return LEFT + (x - self.x0) / (self.x1 - self.x0) * (WIDTH - LEFT - RIGHT)

    def sy(self, y: float) -> float:
        """The view box's y of data value `y` (clamped into the plot area)."""
        span = self.y1 - self.y0 or 1.0
        y = min(max(y, self.y0), self.y1)
        return HEIGHT - BOTTOM - (y - self.y0) / span * (HEIGHT - TOP - BOTTOM)

    def band(self, buckets: Sequence[Bucket], css: str) -> None:
        """The min/max range of each bucket as one filled shape (spikes stay visible after downsampling)."""
        if not buckets:
            return
        upper = ["%s,%s" % (_n(self.sx(b.x)), _n(self.sy(b.high))) for b in buckets]
        lower = ["%s,%s" % (_n(self.sx(b.x)), _n(self.sy(b.low))) for b in reversed(buckets)]
        self.marks.append('<polygon class="band %s" points="%s"/>' % (css, " ".join(upper + lower)))

    def line(self, points: Sequence[Tuple[float, float]], css: str, label: str, step: bool = False) -> None:
        """A series as a line (`step`: a staircase, for counts that change between points); `label` names it
        in the hover read-out."""
        coords = []
        previous: Optional[float] = None
        for x, y in points:
            if step and previous is not None:
                coords.append("%s,%s" % (_n(self.sx(x)), _n(self.sy(previous))))
            coords.append("%s,%s" % (_n(self.sx(x)), _n(self.sy(y))))
            previous = y
        if coords:
            self.marks.append('<polyline class="series %s" data-label="%s" points="%s"/>' % (
                css, esc(label), " ".join(coords)))

    def vline(self, x: float, text: str, css: str = "marker") -> None:
        """A vertical marker line at data position `x` with a label at its top."""
        if not self.x0 <= x <= self.x1:
            return
        px = self.sx(x)
        anchor = "end" if px > WIDTH * 0.7 else "start"
        shift = -3 if anchor == "end" else 3
        self.marks.append('<line class="%s" x1="%s" x2="%s" y1="%d" y2="%d"/><text class="note" x="%s" y="%d" '
                          'text-anchor="%s">%s</text>' % (css, _n(px), _n(px), TOP, HEIGHT - BOTTOM,
                                                          _n(px + shift), TOP + 10, anchor, esc(text)))

    def segment(self, x0: float, x1: float, y: float, text: str, css: str = "verdict") -> None:
        """A horizontal segment at value `y` from `x0` to `x1` (a median over a span) with a label above it."""
        py, left, right = self.sy(y), self.sx(x0), self.sx(x1)
        # Anchored at the segment's inner end near an edge of the chart, so that the label stays inside it.
        x, anchor = (left, "start") if left < WIDTH * 0.3 else (right, "end") if right > WIDTH * 0.7 else (
            (left + right) / 2, "middle")
        self.marks.append('<line class="%s" x1="%s" x2="%s" y1="%s" y2="%s"/><text class="note %s" x="%s" '
                          'y="%s" text-anchor="%s">%s</text>' % (
                              css, _n(left), _n(right), _n(py), _n(py), css, _n(x), _n(max(TOP + 10, py - 5)),
                              anchor, esc(text)))

    def shade(self, x0: float, x1: float, text: str, css: str = "warmup") -> None:
        """A shaded span of data positions with a label at its bottom."""
        left, right = self.sx(max(x0, self.x0)), self.sx(min(x1, self.x1))
        if right <= left:
            return
        self.marks.append('<rect class="%s" x="%s" y="%d" width="%s" height="%d"><title>%s</title></rect>' % (
            css, _n(left), TOP, _n(right - left), HEIGHT - TOP - BOTTOM, esc(text)))

    def dot(self, x: float, y: float, text: str, css: str = "site") -> None:
        """A point with a tooltip (a growth site where it first grew)."""
        self.marks.append('<circle class="%s" cx="%s" cy="%s" r="4"><title>%s</title></circle>' % (
            css, _n(self.sx(x)), _n(self.sy(y)), esc(text)))

    def y_break(self, text: str) -> None:
        """Mark the y axis as not starting at 0: a zigzag across its foot and `text` (what it starts at) beside it,
        so that a chart zoomed onto a small change is not read as growth from nothing."""
        foot = HEIGHT - BOTTOM
        self.marks.append('<polyline class="axis-break" points="%d,%d %d,%d %d,%d %d,%d"/><text class="note '
                          'axis-break" x="%d" y="%d">%s</text>' % (
                              LEFT - 6, foot - 4, LEFT - 2, foot - 9, LEFT + 2, foot - 3, LEFT + 6, foot - 8,
                              LEFT + 6, foot - 6, esc(text)))

    def _axes(self) -> str:
        parts = []
        for tick in self.ticks:
            py = self.sy(tick)
            parts.append('<line class="grid" x1="%d" x2="%d" y1="%s" y2="%s"/><text class="tick" x="%d" y="%s" '
                         'text-anchor="end">%s</text>' % (LEFT, WIDTH - RIGHT, _n(py), _n(py), LEFT - 4,
                                                          _n(py + 4), esc(self.y_format(tick))))
        for tick in nice_ticks(self.x0, self.x1, 6):
            if self.x0 <= tick <= self.x1:
                px = self.sx(tick)
                parts.append('<text class="tick" x="%s" y="%d" text-anchor="middle">%s</text>' % (
                    _n(px), HEIGHT - BOTTOM + 14, "{:,}".format(int(tick)) if tick == int(tick) else _n(tick)))
        parts.append('<line class="axis" x1="%d" x2="%d" y1="%d" y2="%d"/>' % (
            LEFT, WIDTH - RIGHT, HEIGHT - BOTTOM, HEIGHT - BOTTOM))
        parts.append('<text class="tick" x="%d" y="%d" text-anchor="end">%s</text>' % (
            WIDTH - RIGHT, HEIGHT - 3, esc(self.x_name)))
        return "".join(parts)

    def svg(self, label: str) -> str:
        """The chart; `label` is what a screen reader says for it."""
        return ('<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="%s" data-x0="%r" data-x1="%r" '
                'data-y0="%r" data-y1="%r" data-unit="%s" data-xname="%s" data-box="%d %d %d %d">%s%s</svg>' % (
                    WIDTH, HEIGHT, esc(label), self.x0, self.x1, self.y0, self.y1, esc(self.unit),
                    esc(self.x_name), LEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM, self._axes(),
                    "".join(self.marks)))


def stacked_bar(parts: Sequence[Tuple[str, float, str]], total: float, label: str) -> str:
    """One horizontal bar of `total` split into `parts` [(name, value, css class)], each with its share."""
    if total <= 0:
        return ""
    width, height, x = 520.0, 34, 0.0
    rects = []
    for name, value, css in parts:
        if value <= 0:
            continue
        w = width * min(value, total) / total
        rects.append('<rect class="part %s" x="%s" y="0" width="%s" height="%d"><title>%s: %.1f%%</title>'
                     '</rect>' % (esc(css), _n(x), _n(w), height, esc(name), 100 * value / total))
        x += w
    return '<svg class="bar" viewBox="0 0 520 %d" role="img" aria-label="%s" preserveAspectRatio="none">%s</svg>' % (
        height, esc(label), "".join(rects))
