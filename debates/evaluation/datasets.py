"""Labelled data sets: JSONL or CSV files of ``question`` + ``answer`` (+ ``options``, ``id``),
and Du et al.'s arithmetic task generated from a seed.

Reading is strict: anything malformed stops the evaluation before a call is made, with the line
(and the field) to fix — a bad item found halfway through would have cost money for nothing.
"""

import csv
import hashlib
import json
import math
import random
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from django import forms
from django.conf import settings
from django.template.defaultfilters import filesizeformat

from debates.engine.sameness import option_named
from debates.evaluation.answers import Kind, canonical, kind_of
from debates.forms import OptionsField
from debates.refusal import json_type

MAX_BYTES = 32 * 2**20
MAX_ID_CHARS = 200
ARITHMETIC = re.compile(r"arithmetic:(?P<count>\d+)(?::(?P<seed>\d+))?")
MAX_ARITHMETIC = 100_000
# Du et al.'s prompt for the task, word for word.
ARITHMETIC_PROMPT = "What is the result of {}? Make sure to state your answer at the end of the response."
SUFFIXES = (".jsonl", ".ndjson", ".csv")
OPTION_SEPARATOR = "|"  # options in one CSV cell: "Paris | Rome | Madrid"


class DatasetError(ValueError):
    """A data set that cannot be used; the message names the line and the field to fix."""


@dataclass(frozen=True)
class Item:
    """One labelled question. ``expected`` is the answer in canonical form (answers.canonical)."""

    id: str
    line: int
    question: str
    answer: str  # as the data set writes it
    options: tuple[str, ...]
    kind: Kind
    expected: str

    @property
    def asked(self) -> str:
        """The question as the panel gets it: with its options listed by letter, whatever the protocol."""
        if not self.options:
            return self.question
        listed = "\n".join(f"{chr(ord('A') + i)}) {option}" for i, option in enumerate(self.options))
        return f"{self.question}\n\nOptions:\n{listed}"


@dataclass(frozen=True)
class Dataset:
    name: str
    items: tuple[Item, ...]

    def fingerprint(self, *scope: object) -> str:
        """These items in this ``scope`` (panel, owner): what a re-run with the same arguments resumes."""
        payload = json.dumps([[str(s) for s in scope], [asdict(item) for item in self.items]], sort_keys=True)
        return hashlib.sha256(payload.encode()).hexdigest()

    def limited(self, limit: int | None) -> "Dataset":
        return self if limit is None else Dataset(self.name, self.items[:limit])


def load(source: str) -> Dataset:
    """``arithmetic:N[:SEED]``, or a path to a .jsonl or .csv file."""
    if match := ARITHMETIC.fullmatch(source):
        return arithmetic(int(match["count"]), int(match["seed"] or 0))
    if source.startswith("arithmetic"):
        raise DatasetError(f"“{source}”: write the built-in task as arithmetic:N or arithmetic:N:SEED (N ≥ 1)")
    path = Path(source)
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise DatasetError(f"{path.name}: use a .jsonl or .csv file (or arithmetic:N[:SEED])")
    try:
        size = path.stat().st_size
        if size > MAX_BYTES:
            limit = filesizeformat(MAX_BYTES)
            raise DatasetError(f"{path.name} is {filesizeformat(size)}: the limit is {limit}; split it")
        lines = _decode(path.name, path.read_bytes())
    except OSError as error:
        raise DatasetError(f"{path.name}: cannot be read ({error.strerror or error})") from error
    if not any(line.strip() for line in lines):
        raise DatasetError(f"{path.name} is empty")
    rows = _csv_rows(path.name, lines) if suffix == ".csv" else _jsonl_rows(path.name, lines)
    items: list[Item] = []
    seen: dict[str, int] = {}
    for line, row in rows:
        item = _item(f"{path.name}, line {line}", line, row)
        if item.id in seen:
            raise DatasetError(f"{path.name}, line {line}: id “{item.id}” is already used on line {seen[item.id]}")
        seen[item.id] = line
        items.append(item)
    if not items:
        raise DatasetError(f"{path.name} holds no items")
    return Dataset(path.name, tuple(items))


def arithmetic(count: int, seed: int = 0) -> Dataset:
    """Du et al.'s arithmetic task: ``a+b*c+d-e*f`` with integers 0–30, the same for a seed."""
    if not 1 <= count <= MAX_ARITHMETIC:
        raise DatasetError(f"arithmetic:{count}: give between 1 and {MAX_ARITHMETIC:,} items")
    rng = random.Random(seed)
    items = []
    for number in range(1, count + 1):
        a, b, c, d, e, f = (rng.randint(0, 30) for _ in range(6))
        result = str(a + b * c + d - e * f)
        question = ARITHMETIC_PROMPT.format(f"{a}+{b}*{c}+{d}-{e}*{f}")
        items.append(Item(f"{seed}-{number}", number, question, result, (), Kind.NUMBER, result))
    return Dataset(f"arithmetic:{count}:{seed}", tuple(items))


