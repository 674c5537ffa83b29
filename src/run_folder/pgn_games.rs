//! PGN games as the arena's own game records, so that `arena analyse FILE.pgn` judges a game
//! from any program exactly as one the arena played: the movetext is replayed with the rules
//! engine and every sow checked, and a malformed game is an error naming its file, line and ply.
//!
//! What a game must carry: its ruleset, from `--rules` or else from the `Variant` tag (the
//! arena writes its ruleset string there: `kalah`, `kalah:pits=4,seeds=3`, docs/rules.md),
//! and movetext of pit numbers (1..N, the mover's own pits, as the arena writes them) and
//! `swap`. An `Opening` tag (the arena's export) marks the first moves as the opening's, not the
//! players'; its moves must begin the movetext. A finished game's `Result` must agree with the
//! position the moves reach. Pure: games in, records or an error out.

use crate::rating::Outcome;
use crate::rules::{Move, Ruleset};
use crate::vocab::Opening;

use super::games::{GameRecord, GameRow, Termination};
use super::pgn_in::PgnGame;
use super::state::{RecordedState, State};

/// Marks `dir`, a results folder just written from PGN games (`arena analyse FILE.pgn`), as
/// complete: its `state.json` says `finished`. That is how `arena serve` knows a results folder
/// without a `run.json` (no bots ran, so there is no run configuration) for a run of its own.
pub fn mark_written_from_pgn(dir: &std::path::Path) -> anyhow::Result<()> {
    RecordedState::now(State::Finished, None).write(dir)
}

/// A game that cannot be replayed: where, and why.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{file}:{line}: {what}")]
pub struct PgnGameError {
    pub file: String,
    pub line: usize,
    pub what: String,
}

/// One PGN game as a record, with the players' ratings from its Elo tags.
#[derive(Debug, Clone, PartialEq)]
pub struct PgnRecord {
    pub record: GameRecord,
    /// `WhiteElo`, `BlackElo` (first player, second player).
    pub elos: [Option<f64>; 2],
}

