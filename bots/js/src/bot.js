// The protocol loop (docs/protocol.md) around a `Bot` whose author writes only `choose`.
//
// How `stop` interrupts a long `choose`: a WORKER THREAD. The main thread speaks the protocol;
// `choose` runs in a worker (node:worker_threads) that loads the bot's own script again, so a
// `choose` that loops for a long time never blocks stdin. On `stop`, or when the time limit of
// the `go` runs out, the main thread answers at once with the best move `choose` reported so
// far (`limits.report(move)`) or the first legal move, terminates the worker and starts a fresh
// one at once, which loads while the opponent thinks (it gets the `newgame`, its seed and the
// options again; so only state a bot kept across moves inside the worker is lost). `limits.stopped()` lets a `choose` end in
// time by itself. `run({ worker: false })` runs `choose` on the main thread instead (awaited, so
// an async `choose` that yields now and then can still see `stop`; a synchronous one cannot).
import { isMainThread, parentPort, workerData, Worker } from 'node:worker_threads';
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import { Position, Ruleset } from './rules.js';

/** An option declared in the handshake (docs/protocol.md, Options). */
export class Option {
  constructor(name, type, { default: def = null, min = null, max = null, vars = [] } = {}) {
    Object.assign(this, { name, type, default: def, min, max, vars });
  }
  static spin(name, def, min, max) { return new Option(name, 'spin', { default: def, min, max }); }
  static check(name, def) { return new Option(name, 'check', { default: Boolean(def) }); }
  static combo(name, def, vars) { return new Option(name, 'combo', { default: def, vars }); }
  static string(name, def = '') { return new Option(name, 'string', { default: def }); }
  static button(name) { return new Option(name, 'button'); }

  line() {
    let out = `option name ${this.name} type ${this.type}`;
    if (this.type === 'spin') out += ` default ${this.default} min ${this.min} max ${this.max}`;
    else if (this.type === 'check') out += ` default ${this.default ? 'true' : 'false'}`;
    else if (this.type === 'string') out += ` default ${this.default || '<empty>'}`;
    else if (this.type === 'combo') out += ` default ${this.default}` + this.vars.map((v) => ` var ${v}`).join('');
    return out;
  }

  parse(text) {
    if (this.type === 'spin') return Math.max(this.min, Math.min(this.max, Number.parseInt(text, 10)));
    if (this.type === 'check') return text === 'true';
    if (this.type === 'string') return text === '<empty>' ? '' : text;
    return text;
  }
}

/** A seeded generator (splitmix64 seeding, xoshiro128**): `random()`, `int(n)`, `choice(a)`. */
export function makeRng(seed) {
  let x = BigInt.asUintN(64, BigInt(seed ?? Math.floor(Math.random() * 2 ** 52)));
  const s = new Uint32Array(4);
  for (let i = 0; i < 2; i++) {
    x = BigInt.asUintN(64, x + 0x9e3779b97f4a7c15n);
    let z = x;
    z = BigInt.asUintN(64, (z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n);
    z = BigInt.asUintN(64, (z ^ (z >> 27n)) * 0x94d049bb133111ebn);
    z ^= z >> 31n;
    s[2 * i] = Number(z & 0xffffffffn);
    s[2 * i + 1] = Number(z >> 32n);
  }
  if (!(s[0] | s[1] | s[2] | s[3])) s[0] = 1;
  const next = () => {
    const r = Math.imul(((Math.imul(s[1], 5) << 7) | (Math.imul(s[1], 5) >>> 25)), 9) >>> 0;
    const t = s[1] << 9;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3]; s[2] ^= t;
    s[3] = (s[3] << 11) | (s[3] >>> 21);
    return r;
  };
  return {
    next,
    random: () => next() / 2 ** 32,
    int: (n) => Math.floor((next() / 2 ** 32) * n),
    choice(a) { return a[Math.floor((next() / 2 ** 32) * a.length)]; },
  };
}

/**
 * The limits of one `go`: `movetime`, `time`, `inc` (ms), `depth`, `nodes` (null when not
 * given), `infinite`. `deadline` (Date.now() ms, or null) is when `choose` should return;
 * `stopped()` is true once it has passed (or, without a worker, once `stop` came).
 */
