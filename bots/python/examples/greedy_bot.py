#!/usr/bin/env python3
"""A one-ply greedy bot on the mancala_bot kit: the move that leaves the mover's store furthest
ahead of the opponent's (an extra turn counts as a small bonus), random among equals."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from mancala_bot import Bot  # noqa: E402


class GreedyBot(Bot):
    name = "kit-greedy-py 0.1"
    author = "mancala-arena"

    def choose(self, position, limits):
        me = position.mover

        def value(move):
            after = position.after(move)
            again = 0.5 if after.mover == me else 0
            return after.store(me) - after.store(1 - me) + again + self.rng.random() / 10

        return max(position.legal_moves(), key=value)


if __name__ == "__main__":
    GreedyBot().run()
