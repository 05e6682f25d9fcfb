"""The roster as code: providers, panelists and panels read from and written to TOML.

Entries are upserted by name and keys left out take the model's default, so a file says
everything about what it names and a second import changes nothing. A file never holds a
secret: a key is named by ``api_key_env``; keys stored (encrypted) in the admin are kept.
The format is documented field by field in docs/roster.md.
"""

import difflib
import math
import os
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import tomlkit
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.utils.text import slugify

from debates.models import Membership, Panel, Panelist, Provider
from debates.providers.presets import PRESETS
from debates.roster.readiness import problems  # the ask page's own rule for "cannot run"


@dataclass(frozen=True)
class Table:
    """One ``[[key]]`` array of tables: the model it fills and the keys it accepts."""

    key: str
    kind: str
    model: type[Provider] | type[Panelist] | type[Panel]
    required: tuple[str, ...]
    fields: tuple[str, ...]  # model fields set from keys of the same name
    refs: tuple[str, ...] = ()  # keys naming other entries
    # An old key -> its new name: still read (files outlive a rename), with a note saying so.
    renamed: dict[str, str] = field(default_factory=dict)


PROVIDERS = Table(
    "providers",
    "provider",
    Provider,
    required=("name",),
    fields=(
        *("name", "preset", "wire", "base_url", "command", "api_key_env"),
        *("connect_timeout", "stall_timeout", "total_timeout", "max_retries", "enabled"),
    ),
    renamed={"protocol": "wire"},
)
PANELISTS = Table(
    "panelists",
    "panelist",
    Panelist,
    required=("name", "provider", "model", "family"),
    fields=(
        *("name", "model", "family", "method", "temperature", "max_tokens", "price_in", "price_out"),
        *("search", "price_search", "sees_images", "reads_pdf", "enabled"),
    ),
    refs=("provider",),
)
PANELS = Table(
    "panels",
    "panel",
    Panel,
    required=("name", "members", "moderator"),
    fields=(
        *("name", "slug", "description", "protocol", "rounds", "debate", "merge_critique", "revote_on_dissent"),
        *("failure_policy", "quorum", "default_criticality", "is_default", "options", "facilitator_brief"),
        *("deadline", "forbid_search"),
    ),
    refs=("members", *Panel.JUDGES),
)
TABLES = (PROVIDERS, PANELISTS, PANELS)
MAX_FILE_BYTES = 1024 * 1024  # a roster of a hundred voices is about 20 kB
SHOWN_CHARS = 60  # of a name or value quoted in an error, so a huge one cannot flood the report


class Unconfirmed(Exception):
    """The import would change what a person relies on (``notices``); nothing was changed."""

    def __init__(self, notices: list[str]) -> None:
        super().__init__("\n".join(notices))
        self.notices = notices


