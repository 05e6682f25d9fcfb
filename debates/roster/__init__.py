"""Who can be called and what it costs: the roster as TOML, its voices, its panels as they are
now, whether a panel can run and at what cost, and what is installed here to call."""
