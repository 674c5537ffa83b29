// The arena's three rulesets in plain JavaScript: ruleset strings, positions, legal moves, sowing.
//
// A port of the arena's rules engine (the `mancala-rules` crate; every decision is in
// docs/rules.md, the position string in docs/position.md). tests/kits.rs plays thousands of
// seeded random games through this module and compares every position, legal-move list and
// position string with the engine, in all three games and their variants.
//
// Moves are pit numbers 1..N (numbers) counted from the mover's side, or the string "swap".
// Sides are SOUTH (0, moves first from the start) and NORTH (1).

export const SOUTH = 0;
export const NORTH = 1;

// Per game: [key, kind, default, min, max], in the canonical printing order.
const KEYS = {
  kalah: [
    ['pits', 'int', 6, 1, 8],
    ['seeds', 'int', 4, 1, 8],
    ['sow_cap', 'int', 400, 1, 100000],
    ['empty_capture', 'bool', false],
    ['sweep', 'sweep', 'owner'],
    ['end_on_no_move', 'bool', false],
    ['pie', 'bool', false],
    ['first_extra_turn', 'bool', true],
  ],
  oware: [
    ['seeds', 'int', 4, 4, 6],
    ['sow_cap', 'int', 400, 1, 100000],
  ],
  congkak: [
    ['holes', 'int', 7, 5, 9],
    ['seeds', 'int', null, 1, 9], // default: holes
    ['sow_cap', 'int', 400, 1, 100000],
    ['lap_cap', 'int', 1000, 1, 1000000],
  ],
};

const field = (key) => (key === 'holes' ? 'pits' : key);

/** A parsed ruleset string, `NAME[:key=value,...]` (docs/rules.md). `String(r)` is canonical. */
export class Ruleset {
  constructor(text = 'kalah') {
    const colon = text.indexOf(':');
    const name = colon < 0 ? text : text.slice(0, colon);
    if (!(name in KEYS)) throw new Error(`unknown ruleset \`${name}\`: expected kalah, oware or congkak`);
    const spec = new Map(KEYS[name].map((k) => [k[0], k]));
    const values = new Map();
    if (colon >= 0) {
      for (const item of text.slice(colon + 1).split(',')) {
        const eq = item.indexOf('=');
        if (eq <= 0) throw new Error(`\`${item}\`: expected key=value`);
        const key = item.slice(0, eq);
        const raw = item.slice(eq + 1);
        if (!spec.has(key)) throw new Error(`unknown key \`${key}\` for ${name}: expected ${[...spec.keys()].join(', ')}`);
        if (values.has(key)) throw new Error(`key \`${key}\` repeated`);
        const [, kind, , lo, hi] = spec.get(key);
        let val;
        if (kind === 'int') {
          if (!/^[0-9]+$/.test(raw)) throw new Error(`${key}=\`${raw}\`: expected a number`);
          val = Number(raw);
          if (val < lo || val > hi) throw new Error(`${key}=${val}: expected ${lo}..=${hi}`);
        } else if (kind === 'bool') {
          if (raw !== 'true' && raw !== 'false') throw new Error(`${key}=\`${raw}\`: expected true or false`);
          val = raw === 'true';
        } else {
          if (raw !== 'owner' && raw !== 'none') throw new Error(`${key}=\`${raw}\`: expected owner or none`);
          val = raw;
        }
        values.set(key, val);
      }
    }
    this.name = name;
    Object.assign(this, {
      pits: 6, seeds: 4, sow_cap: 400, lap_cap: 1000,
      empty_capture: false, sweep: 'owner', end_on_no_move: false, pie: false,
      first_extra_turn: true,
    });
    for (const [key, , def] of KEYS[name]) if (def !== null) this[field(key)] = def;
    for (const [key, val] of values) this[field(key)] = val;
    if (name === 'congkak' && !values.has('seeds')) this.seeds = this.pits;
  }

  get totalSeeds() {
    return 2 * this.pits * this.seeds;
  }

  toString() {
    const parts = [];
    for (const [key, , def] of KEYS[this.name]) {
      const d = key === 'seeds' && this.name === 'congkak' ? this.pits : def;
      const v = this[field(key)];
      if (v !== d) parts.push(`${key}=${v}`);
    }
    return this.name + (parts.length ? ':' + parts.join(',') : '');
  }
}

