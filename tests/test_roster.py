"""The roster as code: TOML in and out, upserted by name, all or nothing, errors that name the field."""

import io
from pathlib import Path

import pytest
from django.contrib.admin import site
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import RequestFactory

from debates.models import Panel, Panelist, Provider
from debates.roster.toml import RosterError, Unconfirmed, export_roster, import_roster

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "docs" / "roster.example.toml"
DEFAULT_ROSTER = ROOT / "debates" / "default_roster.toml"
DEFAULT = ROOT / "debates" / "default_roster.toml"

pytestmark = pytest.mark.django_db

VALID = """
[[providers]]
name = "OpenAI"
preset = "openai"
api_key_env = "OPENAI_API_KEY"

[[panelists]]
name = "GPT"
provider = "OpenAI"
model = "gpt-4.1"
family = "gpt"
temperature = 0.7
price_in = 2.0

[[panelists]]
name = "Judge"
provider = "OpenAI"
model = "gpt-4.1-mini"
family = "gpt"

[[panels]]
name = "Duo"
members = ["GPT", "Judge"]
moderator = "Judge"
failure_policy = "strict"
default_criticality = "medium"
is_default = true
"""


SMALL = VALID.replace('api_key_env = "OPENAI_API_KEY"\n', "")


def roster_command(*args: str) -> str:
    out = io.StringIO()
    call_command("roster", *args, stdout=out)
    return out.getvalue()


def test_example_file_imports_five_voices_and_three_panels() -> None:
    output = roster_command("import", str(EXAMPLE))

    assert "15 created, 0 updated, 0 unchanged" in output
    five = Panel.objects.get(slug="five")
    assert [p.name for p in five.roster()] == ["GPT", "Claude", "Gemini", "DeepSeek", "Perplexity"]
    assert five.is_default
    assert five.tie_breaker.name == "GPT"
    assert set(Panel.objects.values_list("protocol", flat=True)) == {"teorema", "vote", "adversarial"}
    assert Provider.objects.get(name="Anthropic").base_url == "https://api.anthropic.com"


def test_second_import_of_the_example_changes_nothing() -> None:
    roster_command("import", str(EXAMPLE))
    before = export_roster()

    output = roster_command("import", str(EXAMPLE))

    assert "0 created, 0 updated, 15 unchanged" in output
    assert 'unchanged panel "Five voices"' in output
    assert export_roster() == before


def test_default_roster_is_a_local_trio_of_methods_on_smollm2() -> None:
    import_roster(DEFAULT.read_text())

    panel = Panel.objects.get(is_default=True)
    assert (panel.slug, panel.protocol, panel.failure_policy) == ("local", "teorema", "strict")
    voices = panel.roster()
    assert [v.method for v in voices] == ["first_principles", "outside_view", "counter_evidence"]
    assert {v.model for v in [*voices, panel.moderator]} == {"smollm2-135m-instruct"}
    assert all(v.max_tokens <= 200 and v.provider.wire == "local" for v in voices)


def test_the_default_roster_imports_without_a_warning() -> None:
    """Every voice and the moderator on one model: nothing the user did, nothing to warn about."""
    report = import_roster(DEFAULT.read_text())

    assert report.warnings == []


def test_the_import_lists_each_provider_still_needing_a_key_with_its_admin_page(monkeypatch) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "DEEPSEEK_API_KEY", "PERPLEXITY_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GEMINI_API_KEY", "set-in-the-environment")

    output = roster_command("import", str(EXAMPLE))

    openai, anthropic, gemini = (Provider.objects.get(name=n) for n in ("OpenAI", "Anthropic", "Gemini"))
    listed = output.split("Still needing a key")[1]
    openai_page = f"/admin/debates/provider/{openai.pk}/change/"
    assert f"  OpenAI: OPENAI_API_KEY is not set in the server's environment · {openai_page}" in listed
    assert f"/admin/debates/provider/{anthropic.pk}/change/" in listed
    assert gemini.name not in listed  # its key is in the environment


def test_an_import_whose_providers_all_have_keys_lists_none() -> None:
    output = roster_command("import", str(DEFAULT))

    assert "Still needing a key" not in output


