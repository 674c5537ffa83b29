#!/usr/bin/env node
// A one-ply greedy bot on the mancala-bot kit: the move that leaves the mover's store furthest
// ahead of the opponent's (an extra turn counts as a small bonus), random among equals.
import { Bot } from '../src/index.js';

class GreedyBot extends Bot {
  name = 'kit-greedy-js 0.1';
  author = 'mancala-arena';

  choose(position) {
    const me = position.mover;
    const value = (move) => {
      const after = position.after(move);
      const again = after.mover === me ? 0.5 : 0;
      return after.store(me) - after.store(1 - me) + again + this.rng.random() / 10;
    };
    const moves = position.legalMoves().map((m) => [value(m), m]);
    return moves.reduce((a, b) => (b[0] > a[0] ? b : a))[1];
  }
}

new GreedyBot().run();
