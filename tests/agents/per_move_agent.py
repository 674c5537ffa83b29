#!/usr/bin/env python3
"""A per-move program (kgpc's convention, docs/protocols.md) for the arena's tests. Standard
library only. Reads the board on stdin (the board size; the mover's and the opponent's stores;
the mover's pits; the opponent's pits) and prints a 0-indexed pit: first a random legal one, then
the one that puts the most seeds into its store, then exits. Misbehaving modes, one at a time:
  --silent         prints no move, says why on stderr, exits 1
  --garbage        prints a word that is not a pit number
  --overrun        prints nothing and never exits
  --one-based      numbers pits from 1 and prints the last one, n: out of range
  --keep-thinking  prints its move, then goes on printing it and never exits (stopped at the
                   move time, as kgpc stops a program at `stop`)
  --child-forever  prints its move and exits, leaving a child (in its process group, holding its
                   stdout) that prints the same move without end
  --drip           prints its move, then a blank line every 10 ms for 3 s, then `99` (no pit),
                   then exits: only what it printed before the move time is its move
  --flood          prints 50 MiB of blank lines before its move
"""
import os
import random
import sys
import time

MODE = next((a[2:] for a in sys.argv[1:] if a.startswith("--")), None)


def gain(mine, theirs, pit):
    """Seeds into the store sowing `pit` (0-indexed), plus a half for an extra turn."""
    n = len(mine)
    cells = mine[:] + [0] + theirs[:]
    seeds = cells[pit]
    cells[pit] = 0
    i = pit
    while seeds:
        i = (i + 1) % (2 * n + 1)
        cells[i] += 1
        seeds -= 1
    if i < n and cells[i] == 1 and cells[2 * n - i] > 0:
        cells[n] += cells[2 * n - i] + 1
    return cells[n] + (0.5 if i == n else 0)


def main():
    words = [int(w) for w in sys.stdin.read().split()]
    n = words[0]
    mine, theirs = words[3 : 3 + n], words[3 + n : 3 + 2 * n]
    legal = [p for p in range(n) if mine[p] > 0]
    if MODE == "silent":
        print("no idea what to play", file=sys.stderr)
        sys.exit(1)
    if MODE == "garbage":
        print("e4", flush=True)
        return
    if MODE == "overrun":
        time.sleep(3600)
    if MODE == "one-based":
        print(n, flush=True)
        return
    if MODE == "flood":
        block = "\n" * (1 << 20)
        for _ in range(50):
            sys.stdout.write(block)
    print(random.Random(sum(words)).choice(legal), flush=True)
    best = max(legal, key=lambda p: gain(mine, theirs, p))
    print(best, flush=True)
    if MODE == "child-forever" and os.fork() == 0:
        try:
            while True:
                print(best, flush=True)
        finally:
            os._exit(0)
    if MODE == "drip":
        start = time.monotonic()
        while time.monotonic() - start < 3:
            print(flush=True)
            time.sleep(0.01)
        print(99, flush=True)
    while MODE == "keep-thinking":
        time.sleep(0.01)
        print(best, flush=True)


if __name__ == "__main__":
    main()