def test_export_reads_back_unchanged_into_an_empty_database() -> None:
    import_roster(EXAMPLE.read_text())
    import_roster(DEFAULT.read_text())
    exported = export_roster()
    for model in (Panel, Panelist, Provider):
        model.objects.all().delete()

    import_roster(exported)

    assert export_roster() == exported


def test_export_never_writes_a_stored_key() -> None:
    import_roster(VALID.replace('api_key_env = "OPENAI_API_KEY"\n', ""))
    provider = Provider.objects.get(name="OpenAI")
    provider.set_api_key("sk-live-0123456789abcdef")
    provider.save()

    exported = roster_command("export")

    assert "0123456789abcdef" not in exported
    assert 'The key of "OpenAI" is stored encrypted and never exported' in exported


def test_export_writes_the_key_environment_variable(tmp_path: Path) -> None:
    import_roster(VALID)
    target = tmp_path / "roster.toml"

    roster_command("export", str(target))

    assert 'api_key_env = "OPENAI_API_KEY"' in target.read_text()


def test_import_keeps_a_key_stored_in_the_admin() -> None:
    file = VALID.replace('api_key_env = "OPENAI_API_KEY"\n', "")
    import_roster(file)
    provider = Provider.objects.get(name="OpenAI")
    provider.set_api_key("sk-kept-0123456789")
    provider.save()

    import_roster(file)

    assert Provider.objects.get(name="OpenAI").api_key == "sk-kept-0123456789"


def test_a_changed_field_is_reported_as_updated() -> None:
    import_roster(VALID)

    report = import_roster(VALID.replace("temperature = 0.7", "temperature = 0.2"))

    assert [str(c) for c in report.changes if c.action == "updated"] == ['updated panelist "GPT" (temperature)']
    assert Panelist.objects.get(name="GPT").temperature == 0.2


def test_a_key_left_out_returns_to_its_default() -> None:
    import_roster(VALID)

    import_roster(VALID.replace("temperature = 0.7\n", "temperature = 1.1\n"))
    import_roster(VALID.replace("temperature = 0.7\n", ""))

    assert Panelist.objects.get(name="GPT").temperature == Panelist._meta.get_field("temperature").default


def test_reordering_members_updates_the_ordered_roster() -> None:
    import_roster(VALID)

    report = import_roster(VALID.replace('["GPT", "Judge"]', '["Judge", "GPT"]'))

    assert 'updated panel "Duo" (members)' in [str(c) for c in report.changes]
    assert [p.name for p in Panel.objects.get(name="Duo").roster()] == ["Judge", "GPT"]


def test_a_file_may_name_panelists_already_in_the_database() -> None:
    import_roster(VALID)
    panel_only = VALID[VALID.index("[[panels]]") :].replace('"Duo"', '"Duo again"').replace("is_default = true", "")

    import_roster(panel_only)

    assert [p.name for p in Panel.objects.get(name="Duo again").roster()] == ["GPT", "Judge"]


def test_marking_another_panel_default_unmarks_the_old_one() -> None:
    import_roster(DEFAULT.read_text())

    report = import_roster(VALID)

    assert list(Panel.objects.filter(is_default=True).values_list("name", flat=True)) == ["Duo"]
    assert 'updated panel "Local trio" (is_default)' in [str(c) for c in report.changes]


