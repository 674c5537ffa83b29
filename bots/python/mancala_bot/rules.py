"""The arena's three rulesets in plain Python: ruleset strings, positions, legal moves, sowing.

A port of the arena's rules engine (the `mancala-rules` crate; every decision is written down in
docs/rules.md, the position string in docs/position.md). `tests/kits.rs` plays thousands of
seeded random games through this module and compares every position, legal-move list and
position string with the engine, in all three games and their variants.

Moves are pit numbers `1..N` (ints) counted from the mover's side, or the string ``"swap"``.
Sides are ``SOUTH`` (0, moves first from the start) and ``NORTH`` (1).
"""

SOUTH = 0
NORTH = 1

END_REASONS = ("side_empty", "no_move", "majority", "no_feeding", "repetition", "sow_cap")

# Per game: key -> (kind, default, min, max); order = the canonical printing order.
_KEYS = {
    "kalah": [
        ("pits", "int", 6, 1, 8),
        ("seeds", "int", 4, 1, 8),
        ("sow_cap", "int", 400, 1, 100000),
        ("empty_capture", "bool", False, None, None),
        ("sweep", "sweep", "owner", None, None),
        ("end_on_no_move", "bool", False, None, None),
        ("pie", "bool", False, None, None),
        ("first_extra_turn", "bool", True, None, None),
    ],
    "oware": [
        ("seeds", "int", 4, 4, 6),
        ("sow_cap", "int", 400, 1, 100000),
    ],
    "congkak": [
        ("holes", "int", 7, 5, 9),
        ("seeds", "int", None, 1, 9),  # default: holes
        ("sow_cap", "int", 400, 1, 100000),
        ("lap_cap", "int", 1000, 1, 1000000),
    ],
}


class Ruleset:
    """A parsed ruleset string, ``NAME[:key=value,...]`` (docs/rules.md).

    Attributes: ``name`` (kalah, oware, congkak), ``pits`` (pits per side; Congkak's holes),
    ``seeds``, ``sow_cap``, ``lap_cap``, ``empty_capture``, ``sweep`` ("owner" or "none"),
    ``end_on_no_move``, ``pie``. ``str(ruleset)`` is the canonical form.
    """

    def __init__(self, text="kalah"):
        name, _, params = text.partition(":")
        if name not in _KEYS:
            raise ValueError(f"unknown ruleset `{name}`: expected kalah, oware or congkak")
        spec = {k[0]: k for k in _KEYS[name]}
        values = {}
        if params or text.endswith(":"):
            for item in params.split(","):
                key, eq, raw = item.partition("=")
                if not eq or not key:
                    raise ValueError(f"`{item}`: expected key=value")
                if key not in spec:
                    raise ValueError(f"unknown key `{key}` for {name}: expected {', '.join(spec)}")
                if key in values:
                    raise ValueError(f"key `{key}` repeated")
                _, kind, _, lo, hi = spec[key]
                if kind == "int":
                    if not raw.isdigit():
                        raise ValueError(f"{key}=`{raw}`: expected a number")
                    val = int(raw)
                    if not lo <= val <= hi:
                        raise ValueError(f"{key}={val}: expected {lo}..={hi}")
                elif kind == "bool":
                    if raw not in ("true", "false"):
                        raise ValueError(f"{key}=`{raw}`: expected true or false")
                    val = raw == "true"
                else:
                    if raw not in ("owner", "none"):
                        raise ValueError(f"{key}=`{raw}`: expected owner or none")
                    val = raw
                values[key] = val
        self.name = name
        self.pits = 6
        self.seeds = 4
        self.sow_cap = 400
        self.lap_cap = 1000
        self.empty_capture = False
        self.sweep = "owner"
        self.end_on_no_move = False
        self.pie = False
        self.first_extra_turn = True
        for key, _, default, _, _ in _KEYS[name]:
            if default is not None:
                setattr(self, "pits" if key == "holes" else key, default)
        if name == "congkak":
            self.seeds = self.pits
        for key, val in values.items():
            setattr(self, "pits" if key == "holes" else key, val)
        if name == "congkak" and "seeds" not in values:
            self.seeds = self.pits

    @property
    def total_seeds(self):
        return 2 * self.pits * self.seeds

    def __str__(self):
        parts = []
        for key, _, default, _, _ in _KEYS[self.name]:
            val = getattr(self, "pits" if key == "holes" else key)
            if key == "seeds" and self.name == "congkak":
                default = self.pits
            if val != default:
                parts.append(f"{key}={str(val).lower() if isinstance(val, bool) else val}")
        return self.name + (":" + ",".join(parts) if parts else "")

    def __repr__(self):
        return f"Ruleset({str(self)!r})"

    def __eq__(self, other):
        return isinstance(other, Ruleset) and str(self) == str(other)

    def __hash__(self):
        return hash(str(self))


