//! The game viewer's data: every position of a game, computed with the rules engine from its
//! `games.jsonl` record, so that the page only draws. The same [`GameView`] feeds the dashboard's
//! viewer (`arena serve`, one game per page) and the viewer embedded in `report.html` (the run's
//! games, up to [`REPORT_MAX_GAMES`]). The drawing is `assets/viewer.js`, the style
//! `assets/viewer.css`; this module writes no HTML apart from the data block.
//!
//! # Format (the JSON the page reads)
//! One object per game: `game_id`, `rules` (the ruleset string), `pits` (per side), `first`,
//! `second` (player names; the first player sits south unless the pie rule swapped the seats),
//! `result` (`1-0`, `0-1`, `1/2-1/2` from the first player's view), `score` (`[first, second]`),
//! `termination`, `detail`, `forfeit` (a name or null), `opening` (how many of the moves are the
//! opening's), `moves` (every move from the start position: pit numbers and `swap`), `sides`
//! (who made each move: 0 south, 1 north), `think_ms` (each move's think time, null in the
//! opening), `boards` (one more than `moves`: the start, then the position after each move, as
//! South's pits 1..n, South's store, North's pits 1..n, North's store), `to_move` (per board: 0
//! south, 1 north, null once over), `swapped` (per board: the seats are exchanged) and `error`
//! (why the replay stopped early, when the rules engine refused a move; null otherwise).

use serde::Serialize;

use crate::rules::Side;
use crate::run_folder::games::GameRecord;

/// At most this many games are embedded in `report.html` (the first ones by game id): about 3 KB
/// each, so the report stays a few megabytes. `arena serve` shows every game.
pub const REPORT_MAX_GAMES: usize = 1000;

/// The viewer's script and style sheet, served by `arena serve` and inlined in `report.html`.
pub const VIEWER_JS: &str = include_str!("assets/viewer.js");
pub const VIEWER_CSS: &str = include_str!("assets/viewer.css");

/// Every position of one game (see the module's Format section).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameView {
    pub game_id: u64,
    pub rules: String,
    pub pits: usize,
    pub first: String,
    pub second: String,
    pub result: String,
    pub score: [u32; 2],
    pub termination: String,
    pub detail: String,
    pub forfeit: Option<String>,
    pub opening: usize,
    pub moves: Vec<String>,
    pub sides: Vec<u8>,
    pub think_ms: Vec<Option<u64>>,
    pub boards: Vec<Vec<u32>>,
    pub to_move: Vec<Option<u8>>,
    pub swapped: Vec<bool>,
    pub error: Option<String>,
}

fn side_index(side: Side) -> u8 {
    match side {
        Side::South => 0,
        Side::North => 1,
    }
}

impl GameView {
    /// Replays `record` from its start position. A move the rules engine refuses (a damaged
    /// file) ends the replay there, with the reason in `error`.
    pub fn new(record: &GameRecord) -> GameView {
        let row = &record.row;
        let mut view = GameView {
            game_id: row.game_id,
            rules: row.rules.to_string(),
            pits: row.rules.pits(),
            first: row.first.clone(),
            second: row.second.clone(),
            result: row.result.to_string(),
            score: [row.score_first, row.score_second],
            termination: row.termination.to_string(),
            detail: row.detail.clone(),
            forfeit: row.forfeit.clone(),
            opening: row.opening.moves.len(),
            moves: Vec::with_capacity(record.moves.len()),
            sides: Vec::with_capacity(record.moves.len()),
            think_ms: Vec::with_capacity(record.moves.len()),
            boards: Vec::with_capacity(record.moves.len() + 1),
            to_move: Vec::with_capacity(record.moves.len() + 1),
            swapped: Vec::with_capacity(record.moves.len() + 1),
            error: None,
        };
        let mut pos = match row.opening.start(row.rules) {
            Ok(pos) => pos,
            Err(e) => {
                view.error = Some(format!("opening `{}`: {e}", row.opening));
                return view;
            }
        };
        let board = |pos: &crate::rules::Position| -> Vec<u32> {
            let mut b: Vec<u32> = pos.pits(Side::South).iter().map(|&c| c.into()).collect();
            b.push(pos.store(Side::South));
            b.extend(pos.pits(Side::North).iter().map(|&c| u32::from(c)));
            b.push(pos.store(Side::North));
            b
        };
        let push = |view: &mut GameView, pos: &crate::rules::Position| {
            view.boards.push(board(pos));
            view.to_move.push(pos.to_move().map(side_index));
            view.swapped.push(pos.swapped());
        };
        push(&mut view, &pos);
        let skip = view.opening;
        for (i, &mv) in record.moves.iter().enumerate() {
            let Some(side) = pos.to_move() else {
                view.error = Some(format!("move {} (`{mv}`) after the end of the game", i + 1));
                break;
            };
            if let Err(e) = pos.play(mv) {
                view.error = Some(format!("move {} (`{mv}`): {e}", i + 1));
                break;
            }
            view.moves.push(mv.to_string());
            view.sides.push(side_index(side));
            view.think_ms.push(
                i.checked_sub(skip)
                    .and_then(|k| record.think_ms.get(k).copied()),
            );
            push(&mut view, &pos);
        }
        view
    }
}