def errors_of(text: str) -> list[str]:
    with pytest.raises(RosterError) as raised:
        import_roster(text)
    return raised.value.errors


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            'family = "gpt"\ntemperature',
            "family = gpt\ntemperature",
            "invalid TOML: Invalid value (at line 11, column 10)",
        ),
        ('preset = "openai"', 'wire = "grpc"', "wire: Value 'grpc' is not a valid choice"),
        ('preset = "openai"', 'preset = "openia"', "preset: Value 'openia' is not a valid choice"),
        ('preset = "openai"', "", '[[providers]] "OpenAI" (entry 1): wire (or preset) is missing'),
        ('model = "gpt-4.1"\n', "", '[[panelists]] "GPT" (entry 1): model is missing'),
        ('name = "Judge"', 'name = "GPT"', '[[panelists]] "GPT" (entry 2): duplicate name "GPT" in [[panelists]]'),
        ('["GPT", "Judge"]', '["GPT", "Jugde"]', '[[panels]] "Duo" (entry 1): members "Jugde" is not defined'),
        ('moderator = "Judge"', 'moderator = "Nobody"', 'moderator "Nobody" is not defined'),
        ('provider = "OpenAI"\nmodel = "gpt-4.1"', 'provider = "OpenAl"\nmodel = "gpt-4.1"', 'provider "OpenAl"'),
        ("price_in = 2.0", "price_in = -2.0", '"GPT" (entry 1): price_in: Ensure this value is greater than'),
        ("temperature = 0.7", "temperature = 2.5", "temperature: Ensure this value is less than or equal to 2"),
        ("temperature = 0.7", 'temperature = "hot"', "temperature must be a number, not 'hot'"),
        ("temperature = 0.7", "temprature = 0.7", 'unknown key "temprature" (did you mean "temperature"?)'),
        ('"strict"', '"lenient"', "failure_policy: Value 'lenient' is not a valid choice"),
        ('"medium"', '"urgent"', "default_criticality: Value 'urgent' is not a valid choice"),
        ('family = "gpt"\n\n[[panels', 'family = "gpt"\nmethod = "vibes"\n\n[[panels', "method: Value 'vibes'"),
        ('"strict"', '"quorum"', "quorum: The quorum policy needs a minimum number of voices."),
        ('["GPT", "Judge"]', '["GPT", "GPT"]', "members: a panelist is listed twice"),
        ('["GPT", "Judge"]', "[]", "members must be a non-empty list of panelist names"),
        ('api_key_env = "OPENAI_API_KEY"', 'api_key = "sk-x"', "a roster file never holds a key; use api_key_env"),
        ("[[panelists]]", "[[panelist]]", 'unknown table "panelist"'),
        ("is_default = true", "is_default = false", "no panel is the default"),
    ],
)
def test_a_bad_file_is_refused_with_an_error_naming_the_field(old: str, new: str, expected: str) -> None:
    assert old in VALID

    errors = errors_of(VALID.replace(old, new, 1))

    assert any(expected in error for error in errors), errors
    assert not Provider.objects.exists()


def test_a_file_written_for_the_old_key_protocol_imports_with_a_note_in_the_command(tmp_path: Path) -> None:
    old = tmp_path / "old.toml"
    old.write_text(VALID.replace('preset = "openai"', 'protocol = "anthropic"\nbase_url = "https://api.anthropic.com"'))

    output = roster_command("import", str(old))

    assert Provider.objects.get().wire == "anthropic"
    note = '[[providers]] "OpenAI" (entry 1): "protocol" is the old name of "wire": read as "wire"; rename it'
    assert f"warning: {note}" in output
    assert ": 4 created, 0 updated, 0 unchanged.\n" in output


def test_with_both_the_old_and_the_new_key_wire_wins_and_a_note_says_so() -> None:
    report = import_roster(
        VALID.replace('preset = "openai"', 'preset = "openai"\nwire = "openai"\nprotocol = "gemini"')
    )

    assert Provider.objects.get().wire == "openai"
    note = '[[providers]] "OpenAI" (entry 1): "protocol" is the old name of "wire"; both are given, "wire" is used'
    assert report.warnings[0] == note


def test_two_default_panels_are_refused() -> None:
    second = VALID[VALID.index("[[panels]]") :].replace('"Duo"', '"Duo 2"')

    errors = errors_of(VALID + second)

    assert errors == [
        'is_default = true on 2 panels ([[panels]] "Duo" (entry 1), [[panels]] "Duo 2" (entry 2)): mark only one'
    ]


def test_a_bad_file_changes_nothing_in_the_database() -> None:
    import_roster(VALID)
    before = export_roster()
    bad = VALID.replace("temperature = 0.7", "temperature = 0.1").replace('moderator = "Judge"', 'moderator = "X"')

    errors_of(bad + '\n[[providers]]\nname = "New"\npreset = "mistral"\n')

    assert export_roster() == before


