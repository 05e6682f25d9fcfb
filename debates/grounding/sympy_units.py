"""The units a check knows beyond our own table (``units``), with the sizes SymPy's
``sympy.physics.units`` gives them, in the SI unit of their dimension.

Copied, not imported: the process that reads the voices' texts never loads SymPy (it lives in the
sandbox's child, one per process), and the finder runs between two rounds. tests/grounding/
test_units.py recomputes every size below from ``sympy.physics.units`` by the expression beside it,
so the copy cannot drift from the library. Left out on purpose: abbreviations that are words or
other units in the languages read ("ha", "pm", "au", "Da", "ps", "N", "A", a lone "l"), and US
against imperial measures (gallons, quarts).
"""

from fractions import Fraction

# (words, dimension, SymPy's expression for the unit, its size in the dimension's SI unit)
SYMPY_UNITS: tuple[tuple[str, str, str, str], ...] = (
    ("L liter liters litre litres", "volume", "liter", "1/1000"),
    ("mL ml milliliter milliliters millilitre millilitres", "volume", "milliliter", "1/1000000"),
    ("cL cl centiliter centiliters centilitre centilitres", "volume", "centiliter", "1/100000"),
    ("dL dl deciliter deciliters decilitre decilitres", "volume", "deciliter", "1/10000"),
    ("J joule joules", "energy", "joule", "1"),
    ("kJ kilojoule kilojoules", "energy", "kilo*joule", "1000"),
    ("MJ megajoule megajoules", "energy", "mega*joule", "1000000"),
    ("GJ gigajoule gigajoules", "energy", "giga*joule", "1000000000"),
    ("Wh", "energy", "watt*hour", "3600"),
    ("kWh", "energy", "kilo*watt*hour", "3600000"),
    ("MWh", "energy", "mega*watt*hour", "3600000000"),
    ("GWh", "energy", "giga*watt*hour", "3600000000000"),
    ("TWh", "energy", "tera*watt*hour", "3600000000000000"),
    ("eV electronvolt electronvolts", "energy", "electronvolt", "1.602176634e-19"),
    ("W watt watts", "power", "watt", "1"),
    ("kW kilowatt kilowatts", "power", "kilo*watt", "1000"),
    ("MW megawatt megawatts", "power", "mega*watt", "1000000"),
    ("GW gigawatt gigawatts", "power", "giga*watt", "1000000000"),
    ("Hz hertz", "frequency", "hertz", "1"),
    ("kHz kilohertz", "frequency", "kilo*hertz", "1000"),
    ("MHz megahertz", "frequency", "mega*hertz", "1000000"),
    ("GHz gigahertz", "frequency", "giga*hertz", "1000000000"),
    ("THz terahertz", "frequency", "tera*hertz", "1000000000000"),
    ("Pa pascal pascals", "pressure", "pascal", "1"),
    ("kPa kilopascal kilopascals", "pressure", "kilo*pascal", "1000"),
    ("MPa megapascal megapascals", "pressure", "mega*pascal", "1000000"),
    ("bar bars", "pressure", "bar", "100000"),
    ("atm atmosphere atmospheres", "pressure", "atmosphere", "101325"),
    ("psi", "pressure", "psi", "8896443230521/1290320000"),  # SymPy's pound-force per square inch, exactly
    ("torr mmHg", "pressure", "torr", "133.322387415"),
    ("V volt volts", "voltage", "volt", "1"),
    ("mV millivolt millivolts", "voltage", "milli*volt", "1/1000"),
    ("kV kilovolt kilovolts", "voltage", "kilo*volt", "1000"),
    ("mA milliampere milliamperes milliamp milliamps", "current", "milli*ampere", "1/1000"),
    ("ampere amperes amp amps", "current", "ampere", "1"),
    ("hectare hectares", "area", "hectare", "10000"),
    ("Å angstrom angstroms ångström", "length", "angstrom", "1/10000000000"),
    ("light_year light_years lightyear lightyears", "length", "lightyear", "9460730472580800"),
    ("µg mcg microgram micrograms", "mass", "microgram", "1/1000000"),
    ("picosecond picoseconds", "time", "picosecond", "1/1000000000000"),
)


def sizes() -> dict[str, tuple[str, Fraction]]:
    """Each word's dimension and size, as ``units`` adds them to its table."""
    return {word: (dimension, Fraction(size)) for words, dimension, _, size in SYMPY_UNITS for word in words.split()}