/// The games `report.html` embeds for its viewer: the first [`REPORT_MAX_GAMES`] by game id.
#[derive(Debug, Serialize)]
pub struct ViewerGames {
    pub games: Vec<GameView>,
    /// How many games the folder holds (more than `games.len()` past the cap).
    pub total: usize,
}

impl ViewerGames {
    pub fn new(records: &[GameRecord]) -> ViewerGames {
        let mut sorted: Vec<&GameRecord> = records.iter().collect();
        sorted.sort_by_key(|r| r.row.game_id);
        ViewerGames {
            games: sorted
                .into_iter()
                .take(REPORT_MAX_GAMES)
                .map(GameView::new)
                .collect(),
            total: records.len(),
        }
    }
}

/// JSON for a `<script type="application/json">` block: `<`, `>` and `&` written as `\u003c`,
/// `\u003e`, `\u0026`, so that no string in it (a bot named `</script>`) can end the block.
pub fn json_for_script<T: Serialize>(value: &T) -> String {
    let json = serde_json::to_string(value).unwrap_or_else(|_| "null".to_string());
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(opening: &str, moves: &[&str], think: &[u64]) -> GameRecord {
        let line = format!(
            r#"{{"game_id":3,"pair_id":1,"round":0,"first":"a","second":"</script><b>","rules":"kalah","opening":"{opening}","result":"1-0","score_first":30,"score_second":18,"sows":3,"termination":"normal","forfeit":"","detail":"","wall_ms":5,"first_think_ms":1,"first_max_ms":1,"second_think_ms":1,"second_max_ms":1,"moves":[{}],"think_ms":[{}]}}"#,
            moves
                .iter()
                .map(|m| format!("\"{m}\""))
                .collect::<Vec<_>>()
                .join(","),
            think
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(",")
        );
        GameRecord::from_line(line.as_bytes()).unwrap().unwrap()
    }

    #[test]
    fn every_position_of_a_game() {
        // Kalah(6,4): pit 3 ends in the store (extra turn for south), then pit 1, then north's 1.
        let view = GameView::new(&record("3", &["3", "1", "1"], &[10, 20]));
        assert_eq!(view.boards.len(), 4);
        assert_eq!(
            view.boards[0],
            vec![4, 4, 4, 4, 4, 4, 0, 4, 4, 4, 4, 4, 4, 0]
        );
        assert_eq!(
            view.boards[1],
            vec![4, 4, 0, 5, 5, 5, 1, 4, 4, 4, 4, 4, 4, 0]
        );
        assert_eq!(view.sides, vec![0, 0, 1]);
        assert_eq!(
            view.to_move[1],
            Some(0),
            "the extra turn keeps south to move"
        );
        assert_eq!(view.think_ms, vec![None, Some(10), Some(20)]);
        assert_eq!(view.opening, 1);
        assert!(view.error.is_none());
        for b in &view.boards {
            assert_eq!(b.iter().sum::<u32>(), 48, "seeds are conserved");
        }
    }

    #[test]
    fn a_refused_move_ends_the_replay_with_a_reason() {
        let mut rec = record("", &["3"], &[1]);
        rec.moves.push("9".parse().unwrap());
        let view = GameView::new(&rec);
        assert_eq!(view.boards.len(), 2);
        assert!(view.error.unwrap().contains("move 2"));
    }

    #[test]
    fn script_json_cannot_close_its_block() {
        let view = GameView::new(&record("", &["3"], &[1]));
        let json = json_for_script(&view);
        assert!(!json.contains("</script>") && !json.contains('<'));
        assert!(json.contains("\\u003c/script\\u003e\\u003cb\\u003e"));
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(back["second"], "</script><b>");
    }
}
