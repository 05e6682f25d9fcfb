"""The Models page's figures as inline SVG, drawn on the server: no script, no chart library.

Each chart scales to its container (a viewBox, no fixed size), takes its colours from the page's
CSS variables through classes (light and dark alike; no style attribute, which the CSP forbids),
and says what each mark is in a <title> a pointer or a screen reader finds.
"""

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from debates.track.figures import MIN_SHARED, Bin, Pair, Record

WIDTH, HEIGHT = 400, 300
LEFT, RIGHT, TOP, BOTTOM = 46, 22, 12, 42  # the plot area's margins, for axis labels
LABEL_TOP = 14  # the highest baseline a point's label may take: its 12 px text stays inside the chart
Ticks = Sequence[tuple[float, str]]  # (value, its label) along an axis


def element(name: str, content: str | SafeString = "", /, **attributes: object) -> SafeString:
    """One SVG element; attribute names use _ for - (``text_anchor``), ``cls`` for class (every
    keyword is an attribute: the name and the content are positional)."""
    shown = ((_attribute(key), _number(value)) for key, value in attributes.items() if value is not None)
    return format_html("<{0}{1}>{2}</{0}>", name, format_html_join("", ' {}="{}"', shown), content)


def _attribute(key: str) -> str:
    return key.removesuffix("_").replace("_", "-").replace("cls", "class")


def _number(value: object) -> object:
    return f"{value:.1f}".removesuffix(".0") if isinstance(value, float) else value


def chart(label: str, marks: Iterable[SafeString], height: int = HEIGHT) -> SafeString:
    body = mark_safe("".join(marks))  # every mark was built by format_html
    return format_html(
        '<svg class="chart" viewBox="0 0 {} {}" role="img" aria-label="{}">{}</svg>', WIDTH, height, label, body
    )


@dataclass(frozen=True)
class Scale:
    """Maps a value range onto pixels."""

    low: float
    high: float
    start: float
    end: float
    log: bool = False

    def __call__(self, value: float) -> float:
        f = math.log10 if self.log else float
        span = f(self.high) - f(self.low) or 1.0
        return self.start + (f(value) - f(self.low)) / span * (self.end - self.start)


def axes(x: Scale, y: Scale, x_ticks: Ticks, y_ticks: Ticks, x_label: str, y_label: str) -> list[SafeString]:
    """Grid lines, tick labels and axis titles for a plot area."""
    marks = [element("rect", cls="frame", x=x.start, y=y.end, width=x.end - x.start, height=y.start - y.end)]
    for value, text in x_ticks:
        marks.append(element("line", cls="grid", x1=x(value), x2=x(value), y1=y.start, y2=y.end))
        marks.append(element("text", text, cls="tick", x=x(value), y=y.start + 14, text_anchor="middle"))
    for value, text in y_ticks:
        marks.append(element("line", cls="grid", x1=x.start, x2=x.end, y1=y(value), y2=y(value)))
        marks.append(element("text", text, cls="tick", x=x.start - 5, y=y(value) + 4, text_anchor="end"))
    middle = (x.start + x.end) / 2
    marks.append(element("text", x_label, cls="axis-title", x=middle, y=HEIGHT - 6, text_anchor="middle"))
    centre = (y.start + y.end) / 2
    upright = f"rotate(-90 12 {centre:.1f})"
    marks.append(element("text", y_label, cls="axis-title", x=12, y=centre, text_anchor="middle", transform=upright))
    return marks


def empty(label: str, why: str) -> SafeString:
    return chart(label, [element("text", why, cls="empty", x=WIDTH / 2, y=HEIGHT / 2, text_anchor="middle")])


SHARES = [(v / 4, f"{v * 25}%") for v in range(5)]


def reliability(bins: Sequence[Bin]) -> SafeString:
    """Share right against stated confidence, per bin of 0.1; the diagonal is perfect calibration."""
    label = "Reliability curve: share right against stated confidence"
    if not bins:
        return empty(label, "No outcome recorded yet: judge a verdict to see it.")
    x = Scale(0, 1, LEFT, WIDTH - RIGHT)
    y = Scale(0, 1, HEIGHT - BOTTOM, TOP)
    marks = axes(x, y, SHARES, SHARES, "stated confidence", "share right")
    marks.append(element("line", cls="diagonal", x1=x(0), y1=y(0), x2=x(1), y2=y(1)))
    points = " ".join(f"{x(b.confidence):.1f},{y(b.right):.1f}" for b in bins)
    marks.append(element("polyline", cls="curve", points=points))
    largest = max(b.n for b in bins)
    for b in bins:
        title = element(
            "title",
            f"stated {b.low:.1f}–{b.high:.1f}: {b.n} answer{'s' if b.n != 1 else ''}, "
            f"{b.confidence:.0%} stated on average, {b.right:.0%} right",
        )
        radius = 3 + 6 * math.sqrt(b.n / largest)
        marks.append(element("circle", title, cls="point", cx=x(b.confidence), cy=y(b.right), r=radius))
    return chart(label, marks)