def test_every_error_is_reported_not_only_the_first() -> None:
    errors = errors_of(VALID.replace("temperature = 0.7", "temperature = 9").replace("price_in = 2.0", "price_in = -1"))

    assert len(errors) == 2


def test_the_command_lists_errors_and_says_nothing_changed(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text(VALID.replace('model = "gpt-4.1"\n', ""))

    with pytest.raises(CommandError) as raised:
        roster_command("import", str(bad))

    assert str(raised.value).startswith(f"{bad}: not imported, nothing changed.")
    assert '[[panelists]] "GPT" (entry 1): model is missing' in str(raised.value)


def test_the_command_names_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match=r"Cannot read .*nope\.toml"):
        roster_command("import", str(tmp_path / "nope.toml"))


def test_the_roster_page_shows_the_example_file_verbatim() -> None:
    assert EXAMPLE.read_text() in (ROOT / "docs" / "roster.md").read_text()


def test_a_name_of_the_wrong_type_is_named_not_a_crash() -> None:
    errors = errors_of(VALID.replace('name = "Judge"', 'name = ["Judge"]'))

    assert "[[panelists]] (entry 2): name must be a string, not ['Judge']" in errors


def import_file(path: Path) -> str:
    """The command's error for a file it refuses; the database must be untouched."""
    with pytest.raises(CommandError) as raised:
        roster_command("import", str(path))
    assert not Provider.objects.exists()
    return str(raised.value)


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (VALID.replace('"GPT"', '"GPTé"').encode("latin-1"), "not UTF-8 text (byte 0xe9 at offset 106)"),
        (bytes(range(256)) * 4, "not UTF-8 text (byte 0x80 at offset 128)"),
    ],
)
def test_a_file_that_is_not_utf8_text_is_refused_in_words(tmp_path: Path, content: bytes, expected: str) -> None:
    file = tmp_path / "roster.toml"
    file.write_bytes(content)

    error = import_file(file)

    assert error == f"{file}: not imported, nothing changed.\n  {expected}; TOML files are UTF-8"


@pytest.mark.parametrize("nested", ["x = " + "[" * 5000 + "]" * 5000, "x = " + "{ a = " * 5000 + "1" + " }" * 5000])
def test_deeply_nested_toml_is_refused_in_words(tmp_path: Path, nested: str) -> None:
    file = tmp_path / "deep.toml"
    file.write_text(nested)

    error = import_file(file)

    assert error == f"{file}: not imported, nothing changed.\n  invalid TOML: arrays or tables nested too deeply"


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "temperature = 0.7",
            "temperature = nan",
            '[[panelists]] "GPT" (entry 1): temperature must be a finite number',
        ),
        ("temperature = 0.7", "temperature = -inf", "temperature must be a finite number, not -inf"),
        ("price_in = 2.0", "price_in = inf", "price_in must be a finite number, not inf"),
        ("price_in = 2.0", "price_out = nan", "price_out must be a finite number, not nan"),
        ('preset = "openai"', 'preset = "openai"\nstall_timeout = inf', '"OpenAI" (entry 1): stall_timeout must be a'),
        ('preset = "openai"', 'preset = "openai"\nconnect_timeout = nan', "connect_timeout must be a finite number"),
        ('preset = "openai"', 'preset = "openai"\ntotal_timeout = +inf', "total_timeout must be a finite number"),
    ],
)
def test_a_number_that_is_not_finite_is_refused_naming_the_field(old: str, new: str, expected: str) -> None:
    assert old in VALID

    errors = errors_of(VALID.replace(old, new, 1))

    assert any(expected in error for error in errors), errors
    assert not Provider.objects.exists()


def test_an_oversized_file_is_refused_with_a_short_message(tmp_path: Path) -> None:
    file = tmp_path / "huge.toml"
    file.write_text(VALID.replace('name = "GPT"', f'name = "{"G" * 10_000_000}"'))

    error = import_file(file)

    assert error == f"{file}: not imported, nothing changed.\n  larger than 1 MiB; a roster file is a few kilobytes"