class RosterError(Exception):
    """A roster file that cannot be imported; ``errors`` name the entry and field of each fault."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__("\n".join(errors))
        self.errors = errors


@dataclass(frozen=True)
class Change:
    action: str  # created | updated | unchanged
    kind: str
    name: str
    fields: tuple[str, ...] = ()

    def __str__(self) -> str:
        detail = f" ({', '.join(self.fields)})" if self.fields else ""
        return f'{self.action} {self.kind} "{self.name}"{detail}'


@dataclass
class Report:
    changes: list[Change] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # imported, but worth a second look
    # Changes a person should agree to first: another default panel, a stored key set aside.
    notices: list[str] = field(default_factory=list)

    def count(self, action: str) -> int:
        return sum(change.action == action for change in self.changes)

    def summary(self) -> str:
        return ", ".join(f"{self.count(a)} {a}" for a in ("created", "updated", "unchanged"))


def _expected_type(table: Table, key: str) -> tuple[tuple[type, ...], str]:
    if key == "members":
        return (list,), "a list of panelist names"
    if key == "options":
        return (list,), "a list of decisions (strings)"
    if key in table.refs or key == "api_key_env":
        return (str,), "a name (a string)"
    model_field = table.model._meta.get_field(key)
    if isinstance(model_field, models.BooleanField):
        return (bool,), "true or false"
    if isinstance(model_field, models.IntegerField):
        return (int,), "a whole number"
    if isinstance(model_field, models.FloatField | models.DecimalField):
        return (int, float), "a number"
    return (str,), "a string"


def _short(text: str, limit: int = SHOWN_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _label(table: Table, index: int, entry: dict[str, Any]) -> str:
    name = entry.get("name")
    named = f' "{_short(name)}"' if isinstance(name, str) else ""
    return f"[[{table.key}]]{named} (entry {index})"


def _check_entry(table: Table, label: str, entry: dict[str, Any]) -> list[str]:
    """The shape of one entry: known keys, required keys present, values of the right type."""
    errors = []
    known = (*table.fields, *table.refs, *(("api_key_env",) if table is PROVIDERS else ()))
    for key in entry:
        if key == "api_key" and table is PROVIDERS:
            errors.append(f"{label}: api_key: a roster file never holds a key; use api_key_env")
        elif key not in known:
            close = difflib.get_close_matches(key, known, n=1)
            hint = f' (did you mean "{close[0]}"?)' if close else f" (known keys: {', '.join(known)})"
            errors.append(f'{label}: unknown key "{_short(key)}"{hint}')
    missing = [key for key in table.required if key not in entry]
    if table is PROVIDERS and "wire" not in entry and "preset" not in entry:
        missing.append("wire (or preset)")
    errors += [f"{label}: {key} is missing" for key in missing]
    for key, value in entry.items():
        if key not in known:
            continue
        types, words = _expected_type(table, key)
        wrong = (isinstance(value, bool) and bool not in types) or not isinstance(value, types)
        if key == "members" and not wrong:
            wrong = not value or not all(isinstance(item, str) for item in value)
            words = "a non-empty list of panelist names"
        if key == "options" and not wrong:
            wrong = not all(isinstance(item, str) and item.strip() for item in value) or len(set(value)) < len(value)
            words = "a list of distinct, non-empty decisions"
        if isinstance(value, float) and not math.isfinite(value):
            # NaN passes every min/max validator (each comparison is false) and SQLite stores it as NULL.
            wrong, words = True, "a finite number"
        if wrong:
            errors.append(f"{label}: {key} must be {words}, not {_short(repr(value))}")
    return errors


def read_file(path: Path) -> str:
    """A roster file's text; one too large to be a roster, or not UTF-8, is refused in words."""
    with path.open("rb") as handle:
        data = handle.read(MAX_FILE_BYTES + 1)  # never more: the path may be huge, or /dev/zero
    if len(data) > MAX_FILE_BYTES:
        raise RosterError([f"larger than {MAX_FILE_BYTES // 1024 // 1024} MiB; a roster file is a few kilobytes"])
    try:
        return data.decode()
    except UnicodeDecodeError as exc:
        where = f"byte 0x{data[exc.start]:02x} at offset {exc.start}"
        raise RosterError([f"not UTF-8 text ({where}); TOML files are UTF-8"]) from None


def renamed_keys(table: Table, label: str, entry: dict[str, Any]) -> list[str]:
    """Read an entry's old key names as the new ones (in place), saying so; a new name beside its old one wins."""
    notes = []
    for old, new in table.renamed.items():
        if old not in entry:
            continue
        value = entry.pop(old)
        if new in entry:
            notes.append(f'{label}: "{old}" is the old name of "{new}"; both are given, "{new}" is used')
        else:
            entry[new] = value
            notes.append(f'{label}: "{old}" is the old name of "{new}": read as "{new}"; rename it in the file')
    return notes


