"""The protocol loop (docs/protocol.md) around a `Bot` whose author writes only `choose`.

The loop runs on the main thread and reads stdin; each `go` runs `choose` on a worker thread, so
`stop`, `quit` and the time limit are answered at once even while `choose` is still thinking:
the kit then answers with the best move `choose` reported so far (`limits.report(move)`), or
the first legal move. A `choose` that returns late is ignored (there is never a second
`bestmove`). Python cannot kill a thread, so a long `choose` should look at `limits.stopped()`
now and then and return; until it does it keeps a core busy.
"""

import os
import queue
import random
import sys
import threading
import time

from .rules import Position, Ruleset


class Option:
    """An option declared in the handshake (docs/protocol.md, Options)."""

    def __init__(self, name, type, default=None, min=None, max=None, vars=()):
        self.name, self.type, self.default = name, type, default
        self.min, self.max, self.vars = min, max, list(vars)

    @classmethod
    def spin(cls, name, default, min, max):
        return cls(name, "spin", default, min, max)

    @classmethod
    def check(cls, name, default):
        return cls(name, "check", bool(default))

    @classmethod
    def combo(cls, name, default, vars):
        return cls(name, "combo", default, vars=vars)

    @classmethod
    def string(cls, name, default=""):
        return cls(name, "string", default)

    @classmethod
    def button(cls, name):
        return cls(name, "button")

    def line(self):
        out = f"option name {self.name} type {self.type}"
        if self.type == "spin":
            out += f" default {self.default} min {self.min} max {self.max}"
        elif self.type == "check":
            out += f" default {'true' if self.default else 'false'}"
        elif self.type == "string":
            out += f" default {self.default or '<empty>'}"
        elif self.type == "combo":
            out += f" default {self.default}" + "".join(f" var {v}" for v in self.vars)
        return out

    def parse(self, text):
        if self.type == "spin":
            return max(self.min, min(self.max, int(text)))
        if self.type == "check":
            return text == "true"
        if self.type == "string":
            return "" if text == "<empty>" else text
        return text


class Limits:
    """The limits of one `go`: ``movetime``, ``time``, ``inc`` (ms), ``depth``, ``nodes`` (None
    when not given), ``infinite`` (bool). ``deadline`` is the time.monotonic() by which `choose`
    should return (None: no clock); ``stopped()`` is true once it has passed or `stop` came."""

    def __init__(self, words=()):
        self.movetime = self.time = self.inc = self.depth = self.nodes = None
        self.infinite = False
        it = iter(words)
        for w in it:
            if w == "infinite":
                self.infinite = True
            elif w in ("movetime", "time", "inc", "depth", "nodes"):
                setattr(self, w, int(next(it)))
        self.start = time.monotonic()
        budget, hard = None, None
        if self.movetime is not None:
            budget, hard = self.movetime * 0.8, self.movetime
        if self.time is not None:
            t = self.time / 20 + (self.inc or 0) * 0.75
            budget = min(budget if budget is not None else t, t, self.time / 4)
            hard = min(hard if hard is not None else self.time, self.time / 2)
        self.deadline = None if budget is None else self.start + budget / 1000
        self._hard = None if hard is None else self.start + hard / 1000
        self._stop = threading.Event()
        self.best = None

    def stopped(self):
        """True once `stop` came or the deadline passed: return from `choose` soon."""
        return self._stop.is_set() or (
            self.deadline is not None and time.monotonic() >= self.deadline)

    def report(self, move):
        """Records the best move so far: it is played if `choose` is interrupted."""
        self.best = move


class Bot:
    """Subclass it and write `choose(position, limits) -> move`. Optional: `name`, `author`,
    `rulesets` (the patterns of `id rulesets`; None: every ruleset), `options` (a list of
    `Option`; values in `self.option[name]`), `new_game(ruleset)`. `self.rng` is a
    `random.Random` seeded by `newgame ... seed N`."""

    name = "python-bot"
    author = None
    rulesets = ["kalah", "oware", "congkak"]
    options = []

    def __init__(self):
        self.option = {o.name: o.default for o in self.options}
        self.rng = random.Random()
        self.ruleset = Ruleset("kalah")

    def new_game(self, ruleset):
        """Called at `newgame`, after `self.ruleset` and `self.rng` are set."""

    def choose(self, position, limits):
        raise NotImplementedError("write choose(position, limits) -> move")

    def info(self, text):
        """Sends `info string TEXT` to the arena's log."""
        _say("info string " + " ".join(str(text).split()))

    def run(self):
        """Speaks the protocol on stdin/stdout until `quit` or the end of input."""
        _Loop(self).run()


_out_lock = threading.Lock()


def _say(line):
    with _out_lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