const cellOf = (h) => (h < 6 ? h : h + 1); // Oware: the cell of house h (0..11)
const sum = (a) => a.reduce((x, y) => x + y, 0);

/**
 * A game of any ruleset, in progress or over. `cells`: South's pits 1..N, South's store,
 * North's pits 1..N, North's store; read it through `pits(side)` and `store(side)`.
 * `mover` is SOUTH, NORTH or null once over; `end` the end reason once over.
 */
export class Position {
  constructor(ruleset = 'kalah') {
    const r = typeof ruleset === 'string' ? new Ruleset(ruleset) : ruleset;
    this.ruleset = r;
    const row = new Array(r.pits).fill(r.seeds);
    this.cells = [...row, 0, ...row, 0];
    this.mover = SOUTH;
    this.sows = 0;
    this.pie = r.pie ? 'pending' : 'off';
    this.end = null;
    this.history = []; // Oware: [houses string, mover] since the last capture
  }

  copy() {
    const p = Object.create(Position.prototype);
    p.ruleset = this.ruleset;
    p.cells = this.cells.slice();
    p.mover = this.mover;
    p.sows = this.sows;
    p.pie = this.pie;
    p.end = this.end;
    p.history = this.history.slice();
    return p;
  }

  /** `side`'s pits 1..N (index 0 is pit 1) in that side's own numbering. */
  pits(side) {
    const n = this.ruleset.pits;
    return this.cells.slice(side * (n + 1), side * (n + 1) + n);
  }

  /** Seeds in `side`'s store (Oware: seeds captured). */
  store(side) {
    return this.cells[side * (this.ruleset.pits + 1) + this.ruleset.pits];
  }

  isOver() {
    return this.mover === null;
  }

  /** SOUTH, NORTH, 'draw', or null while the game goes on. */
  winner() {
    if (this.mover !== null) return null;
    const s = this.store(SOUTH);
    const n = this.store(NORTH);
    return s > n ? SOUTH : n > s ? NORTH : 'draw';
  }

  /** The legal moves: pit numbers in increasing order, then 'swap' when allowed. */
  legalMoves() {
    const side = this.mover;
    if (side === null) return [];
    const n = this.ruleset.pits;
    const o = side * (n + 1);
    const c = this.cells;
    const moves = [];
    let feed = false;
    if (this.ruleset.name === 'oware') {
      const q = (1 - side) * 7;
      feed = c[q] + c[q + 1] + c[q + 2] + c[q + 3] + c[q + 4] + c[q + 5] === 0;
    }
    for (let i = 0; i < n; i++) if (c[o + i] >= (feed ? n - i : 1)) moves.push(i + 1);
    if (this.pie === 'offer') moves.push('swap');
    return moves;
  }

  /** Plays `move` (a pit number, its string, or 'swap'); throws if it is illegal. */
  play(move) {
    if (move !== 'swap') {
      const k = typeof move === 'number' ? move : /^[0-9]+$/.test(String(move)) ? Number(move) : NaN;
      if (!this.legalMoves().includes(k)) throw new Error(`illegal move ${move} in ${this.toState()}`);
      move = k;
    } else if (this.pie !== 'offer') {
      throw new Error(`illegal move swap in ${this.toState()}`);
    }
    if (move === 'swap') this.pie = 'swapped';
    else if (this.ruleset.name === 'kalah') this._kalah(move - 1);
    else if (this.ruleset.name === 'congkak') this._congkak(move - 1);
    else this._oware(move - 1);
    return this;
  }

  /** A copy with `move` played. */
  after(move) {
    return this.copy().play(move);
  }

  // Sows `seeds` from relative position `start` (own pits, own store, the opponent's pits;
  // their store skipped) and returns the relative position of the last seed.
  _sow(off, start, seeds) {
    const n = this.ruleset.pits;
    const len = 2 * n + 1;
    const width = 2 * n + 2;
    const c = this.cells;
    c[(start + off) % width] = 0;
    const laps = Math.floor(seeds / len);
    const rem = seeds % len;
    if (laps) for (let p = 0; p < len; p++) c[(p + off) % width] += laps;
    let p = start;
    for (let k = 0; k < rem; k++) {
      p += 1;
      if (p === len) p = 0;
      c[(p + off) % width] += 1;
    }
    return p;
  }

