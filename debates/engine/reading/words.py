"""The words of a short answer, as compared: a decision, an ANSWER line, an option.

Case, markdown, punctuation and articles go, contractions are spelled out ("don't" → "do not"),
and leading words that only introduce a choice ("Use", "I'd recommend", "Go with") are dropped:
"Use PostgreSQL." and "postgresql" have the same words.
"""

import re
import unicodedata


def wordset(words: str) -> frozenset[str]:
    """A set of words written as one string: long word lists stay readable and compact."""
    return frozenset(words.split())


TOKEN = re.compile(r"\d+(?:[.,]\d+)+|[^\W_]+[+#]*")
CONTRACTIONS = [
    (re.compile(p), r) for p, r in ((r"\bwon't\b", "will not"), (r"\bcan't\b", "can not"), (r"n't\b", " not"))
]
# Leading words that introduce a choice without being part of it ("Use X", "I'd go with X").
LEADING_FILLER = wordset(
    "i we d ll would should will strongly recommend recommends suggest vote for to go going with choose "
    "pick select adopt use using opt prefer my our final decision answer is let s"
)
# Words whose presence on one side only does not change the decision ("X it", "option B" / "B").
FILLER = LEADING_FILLER | wordset("it this that them option choice approach please definitely")
ARTICLES = frozenset({"the", "a", "an"})
# Words that carry no stance of their own, in the languages models answer in: a negation or an
# opposite among them says nothing, and a number is not of them ("3 of them").
STOP = wordset(
    "a an the of to in on at by for with from into onto over under up down out off before after first "
    "last and or but if then so as than that this these those it its is are was were be been being do "
    "does did have has had will would should shall can could may might must we you they i he she our your "
    "their my il lo la i gli le un una uno di da del della dei e o ma se che per con su in è sono el los "
    "las de del y o pero si que por para con en es son le la les un une des de du et ou mais si que pour "
    "avec en est sont der die das den dem ein eine und oder aber wenn dass für mit in ist sind"
)


def tokens(text: str) -> list[str]:
    """The words of ``text`` that carry the decision, in order."""
    folded = unicodedata.normalize("NFKC", text).casefold().replace("’", "'")
    for pattern, replacement in CONTRACTIONS:
        folded = pattern.sub(replacement, folded)
    found = TOKEN.findall(folded)
    # An article before a word goes; a lone letter stays ("option a", "plan a").
    found = [
        w
        for i, w in enumerate(found)
        if not (w in ARTICLES and i + 1 < len(found) and len(found[i + 1]) > 1 and found[i + 1].isalpha())
    ]
    start = 0
    while start < len(found) and found[start] in LEADING_FILLER:
        start += 1
    return found[start:] if start < len(found) else found


def normalise(text: str) -> str:
    """A decision's comparison key: its words, lower case, one space apart."""
    return " ".join(tokens(text))


def stem(word: str) -> str:
    """A crude stem, enough to see "approved" and "approve", "passes" and "pass" as one word."""
    for suffix in ("ing", "ed", "es", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not (suffix == "s" and word.endswith("ss")):
            return word[: -len(suffix)]
    return word