def parse(text: str) -> tuple[dict[str, list[tuple[str, dict[str, Any]]]], list[str]]:
    """Read and check the file's shape; every entry comes with the label errors name it by, and
    the notes say which old key names were read."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RosterError([f"invalid TOML: {exc}"]) from exc
    except RecursionError:
        raise RosterError(["invalid TOML: arrays or tables nested too deeply"]) from None
    errors, notes = [], []
    for key in data:
        if key not in {table.key for table in TABLES}:
            errors.append(f'unknown table "{_short(key)}" (use [[providers]], [[panelists]] and [[panels]])')
    entries: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for table in TABLES:
        items = data.get(table.key, [])
        if not isinstance(items, list) or not all(isinstance(item, dict) for item in items):
            errors.append(f"{table.key}: write each entry as [[{table.key}]] (an array of tables)")
            continue
        entries[table.key] = [(_label(table, i, item), item) for i, item in enumerate(items, 1)]
        seen: set[str] = set()
        for label, entry in entries[table.key]:
            notes += renamed_keys(table, label, entry)
            errors += _check_entry(table, label, entry)
            name = entry.get("name")
            if not isinstance(name, str):
                continue
            if name in seen:
                errors.append(f'{label}: duplicate name "{_short(name)}" in [[{table.key}]]')
            seen.add(name)
    defaults = [label for label, entry in entries.get("panels", []) if entry.get("is_default") is True]
    if len(defaults) > 1:
        errors.append(f"is_default = true on {len(defaults)} panels ({', '.join(defaults)}): mark only one")
    if errors:
        raise RosterError(errors)
    return entries, notes


class _Importer:
    """Upserts checked entries in order, collecting every error instead of stopping at the first."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.report = Report()
        self.failed: set[tuple[str, str]] = set()

    def record(self, upserted: tuple[Any, Change] | None) -> None:
        if upserted is not None:
            self.report.changes.append(upserted[1])

    def resolve[M: (Provider, Panelist)](self, label: str, key: str, model: type[M], name: str) -> M | None:
        kind = model.__name__.lower()
        found = model.objects.filter(name=name).first()
        if found is None and (kind, name) not in self.failed:
            self.errors.append(f'{label}: {key} "{_short(name)}" is not defined ([[{kind}s]] or the database)')
        return found

    def upsert(
        self, table: Table, label: str, entry: dict[str, Any], links: dict[str, Any]
    ) -> tuple[Any, Change] | None:
        instance = table.model.objects.filter(name=entry["name"]).first()
        created = instance is None
        instance = instance or table.model()
        attnames = [model_field(table, name).attname for name in (*table.fields, *links)]
        before = {name: getattr(instance, name) for name in attnames}
        for name in table.fields:
            column = model_field(table, name)
            value = entry.get(name, column.get_default())
            if isinstance(column, models.DecimalField) and isinstance(value, float):
                value = Decimal(repr(value))  # 0.27, not the binary float's 0.270000000000000017763…
            setattr(instance, name, value)
        for name, value in links.items():
            setattr(instance, name, value)
        # A preset fills a wire left out (Provider.clean), so it is not required on its own.
        exclude = ["wire"] if table is PROVIDERS and "wire" not in entry else []
        try:
            instance.full_clean(exclude=exclude)
        except ValidationError as exc:
            self.failed.add((table.kind, entry["name"]))
            for name, messages in exc.message_dict.items():
                # Django's messages may quote the value ("Value '…' is not a valid choice").
                self.errors += [f"{label}: {name}: {_short(message, 5 * SHOWN_CHARS)}" for message in messages]
            return None
        changed = tuple(name.removesuffix("_id") for name in attnames if before[name] != getattr(instance, name))
        if isinstance(instance, Provider) and not created and instance.api_key_env and not before["api_key_env"]:
            self.shadowing(instance)
        if isinstance(instance, Panel) and instance.is_default:
            for other in Panel.objects.filter(is_default=True).exclude(pk=instance.pk):
                self.report.changes.append(Change("updated", "panel", other.name, ("is_default",)))
        if created or changed:
            instance.save()
        action = "created" if created else "updated" if changed else "unchanged"
        return instance, Change(action, table.kind, instance.name, () if created else changed)

    def shadowing(self, provider: Provider) -> None:
        """A key named by the environment now takes the place of the key stored in the admin."""
        if not provider.api_key_encrypted:
            return
        unset = "" if os.environ.get(provider.api_key_env) else f", and {provider.api_key_env} is not set here"
        self.report.notices.append(
            f'provider "{_short(provider.name)}": api_key_env = "{provider.api_key_env}" takes the place of '
            f"the key stored in the admin{unset}"
        )

    def set_members(self, panel: Panel, members: list[Panelist]) -> bool:
        """Make the panel's ordered roster the given one; True when that changed it."""
        wanted = [member.pk for member in members]
        if list(panel.memberships.order_by("position").values_list("panelist_id", flat=True)) == wanted:
            return False
        panel.memberships.all().delete()
        Membership.objects.bulk_create(Membership(panel=panel, panelist=m, position=i) for i, m in enumerate(members))
        return True

    def run(self, entries: dict[str, list[tuple[str, dict[str, Any]]]]) -> None:
        for label, entry in entries["providers"]:
            self.record(self.upsert(PROVIDERS, label, entry, {}))
        for label, entry in entries["panelists"]:
            provider = self.resolve(label, "provider", Provider, entry["provider"])
            if provider is not None:
                self.record(self.upsert(PANELISTS, label, entry, {"provider": provider}))
        for label, entry in entries["panels"]:
            entry = {"slug": slugify(entry["name"])} | entry
            names = {key: entry.get(key) for key in Panel.JUDGES}
            links = {key: self.resolve(label, key, Panelist, n) if n else None for key, n in names.items()}
            members = [self.resolve(label, "members", Panelist, name) for name in entry["members"]]
            found = [member for member in members if member is not None]
            if len(set(entry["members"])) < len(entry["members"]):
                self.errors.append(f"{label}: members: a panelist is listed twice")
            elif links["moderator"] is not None and len(found) == len(members):
                upserted = self.upsert(PANELS, label, entry, links)
                if upserted is not None and self.set_members(upserted[0], found) and upserted[1].action != "created":
                    fields = (*upserted[1].fields, "members")
                    upserted = (upserted[0], Change("updated", "panel", upserted[0].name, fields))
                self.record(upserted)
        if Panel.objects.exists() and not Panel.objects.filter(is_default=True).exists():
            self.errors.append("no panel is the default: set is_default = true on one [[panels]] entry")


