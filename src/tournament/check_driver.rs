//! `arena check-bot --protocol mankalah|kgp|per-move`: checks an agent of another protocol by
//! playing it, through the same driver and referee a tournament uses, against a seeded random
//! mover (a [`Contestant`] too): a few games on each ruleset, in both seats, with a move time.
//! These protocols have no handshake to inspect beyond what the driver does at start, so the
//! verdicts are "starts" and "plays legally, in time, to the end of the game".

use std::time::{Duration, Instant};

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::referee::{self, EarlyEnd, GameSetup, Stage};
use crate::engine::check::{CheckConfig, CheckResult, Report, Status};
use crate::engine::{
    Answer, BotLog, Contestant, Fault, Player, Protocol, SlotThread, StartError, Turn,
    DEFAULT_LOG_CAP,
};
use crate::protocol::PositionStart;
use crate::rules::{Move, Position, Ruleset, Side};
use crate::vocab::config::{Opening, TimeControl};
use crate::vocab::TimeBy;

/// The move time of the checked agent's moves: generous, so that a slow start (a JVM for each
/// ManKalah game) does not fail the check.
const MOVETIME: Duration = Duration::from_millis(1000);

/// Games per ruleset: two in each seat.
const GAMES: u32 = 4;

/// Plays the checks. `Err` only when the agent cannot be started at all.
pub async fn check_driver(config: &CheckConfig) -> Result<Report, StartError> {
    let protocol = config.spec.protocol;
    let log =
        BotLog::new(&config.stderr_log, DEFAULT_LOG_CAP).map_err(|error| StartError::Arena {
            program: config.spec.program.display(),
            error,
        })?;
    let spec = &config.spec;
    let started = Instant::now();
    let mut player = Player::start(spec, &log, config.timeout, None).await?;
    let declared = player.info().declared_rulesets();
    let mut checks = vec![CheckResult {
        name: "start",
        status: Status::Pass,
        notes: vec![format!(
            "started in {} ms; plays {declared}",
            started.elapsed().as_millis()
        )],
    }];
    let rulesets: Vec<String> = if config.explicit_rulesets {
        config.rulesets.clone()
    } else {
        match protocol {
            Protocol::Mankalah => vec![crate::engine::MANKALAH_RULES.into()],
            _ => vec![
                "kalah".into(),
                "kalah:pits=4,seeds=3".into(),
                crate::engine::MANKALAH_RULES.into(),
            ],
        }
    };
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    for text in &rulesets {
        let mut result = CheckResult {
            name: "games",
            status: Status::Pass,
            notes: Vec::new(),
        };
        let ruleset = match text.parse::<Ruleset>() {
            Ok(r) if player.info().plays(&r) => r,
            Ok(r) => {
                result.status = Status::Fail;
                result
                    .notes
                    .push(format!("{r}: not a ruleset it plays ({declared})"));
                checks.push(result);
                continue;
            }
            Err(e) => {
                result.status = Status::Fail;
                result.notes.push(format!("{text}: {e}"));
                checks.push(result);
                continue;
            }
        };
        for game in 0..GAMES {
            let first = game % 2 == 0;
            let early_end = EarlyEnd::of(false, protocol == Protocol::Kgp);
            let note = match play(&mut player, ruleset, first, config, early_end, &mut rng).await {
                Ok(Checked { note, random: 0 }) => note,
                Ok(Checked { note, random }) => {
                    if result.status == Status::Pass {
                        result.status = Status::Warn;
                    }
                    format!(
                        "{note}; {random} random move(s) played for it: it sent no move in time \
                         (or yielded before any), and the arena moved at random for it, as the \
                         official server does (kgp_missing_move=forfeit makes that a loss)"
                    )
                }
                Err(note) => {
                    result.status = Status::Fail;
                    player.kill().await;
                    match Player::start(spec, &log, config.timeout, None).await {
                        Ok(p) => player = p,
                        Err(e) => {
                            result.notes.push(note);
                            result.notes.push(format!("could not restart it: {e}"));
                            checks.push(result);
                            return Ok(report(checks, config, &log));
                        }
                    }
                    note
                }
            };
            result
                .notes
                .push(format!("{ruleset}, game {}: {note}", game + 1));
        }
        checks.push(result);
    }
    player.quit(Duration::from_secs(1)).await;
    Ok(report(checks, config, &log))
}

