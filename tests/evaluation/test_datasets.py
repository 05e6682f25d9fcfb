"""Reading data sets: every malformed file is refused before a call is made, naming the line and
the field; the arithmetic task is the same for a seed and its answers are right."""

import json
from pathlib import Path

import pytest

from debates.evaluation import datasets
from debates.evaluation.answers import Kind
from debates.evaluation.datasets import DatasetError, load


def jsonl(tmp_path: Path, *lines: str, name: str = "set.jsonl") -> str:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def csv_file(tmp_path: Path, text: str) -> str:
    path = tmp_path / "set.csv"
    path.write_text(text, encoding="utf-8")
    return str(path)


GOOD = '{"question": "How many moons does Mars have?", "answer": "2"}'
MOONS = '{"question": "Moons?", "answer": "2"%s'  # % the rest of the object


def test_a_jsonl_file_gives_items_with_their_kind_and_canonical_answer(tmp_path: Path) -> None:
    dataset = load(
        jsonl(
            tmp_path,
            GOOD,
            "",  # blank lines are skipped
            '{"id": 7, "question": "Largest planet?", "answer": "b", "options": ["Mars", "Jupiter"], "source": "x"}',
            '{"question": "Capital of Australia?", "answer": "Canberra"}',
            '{"question": "Thousands?", "answer": 1234.0}',
        )
    )
    assert dataset.name == "set.jsonl"
    assert [(i.id, i.line, i.kind, i.expected) for i in dataset.items] == [
        ("line 1", 1, Kind.NUMBER, "2"),
        ("7", 3, Kind.OPTION, "Jupiter"),
        ("line 4", 4, Kind.TEXT, "Canberra"),
        ("line 5", 5, Kind.NUMBER, "1234"),
    ]
    assert dataset.items[1].asked == "Largest planet?\n\nOptions:\nA) Mars\nB) Jupiter"


@pytest.mark.parametrize(
    ("lines", "error"),
    [
        ((GOOD, '{"question": "Broken", "answer": "1"'), "set.jsonl, line 2: not valid JSON (Expecting ',' delimiter"),
        ((GOOD, '["question", "answer"]'), "set.jsonl, line 2: expected a JSON object, found a list"),
        (('{"answer": "2"}',), "set.jsonl, line 1: the field “question” is missing"),
        (('{"question": "Moons?"}',), "set.jsonl, line 1: the field “answer” is missing"),
        (('{"question": 12, "answer": "2"}',), "set.jsonl, line 1: “question” must be a string, not a number"),
        (('{"question": "Moons?", "answer": ["2"]}',), "“answer” must be a string or a number, not a list"),
        (('{"question": "Moons?", "answer": true}',), "“answer” must be a string or a number, not true or false"),
        (('{"question": "Moons?", "answer": NaN}',), "line 1: not valid JSON (NaN is not a number an answer can be)"),
        (('{"question": "   ", "answer": "2"}',), "set.jsonl, line 1: “question” is empty"),
        (('{"question": "Moons?", "answer": ""}',), "set.jsonl, line 1: “answer” is empty"),
        ((MOONS % ', "options": "A, B"}',), "“options” must be a list of strings, not a string"),
        ((MOONS % ', "options": ["only"]}',), "line 1: “options”: Give at least two options"),
        ((MOONS % ', "options": ["x", "X"]}',), "“options”: An option is listed twice."),
        (('{"question": "Q?", "answer": "D", "options": ["x", "y"]}',), "line 1: “answer” “D” is none of the options"),
        ((MOONS % ', "id": {"a": 1}}',), "“id” must be a string or a number, not an object"),
        (
            ('{"id": "q", "question": "A?", "answer": "1"}', '{"id": "q", "question": "B?", "answer": "2"}'),
            "set.jsonl, line 2: id “q” is already used on line 1",
        ),
        (("", ""), "set.jsonl is empty"),
    ],
)
def test_a_malformed_jsonl_line_is_refused_naming_the_line_and_the_field(tmp_path, lines, error) -> None:
    with pytest.raises(DatasetError) as refused:
        load(jsonl(tmp_path, *lines))
    assert error in str(refused.value)


def test_a_question_over_the_limit_is_refused(tmp_path: Path, settings) -> None:
    settings.TEOREMA = {**settings.TEOREMA, "MAX_QUESTION_CHARS": 20}
    with pytest.raises(DatasetError, match=r"line 1: “question” is 28 characters with its options, the limit is 20"):
        load(jsonl(tmp_path, json.dumps({"question": "Pick", "answer": "a", "options": ["one", "two"]})))


