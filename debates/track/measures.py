"""The arithmetic of the track record, on counts the database has already summed (docs/track-record.md)."""

from collections.abc import Sequence


def kappa(both: int, only_a: int, only_b: int, neither: int) -> float | None:
    """Cohen's kappa of two voices siding with the verdict (1) or not (0) on the questions they shared.

    ``both``: both sided; ``only_a``/``only_b``: one did; ``neither``: both dissented. Kappa is
    the agreement beyond what their own rates of siding would give by chance: 0 when they agree
    as often as two independent voices would, 1 when they never differ. Two voices that never
    varied on any shared question (chance agreement 1) count as 1: nothing sets them apart.
    None without a shared question.
    """
    n = both + only_a + only_b + neither
    if not n:
        return None
    observed = (both + neither) / n
    a, b = (both + only_a) / n, (both + only_b) / n
    chance = a * b + (1 - a) * (1 - b)
    if chance >= 1:
        return 1.0
    return (observed - chance) / (1 - chance)


def independent_voices(matrix: Sequence[Sequence[float]]) -> float:
    """The effective number of independent voices of a panel: N_eff = (Σλ)² / Σλ².

    λ are the eigenvalues of the voices' symmetric dependence matrix (1 on the diagonal, kappa
    off it): the "eigenvalue formula" for the effective number of degrees of freedom (Bretherton
    et al. 1999, J. Climate 12:1990; as N²/Σλ² for a correlation matrix, Fraedrich et al. 1995,
    J. Climate 8:361). No eigen-decomposition is needed: Σλ is the trace, N, and Σλ² the sum of the
    squared entries, so N_eff = N² / Σᵢⱼ mᵢⱼ² — 1 when every voice always agrees, N when they
    are independent.
    """
    size = len(matrix)
    squares = sum(value * value for row in matrix for value in row)
    return size * size / squares if squares else 0.0


def ratio(part: float, whole: float) -> float | None:
    return part / whole if whole else None
