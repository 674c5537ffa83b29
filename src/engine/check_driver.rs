//! `arena check-bot --protocol mankalah|kgp`: checks an agent of another protocol by playing it,
//! through the same driver a tournament uses, against a seeded random mover: a few games on each
//! ruleset, in both seats, with a move time. ManKalah and KGP have no handshake to inspect
//! beyond what the driver does at start, so the verdicts are "starts" and "plays legally, in
//! time, to the end of the game".

use std::time::{Duration, Instant};

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::check::{CheckConfig, CheckResult, Report, Status};
use super::{BotLog, BotSpec, Player, Protocol, StartError, DEFAULT_LOG_CAP};
use crate::protocol::{GoLimits, PositionStart};
use crate::rules::{Position, Ruleset, Side};

/// The move time of the checked agent's moves: generous, so that a slow start (a JVM for each
/// ManKalah game) does not fail the check.
const MOVETIME: Duration = Duration::from_millis(1000);

/// Games per ruleset: two in each seat.
const GAMES: u32 = 4;

/// Plays the checks. `Err` only when the agent cannot be started at all.
pub async fn check_driver(config: &CheckConfig, protocol: Protocol) -> Result<Report, StartError> {
    let log = BotLog::new(&config.stderr_log, DEFAULT_LOG_CAP);
    let spec = BotSpec {
        name: "checked".into(),
        program: config.program.clone(),
        dir: None,
        options: config.options.clone(),
        protocol,
    };
    let started = Instant::now();
    let mut player = Player::start(&spec, &log, config.timeout, None).await?;
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
            Protocol::Mankalah => vec![super::mankalah::MANKALAH_RULES.into()],
            _ => vec![
                "kalah".into(),
                "kalah:pits=4,seeds=3".into(),
                super::mankalah::MANKALAH_RULES.into(),
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
            let note = match play(&mut player, ruleset, first, config, &mut rng).await {
                Ok(note) => note,
                Err(note) => {
                    result.status = Status::Fail;
                    player.kill().await;
                    match Player::start(&spec, &log, config.timeout, None).await {
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
        stderr_bytes: std::fs::metadata(log.path()).map_or(0, |m| m.len()),
    }
}

/// One game against random moves: `Ok` with a summary, `Err` with what went wrong.
async fn play(
    player: &mut Player,
    ruleset: Ruleset,
    first: bool,
    config: &CheckConfig,
    rng: &mut ChaCha8Rng,
) -> Result<String, String> {
    let start = PositionStart::Startpos;
    let mut pos = Position::new(ruleset);
    let mut moves = Vec::new();
    let checked = usize::from(!first);
    player
        .new_game(ruleset, config.seed, first)
        .await
        .map_err(|f| format!("new game: {f}"))?;
    let limits = GoLimits {
        movetime: Some(MOVETIME.as_millis() as u64),
        ..GoLimits::default()
    };
    let mut own = 0;
    let mut slowest = Duration::ZERO;
    while let Some(side) = pos.to_move() {
        let mv = if pos.player_on(side) == checked {
            let answer = player
                .go(&start, &moves, limits, MOVETIME + config.margin)
                .await
                .map_err(|f| format!("after {} sows: {f}", pos.sows()))?;
            pos.play(answer.mv)
                .map_err(|e| format!("`{}` after {} sows: {e}", answer.mv, pos.sows()))?;
            own += 1;
            slowest = slowest.max(answer.think);
            answer.mv
        } else {
            let legal = pos.legal_moves();
            let mv = *legal.choose(rng).expect("a game not over has a move");
            pos.play(mv).expect("a legal move");
            mv
        };
        moves.push(mv);
    }
    player.end_game(&start, &moves).await;
    let result = pos.result().expect("the game is over");
    Ok(format!(
        "{} of {} sows its own, slowest {} ms; final score {}-{} (South-North)",
        own,
        moves.len(),
        slowest.as_millis(),
        result.score.get(Side::South),
        result.score.get(Side::North)
    ))
}
