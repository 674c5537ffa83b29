//! The referee: plays one game between two engines, checking every sow with the rules engine.
//!
//! The loop (see docs/tournament.md): before each sow it sends the mover the whole game
//! (`position ... moves ...`) and `go` with the time control's limits, waits for `bestmove` until
//! the deadline, checks the move, plays it, and charges the clock. Any bot fault ends the game as
//! a forfeit of that bot, which the caller then kills and restarts.

use std::time::{Duration, Instant};

use crate::engine::{Contestant, Fault, FaultKind, SlotThread, Turn};
use crate::protocol::PositionStart;
use crate::rating::Outcome;
use crate::rules::{EndReason, Move, Position, Ruleset, Side};
use crate::run_folder::games::{GameRecord, GameRow, Termination};
use crate::vocab::config::{Opening, TimeControl};
use crate::vocab::{judging, TimeBy};

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
    pub early_end: EarlyEnd,
    /// Player names, first player first.
    pub names: [&'a str; 2],
    /// Seeds for the first and the second player's bot.
    pub seeds: [u64; 2],
    /// The clock each player's time is counted on (first player first).
    pub time_by: [TimeBy; 2],
}

/// Whether a game stops as soon as its outcome is [`decided`] (a store holds more than half the
/// seeds), and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EarlyEnd {
    /// Played to the rules' own end.
    Off,
    /// `--adjudicate`.
    Adjudicate,
    /// A KGP agent plays: KGP ends a game there (the official server's `Board.Over`), so the
    /// arena does too, whatever `--adjudicate` says, and never sends the agent a decided board.
    Kgp,
}

impl EarlyEnd {
    /// The rule for a game between players of which `kgp` says whether one is a KGP agent.
    pub fn of(adjudicate: bool, kgp: bool) -> EarlyEnd {
        match (kgp, adjudicate) {
            (true, _) => EarlyEnd::Kgp,
            (false, true) => EarlyEnd::Adjudicate,
            (false, false) => EarlyEnd::Off,
        }
    }

    /// The game's `detail` when it stopped there.
    fn detail(self) -> &'static str {
        match self {
            EarlyEnd::Kgp => "KGP early end: a store holds more than half the seeds",
            _ => "outcome decided",
        }
    }
}

/// How the game ended, for the caller: which player (0 = first, 1 = second) must be restarted.
pub struct Played {
    pub record: GameRecord,
    pub faulty: Option<usize>,
    /// The faulty player's fault as reported (not escaped for `games.csv`) and when it came,
    /// for a caller that words it itself (check-bot).
    pub fault: Option<(Stage, Fault)>,
}

/// When a player faulted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Starting the bot or its handshake, before the game.
    Start,
    /// Getting ready for the game (`newgame`).
    NewGame,
    /// Asked for a move: no answer in time, or a broken one.
    Go,
    /// Its answer was a move, but the rules refuse it in the position.
    Rules,
}

/// Plays one game. `engines[0]` is the first player's bot, `engines[1]` the second's; both are
/// ready (started, handshake done). Each bot that did not fault hears that the game is over.
/// Never fails: every problem becomes the game's termination. The referee keeps no time of its
/// own: each [`Contestant::go`] enforces the limit it is given and reports the think time, on
/// the `slot` thread the game is played on.
pub async fn play_game<C: Contestant>(
    setup: &GameSetup<'_>,
    engines: [&mut C; 2],
    slot: &mut SlotThread,
) -> Played {
    let started = Instant::now();
    let mut game = GameState::new(setup);
    let [first, second] = engines;
    let mut engines = [first, second];

    let outcome = run(setup, &mut engines, &mut game, slot).await;
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
    Forfeit {
        player: usize,
        fault: Fault,
        stage: Stage,
    },
    Adjudicated(Option<Side>),
}

