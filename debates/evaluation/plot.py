"""The accuracy plot's geometry, for an inline SVG drawn by the template (no chart library).

One row per bar: the name and the figures on a line, the bar under it with its 95% interval as a
whisker. Horizontal positions are percentages of the SVG's width and text keeps its pixel size,
so the plot fills any screen without shrinking its words or scrolling sideways.
"""

from dataclasses import dataclass

from debates.evaluation.summary import Row

ROW_HEIGHT = 52  # px: a text line, the bar, a gap
BAR_OFFSET = 24  # px from a row's top to its bar
BAR_HEIGHT = 14
AXIS_HEIGHT = 22
MAX_LABEL = 20  # characters of a name shown, so name and figures share a phone's line; the tooltip has it all
TICKS = (0, 25, 50, 75, 100)


@dataclass(frozen=True)
class Bar:
    row: Row
    label: str
    figures: str
    text_y: int
    bar_y: int
    width: str  # "83.3%"
    low: str
    high: str

    @property
    def mid_y(self) -> int:
        return self.bar_y + BAR_HEIGHT // 2


@dataclass(frozen=True)
class Tick:
    x: str
    anchor: str


@dataclass(frozen=True)
class Plot:
    bars: tuple[Bar, ...]
    ticks: tuple[Tick, ...]
    height: int
    grid_bottom: int

    @property
    def description(self) -> str:
        """The plot in words, for screen readers."""
        return "; ".join(f"{bar.row.label}: {bar.figures}" for bar in self.bars)


def plot(rows: list[Row]) -> Plot:
    bars = []
    for number, row in enumerate(rows):
        top = number * ROW_HEIGHT
        low, high = row.interval
        label = row.label if len(row.label) <= MAX_LABEL else row.label[: MAX_LABEL - 1] + "…"
        figures = f"{row.correct}/{row.total} · {row.percent} ({row.interval_text})" if row.total else "no items yet"
        width = _percent(row.accuracy or 0)
        bars.append(Bar(row, label, figures, top + 16, top + BAR_OFFSET, width, _percent(low), _percent(high)))
    grid_bottom = len(rows) * ROW_HEIGHT
    ticks = tuple(Tick(f"{t}%", "start" if t == 0 else "end" if t == 100 else "middle") for t in TICKS)
    return Plot(tuple(bars), ticks, grid_bottom + AXIS_HEIGHT, grid_bottom)


def _percent(fraction: float) -> str:
    return f"{fraction * 100:.1f}%"
