"""The live side: state (the typed live state, as the sink publishes it), sink (events into fragments, coalesced
and broadcast), cards (what a voice's card shows), snapshot (DB rows completed by the live state),
consumers and routing (the one websocket per page)."""