struct GameState {
    pos: Position,
    start: PositionStart,
    moves: Vec<Move>,
    think_ms: Vec<u64>,
    /// Who made each sow after the opening: 0 the first player, 1 the second.
    movers: Vec<u8>,
    think_total: [Duration; 2],
    think_max: [Duration; 2],
    /// The CPU time of each sow after the opening, and each player's total.
    cpu_ms: Vec<u64>,
    cpu_total: [Duration; 2],
    /// The sows (indexes into `think_ms`) the arena played at random for a KGP agent, and how
    /// many per player.
    random: Vec<u32>,
    random_count: [u32; 2],
    /// Each player's game clock: what is left, below 0 once a think ran into the margin.
    clock_ms: [Option<i64>; 2],
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
        let clock = setup.time.clock.map(|c| c.base_ms as i64);
        GameState {
            pos,
            start,
            moves: setup.opening.moves.clone(),
            think_ms: Vec::new(),
            movers: Vec::new(),
            think_total: [Duration::ZERO; 2],
            think_max: [Duration::ZERO; 2],
            cpu_ms: Vec::new(),
            cpu_total: [Duration::ZERO; 2],
            random: Vec::new(),
            random_count: [0; 2],
            clock_ms: [clock, clock],
        }
    }

    fn finish(self, setup: &GameSetup<'_>, outcome: Result<(), Early>, wall: Duration) -> Played {
        let player_of = |side: Side| self.pos.player_on(side);
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
                        setup.early_end.detail().to_string(),
                        None,
                    ),
                    Early::Forfeit { player, fault, .. } => (
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
            first_cpu_ms: ms(self.cpu_total[0]),
            second_cpu_ms: ms(self.cpu_total[1]),
            first_random: self.random_count[0],
            second_random: self.random_count[1],
        };
        let record = GameRecord {
            row,
            moves: self.moves,
            think_ms: self.think_ms,
            movers: self.movers,
            cpu_ms: self.cpu_ms,
            random: self.random,
        };
        let fault = match outcome {
            Err(Early::Forfeit { fault, stage, .. }) => Some((stage, fault)),
            _ => None,
        };
        Played {
            record,
            faulty,
            fault,
        }
    }
}

async fn run<C: Contestant>(
    setup: &GameSetup<'_>,
    engines: &mut [&mut C; 2],
    game: &mut GameState,
    slot: &mut SlotThread,
) -> Result<(), Early> {
    for (player, engine) in engines.iter_mut().enumerate() {
        engine
            .new_game(setup.ruleset, setup.seeds[player], player == 0)
            .await
            .map_err(|fault| Early::Forfeit {
                player,
                fault,
                stage: Stage::NewGame,
            })?;
    }
    loop {
        let Some(side) = game.pos.to_move() else {
            return Ok(());
        };
        if setup.early_end != EarlyEnd::Off {
            if let Some(winner) = decided(&game.pos) {
                return Err(Early::Adjudicated(winner));
            }
        }
        let player = game.pos.player_on(side);
        let remaining = game.clock_ms[player];
        let turn = Turn {
            start: &game.start,
            moves: &game.moves,
            limits: setup.time.go_limits(remaining),
            limit: setup.time.deadline(remaining),
            time_by: setup.time_by[player],
        };
        let asked = Instant::now();
        let answered = engines[player].go(slot, turn).await;
        let cpu = engines[player].last_cpu();
        let answer = answered.map_err(|fault| Early::Forfeit {
            player,
            fault: starved(fault, cpu, asked.elapsed(), turn.limit),
            stage: Stage::Go,
        })?;
        if let Err(err) = game.pos.play(answer.mv) {
            let fault = Fault::new(
                FaultKind::IllegalMove,
                format!("`{}` after {} sows: {err}", answer.mv, game.pos.sows()),
            );
            return Err(Early::Forfeit {
                player,
                fault,
                stage: Stage::Rules,
            });
        }
        if answer.random.is_some() {
            game.random.push(game.think_ms.len() as u32);
            game.random_count[player] += 1;
        }
        let cpu = cpu.unwrap_or_default();
        game.cpu_ms.push(cpu.as_millis() as u64);
        game.cpu_total[player] += cpu;
        game.moves.push(answer.mv);
        game.think_ms.push(answer.think.as_millis() as u64);
        game.movers.push(player as u8);
        game.think_total[player] += answer.think;
        game.think_max[player] = game.think_max[player].max(answer.think);
        if let (Some(clock), Some(c)) = (remaining, setup.time.clock) {
            let used = answer.think.as_millis() as i64;
            game.clock_ms[player] = Some(clock - used + c.inc_ms as i64);
        }
    }
}

/// A timeout `fault` labelled *starved* when the bot had used less than half of its `limit` in
/// CPU (`cpu`) during the `wall` time it was waited for: the machine, not the bot, ran out of
/// time (docs/tournament.md, "Starved moves"). Any other fault is returned as it is.
fn starved(fault: Fault, cpu: Option<Duration>, wall: Duration, limit: Duration) -> Fault {
    match cpu {
        Some(cpu) if fault.kind == FaultKind::Timeout && judging::starved(cpu, limit) => {
            Fault::new(
                FaultKind::Timeout,
                format!("{} ({})", fault.detail, judging::starved_label(cpu, wall)),
            )
        }
        _ => fault,
    }
}

