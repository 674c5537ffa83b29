//! The referee: plays one game between two engines, checking every sow with the rules engine.
//!
//! The loop (see docs/tournament.md): before each sow it sends the mover the whole game
//! (`position ... moves ...`) and `go` with the time control's limits, waits for `bestmove` until
//! the deadline, checks the move, plays it, and charges the clock. Any bot fault ends the game as
//! a forfeit of that bot, which the caller then kills and restarts.

use std::time::{Duration, Instant};

use super::config::{Opening, TimeControl};
use crate::engine::{Fault, FaultKind, Player};
use crate::protocol::PositionStart;
use crate::rating::Outcome;
use crate::rules::{BySide, EndReason, Move, Position, Ruleset, Side};
use crate::run_folder::games::{GameRecord, GameRow, Termination};

/// Stops a game once its outcome can no longer change: one side holds more than half the seeds
/// in its store, or both hold exactly half with nothing left to play for. Pure.
pub fn decided(pos: &Position) -> Option<Option<Side>> {
    let total = pos.ruleset().total_seeds();
    let south = pos.store(Side::South);
    let north = pos.store(Side::North);
    if 2 * south > total {
        Some(Some(Side::South))
    } else if 2 * north > total {
        Some(Some(Side::North))
    } else if 2 * south == total && 2 * north == total {
        Some(None)
    } else {
        None
    }
}

/// `text` with its control characters written as escapes (`\\0`, `\\x1b`): a fault's detail
/// may quote what a bot printed, and a NUL or a newline has no place in `games.csv`.
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\0' => out.push_str("\\0"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// What a game needs besides the engines.
pub struct GameSetup<'a> {
    pub game_id: u64,
    pub pair_id: u64,
    pub round: u32,
    pub ruleset: Ruleset,
    pub opening: &'a Opening,
    pub time: &'a TimeControl,
    pub adjudicate: bool,
    /// Player names, first player first.
    pub names: [&'a str; 2],
    /// Seeds for the first and the second player's bot.
    pub seeds: [u64; 2],
}

/// How the game ended, for the caller: which player (0 = first, 1 = second) must be restarted.
pub struct Played {
    pub record: GameRecord,
    pub faulty: Option<usize>,
}

/// Plays one game. `engines[0]` is the first player's bot, `engines[1]` the second's; both are
/// ready (started, handshake done). Each bot that did not fault hears that the game is over.
/// Never fails: every problem becomes the game's termination.
pub async fn play_game(setup: &GameSetup<'_>, engines: [&mut Player; 2]) -> Played {
    let started = Instant::now();
    let mut game = GameState::new(setup);
    let [first, second] = engines;
    let mut engines = [first, second];

    let outcome = run(setup, &mut engines, &mut game).await;
    let wall = started.elapsed();
    let faulty = match &outcome {
        Err(Early::Forfeit { player, .. }) => Some(*player),
        _ => None,
    };
    for (player, engine) in engines.iter_mut().enumerate() {
        if faulty != Some(player) {
            engine.end_game(&game.start, &game.moves).await;
        }
    }
    game.finish(setup, outcome, wall)
}

/// A game end before the rules' own end.
enum Early {
    Forfeit { player: usize, fault: Fault },
    Adjudicated(Option<Side>),
}

struct GameState {
    pos: Position,
    start: PositionStart,
    moves: Vec<Move>,
    think_ms: Vec<u64>,
    /// Who made each sow after the opening: 0 the first player, 1 the second.
    movers: Vec<u8>,
    /// Which player (0 = first, 1 = second) sits on each seat; changes after a pie `swap`.
    seat: BySide<usize>,
    think_total: [Duration; 2],
    think_max: [Duration; 2],
    clock_ms: [Option<u64>; 2],
}

impl GameState {
    fn new(setup: &GameSetup<'_>) -> GameState {
        let pos = setup
            .opening
            .position(setup.ruleset)
            .expect("openings are checked when the schedule is built");
        let start = match &setup.opening.state {
            Some(state) => PositionStart::State(state.clone()),
            None => PositionStart::Startpos,
        };
        let clock = setup.time.clock.map(|c| c.base_ms);
        let seat = if pos.swapped() {
            BySide::new(1, 0)
        } else {
            BySide::new(0, 1)
        };
        GameState {
            pos,
            start,
            moves: setup.opening.moves.clone(),
            think_ms: Vec::new(),
            movers: Vec::new(),
            seat,
            think_total: [Duration::ZERO; 2],
            think_max: [Duration::ZERO; 2],
            clock_ms: [clock, clock],
        }
    }

