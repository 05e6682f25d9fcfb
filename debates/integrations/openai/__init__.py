"""The OpenAI-compatible endpoint (``views``) and a debate as one chat reply (``transcript``)."""
