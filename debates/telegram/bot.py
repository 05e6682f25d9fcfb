"""Telegram in and out: a question becomes a run of the default panel; the verdict comes back.

One entry point, ``handle(update, config, bot)``, serves the webhook view and the poller alike.
Questions are owned by a service user ("telegram"); every allowed chat is trusted as an owner.
When the run finishes, the synthesis is sent in as many messages as it needs (``split``), with
a button for each voice's final answer (also ``/voices <id>``).
"""

import asyncio
import logging
import re

from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Update

from debates import asking
from debates.forms import AskForm
from debates.live.follow import follow
from debates.models import Contribution, Outcome, Question, Source
from debates.telegram.config import Config
from debates.telegram.split import split_message

log = logging.getLogger(__name__)

SERVICE_USER = "telegram"
POLL_S = 2.0
GIVE_UP_S = 6 * 3600.0
HELP = (
    "Send me a question and a panel of models will debate it; I answer with the verdict.\n"
    "/result <id> sends a verdict again, /voices <id> each voice's final answer."
)
REFUSED = "Sorry, this bot only answers the chats it was set up for."
COMMAND = re.compile(r"/(\w+)(?:@\w+)?\s*(.*)", re.S)
_watchers: set[asyncio.Task] = set()


class Refusal(Exception):
    """A question that cannot be taken now; the message is for the asker."""


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
    text = (update.message.text or "").strip() if update.message else ""
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


async def ask(config: Config, bot: Bot, chat_id: int, text: str) -> None:
    try:
        question = await sync_to_async(start_question)(text)
    except Refusal as refusal:
        await send(bot, chat_id, str(refusal))
        return
    log.info("Chat %s asked question %s.", chat_id, question.pk)
    await send(bot, chat_id, f"Running… {config.link(question.pk)}")
    watcher = asyncio.create_task(watch(config, chat_id, question.pk))
    _watchers.add(watcher)  # a strong reference until it is done
    watcher.add_done_callback(_watchers.discard)


def start_question(text: str) -> Question:
    """Create the question for the default panel and submit its run."""
    form = AskForm({"text": text})  # the one form: a panel that cannot run is refused here, not mid-run
    if not form.is_valid():
        raise Refusal(" ".join(e["message"] for errors in form.errors.get_json_data().values() for e in errors))
    try:
        return asking.ask(form, service_user(), Source.TELEGRAM)
    except asking.OverLimit as refused:
        raise Refusal(refused.message) from None


def service_user():
    user, created = get_user_model().objects.get_or_create(username=SERVICE_USER)
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


async def watch(config: Config, chat_id: int, question_id: int) -> None:
    """Wait for the run to finish, then send its verdict (with its own Bot: the caller's may be closed)."""
    async for question, _state in follow(question_id, every=POLL_S, patience=GIVE_UP_S):
        if question.is_finished:
            async with config.bot() as bot:
                text = await sync_to_async(result_text)(config, question_id)
                await send(bot, chat_id, text, voices_button(question_id))
            return
    log.warning(
        "Stopped waiting for question %s after %d s; /result %s fetches it.", question_id, GIVE_UP_S, question_id
    )


def result_text(config: Config, question_id: int) -> str:
    """The verdict as markdown: the synthesis when there is one, else what happened in words."""
    question = Question.objects.filter(pk=question_id, owner__username=SERVICE_USER).first()
    if question is None:
        return f"There is no question #{question_id} from Telegram."
    link = f"[Open the debate]({config.link(question.pk)})"
    heading = f"**Question #{question.pk} · {question.get_status_display()}**"
    if not question.is_finished:
        return f"{heading}\n\nStill running ({question.phase or 'starting'}).\n\n{link}"
    synthesis = getattr(question, "synthesis", None)
    body = synthesis.text if synthesis else question.verdict or question.error or "No verdict was written."
    return f"{heading}\n\n{body}\n\n{link}"


def voices_text(question_id: int) -> list[str]:
    """Each panelist's last completed contribution, one markdown message per voice."""
    question = Question.objects.filter(pk=question_id, owner__username=SERVICE_USER).first()
    if question is None:
        return [f"There is no question #{question_id} from Telegram."]
    messages = []
    for entry in question.roster:
        if entry["seat"] in ("moderator", "tie_breaker"):
            continue
        final = (
            Contribution.objects.filter(round__question=question, seat=entry["seat"], status=Outcome.DONE)
            .order_by("-round__index")
            .first()
        )
        if final:
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
