"""Every way into Teorema from outside the page: the JSON API (``api``), MCP (``mcp``), the
OpenAI-compatible endpoint (``openai``), Telegram (``telegram``) and what the terminal prints
(``cli``). Each only translates: its input into the one service's keyword arguments
(``debates.service``), the one refusal into its own error shape, and the one follower's happenings
(``debates.live.watch``) into its own progress. No channel imports another; ``endpoint`` is what
the ones that speak JSON over HTTP share."""
