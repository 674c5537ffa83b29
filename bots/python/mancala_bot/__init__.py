"""mancala_bot: write a bot for the mancala arena in Python (standard library only, 3.9+).

    from mancala_bot import Bot

    class Random(Bot):
        name = "my-random 1.0"
        def choose(self, position, limits):
            return self.rng.choice(position.legal_moves())

    Random().run()

`rules` holds the three rulesets (Ruleset, Position); `bot` the protocol loop (Bot, Limits,
Option). See docs/writing-a-bot.md and docs/protocol.md.
"""

from .bot import Bot, Limits, Option
from .rules import NORTH, SOUTH, Position, Ruleset

__all__ = ["Bot", "Limits", "Option", "Position", "Ruleset", "SOUTH", "NORTH"]
__version__ = "0.1.0"