def default_change(before: Panel | None, after: Panel | None) -> list[str]:
    """Another default panel (the one every question gets unless it names one), and whether it can run."""
    if before is None or after is None or before.pk == after.pk:
        return []
    cannot = problems(after)
    why = f", but it cannot run now: {'; '.join(cannot)}" if cannot else ""
    return [f'panel "{_short(after.name)}" becomes the default instead of "{_short(before.name)}"{why}']


def model_field(table: Table, name: str) -> models.Field[Any, Any]:
    """A field of the table's model: the tables name columns and foreign keys, never a reverse relation."""
    found = table.model._meta.get_field(name)
    assert isinstance(found, models.Field), f"{table.kind}.{name} is a reverse relation"
    return found


def import_roster(text: str, confirmed: bool = True) -> Report:
    """Upsert the file's roster; on any error nothing changes and RosterError lists them all.

    Unless ``confirmed``, an import that would make another panel the default or set a stored
    key aside changes nothing and raises Unconfirmed with what it would do, for a person to agree.
    """
    entries, notes = parse(text)
    importer = _Importer()
    importer.report.warnings += notes
    with transaction.atomic():
        default = Panel.objects.default()
        importer.run(entries)
        if importer.errors:
            raise RosterError(importer.errors)
        importer.report.notices += default_change(default, Panel.objects.default())
        if importer.report.notices and not confirmed:
            raise Unconfirmed(importer.report.notices)
    names = [entry["name"] for _, entry in entries["panels"]]
    for panel in Panel.objects.filter(name__in=names).select_related(*Panel.JUDGES):
        importer.report.warnings += [f'panel "{panel.name}": {warning}' for warning in panel.self_judging()]
    return importer.report


def _entry(
    table: Table, instance: Any, links: dict[str, Any], comment: str = "", omit: Sequence[str] = ()
) -> tomlkit.items.Table:
    """One [[table]] entry: name, links, then every field that differs from its default."""
    values = {"name": instance.name, **{key: value for key, value in links.items() if value}}
    for name in table.fields:
        value = getattr(instance, name)
        default = model_field(table, name).get_default()
        if name not in omit and (name in table.required or value != default):
            values.setdefault(name, float(value) if isinstance(value, Decimal) else value)
    entry = tomlkit.table()
    if comment:
        entry.add(tomlkit.comment(comment))
    entry.update(values)
    return entry


def _preset_value(preset: Any, name: str) -> str:
    return preset.wire.value if name == "wire" else preset.base_url


def export_roster() -> str:
    """The roster as TOML that import_roster reads back unchanged. No key is ever written."""
    document = tomlkit.document()
    document.add(tomlkit.comment("Teorema roster (format: docs/roster.md)."))
    entries: dict[str, list[tomlkit.items.Table]] = {table.key: [] for table in TABLES}
    for provider in Provider.objects.all():
        preset = PRESETS.get(provider.preset)
        # What the preset supplies is written only where it differs.
        omit = [
            name for name in ("wire", "base_url") if preset and getattr(provider, name) == _preset_value(preset, name)
        ]
        stored_key = provider.api_key_encrypted and not provider.api_key_env
        comment = f'The key of "{provider.name}" is stored encrypted and never exported; or set api_key_env.'
        entries[PROVIDERS.key].append(_entry(PROVIDERS, provider, {}, comment if stored_key else "", omit))
    for panelist in Panelist.objects.select_related("provider"):
        entries[PANELISTS.key].append(_entry(PANELISTS, panelist, {"provider": panelist.provider.name}))
    for panel in Panel.objects.select_related(*Panel.JUDGES):
        links: dict[str, Any] = {"slug": panel.slug, "members": [member.name for member in panel.roster()]}
        links |= {role: judge.name if (judge := getattr(panel, role)) else None for role in Panel.JUDGES}
        entries[PANELS.key].append(_entry(PANELS, panel, links))
    for key, tables in entries.items():
        if tables:
            document.add(tomlkit.nl())
            document[key] = tomlkit.aot()
            document[key].extend(tables)
    return tomlkit.dumps(document)
