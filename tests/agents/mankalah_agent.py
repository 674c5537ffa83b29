#!/usr/bin/env python3
"""A ManKalah agent written from the protocol's published description (the Manchester ManKalah
engine: START / CHANGE / END in, MOVE / SWAP out, on stdin and stdout), for the arena's tests.

It tracks its side (START, its own SWAP, the opponent's SWAP) and answers with the move that
puts the most seeds into its store (ties: a seeded random choice). Misbehaving modes, one at a
time, for the fault tests:
  --crash        exits when its first move is due
  --hang         never answers
  --illegal      plays an empty hole of its own (or hole n+1 when none is empty)
  --garbage      answers a line that is not a message
  --wrong-side   believes it is South whatever START said: as North it moves before South did
  --swap         always swaps when it can (a well-behaved variant)
"""
import random
import sys
import time

MODE = next((a[2:] for a in sys.argv[1:] if a.startswith("--") and a != "--swap"), None)
SWAP = "--swap" in sys.argv
rng = random.Random(7)


def send(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def sow_gain(row, other, store, hole):
    """Seeds the mover's store gains by sowing `hole` (1-based) of `row` (own holes), with the
    arena's and ManKalah's capture rule; a full simulation of one sow."""
    n = len(row)
    cells = row[:] + [store] + other[:]  # own holes, own store, opponent's holes
    seeds = cells[hole - 1]
    cells[hole - 1] = 0
    i = hole - 1
    while seeds:
        i = (i + 1) % (2 * n + 1)
        cells[i] += 1
        seeds -= 1
    if i < n and cells[i] == 1 and cells[2 * n - i] > 0:
        cells[n] += cells[2 * n - i] + 1
        cells[i] = cells[2 * n - i] = 0
    return cells[n] - store + (0.5 if i == n else 0)


def choose(state, side):
    n = (len(state) - 2) // 2
    north, north_store = state[:n], state[n]
    south, south_store = state[n + 1 : 2 * n + 1], state[2 * n + 1]
    mine, theirs, store = (south, north, south_store) if side == "South" else (north, south, north_store)
    legal = [h for h in range(1, n + 1) if mine[h - 1] > 0]
    if MODE == "illegal":
        empty = [h for h in range(1, n + 1) if mine[h - 1] == 0]
        return empty[0] if empty else n + 1
    best = max(sow_gain(mine, theirs, store, h) for h in legal)
    return rng.choice([h for h in legal if sow_gain(mine, theirs, store, h) == best])


def answer(state, side):
    if MODE == "crash":
        sys.exit(3)
    if MODE == "hang":
        time.sleep(3600)
    if MODE == "garbage":
        send("I think I will play hole three")
        return
    send("MOVE;%d" % choose(state, side))


def main():
    side = None
    state = None
    moves_seen = 0
    for raw in sys.stdin:
        parts = raw.rstrip("\n").split(";")
        if parts[0] == "START":
            side = parts[1]
            n = 7
            state = [7] * n + [0] + [7] * n + [0]
            if side == "South" or MODE == "wrong-side":
                answer(state, "South")
        elif parts[0] == "CHANGE":
            moves_seen += 1
            state = [int(x) for x in parts[2].split(",")]
            if parts[1] == "SWAP":
                side = "North" if side == "South" else "South"
            if parts[3] == "YOU":
                if side == "North" and moves_seen == 1 and SWAP:
                    side = "South"
                    send("SWAP")
                else:
                    answer(state, side)
        elif parts[0] == "END":
            return


if __name__ == "__main__":
    main()