/// The record of a game that could not start because a bot failed to start or to get ready.
pub fn start_failure(setup: &GameSetup<'_>, player: usize, fault: Fault) -> Played {
    let game = GameState::new(setup);
    let stage = Stage::Start;
    let early = Early::Forfeit {
        player,
        fault,
        stage,
    };
    game.finish(setup, Err(early), Duration::ZERO)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::GoLimits;
    use crate::run_folder::games::GameRecord;
    use crate::tournament::config::Clock;
    use crate::tournament::scripted::{Scripted, Step};
    use Step::{Fail, Lowest, Play, Random};

    const NAMES: [&str; 2] = ["first", "second"];

    fn pit(k: u8) -> Move {
        Move::Pit(k)
    }

    /// `movetime_ms` per sow with `margin_ms`, nothing else.
    fn movetime(movetime_ms: u64, margin_ms: u64) -> TimeControl {
        TimeControl {
            movetime_ms: Some(movetime_ms),
            margin_ms,
            ..TimeControl::default()
        }
    }

    /// A game clock of `base_ms` + `inc_ms` per sow, with `margin_ms` and no move time.
    fn clock(base_ms: u64, inc_ms: u64, margin_ms: u64) -> TimeControl {
        TimeControl {
            movetime_ms: None,
            clock: Some(Clock { base_ms, inc_ms }),
            margin_ms,
            ..TimeControl::default()
        }
    }

    /// Plays `rules` from `opening` between the two scripts; the contestants come back with
    /// what they were asked.
    fn play_with(
        rules: &str,
        opening: Opening,
        time: &TimeControl,
        early_end: EarlyEnd,
        mut players: [Scripted; 2],
    ) -> (Played, [Scripted; 2]) {
        let setup = GameSetup {
            game_id: 7,
            pair_id: 3,
            round: 1,
            ruleset: rules.parse().unwrap(),
            opening: &opening,
            time,
            early_end,
            names: NAMES,
            seeds: [11, 12],
            time_by: [TimeBy::Wall; 2],
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let [a, b] = &mut players;
        let mut slot = SlotThread::claim();
        let played = runtime.block_on(play_game(&setup, [a, b], &mut slot));
        // The record's movers are the ones the results files replay from the moves.
        let mut replayed = played.record.clone();
        replayed.movers.clear();
        let line = serde_json::to_vec(&replayed).unwrap();
        let replayed = GameRecord::from_line(&line).unwrap().unwrap();
        assert_eq!(replayed.movers, played.record.movers, "movers as replayed");
        (played, players)
    }

    fn play(rules: &str, time: &TimeControl, players: [Scripted; 2]) -> (Played, [Scripted; 2]) {
        play_with(rules, Opening::default(), time, EarlyEnd::Off, players)
    }

    fn state(state: &str) -> Opening {
        Opening {
            state: Some(state.into()),
            moves: Vec::new(),
        }
    }

    /// What a case must end with.
    #[derive(Debug, PartialEq)]
    struct Ending {
        result: Outcome,
        termination: Termination,
        /// The player (0 first, 1 second) charged with a forfeit.
        faulty: Option<usize>,
        /// Seeds of the first and the second player.
        score: [u32; 2],
        sows: u32,
    }

    fn ending(played: &Played) -> Ending {
        let row = &played.record.row;
        Ending {
            result: row.result,
            termination: row.termination,
            faulty: played.faulty,
            score: [row.score_first, row.score_second],
            sows: row.sows,
        }
    }

    fn forfeit(player: usize, kind: FaultKind, score: [u32; 2], sows: u32) -> Ending {
        Ending {
            result: if player == 0 {
                Outcome::Loss
            } else {
                Outcome::Win
            },
            termination: Termination::Forfeit(kind),
            faulty: Some(player),
            score,
            sows,
        }
    }

    fn normal(result: Outcome, score: [u32; 2], sows: u32) -> Ending {
        Ending {
            result,
            termination: Termination::Normal,
            faulty: None,
            score,
            sows,
        }
    }

    /// Checks that the faulty player's name is in `forfeit`, that the other one heard the end
    /// and the faulty one did not.
    fn check_charged(played: &Played, players: &[Scripted; 2]) {
        let row = &played.record.row;
        assert_eq!(row.forfeit.as_deref(), played.faulty.map(|p| NAMES[p]));
        for (player, contestant) in players.iter().enumerate() {
            let heard = contestant.ended.is_some();
            assert_eq!(
                heard,
                played.faulty != Some(player),
                "player {player} heard the end"
            );
        }
    }

    // Hand-worked games on `kalah:pits=2,seeds=1` (rules.md, Kalah; each side 1,1, stores 0):
    // South's pit 2 ends in the store (extra turn); then pit 1's seed lands in the empty pit 2
    // opposite North's pit 1 (one seed): both go to the store, 3. South's row is empty, North
    // sweeps its last seed: 3-1 after 2 sows.
    const TINY: &str = "kalah:pits=2,seeds=1";

    #[test]
    fn a_normal_end_scores_the_final_stores_and_times_each_sow() {
        let first = Scripted::new([Play(pit(2), 10), Play(pit(1), 20)]);
        let time = movetime(100, 50);
        let (played, players) = play(TINY, &time, [first, Scripted::new([])]);
        assert_eq!(ending(&played), normal(Outcome::Win, [3, 1], 2));
        assert!(played.fault.is_none());
        let record = &played.record;
        assert_eq!(record.moves, [pit(2), pit(1)]);
        assert_eq!(
            (record.think_ms.clone(), record.movers.clone()),
            (vec![10, 20], vec![0, 0])
        );
        let row = &record.row;
        assert_eq!((row.first_think_ms, row.first_max_ms), (30, 20));
        assert_eq!((row.second_think_ms, row.second_max_ms), (0, 0));
        assert_eq!(
            (row.forfeit.as_deref(), row.detail.as_str()),
            (None, "SideEmpty")
        );
        assert_eq!([players[0].ended, players[1].ended], [Some(2), Some(2)]);
        assert_eq!(
            [players[0].games.clone(), players[1].games.clone()],
            [[true], [false]]
        );
        assert!(players[1].asked.is_empty());
    }

    /// South's pit 1 lands on pit 2 (now 2); North's pit 2 ends in its store, its pit 1 in its
    /// empty pit 2 opposite South's empty pit 1 (no capture); South's pit 2 sows its store and
    /// North's pit 1, and South's row is empty: North sweeps 2, 1-3, the second player wins.
    #[test]
    fn the_second_player_wins_by_the_final_stores() {
        let first = Scripted::new([Play(pit(1), 1), Play(pit(2), 1)]);
        let second = Scripted::new([Play(pit(2), 1), Play(pit(1), 1)]);
        let (played, _) = play(TINY, &movetime(100, 0), [first, second]);
        assert_eq!(ending(&played), normal(Outcome::Loss, [1, 3], 4));
        assert_eq!(played.record.movers, [0, 1, 1, 0]);
    }

    /// The same sows as above, but North answers South's first sow with `swap`: the second
    /// player takes South's side, the first player moves next from North, plays North's two
    /// sows and wins 3-1 (rules.md, `pie`).
    #[test]
    fn after_a_swap_the_first_player_sits_north_and_keeps_its_name_and_score() {
        let pie = "kalah:pits=2,seeds=1,pie=true";
        let first = Scripted::new([Play(pit(1), 5), Play(pit(2), 6), Play(pit(1), 7)]);
        let second = Scripted::new([Play(Move::Swap, 8), Play(pit(2), 9)]);
        let (played, players) = play(pie, &movetime(100, 0), [first, second]);
        assert_eq!(ending(&played), normal(Outcome::Win, [3, 1], 4));
        let record = &played.record;
        assert_eq!(record.moves, [pit(1), Move::Swap, pit(2), pit(1), pit(2)]);
        assert_eq!(record.movers, [0, 1, 0, 0, 1]);
        assert_eq!(record.think_ms, [5, 8, 6, 7, 9]);
        assert_eq!(
            (record.row.first.as_str(), record.row.second.as_str()),
            (NAMES[0], NAMES[1])
        );
        assert_eq!(
            (record.row.first_think_ms, record.row.second_think_ms),
            (18, 17)
        );
        // Each was asked with the whole game so far.
        let asked = |p: &Scripted| p.asked.iter().map(|a| a.moves).collect::<Vec<_>>();
        assert_eq!(
            (asked(&players[0]), asked(&players[1])),
            (vec![0, 2, 3], vec![1, 4])
        );
    }

    #[test]
    fn an_opening_that_swapped_seats_the_second_player_south() {
        let pie = "kalah:pits=2,seeds=1,pie=true";
        let opening = Opening {
            state: None,
            moves: vec![pit(1), Move::Swap],
        };
        let first = Scripted::new([Play(pit(2), 1), Play(pit(1), 1)]);
        let second = Scripted::new([Play(pit(2), 1)]);
        let (played, _) = play_with(
            pie,
            opening,
            &movetime(100, 0),
            EarlyEnd::Off,
            [first, second],
        );
        assert_eq!(ending(&played), normal(Outcome::Win, [3, 1], 4));
        assert_eq!(played.record.movers, [0, 0, 1]);
    }

    #[test]
    fn move_time_and_margin_make_the_limit_just_inside_answers_just_outside_forfeits() {
        let time = movetime(100, 50);
        let first = Scripted::new([Play(pit(2), 150), Play(pit(1), 150)]);
        let (played, players) = play(TINY, &time, [first, Scripted::new([])]);
        assert_eq!(ending(&played), normal(Outcome::Win, [3, 1], 2));
        let asked = &players[0].asked[0];
        assert_eq!(asked.limit, Duration::from_millis(150));
        let limits = GoLimits {
            movetime: Some(100),
            ..GoLimits::default()
        };
        assert_eq!(asked.limits, limits);

        let first = Scripted::new([Play(pit(2), 150), Play(pit(1), 151)]);
        let (played, players) = play(TINY, &time, [first, Scripted::new([])]);
        assert_eq!(ending(&played), forfeit(0, FaultKind::Timeout, [1, 0], 1));
        assert_eq!(played.record.row.detail, "no bestmove within 150 ms");
        check_charged(&played, &players);
    }

    /// Each sow's CPU time, as the contestant reports it, is recorded beside its think time,
    /// and summed per player; a move the arena played at random for a contestant is marked in
    /// the record and counted for its player.
    #[test]
    fn cpu_times_and_random_moves_are_recorded_per_sow_and_player() {
        let time = movetime(100, 50);
        let mut first = Scripted::new([Play(pit(1), 10), Random(20)]);
        first.cpu = Some(Duration::from_millis(7));
        let mut second = Scripted::new([Play(pit(2), 30), Play(pit(1), 40)]);
        second.cpu = Some(Duration::from_millis(25));
        let (played, _) = play(TINY, &time, [first, second]);
        let record = &played.record;
        assert_eq!(record.think_ms, [10, 30, 40, 20]);
        assert_eq!(record.movers, [0, 1, 1, 0]);
        assert_eq!(record.cpu_ms, [7, 25, 25, 7]);
        assert_eq!(record.random, [3]);
        let row = &record.row;
        assert_eq!((row.first_cpu_ms, row.second_cpu_ms), (14, 50));
        assert_eq!((row.first_random, row.second_random), (1, 0));
    }

    /// A timeout in which the bot used less than half of its limit in CPU is labelled starved;
    /// one that used more, or without a CPU reading, is a plain timeout.
    #[test]
    fn a_timeout_with_little_cpu_is_labelled_starved() {
        let time = movetime(100, 50);
        for (cpu, starved) in [(Some(74), true), (Some(75), false), (None, false)] {
            let mut first = Scripted::new([Play(pit(2), 151)]);
            first.cpu = cpu.map(Duration::from_millis);
            let (played, _) = play(TINY, &time, [first, Scripted::new([])]);
            let detail = &played.record.row.detail;
            assert_eq!(ending(&played), forfeit(0, FaultKind::Timeout, [0, 0], 0));
            assert!(detail.starts_with("no bestmove within 150 ms"), "{detail}");
            assert_eq!(judging::is_starved(detail), starved, "{detail}");
            if starved {
                assert!(detail.contains("(starved: 74 ms of CPU in "), "{detail}");
            }
        }
        // Only timeouts: a crash with no CPU used is a crash.
        let mut first = Scripted::new([Fail(FaultKind::Crash)]);
        first.cpu = Some(Duration::ZERO);
        let (played, _) = play(TINY, &time, [first, Scripted::new([])]);
        assert!(!judging::is_starved(&played.record.row.detail));
    }

    #[test]
    fn the_clock_is_charged_the_think_time_and_credited_the_increment() {
        let time = clock(1000, 100, 50);
        let first = Scripted::new([Play(pit(2), 300), Play(pit(1), 850)]);
        let (played, players) = play(TINY, &time, [first, Scripted::new([])]);
        assert_eq!(ending(&played), normal(Outcome::Win, [3, 1], 2));
        let asked = &players[0].asked;
        // 1000 at first; 1000 - 300 + 100 = 800 for the extra turn's sow.
        assert_eq!(asked[0].limits.time, Some(1000));
        assert_eq!(asked[0].limits.inc, Some(100));
        assert_eq!(asked[0].limits.movetime, None);
        assert_eq!(asked[0].limit, Duration::from_millis(1050));
        assert_eq!(asked[1].limits.time, Some(800));
        assert_eq!(asked[1].limit, Duration::from_millis(850));
    }

    #[test]
    fn running_out_of_clock_forfeits_on_time() {
        let time = clock(1000, 100, 50);
        let first = Scripted::new([Play(pit(2), 300), Play(pit(1), 851)]);
        let (played, players) = play(TINY, &time, [first, Scripted::new([])]);
        assert_eq!(ending(&played), forfeit(0, FaultKind::Timeout, [1, 0], 1));
        assert_eq!(played.record.row.detail, "no bestmove within 850 ms");
        check_charged(&played, &players);
    }

    /// The margin is allowed once per game, not once per sow: a think into the margin leaves
    /// the clock below 0 (sent as `time 0`), and the next sow has only what is left of the
    /// margin (#32: the clock was clamped at 0 and the margin granted again every sow).
    #[test]
    fn a_think_into_the_margin_is_carried_and_the_margin_counts_once() {
        let time = clock(100, 10, 50);
        let first = Scripted::new([Play(pit(2), 140), Play(pit(1), 1)]);
        let (_, players) = play(TINY, &time, [first, Scripted::new([])]);
        let asked = &players[0].asked[1];
        // 100 - 140 + 10 = -30: the next sow may take 50 - 30 = 20 ms.
        assert_eq!(
            (asked.limits.time, asked.limit),
            (Some(0), Duration::from_millis(20))
        );
    }

    /// The issue's case: `--tc 1+0`, 1,060 ms on the first sow (inside the margin), then 60 ms:
    /// the clock is spent with the margin, so the second sow loses on time.
    #[test]
    fn a_clock_spent_with_its_margin_loses_on_time() {
        let time = clock(1000, 0, 100);
        let first = Scripted::new([Play(pit(2), 1060), Play(pit(1), 60)]);
        let (played, players) = play(TINY, &time, [first, Scripted::new([])]);
        assert_eq!(ending(&played), forfeit(0, FaultKind::Timeout, [1, 0], 1));
        assert_eq!(played.record.row.detail, "no bestmove within 40 ms");
        check_charged(&played, &players);
    }

    #[test]
    fn each_player_has_a_clock_of_its_own() {
        let time = clock(1000, 0, 0);
        let first = Scripted::new([Play(pit(1), 600), Play(pit(2), 1)]);
        let second = Scripted::new([Play(pit(2), 100), Play(pit(1), 1)]);
        let (_, players) = play(TINY, &time, [first, second]);
        let times = |p: &Scripted| p.asked.iter().map(|a| a.limits.time).collect::<Vec<_>>();
        assert_eq!(times(&players[0]), [Some(1000), Some(400)]);
        assert_eq!(times(&players[1]), [Some(1000), Some(900)]);
    }

    #[test]
    fn with_a_move_time_and_a_clock_the_smaller_budget_is_the_limit() {
        let mut time = clock(1000, 0, 50);
        time.movetime_ms = Some(200);
        let (_, players) = play(
            TINY,
            &time,
            [
                Scripted::new([]).then(Lowest(1)),
                Scripted::new([]).then(Lowest(1)),
            ],
        );
        assert_eq!(players[0].asked[0].limit, Duration::from_millis(250));
        time.clock = Some(Clock {
            base_ms: 100,
            inc_ms: 0,
        });
        let (_, players) = play(
            TINY,
            &time,
            [
                Scripted::new([]).then(Lowest(1)),
                Scripted::new([]).then(Lowest(1)),
            ],
        );
        assert_eq!(players[0].asked[0].limit, Duration::from_millis(150));
    }

    #[test]
    fn depth_or_nodes_only_waits_the_hang_limit_without_margin() {
        for (depth, nodes) in [(Some(3), None), (None, Some(5000))] {
            let time = TimeControl {
                movetime_ms: None,
                depth,
                nodes,
                margin_ms: 50,
                hang_ms: 2000,
                ..TimeControl::default()
            };
            let first = Scripted::new([Play(pit(2), 1999), Play(pit(1), 2001)]);
            let (played, players) = play(TINY, &time, [first, Scripted::new([])]);
            let asked = &players[0].asked[0];
            let limits = GoLimits {
                depth,
                nodes,
                ..GoLimits::default()
            };
            assert_eq!(
                (asked.limits, asked.limit),
                (limits, Duration::from_millis(2000))
            );
            assert_eq!(ending(&played), forfeit(0, FaultKind::Timeout, [1, 0], 1));
        }
    }

    /// Every fault a contestant can report while a move is due, from either player: that
    /// player forfeits, its name is in `forfeit`, the other hears the end, the stores are the
    /// score at the fault.
    #[test]
    fn every_fault_during_a_move_forfeits_the_faulty_player() {
        let kinds = [
            FaultKind::Crash,
            FaultKind::Timeout,
            FaultKind::Malformed,
            FaultKind::IllegalMove,
            FaultKind::Garbage,
            FaultKind::LineTooLong,
            FaultKind::Io,
        ];
        for kind in kinds {
            // The first faults at once: nothing played.
            let first = Scripted::new([Fail(kind)]);
            let (played, players) = play(TINY, &movetime(100, 0), [first, Scripted::new([])]);
            assert_eq!(ending(&played), forfeit(0, kind, [0, 0], 0), "{kind:?}");
            assert_eq!(
                played.record.row.detail,
                format!("scripted {}", kind.as_str())
            );
            let fault = played.fault.as_ref().map(|f| (f.0, f.1.kind));
            assert_eq!(fault, Some((Stage::Go, kind)));
            check_charged(&played, &players);
            // The second faults after South's pit 1 (rules: North to move, stores 0-0).
            let first = Scripted::new([Play(pit(1), 1)]);
            let second = Scripted::new([Fail(kind)]);
            let (played, players) = play(TINY, &movetime(100, 0), [first, second]);
            assert_eq!(ending(&played), forfeit(1, kind, [0, 0], 1), "{kind:?}");
            assert_eq!(players[0].ended, Some(1));
            check_charged(&played, &players);
        }
    }

    #[test]
    fn a_fault_at_new_game_forfeits_before_any_move() {
        for player in [0, 1] {
            let mut players = [Scripted::new([]), Scripted::new([])];
            players[player].new_game_fault = Some(FaultKind::Timeout);
            let (played, players) = play(TINY, &movetime(100, 0), players);
            assert_eq!(
                ending(&played),
                forfeit(player, FaultKind::Timeout, [0, 0], 0)
            );
            check_charged(&played, &players);
            assert!(played.record.moves.is_empty());
            assert_eq!(played.fault.map(|f| f.0), Some(Stage::NewGame));
        }
    }

    /// Spawn and handshake faults happen before the game: the record of the game that could
    /// not start charges that player, with the opening's stores.
    #[test]
    fn a_start_failure_is_a_forfeit_of_the_player_that_failed() {
        let opening = Opening {
            state: None,
            moves: vec![pit(3)],
        };
        let time = TimeControl::default();
        let setup = GameSetup {
            game_id: 1,
            pair_id: 1,
            round: 1,
            ruleset: "kalah".parse().unwrap(),
            opening: &opening,
            time: &time,
            early_end: EarlyEnd::Off,
            names: NAMES,
            seeds: [1, 2],
            time_by: [TimeBy::Wall; 2],
        };
        for kind in [FaultKind::Spawn, FaultKind::Handshake] {
            for player in [0, 1] {
                let played = start_failure(&setup, player, Fault::new(kind, "no\nsuch\0bot"));
                // Kalah's pit 3 (4 seeds) ends in South's store: 1-0, one sow.
                assert_eq!(ending(&played), forfeit(player, kind, [1, 0], 1));
                let row = &played.record.row;
                assert_eq!(row.forfeit.as_deref(), Some(NAMES[player]));
                assert_eq!(row.detail, "no\\nsuch\\0bot");
                assert_eq!(played.record.moves, [pit(3)]);
                assert!(played.record.think_ms.is_empty());
                assert_eq!(played.fault.map(|f| f.0), Some(Stage::Start));
            }
        }
    }

    /// An illegal-move case: the ruleset, both scripts, who forfeits and how the detail starts.
    type IllegalCase = (&'static str, Vec<Step>, Vec<Step>, usize, &'static str);

    /// Illegal moves the referee catches, each checked against rules.md: the mover forfeits
    /// with `illegal_move`, and the move is not recorded.
    #[test]
    fn illegal_moves_of_each_sort_forfeit_the_mover() {
        let cases: [IllegalCase; 6] = [
            // After pit 2 (extra turn) South's pit 2 is empty.
            (
                TINY,
                vec![Play(pit(2), 1), Play(pit(2), 1)],
                vec![],
                0,
                "`2` after 1 sows: illegal move `2`: the pit is empty",
            ),
            (
                TINY,
                vec![Play(pit(3), 1)],
                vec![],
                0,
                "`3` after 0 sows: illegal move `3`: pit number out of range (pits are 1..=2)",
            ),
            (TINY, vec![Play(pit(0), 1)], vec![], 0, "`0` after 0 sows"),
            // No pie rule: no swap.
            (
                TINY,
                vec![Play(pit(1), 1)],
                vec![Play(Move::Swap, 1)],
                1,
                "`swap` after 1 sows: illegal move `swap`: swap is only allowed",
            ),
            // The first player may not swap its own first turn.
            (
                "kalah:pits=2,seeds=1,pie=true",
                vec![Play(Move::Swap, 1)],
                vec![],
                0,
                "`swap` after 0 sows",
            ),
            // Once declined, never again: North played a pit, South moves, North may not swap.
            (
                "kalah:pits=3,seeds=2,pie=true",
                vec![Play(pit(1), 1), Play(pit(2), 1)],
                vec![Play(pit(1), 1), Play(Move::Swap, 1)],
                1,
                "`swap` after 3 sows",
            ),
        ];
        for (rules, first, second, player, detail) in cases {
            let players = [Scripted::new(first), Scripted::new(second)];
            let (played, players) = play(rules, &movetime(100, 0), players);
            let row = &played.record.row;
            assert_eq!(
                row.termination,
                Termination::Forfeit(FaultKind::IllegalMove),
                "{detail}"
            );
            assert_eq!(played.faulty, Some(player), "{detail}");
            let fault = played.fault.as_ref().expect("a fault");
            assert_eq!(
                (fault.0, fault.1.detail.as_str()),
                (Stage::Rules, row.detail.as_str())
            );
            assert!(
                row.detail.starts_with(detail),
                "{} for {detail}",
                row.detail
            );
            assert_eq!(played.record.moves.len() as u32, row.sows, "{detail}");
            check_charged(&played, &players);
        }
    }

    /// Kalah with South's store at 25 of 48 seeds: decided for South. Adjudicated, the game
    /// ends at once on the stores; played out, South's pit 1 lands in its empty pit 2 opposite
    /// North's pit 5 (3 seeds): 4 more, South's row is empty, North sweeps 19: 29-19.
    #[test]
    fn adjudication_ends_a_decided_game_only_when_asked_for() {
        let opening = || state("s/1.0.0.0.0.0/4.4.4.4.3.3/25.0/10");
        let time = movetime(100, 0);
        let players = || {
            [
                Scripted::new([]).then(Lowest(1)),
                Scripted::new([]).then(Lowest(1)),
            ]
        };
        let (played, asked) = play_with("kalah", opening(), &time, EarlyEnd::Adjudicate, players());
        let adjudicated = Ending {
            result: Outcome::Win,
            termination: Termination::Adjudicated,
            faulty: None,
            score: [25, 0],
            sows: 10,
        };
        assert_eq!(ending(&played), adjudicated);
        assert_eq!(played.record.row.detail, "outcome decided");
        assert!(asked[0].asked.is_empty() && asked[0].ended == Some(0));
        let (played, _) = play_with("kalah", opening(), &time, EarlyEnd::Off, players());
        assert_eq!(ending(&played), normal(Outcome::Win, [29, 19], 11));
        // With a KGP agent in the game, KGP's own end rule stops it there, adjudication or not.
        let (played, asked) = play_with("kalah", opening(), &time, EarlyEnd::Kgp, players());
        assert_eq!(ending(&played), adjudicated);
        let kgp = "KGP early end: a store holds more than half the seeds";
        assert_eq!(played.record.row.detail, kgp);
        assert!(asked[0].asked.is_empty() && asked[1].asked.is_empty());
        assert_eq!(EarlyEnd::of(false, true), EarlyEnd::Kgp);
        assert_eq!(EarlyEnd::of(true, false), EarlyEnd::Adjudicate);
        assert_eq!(EarlyEnd::of(false, false), EarlyEnd::Off);
    }

    #[test]
    fn adjudication_for_north_is_the_second_players_win() {
        let opening = state("n/4.4.4.4.3.3/1.0.0.0.0.0/0.25/10");
        let players = [Scripted::new([]), Scripted::new([])];
        let (played, _) = play_with(
            "kalah",
            opening,
            &movetime(100, 0),
            EarlyEnd::Adjudicate,
            players,
        );
        assert_eq!(ending(&played).result, Outcome::Loss);
        assert_eq!(ending(&played).score, [0, 25]);
        // After a swap North is the first player's seat: its majority is the first's win.
        let opening = state("s/1.0/0.1/1.5/3/pie=swapped");
        let players = [Scripted::new([]), Scripted::new([])];
        let pie = "kalah:pits=2,seeds=2,pie=true";
        let (played, _) = play_with(
            pie,
            opening,
            &movetime(100, 0),
            EarlyEnd::Adjudicate,
            players,
        );
        assert_eq!(ending(&played).result, Outcome::Win);
        assert_eq!(ending(&played).score, [5, 1]);
    }

    #[test]
    fn decided_needs_more_than_half_or_exactly_half_each() {
        let kalah: Ruleset = "kalah".parse().unwrap();
        let pos = |s: &str| Position::from_state(kalah, s).unwrap();
        assert_eq!(
            decided(&pos("s/0.0.0.0.0.1/4.4.4.4.3.3/25.0/10")),
            Some(Some(Side::South))
        );
        assert_eq!(decided(&pos("s/1.0.0.0.0.0/4.4.4.4.4.3/24.0/10")), None);
        assert_eq!(decided(&pos("n/4.4.4.4.4.3/1.0.0.0.0.0/0.24/10")), None);
        assert_eq!(
            decided(&pos("s/1.0.0.0.0.0/0.0.0.0.0.2/20.25/30")),
            Some(Some(Side::North))
        );
        let even = "x/0.0.0.0.0.0/0.0.0.0.0.0/24.24/30/end=side_empty";
        assert_eq!(decided(&pos(even)), Some(None));
        assert_eq!(decided(&pos("s/1.0.0.0.0.0/0.0.0.0.0.1/23.23/30")), None);
    }

    #[test]
    fn control_bytes_become_escapes() {
        assert_eq!(printable("bestmove\0 7\n"), "bestmove\\0 7\\n");
        assert_eq!(printable("\u{1b}[31mred"), "\\x1b[31mred");
        assert_eq!(printable("plain é"), "plain é");
    }
}
