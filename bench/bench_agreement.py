"""What the agreement readers say of answers a person has labelled: false splits, merged opposites.

Method. The agreement corpus (tests/corpus/agreement/pairs.jsonl: pairs of answer lines worded as
real models word them, in five languages, each labelled the same answer or not, and for those
that are not, whether the difference holds whatever the wording) is read four ways:

- the guards alone (engine.guards.conflict: what may overrule the judge) and what they only
  notice (guards.noticed: a note, the grouping standing);
- the wording alone (engine.sameness.relation: grouping where no judge reads meaning);
- the judge's grouping as a person gives it, through engine.agreement.from_judge and its guards;
- a judge that merges every pair, through the same function: what the guards still keep apart.

A false split is an agreeing pair shown as two groups; a merged opposite a pair of different
answers shown as one. The figures are counts over the corpus; nothing is timed.

Usage: python bench/bench_agreement.py [--show]
"""

import argparse
import json
from pathlib import Path

from standalone import ROOT, django_setup

django_setup()

from debates.engine import agreement, guards, sameness  # noqa: E402
from debates.engine.reading.judgement import Judgement  # noqa: E402

CORPUS = ROOT / "tests" / "corpus" / "agreement" / "pairs.jsonl"
A, B = "Panelist A", "Panelist B"


def pairs(path: Path = CORPUS) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def judged(pair: dict, together: bool) -> agreement.Agreement:
    groups = ((pair["a"], ((A, ""), (B, ""))),) if together else ((pair["a"], ((A, ""),)), (pair["b"], ((B, ""),)))
    return agreement.from_judge(Judgement(groups), {A: pair["a"], B: pair["b"]}, 85.0)


def figures(corpus: list[dict]) -> tuple[list[tuple[str, int, int]], list[str]]:
    """(what, count, out of) rows, and the pairs behind every count that should be 0."""
    same = [p for p in corpus if p["same"]]
    apart = [p for p in corpus if not p["same"]]
    hard = [p for p in apart if p.get("guard")]
    wrong: list[str] = []

    def count(rows: list[dict], test, label: str, goal_zero: bool = False) -> tuple[str, int, int]:
        hits = [p for p in rows if test(p)]
        if goal_zero:
            wrong.extend(f"{label}: {p['a']} | {p['b']}" for p in hits)
        return label, len(hits), len(rows)

    split = lambda p: bool(guards.conflict(p["a"], p["b"]) or guards.conflict(p["b"], p["a"]))  # noqa: E731
    rows = [
        count(same, split, "guards: agreeing pairs split (false splits)", goal_zero=True),
        count(same, lambda p: bool(guards.noticed(p["a"], p["b"])), "guards: agreeing pairs with a note", True),
        count(hard, split, "guards: opposites whose difference holds whatever the wording, kept apart"),
        count(apart, lambda p: not split(p) and bool(guards.noticed(p["a"], p["b"])), "guards: others noticed"),
        count(apart, lambda p: sameness.relation(p["a"], p["b"]).same, "wording: different answers merged", True),
        count(same, lambda p: sameness.relation(p["a"], p["b"]).same, "wording: agreeing pairs found one"),
        count(same, lambda p: len(judged(p, True).groups) > 1, "judge as a person: false splits", True),
        count(apart, lambda p: len(judged(p, False).groups) < 2, "judge as a person: merged opposites", True),
        count(hard, lambda p: len(judged(p, True).groups) > 1, "judge merging all: opposites the guards keep apart"),
    ]
    return rows, wrong


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", action="store_true", help="list the pairs behind every count whose goal is 0")
    args = parser.parse_args()
    corpus = pairs()
    rows, wrong = figures(corpus)
    print(f"Agreement corpus: {len(corpus)} pairs ({sum(p['same'] for p in corpus)} agreeing)")
    for label, hits, total in rows:
        print(f"  {label:<72} {hits:>4} / {total}")
    if args.show:
        print("\n".join(wrong) or "(none)")


if __name__ == "__main__":
    main()
