"""The MCP server: its tools (``server``) and ``/mcp`` over Streamable HTTP (``http``)."""
