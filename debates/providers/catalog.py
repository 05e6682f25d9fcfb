"""The models a provider lists, read from each wire's ``GET …/models``: a panelist's model is
picked from what the server offers instead of typed from memory.

Listing costs nothing at any provider, and it needs the key, so it also proves the key works.
"""

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from debates.providers.base import Endpoint, Fault, ProviderError
from debates.providers.faults import without_key

# Anthropic and Gemini page their lists: big pages, and a cap far above any real list.
PAGE_SIZE = 1000
MAX_PAGES = 20


async def models(endpoint: Endpoint) -> list[str]:
    """The ids of the models ``endpoint`` lists, sorted; ProviderError in words (key removed) if it cannot."""
    lister = LISTERS.get(endpoint.wire)
    if lister is None:
        raise ProviderError(Fault.BAD_REQUEST, f"{endpoint.name} uses an unknown protocol {endpoint.wire!r}")
    deadline = asyncio.get_running_loop().time() + endpoint.total_timeout
    try:
        return sorted(set(await lister(endpoint, deadline)))
    except ProviderError as error:
        raise without_key(error, endpoint.api_key) from None


async def _openai(endpoint: Endpoint, deadline: float) -> list[str]:
    headers = {"Authorization": f"Bearer {endpoint.api_key}"} if endpoint.api_key else {}
    data = await _get(endpoint, "/models", headers, {}, deadline)
    return [item["id"] for item in _items(endpoint, data, "data") if isinstance(item.get("id"), str)]


async def _anthropic(endpoint: Endpoint, deadline: float) -> list[str]:
    from debates.providers import anthropic  # the wires load at their first call (providers.PROTOCOLS)

    headers = {"x-api-key": endpoint.api_key, "anthropic-version": anthropic.VERSION}
    params = {"limit": str(PAGE_SIZE)}
    found: list[str] = []
    for _ in range(MAX_PAGES):
        data = await _get(endpoint, "/v1/models", headers, params, deadline)
        found += [item["id"] for item in _items(endpoint, data, "data") if isinstance(item.get("id"), str)]
        if not (data.get("has_more") and isinstance(data.get("last_id"), str)):
            break
        params = {"limit": str(PAGE_SIZE), "after_id": data["last_id"]}
    return found


async def _gemini(endpoint: Endpoint, deadline: float) -> list[str]:
    headers = {"x-goog-api-key": endpoint.api_key}
    params = {"pageSize": str(PAGE_SIZE)}
    found: list[str] = []
    for _ in range(MAX_PAGES):
        data = await _get(endpoint, "/models", headers, params, deadline)
        for item in _items(endpoint, data, "models"):
            # Embedding and image models are listed too; only generateContent can answer a question.
            methods = item.get("supportedGenerationMethods")
            if isinstance(item.get("name"), str) and (methods is None or "generateContent" in methods):
                found.append(item["name"].removeprefix("models/"))
        token = data.get("nextPageToken")
        if not (token and isinstance(token, str)):
            break
        params = {"pageSize": str(PAGE_SIZE), "pageToken": token}
    return found


async def _local(endpoint: Endpoint, deadline: float) -> list[str]:
    from debates.providers import local

    return [local.MODEL_ID]


Lister = Callable[[Endpoint, float], Awaitable[list[str]]]


async def _cli(endpoint: Endpoint, deadline: float) -> list[str]:
    """A CLI lists nothing without a call: the models its flavour names (cli imports this module)."""
    from debates.providers import cli

    return list(cli.flavour_of(endpoint).models)


LISTERS: dict[str, Lister] = {
    "openai": _openai,
    "responses": _openai,  # the same GET …/models
    "anthropic": _anthropic,
    "gemini": _gemini,
    "local": _local,
    "cli": _cli,
}


async def _get(
    endpoint: Endpoint, path: str, headers: dict[str, str], params: dict[str, str], deadline: float
) -> dict[str, Any]:
    from debates.providers.client import get_json  # the HTTP client, loaded by the first call

    url = f"{endpoint.base_url.rstrip('/')}{path}"
    try:
        return await get_json(endpoint, url, headers, params, deadline)
    except ProviderError as error:
        if error.status != 404:
            raise
        raise ProviderError(
            Fault.BAD_REQUEST,
            f"{endpoint.name} does not list its models (404 for GET {url}): check the base URL",
            status=404,
        ) from None


def _items(endpoint: Endpoint, data: dict[str, Any], key: str) -> list[dict[str, Any]]:
    listed = data.get(key)
    if not isinstance(listed, list):
        raise ProviderError(Fault.MALFORMED, f"{endpoint.name} answered without a list of models ({key!r} missing)")
    return [item for item in listed if isinstance(item, dict)]


