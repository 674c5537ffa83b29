#!/usr/bin/env node
// A random mancala bot on the mancala-bot kit: a uniformly random legal move, repeatable with
// the arena's per-game seed. Plays Kalah (any board and variant), Oware and Congkak.
import { Bot } from '../src/index.js';

class RandomBot extends Bot {
  name = 'kit-random-js 0.1';
  author = 'mancala-arena';

  choose(position) {
    return this.rng.choice(position.legalMoves());
  }
}

new RandomBot().run();