/// The game's record with id `game_id`; `rules` (`--rules`) overrides the `Variant` tag.
/// `None` for an unfinished game (`Result "*"`): a record needs a result.
pub fn pgn_record(
    game: &PgnGame,
    game_id: u64,
    rules: Option<Ruleset>,
) -> Result<Option<PgnRecord>, PgnGameError> {
    let err = |line: usize, what: String| PgnGameError {
        file: game.file.clone(),
        line,
        what,
    };
    let tag_line = |name: &str| game.tag_line(name).unwrap_or(game.line);
    let ruleset = match (rules, &game.variant) {
        (Some(r), _) => r,
        (None, Some(v)) => v.parse::<Ruleset>().map_err(|e| {
            err(
                tag_line("Variant"),
                format!("unknown variant \"{v}\" ({e}); give the ruleset with --rules"),
            )
        })?,
        (None, None) => {
            return Err(err(
                game.line,
                "no Variant tag: give the ruleset with --rules (e.g. --rules kalah:seeds=4)"
                    .to_string(),
            ))
        }
    };
    let Some(result) = game.result else {
        return Ok(None);
    };
    let opening = match game.tags.iter().rev().find(|(n, _)| n == "Opening") {
        Some((_, text)) => text.parse::<Opening>().map_err(|e| {
            err(
                tag_line("Opening"),
                format!("Opening \"{text}\" is not an opening: {e}"),
            )
        })?,
        None => Opening::default(),
    };
    let mut pos = opening
        .start(ruleset)
        .map_err(|e| err(tag_line("Opening"), format!("Opening: {e}")))?;
    let mut moves = Vec::with_capacity(game.moves.len());
    let mut movers = Vec::with_capacity(game.moves.len());
    for (i, token) in game.moves.iter().enumerate() {
        let line = game.move_lines.get(i).copied().unwrap_or(game.line);
        let ply = format!("ply {}", i + 1);
        let mv: Move = token.parse().map_err(|_| {
            err(
                line,
                format!(
                    "{ply}: `{token}` is not a move in the arena's notation (a pit number 1..{} \
                     of the mover's side, or swap)",
                    ruleset.pits()
                ),
            )
        })?;
        if let Some(&expected) = opening.moves.get(i) {
            if mv != expected {
                return Err(err(
                    line,
                    format!(
                        "{ply}: `{mv}` but the Opening tag's move {} is `{expected}`",
                        i + 1
                    ),
                ));
            }
        }
        let Some(side) = pos.to_move() else {
            return Err(err(
                line,
                format!("{ply}: `{mv}` after the end of the game"),
            ));
        };
        if i >= opening.moves.len() {
            movers.push(pos.player_on(side) as u8);
        }
        pos.play(mv).map_err(|e| err(line, format!("{ply}: {e}")))?;
        moves.push(mv);
    }
    if moves.len() < opening.moves.len() {
        return Err(err(
            game.line,
            format!(
                "the movetext has {} moves, fewer than the Opening tag's {}",
                moves.len(),
                opening.moves.len()
            ),
        ));
    }
    let seat = |player: usize| pos.seat_of(player);
    let (termination, detail) = match pos.result() {
        Some(end) => {
            let reached = match end.winner {
                None => Outcome::Draw,
                Some(side) if pos.player_on(side) == 0 => Outcome::Win,
                Some(_) => Outcome::Loss,
            };
            if reached != result {
                return Err(err(
                    tag_line("Result"),
                    format!(
                        "the moves end the game {reached} ({}-{}) but the Result tag says {result}",
                        pos.store(seat(0)),
                        pos.store(seat(1))
                    ),
                ));
            }
            (Termination::Normal, end.end.to_string())
        }
        None => (
            Termination::Adjudicated,
            "the movetext stops before the end of the game (resigned, agreed or cut short)"
                .to_string(),
        ),
    };
    let row = GameRow {
        game_id,
        pair_id: game_id,
        first: game.white.clone(),
        second: game.black.clone(),
        rules: ruleset,
        opening,
        result,
        score_first: pos.store(seat(0)),
        score_second: pos.store(seat(1)),
        sows: pos.sows(),
        termination,
        detail,
        ..GameRow::blank()
    };
    Ok(Some(PgnRecord {
        record: GameRecord {
            row,
            think_ms: vec![0; movers.len()],
            moves,
            movers,
            cpu_ms: Vec::new(),
            random: Vec::new(),
        },
        elos: [game.white_elo, game.black_elo],
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run_folder::pgn_in::parse_pgn;

    fn record(text: &str, rules: Option<&str>) -> Result<Option<PgnRecord>, PgnGameError> {
        let games = parse_pgn(text, "g.pgn").unwrap();
        pgn_record(&games[0], 7, rules.map(|r| r.parse().unwrap()))
    }

    const HEAD: &str = "[White \"ann\"]\n[Black \"bob\"]\n";

    #[test]
    fn a_hand_written_game_replays() {
        // Kalah(3,1): south sows pit 3 into its store (extra turn), then pit 2 ... The game as
        // worked by hand: 3 (store, extra turn), 2 (lands in pit 3, now empty after sowing:
        // captures north's pit 1 opposite: 1 + 1 = 2 to south's store), north has pits 2, 3
        // left with one seed each; north sows 3 (into its store, extra turn), then 2 (pit 3,
        // empty: captures south's pit 1, 1 + 1 = 2). South has no seeds: the game ends 3-3.
        let text = format!(
            "{HEAD}[Result \"1/2-1/2\"]\n[Variant \"kalah:pits=3,seeds=1\"]\n[WhiteElo \"1450\"]\n\n1. 3 2 2. 3 2 1/2-1/2\n"
        );
        let r = record(&text, None).unwrap().unwrap();
        assert_eq!(r.elos, [Some(1450.0), None]);
        let row = &r.record.row;
        assert_eq!((row.score_first, row.score_second), (3, 3));
        assert_eq!(row.termination, Termination::Normal);
        assert_eq!(r.record.movers, [0, 0, 1, 1]);
        assert_eq!((row.game_id, row.first.as_str()), (7, "ann"));
    }

    #[test]
    fn rules_from_the_flag_and_unfinished_games() {
        let text = format!("{HEAD}[Result \"1-0\"]\n[Variant \"Kalah\"]\n\n1. 3 1-0\n");
        let r = record(&text, Some("kalah:seeds=3")).unwrap().unwrap();
        assert_eq!(r.record.row.termination, Termination::Adjudicated);
        assert_eq!(r.record.row.rules.seeds(), 3);
        let text = format!("{HEAD}[Result \"*\"]\n[Variant \"kalah\"]\n\n1. 3 *\n");
        assert_eq!(record(&text, None).unwrap(), None);
    }

    #[test]
    fn errors_name_file_line_and_ply() {
        let e = |text: String, rules: Option<&str>| record(&text, rules).unwrap_err().to_string();
        let head = format!("{HEAD}[Result \"1-0\"]\n[Variant \"kalah\"]\n\n");
        assert_eq!(
            e(format!("{head}1. 3 1\n2. d4 1-0\n"), None),
            "g.pgn:7: ply 3: `d4` is not a move in the arena's notation (a pit number 1..6 of \
             the mover's side, or swap)"
        );
        assert_eq!(
            e(format!("{head}1. 3 1\n2. 9 1-0\n"), None),
            "g.pgn:7: ply 3: illegal move `9`: pit number out of range (pits are 1..=6)"
        );
        assert_eq!(
            e(format!("{head}1. 3 3\n1-0\n"), None),
            "g.pgn:6: ply 2: illegal move `3`: the pit is empty"
        );
        let text = format!("{HEAD}[Result \"1-0\"]\n[Variant \"oware-ish\"]\n\n1. 3 1-0\n");
        assert!(
            e(text, None).starts_with("g.pgn:4: unknown variant \"oware-ish\""),
            "unknown variant"
        );
        assert_eq!(
            e(format!("{HEAD}[Result \"1-0\"]\n\n1. 3 1-0\n"), None),
            "g.pgn:1: no Variant tag: give the ruleset with --rules (e.g. --rules kalah:seeds=4)"
        );
        // The hand-worked game above is a draw, not a win.
        let text = format!(
            "{HEAD}[Result \"1-0\"]\n[Variant \"kalah:pits=3,seeds=1\"]\n\n1. 3 2 2. 3 2 1-0\n"
        );
        assert_eq!(
            e(text, None),
            "g.pgn:3: the moves end the game 1/2-1/2 (3-3) but the Result tag says 1-0"
        );
        let text = format!(
            "{HEAD}[Result \"1-0\"]\n[Variant \"kalah:pits=3,seeds=1\"]\n\n1. 3 2 2. 3 2 1 1-0\n"
        );
        assert_eq!(
            e(text, None),
            "g.pgn:6: ply 5: `1` after the end of the game"
        );
        let text = format!(
            "{HEAD}[Result \"1-0\"]\n[Variant \"kalah\"]\n[Opening \"3 1\"]\n\n1. 3 2 1-0\n"
        );
        assert_eq!(
            e(text, None),
            "g.pgn:7: ply 2: `2` but the Opening tag's move 2 is `1`"
        );
    }
}