def _cell(h):
    """Oware: the cell of house h (0..11, South's 1..6 then North's 1..6)."""
    return h if h < 6 else h + 1


class Position:
    """A game of any ruleset, in progress or over: the board, the side to move, the sow count,
    the pie rule's state and (Oware) the positions since the last capture.

    Layout of ``cells``: South's pits 1..N, South's store, North's pits 1..N, North's store.
    Read it through ``pits(side)`` and ``store(side)``.
    """

    __slots__ = ("ruleset", "cells", "mover", "sows", "pie", "end", "history")

    def __init__(self, ruleset):
        if isinstance(ruleset, str):
            ruleset = Ruleset(ruleset)
        self.ruleset = ruleset
        n, s = ruleset.pits, ruleset.seeds
        self.cells = [s] * n + [0] + [s] * n + [0]
        self.mover = SOUTH  # None once the game is over
        self.sows = 0
        self.pie = "pending" if ruleset.pie else "off"
        self.end = None  # the end reason once over
        self.history = []  # Oware: (houses, mover) of the positions since the last capture

    # ----- reading -------------------------------------------------------------------------
    def copy(self):
        p = Position.__new__(Position)
        p.ruleset = self.ruleset
        p.cells = self.cells[:]
        p.mover = self.mover
        p.sows = self.sows
        p.pie = self.pie
        p.end = self.end
        p.history = self.history[:]
        return p

    def pits(self, side):
        """``side``'s pits 1..N (a list, index 0 is pit 1) in that side's own numbering."""
        n = self.ruleset.pits
        o = side * (n + 1)
        return self.cells[o:o + n]

    def store(self, side):
        """Seeds in ``side``'s store (Oware: seeds captured)."""
        return self.cells[side * (self.ruleset.pits + 1) + self.ruleset.pits]

    def is_over(self):
        return self.mover is None

    def swapped(self):
        return self.pie == "swapped"

    def winner(self):
        """SOUTH, NORTH, "draw", or None while the game goes on."""
        if self.mover is not None:
            return None
        s, n = self.store(SOUTH), self.store(NORTH)
        return SOUTH if s > n else NORTH if n > s else "draw"

    def legal_moves(self):
        """The legal moves: pit numbers in increasing order, then ``"swap"`` when allowed."""
        side = self.mover
        if side is None:
            return []
        n = self.ruleset.pits
        o = side * (n + 1)
        cells = self.cells
        if self.ruleset.name == "oware" and not any(cells[(1 - side) * 7:(1 - side) * 7 + 6]):
            moves = [i + 1 for i in range(n) if cells[o + i] >= n - i]
        else:
            moves = [i + 1 for i in range(n) if cells[o + i]]
        if self.pie == "offer":
            moves.append("swap")
        return moves

    # ----- playing -------------------------------------------------------------------------
    def play(self, move):
        """Plays ``move`` (a pit number, its string, or "swap"); ValueError if it is illegal."""
        if move != "swap":
            try:
                move = int(move)
            except (TypeError, ValueError):
                raise ValueError(f"not a move: {move!r}") from None
        if move not in self.legal_moves():
            raise ValueError(f"illegal move {move} in {self.to_state()}")
        if move == "swap":
            self.pie = "swapped"
        elif self.ruleset.name == "kalah":
            self._play_kalah(move - 1)
        elif self.ruleset.name == "congkak":
            self._play_congkak(move - 1)
        else:
            self._play_oware(move - 1)
        return self

    def after(self, move):
        """A copy with ``move`` played."""
        return self.copy().play(move)

    def _sow(self, off, start, seeds):
        """Sows ``seeds`` from relative position ``start`` along the Kalah/Congkak path (own
        pits, own store, the opponent's pits; their store skipped). Returns the last position."""
        n = self.ruleset.pits
        length, width = 2 * n + 1, 2 * n + 2
        cells = self.cells
        cells[(start + off) % width] = 0
        laps, rem = divmod(seeds, length)
        if laps:
            for p in range(length):
                cells[(p + off) % width] += laps
        p = start
        for _ in range(rem):
            p += 1
            if p == length:
                p = 0
            cells[(p + off) % width] += 1
        if rem == 0:
            p = start  # whole laps end in the origin
        return p

    def _after_sow(self, nxt):
        if self.pie == "offer":
            self.pie = "declined"
        elif self.pie == "pending" and nxt == NORTH:
            self.pie = "offer"

    def _play_kalah(self, i):
        side, n, r = self.mover, self.ruleset.pits, self.ruleset
        off, width = side * (n + 1), 2 * n + 2
        cells = self.cells
        last = self._sow(off, i, cells[off + i])
        nxt = 1 - side
        if last == n and (self.sows > 0 or r.first_extra_turn):
            nxt = side
        elif last < n and cells[off + last] == 1:
            o = (2 * n - last + off) % width
            if cells[o] or r.empty_capture:
                cells[off + n] += cells[o] + 1
                cells[o] = 0
                cells[off + last] = 0
        self.sows += 1
        self._after_sow(nxt)
        if r.end_on_no_move:
            if not any(self.pits(nxt)):
                return self._finish("no_move")
        elif not any(self.pits(SOUTH)) or not any(self.pits(NORTH)):
            return self._finish("side_empty")
        if self.sows >= r.sow_cap:
            return self._finish("sow_cap")
        self.mover = nxt

    def _play_congkak(self, i):
        side, n, r = self.mover, self.ruleset.pits, self.ruleset
        off, width = side * (n + 1), 2 * n + 2
        cells = self.cells
        hand, start, sown = cells[off + i], i, 0
        nxt = 1 - side
        while True:
            last = self._sow(off, start, hand)
            sown += hand
            if last == n:
                nxt = side  # own store: bonus sow
                break
            a = (last + off) % width
            if cells[a] > 1:
                if sown >= r.lap_cap:
                    break  # the lap cap: no relay, the turn passes
                hand, start = cells[a], last
                continue
            if last < n:
                o = (2 * n - last + off) % width
                if cells[o]:
                    cells[off + n] += cells[o] + 1
                    cells[a] = 0
                    cells[o] = 0
            break
        self.sows += 1
        self._after_sow(nxt)
        if not any(self.pits(nxt)):
            return self._finish("no_move")
        if self.sows >= r.sow_cap:
            return self._finish("sow_cap")
        self.mover = nxt

    def _houses(self):
        c = self.cells
        return tuple(c[0:6] + c[7:13])

    def _play_oware(self, i):
        side, cells = self.mover, self.cells
        before = (self._houses(), side)
        origin = side * 6 + i
        seeds = cells[_cell(origin)]
        cells[_cell(origin)] = 0
        h = origin
        for _ in range(seeds):
            h = (h + 1) % 12
            if h == origin:
                h = (h + 1) % 12
            cells[_cell(h)] += 1
        opp = 1 - side
        opp_base = opp * 6
        captured = 0
        if opp_base <= h < opp_base + 6:
            j = h
            while j >= opp_base and cells[_cell(j)] in (2, 3):
                captured += cells[_cell(j)]
                j -= 1
            if captured and captured == sum(self.pits(opp)):
                captured = 0  # grand slam: played, captures nothing
            if captured:
                j = h
                while j >= opp_base and cells[_cell(j)] in (2, 3):
                    cells[_cell(j)] = 0
                    j -= 1
                cells[side * 7 + 6] += captured
        self.sows += 1
        self.mover = opp
        half = self.ruleset.total_seeds // 2
        s, n = self.store(SOUTH), self.store(NORTH)
        if s > half or n > half or (s == half and n == half):
            return self._finish("majority")
        if not self.legal_moves():
            return self._finish("no_feeding")
        if captured:
            self.history.clear()
        else:
            self.history.append(before)
            if (self._houses(), self.mover) in self.history:
                return self._finish("repetition")
        if self.sows >= self.ruleset.sow_cap:
            return self._finish("sow_cap")

    def _finish(self, reason):
        self.mover = None
        self.end = reason
        self.history = []
        r = self.ruleset
        if r.name == "kalah" and r.sweep == "none":
            return
        n = r.pits
        for side in (SOUTH, NORTH):
            o = side * (n + 1)
            self.cells[o + n] += sum(self.cells[o:o + n])
            for k in range(n):
                self.cells[o + k] = 0

    # ----- the position string (docs/position.md) -----------------------------------------
    def to_state(self):
        """The position string, e.g. ``s/4.4.4.4.4.4/4.4.4.4.4.4/0.0/0``."""
        j = ".".join
        out = "{}/{}/{}/{}.{}/{}".format(
            {SOUTH: "s", NORTH: "n", None: "x"}[self.mover],
            j(map(str, self.pits(SOUTH))), j(map(str, self.pits(NORTH))),
            self.store(SOUTH), self.store(NORTH), self.sows)
        if self.pie != "off":
            out += "/pie=" + self.pie
        if self.end:
            out += "/end=" + self.end
        if self.history:
            out += "/rep=" + ",".join(j(map(str, houses)) for houses, _ in self.history)
        return out

    __str__ = to_state

    @classmethod
    def from_state(cls, ruleset, state):
        """Reads a position string of ``ruleset``; ValueError if it is not one."""
        if isinstance(ruleset, str):
            ruleset = Ruleset(ruleset)
        pos = cls(ruleset)
        n = ruleset.pits
        fields = state.split("/")
        if len(fields) < 5:
            raise ValueError(f"position `{state}`: expected m/south/north/stores/sows[/...]")
        try:
            pos.mover = {"s": SOUTH, "n": NORTH, "x": None}[fields[0]]
            south, north, stores = ([int(x) for x in f.split(".")] for f in fields[1:4])
            pos.sows = int(fields[4])
        except (KeyError, ValueError):
            raise ValueError(f"position `{state}`: bad syntax") from None
        if len(south) != n or len(north) != n or len(stores) != 2:
            raise ValueError(f"position `{state}`: the ruleset has {n} pits a side")
        if sum(south) + sum(north) + sum(stores) != ruleset.total_seeds:
            raise ValueError(f"position `{state}`: the ruleset has {ruleset.total_seeds} seeds")
        pos.cells = south + [stores[0]] + north + [stores[1]]
        pie, rep = None, None
        for field in fields[5:]:
            key, _, value = field.partition("=")
            if key == "pie":
                pie = value
            elif key == "end":
                pos.end = value
            elif key == "rep":
                rep = value
            else:
                raise ValueError(f"position `{state}`: unknown field `{key}`")
        if ruleset.pie:
            if pie is None:
                pie = "pending" if pos.sows == 0 and pos.mover == SOUTH else "declined"
            pos.pie = pie
        if rep and pos.mover is not None:
            entries = rep.split(",")
            for k, entry in enumerate(entries):
                age = len(entries) - k
                mover = pos.mover if age % 2 == 0 else 1 - pos.mover
                pos.history.append((tuple(int(x) for x in entry.split(".")), mover))
        return pos

    @classmethod
    def from_protocol(cls, ruleset, words):
        """The position of a protocol line's words after ``position``:
        ``startpos|STATE [moves M...]``."""
        if not words or words[0] == "moves":
            raise ValueError("position: no start")
        pos = cls(ruleset) if words[0] == "startpos" else cls.from_state(ruleset, words[0])
        if len(words) > 1:
            if words[1] != "moves":
                raise ValueError(f"position: `{words[1]}` where `moves` was expected")
            for mv in words[2:]:
                pos.play(mv)
        return pos
