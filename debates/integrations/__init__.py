"""Teorema where people already work: an MCP server and an OpenAI-compatible endpoint, both on
the one form and the one ask path the page uses (``service``)."""
