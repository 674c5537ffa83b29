#!/usr/bin/env python3
"""A random Kalah bot in one file of plain Python (standard library only, Python 3.9+).

It shows that the arena's line protocol (docs/protocol.md) is language-neutral: it speaks the
protocol on stdin/stdout and carries its own Kalah rules (docs/rules.md: sowing with laps,
extra turns, captures, the end when a side is empty and the sweep, the sow cap, and the variants
empty_capture, sweep=owner|none, end_on_no_move and pie). It plays a uniformly random legal move
from a generator seeded with `newgame ... seed N`, so a game repeats with its seed.

It supports Kalah only, and says so in the handshake (`id rulesets kalah`), so the arena never
schedules it on another game and `arena check-bot` checks it on Kalah boards only. (Sent another
ruleset anyway, it answers `newgame` with an `info string` saying so, and a `go` for such a game
gets an `info string` and no move.) For a bot of your own, start from the kit in this folder
(`mancala_bot`, its examples in `examples/`, docs/writing-a-bot.md) rather than from this file.
"""

import random
import sys


class Kalah:
    """A Kalah position. cells: South pits 0..N-1, South store N, North pits N+1..2N, North store 2N+1."""

    def __init__(self, rules):
        self.n = rules["pits"]
        self.rules = rules
        n = self.n
        self.cells = [rules["seeds"]] * n + [0] + [rules["seeds"]] * n + [0]
        self.mover = 0  # 0 South, 1 North, None when over
        self.sows = 0
        self.pie = "pending" if rules["pie"] else "off"

    def off(self, side):
        return 0 if side == 0 else self.n + 1

    def store(self, side):
        return self.n if side == 0 else 2 * self.n + 1

    def row(self, side):
        o = self.off(side)
        return self.cells[o:o + self.n]

    def legal_moves(self):
        if self.mover is None:
            return []
        moves = [str(i + 1) for i, c in enumerate(self.row(self.mover)) if c > 0]
        if self.pie == "offer":
            moves.append("swap")
        return moves

    def play(self, move):
        if move not in self.legal_moves():
            raise ValueError(f"illegal move {move}")
        if move == "swap":
            self.pie = "swapped"
            return
        n, side = self.n, self.mover
        o = self.off(side)
        i = int(move) - 1
        seeds = self.cells[o + i]
        self.cells[o + i] = 0
        # Relative path: 0..n-1 own pits, n own store, n+1..2n opponent pits (their store skipped).
        p = i
        for _ in range(seeds):
            p = (p + 1) % (2 * n + 1)
            self.cells[(p + o) % (2 * n + 2)] += 1
        nxt = 1 - side
        if p == n:
            nxt = side  # extra turn
        elif p < n and self.cells[o + p] == 1:
            opp = (2 * n - p + o) % (2 * n + 2)
            if self.cells[opp] > 0 or self.rules["empty_capture"]:
                self.cells[self.store(side)] += self.cells[opp] + 1
                self.cells[o + p] = 0
                self.cells[opp] = 0
        self.sows += 1
        if self.pie == "offer":
            self.pie = "declined"
        elif self.pie == "pending" and nxt == 1:
            self.pie = "offer"
        if self.rules["end_on_no_move"]:
            if sum(self.row(nxt)) == 0:
                return self.finish()
        elif sum(self.row(0)) == 0 or sum(self.row(1)) == 0:
            return self.finish()
        if self.sows >= self.rules["sow_cap"]:
            return self.finish()
        self.mover = nxt

    def finish(self):
        self.mover = None
        if self.rules["sweep"] == "none":
            return
        for side in (0, 1):
            o = self.off(side)
            self.cells[self.store(side)] += sum(self.cells[o:o + self.n])
            for k in range(self.n):
                self.cells[o + k] = 0

    @classmethod
    def from_state(cls, rules, state):
        """Parses a position string (docs/position.md): m/south/north/ss.ns/sows[/pie=..][/end=..]."""
        pos = cls(rules)
        fields = state.split("/")
        pos.mover = {"s": 0, "n": 1, "x": None}[fields[0]]
        south = [int(x) for x in fields[1].split(".")]
        north = [int(x) for x in fields[2].split(".")]
        stores = [int(x) for x in fields[3].split(".")]
        if len(south) != pos.n or len(north) != pos.n:
            raise ValueError("pit count does not match the ruleset")
        pos.cells = south + [stores[0]] + north + [stores[1]]
        pos.sows = int(fields[4])
        for field in fields[5:]:
            key, _, value = field.partition("=")
            if key == "pie":
                pos.pie = value
        return pos


def parse_ruleset(text):
    """`kalah[:key=value,...]` -> rules dict; None for other games."""
    name, _, params = text.partition(":")
    if name != "kalah":
        return None
    rules = {"pits": 6, "seeds": 4, "sow_cap": 400, "empty_capture": False,
             "sweep": "owner", "end_on_no_move": False, "pie": False}
    for item in filter(None, params.split(",")):
        key, _, value = item.partition("=")
        if key in ("pits", "seeds", "sow_cap"):
            rules[key] = int(value)
        elif key in ("empty_capture", "end_on_no_move", "pie"):
            rules[key] = value == "true"
        elif key == "sweep":
            rules[key] = value
        else:
            raise ValueError(f"unknown key {key}")
    return rules


def main():
    out = sys.stdout
    rules = parse_ruleset("kalah")
    rng = random.Random(0)
    pos = Kalah(rules)

    def say(line):
        out.write(line + "\n")
        out.flush()

    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        cmd = words[0]
        if cmd == "mancala":
            say("id name python-random 0.1.0")
            say("id author mancala-arena")
            say("id rulesets kalah")  # the only game it knows (any board size and variant)
            say("mancalaok")
        elif cmd == "isready":
            say("readyok")
        elif cmd == "newgame" and len(words) >= 2:
            try:
                rules = parse_ruleset(words[1])
            except ValueError as err:
                rules = None
                say(f"info string newgame: {err}")
            if rules is None:
                say(f"info string this bot plays kalah only, not {words[1]}")
            seed = int(words[3]) if len(words) >= 4 and words[2] == "seed" else 0
            rng = random.Random(seed)
        elif cmd == "position" and len(words) >= 2:
            if rules is None:
                pos = None
                continue
            try:
                if words[1] == "startpos":
                    pos = Kalah(rules)
                else:
                    pos = Kalah.from_state(rules, words[1])
                if "moves" in words:
                    for mv in words[words.index("moves") + 1:]:
                        pos.play(mv)
            except (ValueError, KeyError, IndexError) as err:
                pos = None
                say(f"info string position: {err}")
        elif cmd == "go":
            moves = pos.legal_moves() if pos is not None else []
            if not moves:
                say("info string no position to move in (kalah only)")
                continue
            say(f"bestmove {rng.choice(moves)}")
        elif cmd == "quit":
            return
        # setoption, stop and unknown commands: nothing to do (no options, no thinking).


if __name__ == "__main__":
    main()