class _Loop:
    def __init__(self, bot):
        self.bot = bot
        self.position = None
        self.cache = None  # (start word, moves, Position): extends the last game without replay
        self.pending = None  # the Limits of the `go` not answered yet
        self.lock = threading.Condition()
        self.worker = None  # (queue, busy flag) of the thread that runs `choose`
        threading.Thread(target=self.watchdog, daemon=True).start()

    def answer(self, limits, move):
        """Sends `bestmove` for `limits`' go unless it was answered already."""
        with self.lock:
            if self.pending is not limits:
                return
            self.pending = None
            _say(f"bestmove {move}")
            self.lock.notify_all()

    def fallback(self, limits, position):
        moves = position.legal_moves()
        move = limits.best if limits.best in moves else moves[0]
        self.answer(limits, move)

    def think(self, position, limits):
        """Runs `choose`; returns a legal move, or None (then the fallback is played)."""
        try:
            move = self.bot.choose(position.copy(), limits)
            legal = position.legal_moves()
            if move not in legal and str(move).isdigit():
                move = int(move)
            if move in legal:
                return move
            _say(f"info string choose returned {move!r}, not a legal move")
        except Exception as err:  # a bug in choose must not lose the game on time
            _say(f"info string choose failed: {type(err).__name__}: {err}")
        return None

    def set_position(self, words):
        rules = self.bot.ruleset
        start, moves = words[0], words[2:] if len(words) > 2 and words[1] == "moves" else []
        if len(words) > 1 and words[1] != "moves":
            raise ValueError(f"`{words[1]}` where `moves` was expected")
        c = self.cache
        if c and c[0] == (start, str(rules)) and moves[:len(c[1])] == c[1]:
            pos = c[2].copy()
            for mv in moves[len(c[1]):]:
                pos.play(mv)
        else:
            pos = Position.from_protocol(rules, words)
        self.cache = ((start, str(rules)), moves, pos)
        self.position = pos

    def run(self):
        bot = self.bot
        stdin = sys.stdin
        while True:
            line = stdin.readline()
            if not line:
                break
            words = line.split()
            if not words:
                continue
            cmd = words[0]
            try:
                if cmd == "mancala":
                    _say(f"id name {bot.name}")
                    if bot.author:
                        _say(f"id author {bot.author}")
                    if bot.rulesets:
                        _say("id rulesets " + " ".join(bot.rulesets))
                    for opt in bot.options:
                        _say(opt.line())
                    _say("mancalaok")
                elif cmd == "isready":
                    _say("readyok")
                elif cmd == "setoption":
                    self.setoption(line.split(None, 1)[1] if len(words) > 1 else "")
                elif cmd == "newgame" and len(words) >= 2:
                    self.position, self.cache = None, None
                    bot.ruleset = Ruleset(words[1])
                    seed = int(words[3]) if len(words) >= 4 and words[2] == "seed" else None
                    bot.rng = random.Random(seed)
                    bot.new_game(bot.ruleset)
                elif cmd == "position" and len(words) >= 2:
                    self.position = None
                    self.set_position(words[1:])
                elif cmd == "go":
                    self.go(words[1:])
                elif cmd == "stop":
                    limits = self.pending
                    if limits is not None:
                        limits._stop.set()
                        self.fallback(limits, self.pending_position)
                elif cmd == "quit":
                    break
            except Exception as err:  # a bad line must not stop the bot
                _say(f"info string {cmd}: {type(err).__name__}: {err}")
        sys.stdout.flush()
        os._exit(0)  # a thinking worker thread must not keep the process alive

    def setoption(self, rest):
        words = rest.split()
        if not words or words[0] != "name":
            return
        if "value" in words:
            k = words.index("value")
            name, value = " ".join(words[1:k]), " ".join(words[k + 1:])
        else:
            name, value = " ".join(words[1:]), None
        for opt in self.bot.options:
            if opt.name.lower() == name.lower():
                self.bot.option[opt.name] = True if value is None else opt.parse(value)
                return

    def go(self, words):
        limits = Limits(words)
        pos = self.position
        if pos is None or pos.is_over():
            _say("info string go without a position to move in")
            return
        with self.lock:
            self.pending = limits
            self.pending_position = pos
            self.lock.notify_all()
        if self.worker is None or self.worker[1].is_set():
            # The last choose is still running (it was answered by `stop` or the clock): leave
            # it and start a fresh thread.
            self.worker = (queue.SimpleQueue(), threading.Event())
            threading.Thread(target=self.work, args=self.worker, daemon=True).start()
        self.worker[1].set()
        self.worker[0].put((pos, limits))

    def work(self, jobs, busy):
        while True:
            pos, limits = jobs.get()
            move = self.think(pos, limits)
            busy.clear()
            if move is None:
                self.fallback(limits, pos)
            else:
                self.answer(limits, move)

    def watchdog(self):
        """Answers a `go` whose hard time limit passed while `choose` was still thinking."""
        with self.lock:
            while True:
                limits = self.pending
                if limits is None or limits._hard is None:
                    self.lock.wait()
                    continue
                left = limits._hard - time.monotonic()
                if left > 0:
                    self.lock.wait(left)
                    continue
                limits._stop.set()
                self.fallback(limits, self.pending_position)
