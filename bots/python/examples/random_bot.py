#!/usr/bin/env python3
"""A random mancala bot on the mancala_bot kit: a uniformly random legal move, repeatable with
the arena's per-game seed. Plays Kalah (any board and variant), Oware and Congkak."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from mancala_bot import Bot  # noqa: E402


class RandomBot(Bot):
    name = "kit-random-py 0.1"
    author = "mancala-arena"

    def choose(self, position, limits):
        return self.rng.choice(position.legal_moves())


if __name__ == "__main__":
    RandomBot().run()
