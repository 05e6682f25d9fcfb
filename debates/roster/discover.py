"""Local model servers on this machine (Ollama, LM Studio, a llama.cpp server), found on their
default ports, and the coding-agent CLIs installed here (Claude Code, Gemini CLI, Qwen Code, Codex),
each offered as a panel: the two-minute step from the demo model to real answers.

Each speaks OpenAI's wire and lists its models at ``GET <base>/models``. Nothing is created until
a person asks for it; a server that does not answer within a fraction of a second is not there.
"""

import hashlib
from dataclasses import dataclass, replace

import httpx
from asgiref.sync import async_to_sync
from django.conf import settings
from django.db import transaction

from debates.engine.vocabulary import Method, Protocol
from debates.models import Membership, Panel, Panelist, Provider
from debates.providers import check, cli
from debates.providers.base import Endpoint, ProviderError, Voice
from debates.providers.catalog import family
from debates.providers.presets import PRESETS, Wire
from debates.roster.readiness import probe_voice

MAX_VOICES = 5
# One model on its own: three methods, so the panel at least reasons three ways (weak evidence, and said so).
METHODS = (Method.FIRST_PRINCIPLES, Method.OUTSIDE_VIEW, Method.COUNTER_EVIDENCE)
TIMEOUT = httpx.Timeout(2.0, connect=0.3)
# A model id is stored whole or not at all: a cut one names another model, and two cut ones collide.
MAX_MODEL_CHARS = Panelist._meta.get_field("model").max_length or 200
MAX_NAME_CHARS = Panelist._meta.get_field("name").max_length or 80


@dataclass(frozen=True)
class LocalServer:
    preset: str  # a key of PRESETS: ollama, lmstudio, llamacpp
    base_url: str
    models: tuple[str, ...]
    too_long: tuple[str, ...] = ()  # listed, but with an id longer than a panelist's model field

    @property
    def label(self) -> str:
        return PRESETS[self.preset].label

    @property
    def skipped(self) -> str:
        """The models left out, in words ("" when none)."""
        if not self.too_long:
            return ""
        count = len(self.too_long)
        ids = ", ".join(f"“{model[:40]}…”" for model in self.too_long[:3])
        more = f" and {count - 3} more" if count > 3 else ""
        return (
            f"{count} model{'s' if count > 1 else ''} left out: an id longer than {MAX_MODEL_CHARS} "
            f"characters cannot be stored whole ({ids}{more})."
        )


def local_servers() -> list[LocalServer]:
    """The local servers answering now, with the models each lists (none when discovery is off)."""
    found = []
    with httpx.Client(timeout=TIMEOUT) as client:
        for preset, base_url in settings.TEOREMA["LOCAL_SERVERS"].items():
            try:
                response = client.get(f"{base_url.rstrip('/')}/models")
                response.raise_for_status()
                listed = response.json().get("data", [])
            except (httpx.HTTPError, ValueError, AttributeError):
                continue
            ids = [m["id"] for m in listed if isinstance(m, dict) and isinstance(m.get("id"), str)]
            models = tuple(model for model in ids if len(model) <= MAX_MODEL_CHARS)
            if models:
                too_long = tuple(model for model in ids if len(model) > MAX_MODEL_CHARS)
                found.append(LocalServer(preset, base_url, models, too_long))
    return found


def panelist(provider: Provider, server: LocalServer, model: str, method: Method) -> Panelist:
    suffix = f" ({method.label})" if method != Method.NONE else ""
    found, _ = Panelist.objects.get_or_create(
        name=voice_name(f"{model} · {server.label}{suffix}"),
        defaults={"provider": provider, "model": model, "family": family(model), "method": method},
    )
    return found


def voice_name(name: str) -> str:
    """``name`` when it fits a panelist's name; else shortened with a digest of the whole, so that
    two long model ids that begin alike never share one panelist."""
    if len(name) <= MAX_NAME_CHARS:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{name[: MAX_NAME_CHARS - len(digest) - 2]}… {digest}"


