// The kit's rules on the command line, for checking them against the arena's engine:
// `node src/replay.js < games.txt`. Each input line is `RULESET START MOVE...` (START:
// `startpos` or a position string); each output line is the position after 0, 1, 2, ... of the
// moves, separated by spaces, each written `STATE|M,M,...` (the position string and the legal
// moves). tests/kits.rs compares it with the engine; an error prints `error: ...` as the line.
import { readFileSync } from 'node:fs';
import { Position, Ruleset } from './rules.js';

const out = [];
for (const line of readFileSync(0, 'utf8').split('\n')) {
  const words = line.trim().split(/\s+/).filter(Boolean);
  if (!words.length) continue;
  try {
    const pos = Position.fromProtocol(new Ruleset(words[0]), words.slice(1, 2));
    const cols = [];
    for (const mv of [null, ...words.slice(2)]) {
      if (mv !== null) pos.play(mv);
      cols.push(`${pos.toState()}|${pos.legalMoves().join(',')}`);
    }
    out.push(cols.join(' '));
  } catch (err) {
    out.push(`error: ${err.message}`);
  }
}
process.stdout.write(out.length ? out.join('\n') + '\n' : '');
