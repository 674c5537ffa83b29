// mancala-bot: write a bot for the mancala arena in JavaScript (Node >= 18, no dependencies).
//
//   import { Bot } from 'mancala-bot';
//   class Random extends Bot {
//     name = 'my-random 1.0';
//     choose(position) { return this.rng.choice(position.legalMoves()); }
//   }
//   new Random().run();
//
// See docs/writing-a-bot.md and docs/protocol.md.
export { Bot, Limits, Option, makeRng } from './bot.js';
export { NORTH, Position, Ruleset, SOUTH } from './rules.js';