fn report(checks: Vec<CheckResult>, config: &CheckConfig, log: &BotLog) -> Report {
    log.flush();
    Report {
        checks,
        bot_name: None,
        transcript: config.transcript.clone(),
        transcript_error: None,
        stderr_bytes: std::fs::metadata(log.path()).map_or(0, |m| m.len()),
    }
}

/// A game the checked agent played to its end.
#[derive(Debug, PartialEq)]
struct Checked {
    /// The game in a few words.
    note: String,
    /// Moves the arena played at random for the agent (a KGP agent's missing moves).
    random: usize,
}

/// One game against random moves, played by the tournament's referee: `Ok` with a summary,
/// `Err` with what went wrong. The agent's time counts its own CPU time (unless its
/// `time_by=wall`): a busy machine does not fail a check.
async fn play<C: Contestant>(
    player: &mut C,
    ruleset: Ruleset,
    first: bool,
    config: &CheckConfig,
    early_end: EarlyEnd,
    rng: &mut ChaCha8Rng,
) -> Result<Checked, String> {
    let checked = usize::from(!first);
    let time = TimeControl {
        movetime_ms: Some(MOVETIME.as_millis() as u64),
        margin_ms: config.margin.as_millis() as u64,
        ..TimeControl::default()
    };
    let opening = Opening::default();
    let mut names = ["random", "random"];
    names[checked] = "checked";
    let setup = GameSetup {
        game_id: 0,
        pair_id: 0,
        round: 0,
        ruleset,
        opening: &opening,
        time: &time,
        early_end,
        names,
        seeds: [config.seed; 2],
        time_by: [config.spec.time_by.unwrap_or(TimeBy::Cpu); 2],
    };
    let mut random = Seat::Random(RandomMover {
        rng,
        pos: Position::new(ruleset),
        played: 0,
    });
    let mut checked_seat = Seat::Checked(player);
    let seats = if first {
        [&mut checked_seat, &mut random]
    } else {
        [&mut random, &mut checked_seat]
    };
    // The check plays one game at a time on the calling thread.
    let mut thread = SlotThread::claim();
    let played = referee::play_game(&setup, seats, &mut thread).await;
    let record = &played.record;
    let sows = record.row.sows;
    match played.fault {
        None => {}
        Some((Stage::NewGame, f)) => return Err(format!("new game: {f}")),
        Some((Stage::Rules, f)) => return Err(f.detail),
        Some((_, f)) => return Err(format!("after {sows} sows: {f}")),
    }
    let mut pos = Position::new(ruleset);
    for &mv in &record.moves {
        pos.play_unchecked(mv);
    }
    // A KGP game may stop early (a store above half the seeds): its score is the stores'.
    let (south, north, early) = match pos.result() {
        Some(result) => (
            *result.score.get(Side::South),
            *result.score.get(Side::North),
            "",
        ),
        None => (
            pos.store(Side::South),
            pos.store(Side::North),
            " at KGP's early end",
        ),
    };
    let own = record.movers.iter().filter(|&&m| usize::from(m) == checked);
    let slowest = [record.row.first_max_ms, record.row.second_max_ms][checked];
    let random = [record.row.first_random, record.row.second_random][checked];
    Ok(Checked {
        note: format!(
            "{} of {} sows its own, slowest {} ms; final score {south}-{north} (South-North){early}",
            own.count(),
            record.moves.len(),
            slowest,
        ),
        random: random as usize,
    })
}

/// The checked agent's opponent: a seeded random mover that answers at once.
struct RandomMover<'a> {
    rng: &'a mut ChaCha8Rng,
    /// The game after the first `played` of its moves.
    pos: Position,
    played: usize,
}

