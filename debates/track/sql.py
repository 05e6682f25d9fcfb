"""JSON reads the ORM cannot spell: a path step that is a column (a voice's label), an array averaged.

The track record reads the stored ledger and consensus in SQL so that it never loads every row:
``question.ledger -> 'stances' -> <this row's label> ->> 'stance'`` has a key that varies per
row, which Django's ``KeyTextTransform`` (a fixed key) cannot express. Each expression is
written for SQLite (JSON1) and PostgreSQL (jsonb), the two databases Teorema runs on.
"""

from typing import Any

from django.db import NotSupportedError
from django.db.models import BooleanField, FloatField, Func, IntegerField, TextField, Value
from django.db.models.expressions import Combinable

SQL = tuple[str, tuple[Any, ...]]


class _JsonSql(Func):
    """A Func whose SQL is written per vendor from its compiled arguments."""

    def as_sql(self, compiler: Any, connection: Any, *args: Any, **extra: Any) -> SQL:
        raise NotSupportedError(f"{type(self).__name__} needs SQLite or PostgreSQL, not {connection.vendor}")

    def _compiled(self, compiler: Any) -> tuple[list[str], tuple[Any, ...]]:
        sqls, params = [], []
        for expression in self.get_source_expressions():
            sql, more = compiler.compile(expression)
            sqls.append(sql)
            params.extend(more)
        return sqls, tuple(params)


class JsonText(_JsonSql):
    """The scalar at ``path`` in a JSON column, as text; a step is a key, or an expression giving one."""

    output_field = TextField()

    def __init__(self, column: Combinable, *path: str | Combinable) -> None:
        self.steps = tuple(isinstance(step, str) for step in path)  # True: a fixed key
        super().__init__(column, *(Value(step) if isinstance(step, str) else step for step in path))

    def as_sqlite(self, compiler: Any, connection: Any, **extra: Any) -> SQL:
        (column, *keys), params = self._compiled(compiler)
        # '$."stances"."Panelist A"."stance"': every key quoted, so a label's space is no problem.
        path = " || ".join(["'$'", *(f"""'."' || {key} || '"'""" for key in keys)])
        return f"json_extract({column}, {path})", params

    def as_postgresql(self, compiler: Any, connection: Any, **extra: Any) -> SQL:
        (column, *keys), params = self._compiled(compiler)
        arrows = ["->"] * (len(keys) - 1) + ["->>"]
        walk = "".join(f" {arrow} ({key})::text" for arrow, key in zip(arrows, keys, strict=True))
        return f"({column}{walk})", params


class StanceSide(Func):
    """1 for a ledger stance that sides with the emerging verdict (agrees, or partly: the same
    answer with reservations), 0 for one that disagrees, NULL for unknown; the stance read once."""

    template = "CASE %(expressions)s WHEN 'agrees' THEN 1 WHEN 'partly' THEN 1 WHEN 'disagrees' THEN 0 END"
    output_field = IntegerField()


class ClaimsConfidence(_JsonSql):
    """The mean confidence of the claims in a contribution's ledger record (NULL when none gave one)."""

    output_field = FloatField()

    def as_sqlite(self, compiler: Any, connection: Any, **extra: Any) -> SQL:
        (ledger,), params = self._compiled(compiler)
        return f"(SELECT AVG(json_extract(value, '$.confidence')) FROM json_each({ledger}, '$.claims'))", params

    def as_postgresql(self, compiler: Any, connection: Any, **extra: Any) -> SQL:
        (ledger,), params = self._compiled(compiler)
        claims = f"CASE jsonb_typeof({ledger} -> 'claims') WHEN 'array' THEN {ledger} -> 'claims' ELSE '[]' END"
        sql = f"(SELECT AVG((claim ->> 'confidence')::float) FROM jsonb_array_elements({claims}) AS claim)"
        return sql, params


class InGroup(_JsonSql):
    """Whether a vote's consensus has a group deciding ``decision`` (case and spacing aside) and,
    given a ``label``, whether that voice is in it."""

    output_field = BooleanField()

    def __init__(self, consensus: Combinable, decision: Combinable, label: Combinable | None = None) -> None:
        super().__init__(consensus, decision, *([label] if label is not None else []))

    def as_sqlite(self, compiler: Any, connection: Any, **extra: Any) -> SQL:
        (consensus, decision, *label), params = self._compiled(compiler)
        member = "".join(
            f" AND EXISTS (SELECT 1 FROM json_each(g.value, '$.labels') AS l WHERE l.value = {sql})" for sql in label
        )
        return (
            f"EXISTS (SELECT 1 FROM json_each({consensus}, '$.groups') AS g "
            f"WHERE lower(trim(json_extract(g.value, '$.decision'))) = lower(trim({decision})){member})",
            params,
        )

    def as_postgresql(self, compiler: Any, connection: Any, **extra: Any) -> SQL:
        (consensus, decision, *label), params = self._compiled(compiler)
        groups = f"CASE jsonb_typeof({consensus} -> 'groups') WHEN 'array' THEN {consensus} -> 'groups' ELSE '[]' END"
        member = "".join(f" AND (g -> 'labels') @> jsonb_build_array(({sql})::text)" for sql in label)
        return (
            f"EXISTS (SELECT 1 FROM jsonb_array_elements({groups}) AS g "
            f"WHERE lower(trim(g ->> 'decision')) = lower(trim({decision})){member})",
            params,
        )
