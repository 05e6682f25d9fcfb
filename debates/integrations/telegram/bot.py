"""Telegram in and out: a question becomes a run of the default panel; the verdict comes back.

One entry point, ``handle(update, config, bot)``, serves the webhook view and the poller alike.
Questions are owned by a service user ("telegram"); every allowed chat is trusted as an owner.
When the run finishes, the synthesis is sent in as many messages as it needs (``split``), with
a button for each voice's final answer (also ``/voices <id>``).
"""

import asyncio
import contextvars
import logging
import re

from asgiref.sync import sync_to_async
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Message, Update

from debates import service
from debates.attachments import check as files
from debates.attachments.check import Upload
from debates.integrations.telegram.config import Config
from debates.integrations.telegram.split import split_message
from debates.live import snapshot
from debates.live.watch import Ended, watch
from debates.models import Source
from debates.refusal import Kind, Refused

log = logging.getLogger(__name__)

SERVICE_USER = "telegram"
GIVE_UP_S = 6 * 3600.0
HELP = (
    "Send me a question and a panel of models will debate it; I answer with the verdict.\n"
    "/result <id> sends a verdict again, /voices <id> each voice's final answer."
)
REFUSED = "Sorry, this bot only answers the chats it was set up for."
COMMAND = re.compile(r"/(\w+)(?:@\w+)?\s*(.*)", re.S)
_watchers: set[asyncio.Task] = set()


async def handle(update: Update, config: Config, bot: Bot) -> None:
    """Answer one update: a question, a command or a button press, from an allowed chat only."""
    chat = update.effective_chat
    if chat is None:
        return
    if chat.id not in config.allowed_chat_ids:
        log.warning("Refused an update from chat %s: not in TELEGRAM_ALLOWED_CHAT_IDS.", chat.id)
        if update.callback_query:
            await bot.answer_callback_query(update.callback_query.id, text=REFUSED)
        elif update.message:
            await bot.send_message(chat.id, REFUSED)
        return
    if update.callback_query:
        await bot.answer_callback_query(update.callback_query.id)
        if match := re.fullmatch(r"voices:(\d+)", update.callback_query.data or ""):
            await send_voices(bot, chat.id, int(match.group(1)))
        return
    message = update.message
    text = (message.text or message.caption or "").strip() if message else ""
    if message and (message.document or message.photo):
        await ask(config, bot, chat.id, text, message)
        return
    if not text:
        return
    command = COMMAND.fullmatch(text)
    if command is None:
        await ask(config, bot, chat.id, text)
        return
    name, argument = command.group(1).lower(), command.group(2).strip()
    if name in ("result", "voices") and argument.isdigit():
        if name == "result":
            await send(bot, chat.id, await sync_to_async(result_text)(config, int(argument)), voices_button(argument))
        else:
            await send_voices(bot, chat.id, int(argument))
    else:
        await send(bot, chat.id, HELP)


async def ask(config: Config, bot: Bot, chat_id: int, text: str, carrying: Message | None = None) -> None:
    """Ask the default panel (the one form: a panel that cannot run is refused here, not mid-run); a
    message ``carrying`` a document or a photo asks its caption, with the file."""
    if carrying is not None and not text:
        await send(bot, chat_id, NO_CAPTION)
        return
    try:
        uploads = await downloaded(bot, carrying) if carrying is not None else []
        question = await sync_to_async(
            lambda: service.ask(service_user(), source=Source.TELEGRAM, text=text, attachments=uploads)
        )()
    except Refused as refused:
        await send(bot, chat_id, refused.in_words)
        return
    log.info("Chat %s asked question %s.", chat_id, question.pk)
    await send(bot, chat_id, f"Running… {config.link(question.pk) or f'question #{question.pk}'}")
    # The wait outlives the request that asked: it runs in a context of its own, not the webhook
    # request's, whose thread executor has quit by the time the run ends.
    watcher = asyncio.create_task(wait_and_answer(config, chat_id, question.pk), context=contextvars.Context())
    _watchers.add(watcher)  # a strong reference until it is done
    watcher.add_done_callback(_done)