/// A seat of a check game: the agent being checked or its random opponent (the referee plays
/// two contestants of one type).
enum Seat<'a, C> {
    Checked(&'a mut C),
    Random(RandomMover<'a>),
}

impl<C: Contestant> Contestant for Seat<'_, C> {
    async fn new_game(&mut self, ruleset: Ruleset, seed: u64, first: bool) -> Result<(), Fault> {
        match self {
            Seat::Checked(player) => player.new_game(ruleset, seed, first).await,
            Seat::Random(_) => Ok(()),
        }
    }

    async fn go(&mut self, slot: &mut SlotThread, turn: Turn<'_>) -> Result<Answer, Fault> {
        let random = match self {
            Seat::Checked(player) => return player.go(slot, turn).await,
            Seat::Random(random) => random,
        };
        for &mv in &turn.moves[random.played..] {
            random.pos.play_unchecked(mv);
        }
        random.played = turn.moves.len();
        let legal = random.pos.legal_moves();
        let mv = *legal
            .choose(random.rng)
            .expect("a game not over has a move");
        Ok(Answer::of(mv, Duration::ZERO))
    }

    async fn end_game(&mut self, start: &PositionStart, moves: &[Move]) {
        if let Seat::Checked(player) = self {
            player.end_game(start, moves).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::engine::{FaultKind, Program};
    use crate::tournament::scripted::{Scripted, Step};

    fn config() -> CheckConfig {
        CheckConfig {
            spec: crate::engine::BotSpec {
                name: "checked".into(),
                program: Program::Shell {
                    command: String::new(),
                },
                dir: None,
                options: Vec::new(),
                protocol: Protocol::Kgp,
                sandbox: false,
                memory: None,
                time_by: None,
                kgp_missing_move: Default::default(),
            },
            rulesets: Vec::new(),
            explicit_rulesets: false,
            seed: 5,
            timeout: Duration::from_secs(1),
            margin: Duration::from_millis(40),
            stderr_log: PathBuf::new(),
            transcript: PathBuf::new(),
        }
    }

    fn check(checked: Scripted, first: bool) -> (Result<String, String>, Scripted) {
        let (checked_game, checked) = check_game(checked, first);
        (checked_game.map(|c| c.note), checked)
    }

    fn check_game(mut checked: Scripted, first: bool) -> (Result<Checked, String>, Scripted) {
        let ruleset = "kalah:pits=2,seeds=1".parse().unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let note = runtime.block_on(play(
            &mut checked,
            ruleset,
            first,
            &config(),
            EarlyEnd::Off,
            &mut rng,
        ));
        (note, checked)
    }

    /// rules.md on `kalah:pits=2,seeds=1`: South's pit 2 ends in its store, pit 1 then
    /// captures North's pit 1, North sweeps its last seed: 3-1, the random mover never moves.
    #[test]
    fn a_game_played_to_the_end_is_summed_up_from_the_record() {
        let checked = Scripted::new([Step::Play(Move::Pit(2), 7), Step::Play(Move::Pit(1), 9)]);
        let (note, checked) = check(checked, true);
        let summary = "2 of 2 sows its own, slowest 9 ms; final score 3-1 (South-North)";
        assert_eq!(note.as_deref(), Ok(summary));
        let asked = &checked.asked[0];
        assert_eq!(asked.limits.movetime, Some(1000));
        assert_eq!(asked.limit, Duration::from_millis(1040));
        assert_eq!(
            (checked.games.clone(), checked.ended),
            (vec![true], Some(2))
        );
    }

    #[test]
    fn the_random_mover_plays_legal_moves_to_the_end_in_either_seat() {
        for first in [true, false] {
            let (note, checked) = check(Scripted::new([]).then(Step::Lowest(1)), first);
            let note = note.expect("a finished game");
            assert!(note.ends_with("(South-North)"), "{note}");
            assert_eq!(checked.games, [first]);
            assert!(checked.ended.is_some());
        }
    }

    /// The arena's random moves for the agent are counted, for the check to warn of them.
    #[test]
    fn random_moves_played_for_the_agent_are_counted() {
        let checked = Scripted::new([Step::Random(3)]).then(Step::Lowest(1));
        let (game, _) = check_game(checked, true);
        assert_eq!(game.map(|c| c.random), Ok(1));
    }

    #[test]
    fn each_kind_of_failure_is_worded_as_before() {
        let mut fails = Scripted::new([]);
        fails.new_game_fault = Some(FaultKind::Io);
        let (note, _) = check(fails, true);
        assert_eq!(note, Err("new game: io: scripted new game fault".into()));
        let (note, checked) = check(Scripted::new([Step::Fail(FaultKind::Crash)]), true);
        assert_eq!(note, Err("after 0 sows: crash: scripted crash".into()));
        assert_eq!(checked.ended, None);
        let (note, _) = check(Scripted::new([Step::Play(Move::Pit(1), 1041)]), true);
        assert_eq!(
            note,
            Err("after 0 sows: timeout: no bestmove within 1040 ms".into())
        );
        let (note, _) = check(Scripted::new([Step::Play(Move::Pit(3), 1)]), true);
        let illegal =
            "`3` after 0 sows: illegal move `3`: pit number out of range (pits are 1..=2)";
        assert_eq!(note, Err(illegal.into()));
    }
}
