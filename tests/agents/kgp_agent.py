#!/usr/bin/env python3
"""A KGP 1.0 freeplay client written from the protocol's published description (KWARC's Kalah
Game Protocol), for the arena's tests. Standard library only.

Connects to the address on its command line (HOST PORT), else KGP_HOST / KGP_PORT, else
localhost:2671. For each `state` it sends a first `move` at once and a better one (the most
seeds into its store) after a short think, then `yield`. Misbehaving modes, one at a time:
  --crash        exits at the first state
  --hang         never answers a state (but still answers ping)
  --illegal      moves an empty pit of its own (or pit n+1 when none is empty)
  --garbage      sends bytes that are not UTF-8
  --wrong-side   reads the board as if it moved North (an older draft of the spec said so)
  --ping-flood   at the first state, sends `ping` without end and never reads again
  --set-flood    at the first state, sends `set info:name "..."` (1 KiB) without end
  --wrong-ref    answers each state with moves that reference another id, then yields it
  --official     well-behaved, but exits if the arena breaks a convention of KWARC's official
                 server: a board where a store holds more than half the seeds (5), a board with
                 one legal pit (6), a new state before the `stop` that follows its yield (7)
  --no-yield     never yields: the arena's `stop` ends each request
  --ping         well-behaved, but pings the server before each move and waits for its pong
                 (exits if anything else comes first)
  --yield-first  yields before any move on every other state (the race in the official Java
                 library, jkgp, that drops its first move), and plays as usual on the others
  --leak-exit    writes "PID PORT" to the file $KGP_LEAK (for a stranger to find), waits (at
                 most 20 s) until $KGP_LEAK.stranger exists, and exits 0.3 s later without
                 connecting
  --leak-late    writes "PID PORT" to $KGP_LEAK, waits (at most 20 s) until $KGP_LEAK.stranger
                 exists (a stranger connected), then plays well
With $KGP_CONNECTED set it creates that file once connected; with $KGP_STATES set it appends a
line to that file for each state it is sent (a stranger's evidence that it played).
"""
import os
import random
import socket
import sys
import time

ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
MODE = next((a[2:] for a in sys.argv[1:] if a.startswith("--")), None)
rng = random.Random(11)


def gain(mine, theirs, store, pit):
    n = len(mine)
    cells = mine[:] + [store] + theirs[:]
    seeds = cells[pit - 1]
    cells[pit - 1] = 0
    i = pit - 1
    while seeds:
        i = (i + 1) % (2 * n + 1)
        cells[i] += 1
        seeds -= 1
    if i < n and cells[i] == 1 and cells[2 * n - i] > 0:
        cells[n] += cells[2 * n - i] + 1
    return cells[n] - store + (0.5 if i == n else 0)


def parse(line):
    """(id, ref, name, args) of `[id][@ref] name args`."""
    words = line.split()
    ident = ref = None
    if words and (words[0][0].isdigit() or words[0][0] == "@"):
        head = words.pop(0)
        if "@" in head:
            a, b = head.split("@", 1)
            ident, ref = (int(a) if a else None), int(b)
        else:
            ident = int(head)
    return ident, ref, (words[0] if words else ""), words[1:]


def main():
    host = ARGS[0] if ARGS else os.environ.get("KGP_HOST", "localhost")
    port = int(ARGS[1]) if len(ARGS) > 1 else int(os.environ.get("KGP_PORT", "2671"))
    if MODE in ("leak-exit", "leak-late"):
        leak = os.environ["KGP_LEAK"]
        with open(leak + ".tmp", "w") as f:
            f.write("%d %d\n" % (os.getpid(), port))
        os.rename(leak + ".tmp", leak)
        waited = time.monotonic()
        while not os.path.exists(leak + ".stranger") and time.monotonic() - waited < 20:
            time.sleep(0.01)
        if MODE == "leak-exit":
            time.sleep(0.3)
            return
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if MODE == "ping-flood":
        # A small receive window: the server's pongs fill it soon once nothing reads them.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((host, port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if os.environ.get("KGP_CONNECTED"):
        open(os.environ["KGP_CONNECTED"], "w").close()
    f = sock.makefile("rwb", buffering=0)

    def send(text):
        f.write(text.encode() + b"\r\n")

    awaiting_stop = None
    states = 0
    for raw in f:
        line = raw.decode().strip()
        ident, ref, name, args = parse(line)
        if name == "stop" and ref == awaiting_stop:
            awaiting_stop = None
        if name == "kgp":
            if args[0] != "1":
                send('error "unsupported version"')
                return
            send('set info:name "ref-kgp"')
            send("mode freeplay")
        elif name == "ping":
            send("@%d pong" % ident if ident is not None else "pong")
        elif name == "state":
            if os.environ.get("KGP_STATES"):
                with open(os.environ["KGP_STATES"], "a") as states:
                    states.write(line + "\n")
            cells = [int(x) for x in args[0].strip("<>").split(",")]
            # The spec's literal (spec/012-grammar.md): size, south store, north store, the
            # south pits, the north pits; the client always moves as south.
            n, south_store, north_store = cells[0], cells[1], cells[2]
            south, north = cells[3 : 3 + n], cells[3 + n : 3 + 2 * n]
            mine, theirs, store = south, north, south_store
            if MODE == "official":
                if 2 * max(south_store, north_store) > sum(cells[1:]):
                    sys.exit(5)
                if sum(1 for seeds in south if seeds > 0) == 1:
                    sys.exit(6)
                if awaiting_stop is not None:
                    sys.exit(7)
                awaiting_stop = ident
            if MODE == "wrong-side":
                mine, theirs, store = north, south, north_store
            if MODE == "crash":
                sys.exit(3)
            if MODE == "set-flood":
                name = b"x" * 1024
                while True:
                    f.write(b"".join(b'set info:name "%s"\r\n' % name for _ in range(256)))
            if MODE == "ping-flood":
                k = 0
                while True:
                    f.write(b"".join(b"%d ping\r\n" % (k + 2 * i) for i in range(1000)))
                    k += 2000
            if MODE == "hang":
                continue
            if MODE == "garbage":
                f.write(b"\xff\xfe move \x80\r\n")
                continue
            if MODE == "ping":
                send("%d ping" % (ident + 1_000_000))
                pong = parse(f.readline().decode().strip())
                if pong[2] != "pong" or pong[1] != ident + 1_000_000:
                    sys.exit(4)
            legal = [p for p in range(1, n + 1) if mine[p - 1] > 0]
            states += 1
            if MODE == "yield-first" and states % 2 == 1:
                send("@%d yield" % ident)
                continue
            if MODE == "wrong-ref":
                send("@%d move %d" % (ident + 1000, legal[0]))
                send("@%d yield" % (ident + 1000))
                continue
            if MODE == "illegal":
                empty = [p for p in range(1, n + 1) if mine[p - 1] == 0]
                send("@%d move %d" % (ident, empty[0] if empty else n + 1))
                send("@%d yield" % ident)
                continue
            if not legal:
                continue
            send("@%d move %d" % (ident, rng.choice(legal)))
            time.sleep(0.002)
            best = max(gain(mine, theirs, store, p) for p in legal)
            send("@%d move %d" % (ident, rng.choice([p for p in legal if gain(mine, theirs, store, p) == best])))
            if MODE != "no-yield":
                send("@%d yield" % ident)
        elif name == "goodbye":
            return


if __name__ == "__main__":
    main()
