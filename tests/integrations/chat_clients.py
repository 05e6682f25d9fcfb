"""The real clients of the OpenAI-compatible endpoint as their users set them up, at their default
settings (retries included): the ``openai`` package, LiteLLM and LangChain's ``ChatOpenAI``. Each
asks one chat completion and returns the content, or raises its own error."""

import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

# LiteLLM never phones home in a test: its own switches (its price list, its catalogues), read at import.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
os.environ.setdefault("LANGSMITH_TRACING", "false")

import litellm
import openai
from langchain_openai import ChatOpenAI

Messages = list[dict[str, Any]]


def with_openai(url: str, token: str, messages: Messages, **options: Any) -> str:
    client = openai.OpenAI(base_url=f"{url}/v1", api_key=token, **options)
    reply = client.chat.completions.create(model="teorema/house", messages=messages)  # type: ignore[arg-type]
    return reply.choices[0].message.content or ""


def with_litellm(url: str, token: str, messages: Messages, **options: Any) -> str:
    reply = litellm.completion(
        model="openai/teorema/house", api_base=f"{url}/v1", api_key=token, messages=messages, **options
    )
    return reply.choices[0].message.content or ""


def with_langchain(url: str, token: str, messages: Messages, **options: Any) -> str:
    chat = ChatOpenAI(model="teorema/house", base_url=f"{url}/v1", api_key=token, **options)
    return str(chat.invoke([(m["role"], m["content"]) for m in messages]).content)


CLIENTS: dict[str, Callable[..., str]] = {"openai": with_openai, "litellm": with_litellm, "langchain": with_langchain}


@contextmanager
def retries_seen() -> Iterator[list[str]]:
    """Every retry the openai package makes meanwhile (LiteLLM and LangChain ask through it), as it logs them."""
    seen: list[str] = []

    class Seen(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.getMessage().startswith("Retrying request"):
                seen.append(record.getMessage())

    logger = logging.getLogger("openai._base_client")
    handler, level = Seen(), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield seen
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