  _afterSow(next) {
    if (this.pie === 'offer') this.pie = 'declined';
    else if (this.pie === 'pending' && next === NORTH) this.pie = 'offer';
  }

  _rowEmpty(side) {
    const n = this.ruleset.pits;
    const o = side * (n + 1);
    for (let i = 0; i < n; i++) if (this.cells[o + i]) return false;
    return true;
  }

  _kalah(i) {
    const side = this.mover;
    const r = this.ruleset;
    const n = r.pits;
    const off = side * (n + 1);
    const c = this.cells;
    const last = this._sow(off, i, c[off + i]);
    let next = 1 - side;
    if (last === n && (this.sows > 0 || r.first_extra_turn)) next = side;
    else if (last < n && c[off + last] === 1) {
      const o = (2 * n - last + off) % (2 * n + 2);
      if (c[o] || r.empty_capture) {
        c[off + n] += c[o] + 1;
        c[o] = 0;
        c[off + last] = 0;
      }
    }
    this.sows += 1;
    this._afterSow(next);
    if (r.end_on_no_move) {
      if (this._rowEmpty(next)) return this._finish('no_move');
    } else if (this._rowEmpty(SOUTH) || this._rowEmpty(NORTH)) return this._finish('side_empty');
    if (this.sows >= r.sow_cap) return this._finish('sow_cap');
    this.mover = next;
  }

  _congkak(i) {
    const side = this.mover;
    const r = this.ruleset;
    const n = r.pits;
    const off = side * (n + 1);
    const width = 2 * n + 2;
    const c = this.cells;
    let hand = c[off + i];
    let start = i;
    let sown = 0;
    let next = 1 - side;
    for (;;) {
      const last = this._sow(off, start, hand);
      sown += hand;
      if (last === n) {
        next = side; // own store: bonus sow
        break;
      }
      const a = (last + off) % width;
      if (c[a] > 1) {
        if (sown >= r.lap_cap) break; // the lap cap: no relay, the turn passes
        hand = c[a];
        start = last;
        continue;
      }
      if (last < n) {
        const o = (2 * n - last + off) % width;
        if (c[o]) {
          c[off + n] += c[o] + 1;
          c[a] = 0;
          c[o] = 0;
        }
      }
      break;
    }
    this.sows += 1;
    this._afterSow(next);
    if (this._rowEmpty(next)) return this._finish('no_move');
    if (this.sows >= r.sow_cap) return this._finish('sow_cap');
    this.mover = next;
  }

  _houses() {
    const c = this.cells;
    return c.slice(0, 6).concat(c.slice(7, 13)).join('.');
  }

  _oware(i) {
    const side = this.mover;
    const c = this.cells;
    const before = [this._houses(), side];
    const origin = side * 6 + i;
    const seeds = c[cellOf(origin)];
    c[cellOf(origin)] = 0;
    let h = origin;
    for (let k = 0; k < seeds; k++) {
      h = (h + 1) % 12;
      if (h === origin) h = (h + 1) % 12;
      c[cellOf(h)] += 1;
    }
    const opp = 1 - side;
    const base = opp * 6;
    let captured = 0;
    if (h >= base && h < base + 6) {
      for (let j = h; j >= base && (c[cellOf(j)] === 2 || c[cellOf(j)] === 3); j--) captured += c[cellOf(j)];
      if (captured && captured === sum(this.pits(opp))) captured = 0; // grand slam
      if (captured) {
        for (let j = h; j >= base && (c[cellOf(j)] === 2 || c[cellOf(j)] === 3); j--) c[cellOf(j)] = 0;
        c[side * 7 + 6] += captured;
      }
    }
    this.sows += 1;
    this.mover = opp;
    const half = this.ruleset.totalSeeds / 2;
    const s = this.store(SOUTH);
    const nn = this.store(NORTH);
    if (s > half || nn > half || (s === half && nn === half)) return this._finish('majority');
    if (this.legalMoves().length === 0) return this._finish('no_feeding');
    if (captured) this.history = [];
    else {
      this.history.push(before);
      const now = this._houses();
      if (this.history.some(([hs, m]) => hs === now && m === this.mover)) return this._finish('repetition');
    }
    if (this.sows >= this.ruleset.sow_cap) return this._finish('sow_cap');
  }