export class Limits {
  constructor(words = [], start = Date.now()) {
    Object.assign(this, { movetime: null, time: null, inc: null, depth: null, nodes: null, infinite: false });
    for (let i = 0; i < words.length; i++) {
      if (words[i] === 'infinite') this.infinite = true;
      else if (['movetime', 'time', 'inc', 'depth', 'nodes'].includes(words[i])) this[words[i]] = Number(words[++i]);
    }
    this.words = words;
    this.start = start;
    let budget = null;
    let hard = null;
    if (this.movetime !== null) [budget, hard] = [this.movetime * 0.8, this.movetime];
    if (this.time !== null) {
      const t = this.time / 20 + (this.inc ?? 0) * 0.75;
      budget = Math.min(budget ?? t, t, this.time / 4);
      hard = Math.min(hard ?? this.time, this.time / 2);
    }
    this.deadline = budget === null ? null : start + budget;
    this.hardDeadline = hard === null ? null : start + hard;
    this.stopFlag = false;
    this.best = null;
    this.onReport = null;
  }

  /** True once the deadline passed (or `stop` came, where the kit can tell): return soon. */
  stopped() {
    return this.stopFlag || (this.deadline !== null && Date.now() >= this.deadline);
  }

  /** Records the best move so far: it is played if `choose` is interrupted. */
  report(move) {
    this.best = move;
    if (this.onReport) this.onReport(move);
  }
}

/**
 * Extend it and write `choose(position, limits)` returning a move (or a Promise of one).
 * Optional: `name`, `author`, `rulesets` (the `id rulesets` patterns; null: every ruleset),
 * `options` (Option[]; values in `this.option[name]`), `newGame(ruleset)`. `this.rng` is seeded
 * by `newgame ... seed N`.
 */
export class Bot {
  name = 'js-bot';
  author = null;
  rulesets = ['kalah', 'oware', 'congkak'];
  options = [];

  constructor() {
    this.option = {};
    this.rng = makeRng();
    this.ruleset = new Ruleset('kalah');
  }

  newGame(ruleset) {} // eslint-disable-line no-unused-vars

  choose(position, limits) { // eslint-disable-line no-unused-vars
    throw new Error('write choose(position, limits) -> move');
  }

  /** Sends `info string TEXT` to the arena's log. */
  info(text) {
    sayInfo(String(text).split(/\s+/).join(' '));
  }

  /** Speaks the protocol on stdin/stdout until `quit` or the end of input. */
  run(opts = {}) {
    for (const o of this.options) if (!(o.name in this.option)) this.option[o.name] = o.default;
    if (!isMainThread && workerData?.mancalaKit) return chooser(this);
    return mainLoop(this, opts);
  }
}

let sayInfo = (text) => say(`info string ${text}`);

function say(line) {
  process.stdout.write(line + '\n');
}

function newGame(bot, ruleset, seed) {
  bot.ruleset = new Ruleset(ruleset);
  bot.rng = makeRng(seed === null ? undefined : BigInt(seed));
  bot.newGame(bot.ruleset);
}

// Runs `choose` and returns a legal move, or null (then the caller plays the fallback).
async function think(bot, pos, limits) {
  try {
    let move = await bot.choose(pos.copy(), limits);
    const legal = pos.legalMoves();
    if (!legal.includes(move) && /^[0-9]+$/.test(String(move))) move = Number(move);
    if (legal.includes(move)) return move;
    bot.info(`choose returned ${move}, not a legal move`);
  } catch (err) {
    bot.info(`choose failed: ${err?.stack ?? err}`);
  }
  return null;
}

// The worker side: newgame, options and positions come from the main thread.
function chooser(bot) {
  sayInfo = (text) => parentPort.postMessage({ type: 'info', text });
  parentPort.on('message', async (msg) => {
    if (msg.type === 'newgame') newGame(bot, msg.ruleset, msg.seed);
    else if (msg.type === 'option') bot.option[msg.name] = msg.value;
    else if (msg.type === 'go') {
      const pos = Position.fromState(bot.ruleset, msg.state);
      const limits = new Limits(msg.words, msg.start);
      limits.onReport = (move) => parentPort.postMessage({ type: 'best', id: msg.id, move });
      const move = await think(bot, pos, limits);
      parentPort.postMessage({ type: 'move', id: msg.id, move });
    }
  });
  parentPort.postMessage({ type: 'ready' });
}

