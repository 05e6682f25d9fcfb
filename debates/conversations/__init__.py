"""Conversations and sharing: follow-ups in threads, re-asking on another panel, who may read a
question (private, signed-in users, a read-only link), and exports of a whole debate.

``threads`` builds a follow-up's context and the thread a page shows; ``sharing`` changes and
checks visibility and keeps the cost off a link when asked; ``export`` writes Markdown and JSON
from the API's own representation; ``views`` serves the forms, the link page and the downloads.
"""