  _finish(reason) {
    this.mover = null;
    this.end = reason;
    this.history = [];
    const r = this.ruleset;
    if (r.name === 'kalah' && r.sweep === 'none') return;
    const n = r.pits;
    for (const side of [SOUTH, NORTH]) {
      const o = side * (n + 1);
      for (let k = 0; k < n; k++) {
        this.cells[o + n] += this.cells[o + k];
        this.cells[o + k] = 0;
      }
    }
  }

  /** The position string (docs/position.md), e.g. `s/4.4.4.4.4.4/4.4.4.4.4.4/0.0/0`. */
  toState() {
    const m = this.mover === SOUTH ? 's' : this.mover === NORTH ? 'n' : 'x';
    let out = `${m}/${this.pits(SOUTH).join('.')}/${this.pits(NORTH).join('.')}/${this.store(SOUTH)}.${this.store(NORTH)}/${this.sows}`;
    if (this.pie !== 'off') out += `/pie=${this.pie}`;
    if (this.end) out += `/end=${this.end}`;
    if (this.history.length) out += '/rep=' + this.history.map(([hs]) => hs).join(',');
    return out;
  }

  toString() {
    return this.toState();
  }

  /** Reads a position string of `ruleset`; throws if it is not one. */
  static fromState(ruleset, state) {
    const pos = new Position(ruleset);
    const r = pos.ruleset;
    const n = r.pits;
    const f = state.split('/');
    const nums = (s) => s.split('.').map((x) => (/^[0-9]+$/.test(x) ? Number(x) : NaN));
    if (f.length < 5 || !(f[0] in { s: 1, n: 1, x: 1 })) throw new Error(`position \`${state}\`: bad syntax`);
    const [south, north, stores] = [nums(f[1]), nums(f[2]), nums(f[3])];
    const all = [...south, ...north, ...stores];
    if (south.length !== n || north.length !== n || stores.length !== 2 || all.some(Number.isNaN)) {
      throw new Error(`position \`${state}\`: expected ${n} pits a side and two stores`);
    }
    if (sum(all) !== r.totalSeeds) throw new Error(`position \`${state}\`: the ruleset has ${r.totalSeeds} seeds`);
    pos.mover = f[0] === 's' ? SOUTH : f[0] === 'n' ? NORTH : null;
    pos.cells = [...south, stores[0], ...north, stores[1]];
    pos.sows = Number(f[4]);
    let pie = null;
    let rep = null;
    for (const item of f.slice(5)) {
      const eq = item.indexOf('=');
      const key = item.slice(0, eq);
      const value = item.slice(eq + 1);
      if (key === 'pie') pie = value;
      else if (key === 'end') pos.end = value;
      else if (key === 'rep') rep = value;
      else throw new Error(`position \`${state}\`: unknown field \`${key}\``);
    }
    if (r.pie) pos.pie = pie ?? (pos.sows === 0 && pos.mover === SOUTH ? 'pending' : 'declined');
    if (rep && pos.mover !== null) {
      const entries = rep.split(',');
      entries.forEach((e, k) => {
        const age = entries.length - k;
        pos.history.push([e, age % 2 === 0 ? pos.mover : 1 - pos.mover]);
      });
    }
    return pos;
  }

  /** The position of a protocol line's words after `position`: `startpos|STATE [moves M...]`. */
  static fromProtocol(ruleset, words) {
    if (!words.length || words[0] === 'moves') throw new Error('position: no start');
    const pos = words[0] === 'startpos' ? new Position(ruleset) : Position.fromState(ruleset, words[0]);
    if (words.length > 1) {
      if (words[1] !== 'moves') throw new Error(`position: \`${words[1]}\` where \`moves\` was expected`);
      for (const mv of words.slice(2)) pos.play(mv);
    }
    return pos;
  }
}