function mainLoop(bot, { worker: useWorker = true } = {}) {
  const script = process.argv[1] ? resolve(process.argv[1]) : null;
  useWorker = useWorker && Boolean(script) && !process.env.MANCALA_KIT_NO_WORKER;
  let game = null; // { ruleset, seed }
  let position = null;
  let cache = null; // { key, moves, pos }: extends the last position without replaying it
  let pending = null; // { id, limits, pos, timer }
  let nextId = 0;
  let worker = null;
  let workerReady = null; // resolves once the worker listens (so `readyok` waits for it)

  const answer = (p, move) => {
    if (pending !== p) return;
    pending = null;
    if (p.timer) clearTimeout(p.timer);
    say(`bestmove ${move}`);
  };
  const fallback = (p) => {
    const legal = p.pos.legalMoves();
    answer(p, legal.includes(p.limits.best) ? p.limits.best : legal[0]);
  };
  const startWorker = () => {
    worker = new Worker(script, { workerData: { mancalaKit: true }, stdout: false, stderr: false });
    worker.unref();
    let ready;
    workerReady = new Promise((r) => { ready = r; });
    worker.on('message', (msg) => {
      if (msg.type === 'ready') ready();
      else if (msg.type === 'info') say(`info string ${msg.text}`);
      else if (!pending || msg.id !== pending.id) return;
      else if (msg.type === 'best') pending.limits.best = msg.move;
      else if (msg.move === null) fallback(pending);
      else answer(pending, msg.move);
    });
    worker.on('error', (err) => {
      say(`info string worker failed: ${String(err).split(/\s+/).join(' ')}`);
      worker = null;
      ready();
      if (pending) fallback(pending);
    });
    if (game) worker.postMessage({ type: 'newgame', ...game });
    for (const [name, value] of Object.entries(bot.option)) worker.postMessage({ type: 'option', name, value });
  };
  const interrupt = (p) => {
    p.limits.stopFlag = true;
    fallback(p);
    if (worker) {
      worker.terminate(); // the long choose ends here
      // A fresh worker loads now, while the opponent thinks, rather than on the next go's clock.
      startWorker();
    }
  };

  const setPosition = (words) => {
    const start = words[0];
    if (words.length > 1 && words[1] !== 'moves') throw new Error(`\`${words[1]}\` where \`moves\` was expected`);
    const moves = words.slice(2);
    const key = `${start} ${bot.ruleset}`;
    let pos;
    if (cache && cache.key === key && cache.moves.length <= moves.length && cache.moves.every((m, i) => m === moves[i])) {
      pos = cache.pos.copy();
      for (const mv of moves.slice(cache.moves.length)) pos.play(mv);
    } else {
      pos = Position.fromProtocol(bot.ruleset, words);
    }
    cache = { key, moves, pos };
    position = pos;
  };

  const go = (words) => {
    const limits = new Limits(words);
    if (!position || position.isOver()) {
      say('info string go without a position to move in');
      return;
    }
    const p = { id: nextId++, limits, pos: position, timer: null };
    pending = p;
    if (limits.hardDeadline !== null) {
      p.timer = setTimeout(() => pending === p && interrupt(p), Math.max(0, limits.hardDeadline - Date.now()));
    }
    if (useWorker) {
      if (!worker) startWorker();
      worker.postMessage({ type: 'go', id: p.id, state: p.pos.toState(), words, start: limits.start });
    } else {
      think(bot, p.pos, limits).then((move) => (move === null ? fallback(p) : answer(p, move)));
    }
  };

  const handle = (line) => {
    const words = line.trim().split(/[ \t]+/).filter(Boolean);
    const cmd = words[0];
    try {
      if (cmd === 'mancala') {
        say(`id name ${bot.name}`);
        if (bot.author) say(`id author ${bot.author}`);
        if (bot.rulesets && bot.rulesets.length) say(`id rulesets ${bot.rulesets.join(' ')}`);
        for (const o of bot.options) say(o.line());
        say('mancalaok');
      } else if (cmd === 'isready') {
        if (useWorker && !worker) startWorker(); // start it while the bot is idle
        if (workerReady) workerReady.then(() => say('readyok'));
        else say('readyok');
      } else if (cmd === 'setoption' && words[1] === 'name') {
        const k = words.indexOf('value');
        const name = words.slice(2, k < 0 ? undefined : k).join(' ');
        const opt = bot.options.find((o) => o.name.toLowerCase() === name.toLowerCase());
        if (opt) {
          bot.option[opt.name] = k < 0 ? true : opt.parse(words.slice(k + 1).join(' '));
          if (worker) worker.postMessage({ type: 'option', name: opt.name, value: bot.option[opt.name] });
        }
      } else if (cmd === 'newgame' && words.length >= 2) {
        position = null;
        cache = null;
        game = { ruleset: words[1], seed: words[2] === 'seed' && words[3] ? words[3] : null };
        newGame(bot, game.ruleset, game.seed);
        if (worker) worker.postMessage({ type: 'newgame', ...game });
      } else if (cmd === 'position' && words.length >= 2) {
        position = null;
        setPosition(words.slice(1));
      } else if (cmd === 'go') {
        go(words.slice(1));
      } else if (cmd === 'stop') {
        if (pending) interrupt(pending);
      } else if (cmd === 'quit') {
        process.exit(0);
      }
    } catch (err) {
      say(`info string ${cmd}: ${String(err?.message ?? err).split(/\s+/).join(' ')}`);
    }
  };

  const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
  rl.on('line', handle);
  rl.on('close', () => process.exit(0));
}
