"""The conversions a check between rounds knows: time, bytes, length, mass, temperature, percent.

Each unit is a dimension and its size in the dimension's base unit (seconds, bytes, metres,
grams, percent as a fraction), as exact fractions. Where a unit's size depends on a convention,
it has every conventional size and a claim holds when it holds under one of them: a kilobyte
is 1000 or 1024 bytes (KiB is only 1024), a month 28 to 31 days, a year 365 to 366. Time words
in other languages come from the guards (engine.guards), which read the same quantities.

Temperatures are not sizes but scales with an offset: only a temperature against a temperature
is checked, as an absolute reading (never a difference).
"""

import re
from dataclasses import dataclass
from fractions import Fraction

from debates.engine.quantities import UNITS as GUARD_UNITS

DAY = 86400
# The Julian year's (and its twelfth's) first: a month against a year is the calendar's 1 to 12.
MONTH_DAYS = (Fraction(36525, 1200), 28, 29, 30, 31)
YEAR_DAYS = (Fraction(36525, 100), 365, Fraction(3652425, 10000), 366)


@dataclass(frozen=True)
class Unit:
    """A unit as read after a number: its dimension and every size it may have in base units."""

    dimension: str
    sizes: tuple[Fraction, ...]
    offset: Fraction = Fraction(0)  # temperature: kelvin = value * size + offset

    @property
    def affine(self) -> bool:
        return self.dimension == "temperature"


def _sizes(*values: int | Fraction) -> tuple[Fraction, ...]:
    return tuple(Fraction(v) for v in values)


def _table() -> dict[str, Unit]:
    found: dict[str, Unit] = {}

    def add(words: str, dimension: str, *sizes: int | Fraction, offset: Fraction = Fraction(0)) -> None:
        for word in words.split():
            found[word] = Unit(dimension, _sizes(*sizes), offset)

    # Time: the guards' words (every language they read), but "m" is a metre here and months and
    # years have every conventional length.
    for word, (dimension, size) in GUARD_UNITS.items():
        if dimension == "time" and word != "m":
            found[word] = Unit("time", _sizes(Fraction(size).limit_denominator(1000)))
    add("month months mese mesi mes meses mois monat monate", "time", *(d * DAY for d in MONTH_DAYS))
    add("y yr yrs year years anno anni año años ano anos an ans jahr jahre", "time", *(d * DAY for d in YEAR_DAYS))
    add("µs us microsecond microseconds", "time", Fraction(1, 10**6))
    add("ns nanosecond nanoseconds", "time", Fraction(1, 10**9))
    # Bytes and bits: a decimal prefix is either convention, a binary one only its own. A lowercase
    # "Mb" (megabit or a miswritten megabyte) and a lone "B" (a byte or a billion) are not read.
    add("byte bytes octet octets", "bytes", 1)
    add("bit bits", "bytes", Fraction(1, 8))
    for power, prefix, long in (
        (1, "K", "kilo"),
        (2, "M", "mega"),
        (3, "G", "giga"),
        (4, "T", "tera"),
        (5, "P", "peta"),
    ):
        either = (1000**power, 1024**power)
        add(f"{prefix}B {long}byte {long}bytes", "bytes", *either)
        add(f"{prefix}iB {prefix.lower()}ib {long[:2]}bibyte {long[:2]}bibytes", "bytes", 1024**power)
        add(f"{prefix}bit {prefix}bits {long}bit {long}bits", "bytes", *(Fraction(s, 8) for s in either))
    add("kB", "bytes", 1000, 1024)
    # Length, in metres.
    add("nm nanometre nanometres nanometer nanometers", "length", Fraction(1, 10**9))
    add("µm micrometre micrometres micrometer micrometers micron microns", "length", Fraction(1, 10**6))
    add("mm millimetre millimetres millimeter millimeters", "length", Fraction(1, 1000))
    add("cm centimetre centimetres centimeter centimeters", "length", Fraction(1, 100))
    add("m metre metres meter meters metro metri metros mètre mètres", "length", 1)
    add("km kilometre kilometres kilometer kilometers chilometri kilómetros kilomètres kilometer", "length", 1000)
    add("inch inches ″", "length", Fraction(254, 10000))
    add("ft foot feet", "length", Fraction(3048, 10000))
    add("yd yard yards", "length", Fraction(9144, 10000))
    add("mi mile miles miglia millas", "length", Fraction(1609344, 1000))
    add("nmi", "length", 1852)
    # Mass, in grams.
    add("mg milligram milligrams", "mass", Fraction(1, 1000))
    add("g gram grams gramme grammes grammi gramos", "mass", 1)
    add("kg kilogram kilograms kilo kilos chilo chili", "mass", 1000)
    add("tonne tonnes", "mass", 10**6)
    add("lb lbs pound pounds", "mass", Fraction(45359237, 100000))
    add("oz ounce ounces", "mass", Fraction(45359237, 1600000))
    # Temperature, in kelvin.
    celsius = Fraction(27315, 100)
    add("°C ºC ℃ celsius centigrade", "temperature", 1, offset=celsius)
    add("°F ºF ℉ fahrenheit", "temperature", Fraction(5, 9), offset=celsius - Fraction(32 * 5, 9))
    add("kelvin kelvins", "temperature", 1)
    # Percent, as a fraction.
    add("% percent per_cent percento per_cento por_ciento pour_cent prozent", "percent", Fraction(1, 100))
    add("‰ permille per_mille", "percent", Fraction(1, 1000))
    return found


UNITS = _table()
# Where case tells units apart (MB and Mb, KiB) the table keeps its spelling; words match in any case.
FOLDED = {word.casefold(): unit for word, unit in UNITS.items() if len(word) > 3 and word.isalpha()}


def unit(word: str) -> Unit | None:
    """The unit a word names, or None (a word of prose, or a unit too ambiguous to read)."""
    word = re.sub(r"\s+", "_", word.strip())
    return UNITS.get(word) or FOLDED.get(word.casefold())


# The unit words, longest first, for a pattern: "per cent" before "per", "KiB" before "K".
WORDS = sorted((w.replace("_", r"\s+") for w in (*UNITS, *FOLDED)), key=len, reverse=True)