def test_a_file_that_is_not_utf8_names_the_line_and_the_byte(tmp_path: Path) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(GOOD.encode() + b"\n" + '{"question": "Café?", "answer": "1"}'.encode("latin-1") + b"\n")
    with pytest.raises(DatasetError, match=r"latin1.jsonl, line 2: not UTF-8 text \(byte 0xe9 at column 18\)"):
        load(str(path))


def test_a_utf8_file_with_a_byte_order_mark_and_windows_line_ends_reads(tmp_path: Path) -> None:
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbfquestion,answer\r\nHow many?,3\r\n")
    assert [(i.question, i.expected) for i in load(str(path)).items] == [("How many?", "3")]


def test_a_huge_file_is_refused_before_it_is_read(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(datasets, "MAX_BYTES", 100)
    with pytest.raises(DatasetError, match=r"set.jsonl is 125\sbytes: the limit is 100\sbytes; split it"):
        load(jsonl(tmp_path, GOOD, GOOD.replace("Mars", "Venus")))


def test_a_file_of_another_format_or_a_missing_file_is_refused_in_words(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match=r"set.txt: use a .jsonl or .csv file"):
        load(str(tmp_path / "set.txt"))
    with pytest.raises(DatasetError, match=r"gone.jsonl: cannot be read \(No such file or directory\)"):
        load(str(tmp_path / "gone.jsonl"))


def test_a_csv_file_reads_options_separated_by_bars_and_quoted_multiline_questions(tmp_path: Path) -> None:
    text = 'id,question,answer,options\nq1,"Largest\nplanet?",Jupiter,Mars | Jupiter | Venus\nq2,Moons of Mars?,2,\n'
    items = load(csv_file(tmp_path, text)).items
    assert [(i.id, i.line, i.question, i.expected, i.options) for i in items] == [
        ("q1", 2, "Largest\nplanet?", "Jupiter", ("Mars", "Jupiter", "Venus")),
        ("q2", 4, "Moons of Mars?", "2", ()),
    ]


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("question,solution\nMoons?,2\n", "line 1: the header has no “answer” column (it has: question, solution)"),
        ("", "set.csv is empty"),
        ("question,answer\nMoons?,2\nLegs?\n", "set.csv, line 3: 1 fields, the header has 2"),
        ("question,answer\nMoons?,2\nLegs?,8,extra\n", "set.csv, line 3: 3 fields, the header has 2"),
        ("question,answer\nMoons?,\n", "set.csv, line 2: “answer” is empty"),
        ("question,answer\n\n", "set.csv holds no items"),
        ('question,answer\nMoons?,2\n"Legs?,8\n', "set.csv, line 3: not valid CSV"),
        ("question,answer,id\nA?,1,x\nB?,2,x\n", "set.csv, line 3: id “x” is already used on line 2"),
    ],
)
def test_a_malformed_csv_is_refused_naming_the_line(tmp_path: Path, text: str, error: str) -> None:
    with pytest.raises(DatasetError) as refused:
        load(csv_file(tmp_path, text))
    assert error in str(refused.value)


def test_the_arithmetic_task_is_the_same_for_a_seed_and_its_answers_are_right() -> None:
    first, again, other = load("arithmetic:50:7"), load("arithmetic:50:7"), load("arithmetic:50:8")
    assert first == again
    assert first.items != other.items
    assert first.name == "arithmetic:50:7"
    for item in first.items:
        expression = item.question.removeprefix("What is the result of ").split("?")[0]
        numbers = [int(n) for n in expression.replace("+", " ").replace("-", " ").replace("*", " ").split()]
        assert len(numbers) == 6
        assert all(0 <= n <= 30 for n in numbers)
        assert expression == "{}+{}*{}+{}-{}*{}".format(*numbers)
        assert item.expected == str(eval(expression))  # Python's own precedence is the reference
        assert item.kind == Kind.NUMBER
    assert load("arithmetic:3").name == "arithmetic:3:0"


def test_a_malformed_arithmetic_spec_says_how_to_write_it() -> None:
    with pytest.raises(DatasetError, match=r"arithmetic:N or arithmetic:N:SEED"):
        load("arithmetic:ten")
    with pytest.raises(DatasetError, match=r"arithmetic:0: give between 1 and 100,000 items"):
        load("arithmetic:0")