NO_CAPTION = "Write your question as the file's caption: the panel reads the file with it."


async def downloaded(bot: Bot, message: Message) -> list[Upload]:
    """The message's document (its name and type as sent) or photo (its largest size), fetched from
    Telegram unless its size alone is past the limit."""
    document = message.document
    found = document or message.photo[-1]
    name = (document.file_name or "document") if document else "photo.jpg"
    media_type = (document.mime_type or "") if document else "image/jpeg"
    if found.file_size and (too_large := files.too_large(name, found.file_size)):
        raise files.refuse([too_large], Kind.TOO_LARGE)
    data = await (await bot.get_file(found.file_id)).download_as_bytearray()
    return [Upload(name, media_type, bytes(data))]


def service_user():
    return service.channel_user(SERVICE_USER)


def _done(watcher: asyncio.Task) -> None:
    _watchers.discard(watcher)
    if not watcher.cancelled() and (error := watcher.exception()) is not None:
        log.error("Could not send a verdict to Telegram: %s", error, exc_info=error)


async def wait_and_answer(config: Config, chat_id: int, question_id: int) -> None:
    """Wait for the run's end, then send its verdict (with its own Bot: the caller's may be closed)."""
    try:
        async with asyncio.timeout(GIVE_UP_S):
            async for happening in watch(question_id):
                if isinstance(happening, Ended):
                    break
    except TimeoutError:
        log.warning(
            "Stopped waiting for question %s after %d s; /result %s fetches it.", question_id, GIVE_UP_S, question_id
        )
        return
    async with config.bot() as bot:
        text = await sync_to_async(result_text)(config, question_id)
        await send(bot, chat_id, text, voices_button(question_id))


def result_text(config: Config, question_id: int) -> str:
    """The verdict as markdown: the synthesis when there is one, else what happened in words."""
    question = service.asked_by(service_user(), question_id)
    if question is None:
        return f"There is no question #{question_id} from Telegram."
    link = (
        f"[Open the debate]({url})" if (url := config.link(question.pk)) else f"/result {question.pk} sends it again."
    )
    heading = f"**Question #{question.pk} · {question.get_status_display()}**"
    if not question.is_finished:
        return f"{heading}\n\nStill running ({question.phase or 'starting'}).\n\n{link}"
    synthesis = snapshot.build(question.pk, None).synthesis_text  # as people read it, labels named
    body = synthesis or question.verdict or question.error or "No verdict was written."
    return f"{heading}\n\n{body}\n\n{link}"


def voices_text(question_id: int) -> list[str]:
    """Each panelist's last completed contribution, one markdown message per voice."""
    question = service.asked_by(service_user(), question_id)
    if question is None:
        return [f"There is no question #{question_id} from Telegram."]
    messages = []
    for entry, final in service.last_answers(question):
        answer = final.text or "\n\n".join(part for part in (final.decision, final.reasoning) if part)
        messages.append(f"**{entry['label']} · {entry['name']}**\n\n{answer}")
    return messages or [f"No voice of question #{question_id} has answered yet."]


async def send_voices(bot: Bot, chat_id: int, question_id: int) -> None:
    for text in await sync_to_async(voices_text)(question_id):
        await send(bot, chat_id, text)


def voices_button(question_id: int | str) -> InlineKeyboardMarkup:
    button = InlineKeyboardButton("Each voice's final answer", callback_data=f"voices:{question_id}")
    return InlineKeyboardMarkup([[button]])


async def send(bot: Bot, chat_id: int, markdown: str, buttons: InlineKeyboardMarkup | None = None) -> None:
    """Send markdown as Telegram HTML, in as many messages as it takes; buttons go on the last."""
    parts = split_message(markdown)
    for number, part in enumerate(parts, 1):
        markup = buttons if number == len(parts) else None
        await bot.send_message(chat_id, part, parse_mode="HTML", reply_markup=markup)
