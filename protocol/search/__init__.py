"""Search for the built-in players: determinization (dealing what one seat cannot see) and
information-set Monte Carlo tree search over it (docs/bots.md).

Pure like the rest of ``protocol``: no I/O, all randomness from :class:`quinze_protocol.rng.Rng`.
"""