def _decode(name: str, data: bytes) -> list[str]:
    """The file's lines as text, naming the first line that is not UTF-8."""
    lines = data.removeprefix(b"\xef\xbb\xbf").split(b"\n")
    decoded = []
    for number, raw in enumerate(lines, 1):
        try:
            decoded.append(raw.decode("utf-8").removesuffix("\r"))
        except UnicodeDecodeError as error:
            raise DatasetError(
                f"{name}, line {number}: not UTF-8 text (byte 0x{raw[error.start]:02x} at column {error.start + 1}); "
                "save the file as UTF-8"
            ) from error
    return decoded


def _jsonl_rows(name: str, lines: list[str]) -> list[tuple[int, dict[str, Any]]]:
    rows = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line, parse_constant=_no_constant)
        except ValueError as error:
            why = error.msg if isinstance(error, json.JSONDecodeError) else str(error)
            where = f" at column {error.colno}" if isinstance(error, json.JSONDecodeError) else ""
            raise DatasetError(f"{name}, line {number}: not valid JSON ({why}{where})") from error
        if not isinstance(row, dict):
            raise DatasetError(f"{name}, line {number}: expected a JSON object, found {json_type(row)}")
        rows.append((number, row))
    return rows


def _no_constant(constant: str) -> None:
    raise ValueError(f"{constant} is not a number an answer can be")


def _csv_rows(name: str, lines: list[str]) -> list[tuple[int, dict[str, Any]]]:
    reader = csv.reader((line + "\n" for line in lines), strict=True)  # a quoted field may span lines
    try:
        header = [cell.strip().lower() for cell in next(reader)]
    except csv.Error as error:
        raise DatasetError(f"{name}, line 1: not valid CSV ({error})") from error
    for column in ("question", "answer"):
        if column not in header:
            found = ", ".join(h for h in header if h) or "no named column"
            raise DatasetError(f"{name}, line 1: the header has no “{column}” column (it has: {found})")
    rows: list[tuple[int, dict[str, Any]]] = []
    start = reader.line_num + 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return rows
        except csv.Error as error:
            raise DatasetError(f"{name}, line {start}: not valid CSV ({error})") from error
        if any(cell.strip() for cell in cells):
            if len(cells) != len(header):
                raise DatasetError(f"{name}, line {start}: {len(cells)} fields, the header has {len(header)}")
            row: dict[str, Any] = dict(zip(header, cells, strict=True))
            if row.get("options", "").strip():
                row["options"] = [o.strip() for o in row["options"].split(OPTION_SEPARATOR)]
            else:
                row.pop("options", None)
            rows.append((start, row))
        start = reader.line_num + 1


def _item(where: str, line: int, row: dict[str, Any]) -> Item:
    question = _text(where, row, "question")
    answer = _text(where, row, "answer", numbers=True)
    options = _options(where, row.get("options"))
    item_id = _text(where, row, "id", numbers=True) if row.get("id") not in (None, "") else f"line {line}"
    if len(item_id) > MAX_ID_CHARS:
        raise DatasetError(f"{where}: “id” is longer than {MAX_ID_CHARS} characters")
    kind = kind_of(answer, options)
    if kind == Kind.OPTION:
        index = option_named(answer, options)
        if index is None:
            raise DatasetError(f"{where}: “answer” “{answer}” is none of the options (give its letter or its text)")
        expected = options[index]
    else:
        expected = canonical(answer, kind, options)
    item = Item(item_id, line, question, answer, options, kind, expected)
    if len(item.asked) > (limit := settings.TEOREMA["MAX_QUESTION_CHARS"]):
        size = len(item.asked)
        raise DatasetError(f"{where}: “question” is {size:,} characters with its options, the limit is {limit:,}")
    return item


def _text(where: str, row: dict[str, Any], field: str, numbers: bool = False) -> str:
    if field not in row:
        raise DatasetError(f"{where}: the field “{field}” is missing")
    value = row[field]
    if numbers and isinstance(value, int | float) and not isinstance(value, bool):
        if not math.isfinite(value):
            raise DatasetError(f"{where}: “{field}” is not a finite number")
        value = str(value)
    if not isinstance(value, str):
        allowed = "a string or a number" if numbers else "a string"
        raise DatasetError(f"{where}: “{field}” must be {allowed}, not {json_type(value)}")
    if not value.strip():
        raise DatasetError(f"{where}: “{field}” is empty")
    return value.strip()


def _options(where: str, value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise DatasetError(f"{where}: “options” must be a list of strings, not {json_type(value)}")
    try:
        return tuple(OptionsField(required=False).clean(value))
    except forms.ValidationError as error:
        raise DatasetError(f"{where}: “options”: {' '.join(error.messages)}") from error