def heatmap(records: Sequence[Record], pairs: Sequence[Pair]) -> SafeString:
    """How often each pair of voices took the same side, on the questions they shared."""
    label = "Agreement heat map: how often two voices took the same side"
    voices = sorted((r for r in records if r.known), key=lambda r: r.name)
    if len(voices) < 2:
        return empty(label, "Needs two voices with a known side on the same questions.")
    by_pair = {(p.a, p.b): p for p in pairs} | {(p.b, p.a): p for p in pairs}
    names = 120
    cell = min(44.0, (WIDTH - names - 4) / len(voices))
    height = math.ceil(22 + cell * len(voices) + 8)
    marks = [
        element("text", str(j + 1), cls="tick", x=names + cell * (j + 0.5), y=14, text_anchor="middle")
        for j in range(len(voices))
    ]
    for i, row in enumerate(voices):
        top = 22 + cell * i
        name = f"{i + 1} {_short(row.name)}"
        marks.append(element("text", name, cls="tick", x=names - 6, y=top + cell / 2 + 4, text_anchor="end"))
        for j, column in enumerate(voices):
            pair = by_pair.get((row.id, column.id))
            left = names + cell * j
            box = {"x": left + 1, "y": top + 1, "width": cell - 2, "height": cell - 2}
            if i == j:
                marks.append(element("rect", cls="cell self", **box))
                continue
            if pair is None or pair.questions < MIN_SHARED or pair.agreement is None:
                shared = pair.questions if pair else 0
                title = element("title", f"{row.name} and {column.name}: {shared} shared question(s), too few")
                marks.append(element("rect", title, cls="cell unknown", **box))
                continue
            kappa = "" if pair.kappa is None else f", kappa {pair.kappa:.2f}"
            agreed = f"the same side on {pair.agreement:.0%} of {pair.questions} shared questions{kappa}"
            title = element("title", f"{row.name} and {column.name}: {agreed}")
            marks.append(element("rect", title, cls="cell", **box, fill_opacity=f"{0.1 + 0.9 * pair.agreement:.2f}"))
            if cell >= 26:
                shade = "dark" if pair.agreement >= 0.55 else "light"
                value = f"{pair.agreement * 100:.0f}"
                centre = {"x": left + cell / 2, "y": top + cell / 2 + 4, "text_anchor": "middle"}
                marks.append(element("text", value, cls=f"cell-value on-{shade}", **centre))
    return chart(label, marks, height)


def cost_against_agreement(records: Sequence[Record]) -> SafeString:
    """Each voice's cost per question against how often it sided with the verdict."""
    label = "Cost per question against agreement with the verdict"
    voices = [r for r in records if r.sided_rate is not None and r.cost_per_question is not None]
    if not voices:
        return empty(label, "Needs voices with a known side on some question.")
    costs = [float(r.cost_per_question or 0) for r in voices]
    rates = [r.sided_rate or 0.0 for r in voices]
    positive = [c for c in costs if c > 0]
    log = bool(positive) and len(positive) == len(costs) and max(positive) / min(positive) >= 20
    low, high = (min(positive) / 1.5, max(positive) * 1.5) if log else (0.0, max(costs) * 1.15 or 1.0)
    # The share axis shows the range the voices span (in tenths), so that close rates stay apart.
    bottom, top = max(0, math.floor(min(rates) * 10 - 1)) / 10, min(10, math.ceil(max(rates) * 10 + 1)) / 10
    x = Scale(low, high, LEFT + 8, WIDTH - RIGHT - 8, log)
    y = Scale(bottom, top, HEIGHT - BOTTOM, TOP)
    shares = [(v / 10, f"{v * 10}%") for v in range(round(bottom * 10), round(top * 10) + 1)]
    if len(shares) > 6:
        shares = shares[:: math.ceil(len(shares) / 6)]
    marks = axes(x, y, _cost_ticks(low, high, log), shares, "$ per question (its own calls)", "sided with verdict")
    placed = sorted(((x(c), y(r), v) for c, r, v in zip(costs, rates, voices, strict=True)), key=lambda p: p[1])
    anchors = [(cx, max(cy - 8, LABEL_TOP)) for cx, cy, _ in placed]  # above its point, never above the chart
    labels = _spread(anchors)
    for (cx, cy, record), (_, wanted), (lx, ly) in zip(placed, anchors, labels, strict=True):
        rate = record.sided_rate or 0.0
        cost = f"${float(record.cost_per_question or 0):.4f} per question"
        sided = f"sided with the verdict on {record.sided} of {record.known} ({rate:.0%})"
        title = element("title", f"{record.name}: {cost}, {sided}")
        marks.append(element("circle", title, cls="point", cx=cx, cy=cy, r=5))
        anchor, offset = ("end", -8) if cx > WIDTH * 0.62 else ("start", 8)
        if abs(ly - wanted) > 3:  # moved to stay readable: a line says whose label it is
            marks.append(element("line", cls="leader", x1=cx, y1=cy, x2=lx + offset * 0.6, y2=ly - 4))
        marks.append(element("text", _short(record.name), cls="point-label", x=lx + offset, y=ly, text_anchor=anchor))
    return chart(label, marks)