    fn finish(self, setup: &GameSetup<'_>, outcome: Result<(), Early>, wall: Duration) -> Played {
        let player_of = |side: Side| *self.seat.get(side);
        // The first player's outcome when `winner` (a seat) won.
        let outcome_of = |winner: Option<Side>| match winner {
            Some(side) if player_of(side) == 0 => Outcome::Win,
            Some(_) => Outcome::Loss,
            None => Outcome::Draw,
        };
        // Seeds per player (0 = first).
        let mut seeds = [0u32; 2];
        let (result, termination, forfeit, detail, faulty) = match &outcome {
            Ok(()) => {
                let result = self
                    .pos
                    .result()
                    .expect("the loop ends only when the game is over");
                for side in Side::BOTH {
                    seeds[player_of(side)] = *result.score.get(side);
                }
                let termination = if result.end == EndReason::SowCap {
                    Termination::SowCap
                } else {
                    Termination::Normal
                };
                let detail = result.end.as_detail().to_string();
                (outcome_of(result.winner), termination, None, detail, None)
            }
            Err(early) => {
                for side in Side::BOTH {
                    seeds[player_of(side)] = self.pos.store(side);
                }
                match early {
                    Early::Adjudicated(winner) => (
                        outcome_of(*winner),
                        Termination::Adjudicated,
                        None,
                        "outcome decided".to_string(),
                        None,
                    ),
                    Early::Forfeit { player, fault } => (
                        if *player == 0 {
                            Outcome::Loss
                        } else {
                            Outcome::Win
                        },
                        Termination::Forfeit(fault.kind),
                        Some(setup.names[*player].to_string()),
                        printable(&fault.detail),
                        Some(*player),
                    ),
                }
            }
        };
        let ms = |d: Duration| d.as_millis() as u64;
        let row = GameRow {
            game_id: setup.game_id,
            pair_id: setup.pair_id,
            round: setup.round,
            first: setup.names[0].to_string(),
            second: setup.names[1].to_string(),
            rules: setup.ruleset,
            opening: setup.opening.clone(),
            result,
            score_first: seeds[0],
            score_second: seeds[1],
            sows: self.pos.sows(),
            termination,
            forfeit,
            detail,
            wall_ms: ms(wall),
            first_think_ms: ms(self.think_total[0]),
            first_max_ms: ms(self.think_max[0]),
            second_think_ms: ms(self.think_total[1]),
            second_max_ms: ms(self.think_max[1]),
        };
        let record = GameRecord {
            row,
            moves: self.moves,
            think_ms: self.think_ms,
            movers: self.movers,
        };
        Played { record, faulty }
    }
}

async fn run(
    setup: &GameSetup<'_>,
    engines: &mut [&mut Player; 2],
    game: &mut GameState,
) -> Result<(), Early> {
    for (player, engine) in engines.iter_mut().enumerate() {
        engine
            .new_game(setup.ruleset, setup.seeds[player], player == 0)
            .await
            .map_err(|fault| Early::Forfeit { player, fault })?;
    }
    loop {
        let Some(side) = game.pos.to_move() else {
            return Ok(());
        };
        if setup.adjudicate {
            if let Some(winner) = decided(&game.pos) {
                return Err(Early::Adjudicated(winner));
            }
        }
        let player = *game.seat.get(side);
        let remaining = game.clock_ms[player];
        let limits = setup.time.go_limits(remaining);
        let deadline = setup.time.deadline(remaining);
        let answer = engines[player]
            .go(&game.start, &game.moves, limits, deadline)
            .await
            .map_err(|fault| Early::Forfeit { player, fault })?;
        if let Err(err) = game.pos.play(answer.mv) {
            let fault = Fault::new(
                FaultKind::IllegalMove,
                format!("`{}` after {} sows: {err}", answer.mv, game.pos.sows()),
            );
            return Err(Early::Forfeit { player, fault });
        }
        if answer.mv == Move::Swap {
            game.seat = game.seat.into_swapped();
        }
        game.moves.push(answer.mv);
        game.think_ms.push(answer.think.as_millis() as u64);
        game.movers.push(player as u8);
        game.think_total[player] += answer.think;
        game.think_max[player] = game.think_max[player].max(answer.think);
        if let (Some(clock), Some(c)) = (remaining, setup.time.clock) {
            let used = answer.think.as_millis() as u64;
            game.clock_ms[player] = Some(clock.saturating_sub(used) + c.inc_ms);
        }
    }
}

/// The record of a game that could not start because a bot failed to start or to get ready.
pub fn start_failure(setup: &GameSetup<'_>, player: usize, fault: Fault) -> Played {
    let game = GameState::new(setup);
    game.finish(setup, Err(Early::Forfeit { player, fault }), Duration::ZERO)
}

#[cfg(test)]
mod tests {
    use super::printable;

    #[test]
    fn control_bytes_become_escapes() {
        assert_eq!(printable("bestmove\0 7\n"), "bestmove\\0 7\\n");
        assert_eq!(printable("\u{1b}[31mred"), "\\x1b[31mred");
        assert_eq!(printable("plain é"), "plain é");
    }
}
