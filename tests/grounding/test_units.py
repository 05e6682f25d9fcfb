"""The units a check knows have SymPy's sizes: those copied from ``sympy.physics.units`` are
recomputed from it, and those of our own table that SymPy knows too agree with it (ours keep their
conventions: a kilobyte is 1000 or 1024 bytes, a month 28 to 31 days)."""

from fractions import Fraction

import pytest
import sympy
from sympy.physics import units as si
from sympy.physics.units import convert_to
from sympy.physics.units import prefixes as prefix

from debates.grounding import units
from debates.grounding.sympy_units import SYMPY_UNITS

SI_UNIT = {
    "volume": si.meter**3,
    "energy": si.joule,
    "power": si.watt,
    "frequency": si.hertz,
    "pressure": si.pascal,
    "voltage": si.volt,
    "current": si.ampere,
    "area": si.meter**2,
    "length": si.meter,
    "mass": si.gram,
    "time": si.second,
    "bytes": si.byte,
}
NAMES = {name: getattr(si, name) for name in dir(si)} | {
    name: getattr(prefix, name) for name in ("kilo", "mega", "giga", "tera", "milli", "kibi", "mebi", "gibi")
}
# Words of our own table, and SymPy's name for the same unit. Not the nautical mile: SymPy's is 6076
# feet (1851.9648 m), the international one (ours) 1852 m.
OURS_IN_SYMPY = {
    "km": "kilometer",
    "cm": "centimeter",
    "mm": "millimeter",
    "nm": "nanometer",
    "inch": "inch",
    "ft": "foot",
    "yd": "yard",
    "mi": "mile",
    "mg": "milligram",
    "kg": "kilogram",
    "tonne": "tonne",
    "lb": "pound",
    "minute": "minute",
    "hour": "hour",
    "day": "day",
    "ms": "millisecond",
    "µs": "microsecond",
    "ns": "nanosecond",
    "year": "julian_year",
    "bit": "bit",
    "KiB": "kibibyte",
    "MiB": "mebibyte",
    "GiB": "gibibyte",
    "TiB": "tebibyte",
    "PiB": "pebibyte",
}


def sympys(expression: str, dimension: str) -> Fraction:
    """The size SymPy gives a unit, in its dimension's SI unit (a decimal SymPy keeps as a float
    read as written)."""
    base = SI_UNIT[dimension]
    ratio = sympy.nsimplify(convert_to(eval(expression, {"__builtins__": {}}, NAMES), base) / base)
    assert not ratio.free_symbols, f"{expression} is not a {dimension}"
    return Fraction(str(ratio)) if ratio.is_Rational else Fraction(str(sympy.N(ratio, 15)))


@pytest.mark.parametrize(("words", "dimension", "expression", "size"), SYMPY_UNITS, ids=lambda v: str(v)[:20])
def test_a_unit_beyond_our_table_has_the_size_sympy_gives_it(words, dimension, expression, size):
    computed = sympys(expression, dimension)
    assert abs(Fraction(size) - computed) <= computed * Fraction(1, 10**12)
    for word in words.split():  # none hidden by a word of our own table
        assert units.unit(word.replace("_", " ")) == units.Unit(dimension, (Fraction(size),)), word


@pytest.mark.parametrize(("word", "expression"), OURS_IN_SYMPY.items())
def test_our_own_units_agree_with_sympy(word, expression):
    unit = units.unit(word)
    assert unit is not None
    assert sympys(expression, unit.dimension) in unit.sizes


def test_a_kilobyte_is_still_either_convention_and_a_kibibyte_only_its_own():
    assert units.unit("KB").sizes == (Fraction(1000), Fraction(1024))
    assert units.unit("KiB").sizes == (Fraction(1024),)
