"""The kit's rules on the command line, for checking them against the arena's engine.

    python3 -m mancala_bot.replay < games.txt

Each input line is ``RULESET START MOVE...`` (START: ``startpos`` or a position string); each
output line is the position after 0, 1, 2, ... of the moves, separated by spaces, each written
``STATE|M,M,...`` (the position string and the legal moves). tests/kits.rs compares it with the
engine; an error prints ``error: ...`` as the line.
"""

import sys

from .rules import Position, Ruleset


def main():
    out = []
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        try:
            pos = Position.from_protocol(Ruleset(words[0]), words[1:2])
            cols = []
            for mv in [None] + words[2:]:
                if mv is not None:
                    pos.play(mv)
                cols.append(pos.to_state() + "|" + ",".join(map(str, pos.legal_moves())))
            out.append(" ".join(cols))
        except ValueError as err:
            out.append(f"error: {err}")
    sys.stdout.write("\n".join(out) + ("\n" if out else ""))


if __name__ == "__main__":
    main()