def test_a_long_name_is_shortened_in_every_message(tmp_path: Path) -> None:
    long_name = "G" * 100_000
    file = tmp_path / "long.toml"
    file.write_text(VALID.replace('name = "GPT"', f'name = "{long_name}"').replace("temperature = 0.7", "temp = 1"))

    error = import_file(file)

    assert long_name not in error
    assert f'[[panelists]] "{"G" * 59}…" (entry 1): unknown key "temp"' in error
    assert len(error) < 2000


def test_the_errors_listed_stop_at_fifty_with_a_count_of_the_rest(tmp_path: Path) -> None:
    file = tmp_path / "many.toml"
    file.write_text("".join(f'[[providers]]\nname = "P{i}"\n' for i in range(120)))

    error = import_file(file)

    assert error.count("wire (or preset) is missing") == 50
    assert error.endswith("\n  … and 70 more errors")


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_the_admin_refuses_numbers_that_are_not_finite_too(admin_client, value: str) -> None:
    import_roster(VALID)
    provider = Provider.objects.get()
    panelist = {"name": "X", "provider": provider.pk, "model": "m", "family": "f", "method": "none"}
    timeouts = {"connect_timeout": 10, "stall_timeout": value, "total_timeout": 600, "max_retries": 1}

    refused = [
        admin_client.post(
            "/admin/debates/panelist/add/",
            panelist | {"temperature": value, "max_tokens": 10, "price_in": value, "price_out": 0},
        ),
        admin_client.post("/admin/debates/provider/add/", {"name": "Y", "preset": "openai"} | timeouts),
    ]

    assert [response.status_code for response in refused] == [200, 200]  # the form again, with its errors
    assert {"temperature", "price_in"} <= set(refused[0].context["adminform"].form.errors)
    assert "stall_timeout" in refused[1].context["adminform"].form.errors
    assert (Provider.objects.count(), Panelist.objects.count()) == (1, 2)


def test_a_panel_debates_only_on_dissent_when_the_roster_says_so_and_exports_it_back() -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    import_roster(text)
    assert Panel.objects.get(slug="five").debate == "on_dissent"
    assert Panel.objects.get(slug="adversarial").debate == "always"  # the example never promotes it there
    assert 'debate = "on_dissent"' in export_roster()
    with pytest.raises(RosterError, match="debate"):
        import_roster(text.replace('debate = "on_dissent"', 'debate = "sometimes"'))


def test_an_import_that_changes_the_default_panel_asks_first_and_says_it_cannot_run(monkeypatch) -> None:
    """The documented example after `make run`: its panel would become the default with no key set."""
    import_roster(DEFAULT_ROSTER.read_text(encoding="utf-8"))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(CommandError) as refused:
        roster_command("import", str(EXAMPLE))
    message = str(refused.value)
    assert "not imported, nothing changed" in message
    assert 'panel "Five voices" becomes the default instead of "Local trio", but it cannot run now' in message
    assert "OPENAI_API_KEY is not set in the server's environment" in message
    assert "--yes" in message
    assert Panel.objects.get(is_default=True).name == "Local trio"
    assert not Panel.objects.filter(slug="five").exists()

    output = roster_command("import", str(EXAMPLE), "--yes")
    assert 'changed: panel "Five voices" becomes the default instead of "Local trio"' in output
    assert Panel.objects.get(is_default=True).slug == "five"


def test_an_import_that_sets_a_stored_key_aside_asks_first(monkeypatch) -> None:
    import_roster(SMALL)  # the provider with no api_key_env: its key is stored in the admin
    provider = Provider.objects.get(name="OpenAI")
    provider.set_api_key("sk-stored-in-the-admin")
    provider.save()
    monkeypatch.delenv("TEOREMA_TEST_KEY", raising=False)
    shadowing = VALID.replace("OPENAI_API_KEY", "TEOREMA_TEST_KEY")
    with pytest.raises(Unconfirmed) as asked:
        import_roster(shadowing, confirmed=False)
    assert asked.value.notices == [
        'provider "OpenAI": api_key_env = "TEOREMA_TEST_KEY" takes the place of the key stored in the admin, '
        "and TEOREMA_TEST_KEY is not set here"
    ]
    assert Provider.objects.get(name="OpenAI").api_key == "sk-stored-in-the-admin"  # nothing changed
    assert import_roster(shadowing).notices  # confirmed: imported, and still said
    assert Provider.objects.get(name="OpenAI").api_key_env == "TEOREMA_TEST_KEY"


