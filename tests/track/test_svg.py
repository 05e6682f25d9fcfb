"""The Models page's charts as SVG: every label inside its chart."""

import re
from decimal import Decimal

from debates.track import svg
from debates.track.figures import Record


def voice(id: int, name: str, sided: int, cost: str) -> Record:
    return Record(id, name=name, positions=4, known=4, sided=sided, cost=Decimal(cost))


def test_the_labels_of_voices_that_always_sided_with_the_verdict_are_not_cut_off_at_the_top():
    records = [voice(1, "Alpha house", 4, "0.40"), voice(2, "Beta house", 4, "0.10"), voice(3, "Gamma house", 1, "0.2")]
    drawn = svg.cost_against_agreement(records)
    baselines = [float(y) for y in re.findall(r'<text class="point-label"[^>]* y="([\d.]+)"', drawn)]
    assert len(baselines) == 3
    assert min(baselines) >= 12  # a 12 px label whose baseline is higher is cut off by the viewBox