@transaction.atomic
def adopt(server: LocalServer) -> Panel:
    """A provider, a panelist per model (at most five; one model gets three methods) and a
    teorema panel on them, made the default. Asking twice reuses what the first time made."""
    provider, _ = Provider.objects.get_or_create(
        name=server.label,
        defaults={"wire": PRESETS[server.preset].wire, "preset": server.preset, "base_url": server.base_url},
    )
    models = list(server.models[: MAX_VOICES + 1])
    # A moderator on a model no panelist runs, when there are models enough: a judge favours its own answers.
    voices, judge = (models[:-1], models[-1]) if len(models) >= 3 else (models, models[0])
    seats = [(m, Method.NONE) for m in voices] if len(voices) > 1 else [(voices[0], m) for m in METHODS]
    members = [panelist(provider, server, model, method) for model, method in seats]
    moderator = next((p for p in members if p.model == judge), None) or panelist(provider, server, judge, Method.NONE)
    panel, _ = Panel.objects.update_or_create(
        slug=server.preset,
        defaults={
            "name": f"{server.label} (this machine)",
            "protocol": Protocol.TEOREMA,
            "moderator": moderator,
            "is_default": True,
            "description": f"The models of the {server.label} server at {server.base_url}.",
        },
    )
    Membership.objects.filter(panel=panel).delete()
    Membership.objects.bulk_create(Membership(panel=panel, panelist=p, position=i) for i, p in enumerate(members))
    return panel


@dataclass(frozen=True)
class FoundCli:
    """A coding-agent CLI installed on this machine, and whether it is logged in (read without a call)."""

    preset: str  # a key of PRESETS: claude-code, gemini-cli, qwen-code, codex
    login: cli.Login

    @property
    def flavour(self) -> cli.Flavour:
        return cli.FLAVOURS[self.preset]

    @property
    def label(self) -> str:
        return self.flavour.label

    @property
    def usable(self) -> bool:
        """Logged in, or it cannot be told without a call: offered on the panel either way."""
        return self.login.ready is not False


def installed_clis() -> list[FoundCli]:
    """The CLIs on this machine (PATH, and TEOREMA["CLI_PATH"]), each with its login in words."""
    found = []
    for key in cli.FLAVOURS:
        endpoint = Endpoint(name=cli.FLAVOURS[key].label, wire=Wire.CLI, cli=key)
        try:
            cli.installed(endpoint)
        except ProviderError:
            continue
        found.append(FoundCli(key, cli.logged_in(endpoint)))
    return found


def try_cli(preset: str) -> tuple[bool, str]:
    """One tiny call to a CLI found here (its own model, asked for one word), on request: where its login
    cannot be read without a call (an account in a keychain), only a call tells whether it answers. A
    provider already made for it is called as the admin's test calls it (its key, base URL and panelist)."""
    flavour = cli.FLAVOURS[preset]
    provider = Provider.objects.filter(wire=Wire.CLI, preset=preset, enabled=True).first()
    endpoint = Endpoint(name=flavour.label, wire=Wire.CLI, cli=preset)
    voice = probe_voice(provider) if provider else Voice(name=flavour.label, model="", endpoint=endpoint)
    try:
        said = async_to_sync(check)(replace(voice, model=voice.model or flavour.model))
    except ProviderError as error:
        return False, f"{flavour.label}: {error.message}"
    return True, said


@transaction.atomic
def adopt_clis(found: list[FoundCli]) -> Panel:
    """A provider and a panelist for each CLI that can answer (one CLI alone: three methods), and a teorema
    panel of them made the default, the first one moderating. Asking twice reuses what the first time made."""
    usable = [f for f in found if f.usable]
    if not usable:
        raise ValueError("no CLI on this machine is logged in")
    members = []
    for each in usable:
        flavour = each.flavour
        provider, _ = Provider.objects.get_or_create(
            name=flavour.label, defaults={"wire": Wire.CLI, "preset": each.preset}
        )
        methods = METHODS if len(usable) == 1 else (Method.NONE,)
        for method in methods:
            suffix = f" ({method.label})" if method != Method.NONE else ""
            member, _ = Panelist.objects.get_or_create(
                name=voice_name(f"{flavour.label}{suffix}"),
                defaults={"provider": provider, "model": flavour.model, "family": flavour.family, "method": method},
            )
            members.append(member)
    labels = ", ".join(f.label for f in usable)
    panel, _ = Panel.objects.update_or_create(
        slug="clis",
        defaults={
            "name": "Your CLIs (this machine)",
            "protocol": Protocol.TEOREMA,
            "moderator": members[0],
            "is_default": True,
            "description": f"The CLIs logged in on this machine, as panelists that cannot act on it: {labels}.",
        },
    )
    Membership.objects.filter(panel=panel).delete()
    Membership.objects.bulk_create(Membership(panel=panel, panelist=p, position=i) for i, p in enumerate(members))
    return panel