# Ids start with their family, give or take an organisation prefix or a brand's other names; a
# panel's heterogeneity is judged on the family, so one lineage must get one name.
FAMILIES = [
    (name, re.compile(pattern))
    for name, pattern in (
        ("gpt", r"(?:chat)?gpt|o\d\b|codex-|computer-use"),  # OpenAI's o-series, codex-mini: the GPT lineage
        ("claude", r"claude"),
        ("gemini", r"gemini"),
        ("gemma", r"gemma"),
        ("llama", r"(?:meta-|code)?llama"),
        ("mistral", r"(?:open-)?(?:mistral|mixtral|codestral|ministral|magistral|devstral|pixtral)"),
        ("deepseek", r"deepseek"),
        ("qwen", r"qwen|qwq"),
        ("grok", r"grok"),
        ("sonar", r"sonar"),
        ("command", r"command|c4ai|aya"),
        ("phi", r"phi"),
        ("kimi", r"kimi|moonshot"),
        ("glm", r"(?:chat)?glm"),
        ("smollm2", r"smollm2"),
    )
]


# OpenAI's models that only its Responses API serves (its Chat Completions answers "This model is only
# supported in v1/responses and not in v1/chat/completions"): the -pro models, Codex's, the deep-research
# ones, computer use. From the openai package's ``ResponsesModel`` (src/openai/types/shared/responses_model.py,
# generated from OpenAI's API spec: what only /v1/responses takes), OpenAI's model pages and its Codex
# prompting guide ("only supported with the Responses API"). Bare ids: a router's "openai/o3-pro" is its own.
RESPONSES_ONLY = re.compile(
    r"(?:o\d-pro|gpt-5(?:\.\d+)?-pro|(?:gpt-5(?:\.\d+)?-)?codex|o\d(?:-mini)?-deep-research|computer-use)\b"
)


def responses_only(model: str) -> bool:
    """Whether OpenAI serves ``model`` only through its Responses API ("o3-pro", "gpt-5.1-codex-max")."""
    return bool(RESPONSES_ONLY.match(model.casefold()))


# The most searches one answer may make (Anthropic's max_uses), and so the most the estimate's high prices.
MAX_SEARCHES = 5

# OpenAI's search models (gpt-4o-search-preview, gpt-5-search-api), served by OpenAI or through OpenRouter.
SEARCH_MODEL = re.compile(r"-search-(?:preview|api)\b")


def always_searches(model: str) -> bool:
    """An OpenAI search model, which searches the web on every call (and is billed a search each)."""
    return bool(SEARCH_MODEL.search(model))


def family(model: str) -> str:
    """A model's family guessed from its id: "openai/gpt-4o" -> "gpt", "llama3.2:3b" -> "llama"."""
    name = model.rsplit("/", 1)[-1].casefold()
    known = next((family for family, pattern in FAMILIES if pattern.match(name)), None)
    if known:
        return known
    match = re.match(r"[a-z]+", name)
    return match[0] if match else name or "local"


@dataclass(frozen=True)
class Sight:
    """What a model reads natively besides text: images (``vision``) and PDFs (``pdf``)."""

    vision: bool
    pdf: bool


# Models that see images, by id (any organisation prefix and tag aside); and, of those, the ones whose
# provider takes a PDF as a document (OpenAI's ``file`` part, Anthropic's document block, Gemini's inline
# data). Ollama, LM Studio, vLLM and llama.cpp serve the open vision models on the OpenAI wire: images only.
VISION = re.compile(
    r"gpt-4o|gpt-4\.1|gpt-4-turbo|gpt-4-vision|gpt-5|chatgpt-4o|o1(?!-mini)|o3(?!-mini)|o4|claude|gemini|gemma-?3|"
    r"llava|bakllava|vision|-vl|vl-|qwen2\.5vl|qwen-?vl|pixtral|mistral-(?:small|medium)-3|minicpm-v|moondream|"
    r"llama-?4|grok-(?:2-vision|4)|phi-?(?:3\.5|4)-(?:vision|multimodal)"
)
PDF_NATIVE = re.compile(
    r"gpt-4o|gpt-4\.1|gpt-5|o1(?!-mini)|o3(?!-mini)|o4|claude-(?:3-5|3-7|sonnet-4|opus-4|haiku-4|[a-z]+-4|4)|gemini"
)
PDF_WIRES = ("anthropic", "gemini")  # and OpenAI's own API: its base URL says so


def sight(model: str, wire: str, base_url: str = "") -> Sight:
    """What ``model`` reads natively, guessed from its id and where it is served (the panelist's own
    setting overrides it): a PDF natively only on a wire that takes one (Anthropic, Gemini, OpenAI's API)."""
    name = model.rsplit("/", 1)[-1].casefold()
    if wire == "local":
        return Sight(vision=False, pdf=False)
    vision = bool(VISION.search(name))
    takes_pdf = wire in PDF_WIRES or "api.openai.com" in base_url
    return Sight(vision=vision, pdf=vision and takes_pdf and bool(PDF_NATIVE.search(name)))