def test_a_panel_names_its_judge_and_a_facilitator_brief_and_exports_them_back() -> None:
    text = VALID.replace("is_default = true\n", 'is_default = true\njudge = "GPT"\nfacilitator_brief = true\n')
    import_roster(text)
    panel = Panel.objects.get(name="Duo")
    assert (panel.judge.name, panel.facilitator_brief) == ("GPT", True)
    exported = export_roster()
    assert 'judge = "GPT"' in exported
    assert "facilitator_brief = true" in exported
    Panel.objects.all().delete()
    import_roster(exported)
    assert Panel.objects.get(name="Duo").judge.name == "GPT"


def test_a_judge_that_is_not_a_panelist_is_refused_naming_the_field() -> None:
    with pytest.raises(RosterError) as refused:
        import_roster(VALID.replace("is_default = true\n", 'is_default = true\njudge = "Nobody"\n'))
    assert any("judge" in error and "Nobody" in error for error in refused.value.errors)


def test_a_panel_sets_a_deadline_and_a_deadline_out_of_range_is_refused_in_words() -> None:
    import_roster(VALID.replace("is_default = true\n", "is_default = true\ndeadline = 120\n"))
    assert Panel.objects.get(name="Duo").deadline == 120
    assert "deadline = 120" in export_roster()
    errors = errors_of(VALID.replace("is_default = true\n", "is_default = true\ndeadline = 5\n"))
    assert any("deadline" in error and "20" in error for error in errors)


SEARCHING = VALID.replace(
    "price_in = 2.0", 'model = "gpt-4o-search-preview"\nsearch = true\nprice_search = 25.0'
).replace('model = "gpt-4.1"\n', "")


def test_a_panelist_may_search_at_its_price_and_a_panel_forbid_it_and_both_export_back() -> None:
    import_roster(SEARCHING.replace("is_default = true", "is_default = true\nforbid_search = true"))
    gpt = Panelist.objects.get(name="GPT")
    assert (gpt.search, gpt.price_search) == (True, 25)
    assert Panel.objects.get(name="Duo").forbid_search is True
    exported = export_roster()
    assert "search = true" in exported
    assert "price_search = 25.0" in exported
    assert "forbid_search = true" in exported
    assert import_roster(exported).count("updated") == 0


def test_search_on_a_provider_without_web_search_or_on_no_search_model_is_refused_in_words() -> None:
    deepseek = SEARCHING.replace('preset = "openai"', 'preset = "deepseek"')
    (error,) = [e for e in errors_of(deepseek) if "search" in e]
    assert "OpenAI has no web search Teorema can ask for" in error  # the provider is named OpenAI in this file
    plain = SEARCHING.replace('model = "gpt-4o-search-preview"', 'model = "gpt-4.1"')
    (error,) = [e for e in errors_of(plain) if "search" in e]
    assert "only with its search models (gpt-5-search-api, gpt-4o-search-preview…), not gpt-4.1" in error


def test_every_panelist_setting_the_admin_has_goes_through_export_and_import() -> None:
    """Issue 50: the file refused sees_images / reads_pdf and the export dropped them."""
    import_roster(DEFAULT.read_text())
    asking = RequestFactory().get("/")
    asking.user = User(is_superuser=True, is_staff=True)
    form_fields = site._registry[Panelist].get_form(asking)().fields
    first, second = Panelist.objects.all()[:2]
    Panelist.objects.filter(pk=first.pk).update(sees_images=True, reads_pdf=False)
    Panelist.objects.filter(pk=second.pk).update(sees_images=False, reads_pdf=True)

    def settings() -> dict[str, dict]:
        return {p.name: {f: getattr(p, f) for f in form_fields if f != "provider"} for p in Panelist.objects.all()}

    before = settings()
    exported = export_roster()
    for model in (Panel, Panelist, Provider):
        model.objects.all().delete()

    import_roster(exported)

    assert settings() == before
    assert {"sees_images", "reads_pdf"} <= set(form_fields)