def _spread(anchors: list[tuple[float, float]], gap: float = 14.0) -> list[tuple[float, float]]:
    """Label positions, top to bottom, moved down just enough that no two labels near each other overlap."""
    placed: list[tuple[float, float]] = []
    for lx, ly in anchors:
        for px, py in placed:
            if abs(px - lx) < 120 and ly - py < gap:
                ly = py + gap
        placed.append((lx, min(ly, HEIGHT - BOTTOM - 4)))
    return placed


def _cost_ticks(low: float, high: float, log: bool) -> list[tuple[float, str]]:
    if log:
        values = [10.0**e for e in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)]
        values = [v for v in values if low <= v <= high]
    else:
        step = _nice(high / 4)
        values = [step * i for i in range(int(high / step) + 1)]
    return [(v, _dollars(v)) for v in values]


def _nice(rough: float) -> float:
    """A round step (1, 2 or 5 × a power of ten) near ``rough``."""
    power = 10.0 ** math.floor(math.log10(rough)) if rough > 0 else 1.0
    return next(m * power for m in (1, 2, 5, 10) if m * power >= rough)


def _dollars(value: float) -> str:
    if value == 0:
        return "$0"
    return f"${value:.{max(0, -math.floor(math.log10(value)))}f}"


def _short(name: str, limit: int = 16) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"


SERIES = 6  # the keys a spend chart tells apart: the five that cost most, and the others together
OTHERS = "others"


def spend_series(keys: Sequence[str]) -> list[str]:
    """The names the spend chart stacks, in order: the costliest keys, then "others" if any are left."""
    return [*keys[: SERIES - 1], OTHERS] if len(keys) > SERIES else list(keys)


def spend_over_time(periods: Sequence[str], keys: Sequence[str], cost: dict[tuple[int, str], float]) -> SafeString:
    """Stacked bars: each period's cost, by key (``spend_series``; a key's class ``series-N`` gives
    its colour, which the table's legend repeats). ``periods``: each bar's name; ``cost[(i, key)]``:
    the dollars of the i-th period's bar."""
    label = "Spend over time, in dollars, by " + ", ".join(keys) if keys else "Spend over time"
    series = spend_series(keys)
    stacked: dict[tuple[int, str], float] = {}
    for (i, key), dollars in cost.items():
        where = (i, key if key in series else OTHERS)
        stacked[where] = stacked.get(where, 0.0) + dollars
    totals = [sum(stacked.get((i, k), 0.0) for k in series) for i in range(len(periods))]
    if not periods or not any(totals):
        return empty(label, "Nothing was spent in this range.")
    step = _nice(max(totals) / 4)
    top = step * math.ceil(max(totals) / step)
    x = Scale(0, len(periods), LEFT + 4, WIDTH - RIGHT)
    y = Scale(0, top, HEIGHT - BOTTOM, TOP)
    every = math.ceil(len(periods) / 5)  # at most five names under the bars: each stays legible at 390 px
    shown = [(i + 0.5, p) for i, p in enumerate(periods) if i % every == 0]
    money = [(step * i, _dollars(step * i)) for i in range(round(top / step) + 1)]
    marks = axes(x, y, shown, money, "", "")  # the ticks say dollars and dates
    width = (x.end - x.start) / len(periods)
    for i, period in enumerate(periods):
        base = 0.0
        for n, key in enumerate(series):
            value = stacked.get((i, key), 0.0)
            if not value:
                continue
            title = element("title", f"{key}, {period}: ${value:.4f}")
            bar = {"x": x(i) + width * 0.12, "width": width * 0.76, "y": y(base + value)}
            marks.append(element("rect", title, cls=f"bar series-{n}", **bar, height=y(base) - y(base + value)))
            base += value
    return chart(label, marks)
