"""The Telegram channel of the original design: questions in, verdicts out (see bot.py)."""
