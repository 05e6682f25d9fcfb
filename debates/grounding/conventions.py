"""The ways one claim may read its numbers and units, all together.

"1,000" is a thousand where a point marks the decimals and one where a comma does; a GB is 1000³
bytes in the decimal convention and 1024³ in the binary one. A reading holds in a set of these
worlds, and one claim is read in one world: "1,000 × 1,000" reads both numbers alike, "3 × 250 GB
= 750 GB" both gigabytes alike, while "1 GiB ≈ 1.07 GB" holds (a GiB is binary in every world).
"""

import itertools

type World = tuple[str, str]

EVERY: frozenset[World] = frozenset(itertools.product(("point", "comma"), ("decimal", "binary")))


def _where(convention: str) -> frozenset[World]:
    return frozenset(world for world in EVERY if convention in world)


POINT, COMMA = _where("point"), _where("comma")  # "1,000.5" and "1.000,5"
DECIMAL, BINARY = _where("decimal"), _where("binary")  # a kilobyte of 1000 bytes, or of 1024
