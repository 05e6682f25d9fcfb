"""``python manage.py mcp --user NAME``: Teorema's MCP tools over stdio, for a desktop assistant's or
an IDE agent's config file (docs/integrations.md). The debates run in this process, as ``manage.py ask``'s
do, and are stored in the same database: the page and History show them. A client that leaves (it
closes stdin) stops nothing: the debates it asked run to their end before the process exits.
Everything but the protocol goes to stderr: stdout is the client's.
"""

import anyio
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from debates.integrations.mcp.server import server, stdio_user
from debates.runs import taskbackend


class Command(BaseCommand):
    help = "Serve Teorema's MCP tools over stdio (ask the panel from a desktop assistant or an IDE agent)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--user", required=True, help="the user the client acts as: it sees what they see")

    def handle(self, *args, user: str, **options) -> None:
        found = get_user_model().objects.filter(username=user, is_active=True).first()
        if found is None:
            raise CommandError(f"There is no active user “{user}” (create one with `manage.py createsuperuser`).")
        stdio_user.set(found)
        anyio.run(self.serve)

    async def serve(self) -> None:
        await server.run_stdio_async()
        if left := len(taskbackend._running):
            self.stderr.write(f"The client left: finishing the {left} debate(s) it asked (their pages keep them).")
        await taskbackend.finish_started()
