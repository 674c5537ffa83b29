//! [`Position`]: what the referee, the CLI and the bots play on. A [`Board`] plus, for Oware, the
//! positions since the last capture (the repetition rule). For Kalah and Congkak the history is
//! an empty `Vec` that never allocates, and every call goes straight to the `Board`.

use super::board::Board;
use super::kalah::{kalah_move_n, nonzero_bytes, row_n, sweep_n, KalahFlags};
use super::oware::{rep_key, RepStack};
use super::ruleset::{GameKind, Ruleset};
use super::{GameResult, IllegalMove, Move, MoveList, Side};

/// A game in progress or finished, of any ruleset. See the module docs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) board: Board,
    /// Oware: repetition keys of the positions since the last capture (or the start), not
    /// including the current one. Always empty for the other games.
    pub(crate) history: Vec<u128>,
}

impl Position {
    /// The start position of `ruleset`, South to move.
    pub fn new(ruleset: Ruleset) -> Position {
        Position {
            board: Board::new(ruleset),
            history: Vec::new(),
        }
    }

    /// The `Copy` board (all the state except Oware's repetition history).
    #[inline]
    pub fn board(&self) -> &Board {
        &self.board
    }

    pub fn ruleset(&self) -> Ruleset {
        self.board.ruleset
    }

    /// The side to move; `None` once the game is over.
    #[inline]
    pub fn to_move(&self) -> Option<Side> {
        self.board.mover
    }

    #[inline]
    pub fn is_over(&self) -> bool {
        self.board.is_over()
    }

    #[inline]
    pub fn legal_moves(&self) -> MoveList {
        self.board.legal_moves()
    }

    pub fn is_legal(&self, mv: Move) -> bool {
        self.board.is_legal(mv)
    }

    /// Plays `mv`, or returns why it is illegal and leaves the position unchanged.
    pub fn play(&mut self, mv: Move) -> Result<(), IllegalMove> {
        match self.board.illegal_reason(mv) {
            Some(reason) => Err(IllegalMove { mv, reason }),
            None => {
                self.play_unchecked(mv);
                Ok(())
            }
        }
    }

    /// Plays a legal move without checking it (search on generated moves).
    #[inline]
    pub fn play_unchecked(&mut self, mv: Move) {
        match (self.board.ruleset.kind(), mv) {
            (GameKind::Oware, Move::Pit(k)) => {
                self.board
                    .play_oware(k as usize - 1, Some(&mut self.history));
                if self.board.is_over() {
                    self.history.clear();
                }
            }
            _ => self.board.play_unchecked(mv),
        }
    }

    /// `side`'s pits 1..N in that side's own numbering.
    #[inline]
    pub fn pits(&self, side: Side) -> &[u8] {
        self.board.pits(side)
    }

    /// Seeds in `side`'s store (Oware: captured seeds).
    #[inline]
    pub fn store(&self, side: Side) -> u32 {
        self.board.store(side)
    }

    /// Sows so far (extra-turn sows count, `swap` does not).
    pub fn sows(&self) -> u32 {
        self.board.sows
    }

    /// The final result, once the game is over.
    pub fn result(&self) -> Option<GameResult> {
        self.board.result()
    }

    /// Whether the pie rule's `swap` was played (the players exchanged seats).
    pub fn swapped(&self) -> bool {
        self.board.swapped()
    }

    /// Which player sits on `side` now: 0 the game's first, 1 the second ([`crate::seating`]).
    pub fn player_on(&self, side: Side) -> usize {
        *crate::seating(self.swapped()).get(side)
    }

    /// The seat of `player` (0 the game's first, 1 the second) now ([`crate::seating`]).
    pub fn seat_of(&self, player: usize) -> Side {
        if self.player_on(Side::South) == player {
            Side::South
        } else {
            Side::North
        }
    }

    /// A 64-bit key for transposition tables (see [`Board::hash_key`]). The Oware repetition
    /// history is not part of it.
    #[inline]
    pub fn hash_key(&self) -> u64 {
        self.board.hash_key()
    }

    /// Oware: how many earlier positions since the last capture the repetition rule remembers.
    pub fn repetition_history_len(&self) -> usize {
        self.history.len()
    }

    pub(crate) fn current_rep_key(&self) -> u128 {
        rep_key(&self.board)
    }
}

/// The number of distinct move sequences of length `depth` from `pos` (each sow is a move, and so
/// is `swap`; a finished game has no moves). Make/unmake by copy: Kalah and Congkak recurse on
/// the `Copy` [`Board`], Oware on a `Board` and one repetition history stack for the whole search.
pub fn perft(pos: &Position, depth: u32) -> u64 {
    let b = &pos.board;
    // Kalah without the pie rule (no `swap` to count) and up to 7 pits: the board in a register
    // pair, the move generator and the move for the pit count (and for standard Kalah with a sow
    // cap the search cannot reach) as constants, chosen once here, not at every node.
    macro_rules! kalah {
        ($std:literal) => {{
            let k = KalahPerft {
                flags: KalahFlags::of(&b.ruleset),
                sow_cap: b.ruleset.sow_cap(),
            };
            let cells = b.low_cells();
            match (b.mover, b.ruleset.pits()) {
                (None, _) => 0,
                (Some(side), 1) => perft_kalah::<1, $std>(&k, cells, side.index(), b.sows, depth),
                (Some(side), 2) => perft_kalah::<2, $std>(&k, cells, side.index(), b.sows, depth),
                (Some(side), 3) => perft_kalah::<3, $std>(&k, cells, side.index(), b.sows, depth),
                (Some(side), 4) => perft_kalah::<4, $std>(&k, cells, side.index(), b.sows, depth),
                (Some(side), 5) => perft_kalah::<5, $std>(&k, cells, side.index(), b.sows, depth),
                (Some(side), 6) => perft_kalah::<6, $std>(&k, cells, side.index(), b.sows, depth),
                (Some(side), 7) => perft_kalah::<7, $std>(&k, cells, side.index(), b.sows, depth),
                _ => perft_board(b, depth),
            }
        }};
    }
    match b.ruleset.kind() {
        GameKind::Oware => {
            let mut stack = pos.history.clone();
            perft_oware(b, &mut stack, 0, depth)
        }
        // No sow of the search can reach the cap: the standard instance does not count sows.
        GameKind::Kalah
            if depth > 0
                && b.ruleset.is_standard_kalah()
                && u64::from(b.sows) + u64::from(depth) < u64::from(b.ruleset.sow_cap()) =>
        {
            kalah!(true)
        }
        GameKind::Kalah if depth > 0 && !b.ruleset.pie() => kalah!(false),
        _ => perft_board(b, depth),
    }
}

/// [`perft_board`] for Kalah with `N` pits (up to 7) and no pie rule, `depth >= 1`, from a
/// position that is not over: side `s` to move after `sows` sows, the low word of the cells in
/// `cells`. Every move, the leaves' included, is played in full by [`kalah_move_n`] (sow,
/// capture, end and sweep; the sow count and cap too unless `STD`), the same code as
/// [`Board::play_kalah_n`]. `STD`: standard Kalah and a sow cap beyond the search. The moves are
/// the set bits of the mover's non-empty pit mask, in increasing order. The nodes one ply above
/// the leaves play their leaves in the parent's loop ([`kalah_leaves`] inlined), not in a call.
fn perft_kalah<const N: usize, const STD: bool>(
    k: &KalahPerft,
    cells: u128,
    s: usize,
    sows: u32,
    depth: u32,
) -> u64 {
    if depth == 1 {
        return kalah_leaves::<N, STD>(k, cells, s, sows);
    }
    let row = row_n::<N>(cells, s);
    let mut pits = nonzero_bytes(row);
    let mut nodes = 0;
    while pits != 0 {
        let (c, next) = kalah_perft_move::<N, STD>(k, cells, s, row, sows, pits);
        if next != OVER {
            let next = next as usize;
            nodes += if depth == 2 {
                kalah_leaves::<N, STD>(k, c, next, sows + 1)
            } else {
                perft_kalah::<N, STD>(k, c, next, sows + 1, depth - 1)
            };
        }
        pits &= pits - 1;
    }
    nodes
}

/// The last ply of [`perft_kalah`]: every move played in full, not bulk-counted; `black_box`
/// keeps each leaf's board (like the C program's compiler barrier). Returns the number of moves.
#[inline(always)]
fn kalah_leaves<const N: usize, const STD: bool>(
    k: &KalahPerft,
    cells: u128,
    s: usize,
    sows: u32,
) -> u64 {
    let row = row_n::<N>(cells, s);
    let mut pits = nonzero_bytes(row);
    let count = pits.count_ones() as u64;
    while pits != 0 {
        let child = kalah_perft_move::<N, STD>(k, cells, s, row, sows, pits);
        std::hint::black_box(&child);
        pits &= pits - 1;
    }
    count
}

/// The side to move after a move of [`perft_kalah`] that ended the game.
const OVER: u8 = 2;

/// One move of [`perft_kalah`] in full: the cells after the move from the lowest pit in `pits`
/// (side `s`, its own row in `row`) and the side to move next (0 or 1), [`OVER`] once the game
/// is over.
#[inline(always)]
fn kalah_perft_move<const N: usize, const STD: bool>(
    k: &KalahPerft,
    cells: u128,
    s: usize,
    row: u64,
    sows: u32,
    pits: u32,
) -> (u128, u8) {
    let i = pits.trailing_zeros() as usize;
    let seeds = row.to_le_bytes()[i & 7] as usize;
    let (mut c, next, end) = kalah_move_n::<N, STD>(cells, s, i, seeds, sows == 0, k.flags);
    if end.is_some() {
        return (c, OVER);
    }
    if !STD && sows + 1 >= k.sow_cap {
        if k.flags.sweep {
            c = sweep_n::<N>(c);
        }
        return (c, OVER);
    }
    (c, next as u8)
}

/// What the Kalah perft reads of the ruleset, once.
struct KalahPerft {
    flags: KalahFlags,
    sow_cap: u32,
}

fn perft_board(b: &Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = b.legal_moves();
    if depth == 1 {
        // The leaves are played, not bulk-counted; `black_box` keeps the optimiser from
        // dropping a move whose result nobody reads.
        for &mv in moves.iter() {
            let mut child = *b;
            child.play_unchecked(mv);
            std::hint::black_box(&child);
        }
        return moves.len() as u64;
    }
    let mut nodes = 0;
    for &mv in moves.iter() {
        let mut child = *b;
        child.play_unchecked(mv);
        nodes += perft_board(&child, depth - 1);
    }
    nodes
}

/// Oware's perft: make/unmake on one repetition history stack (a cloned `Position` per node
/// used to allocate its history). The node's history is `stack[start..]`.
fn perft_oware(b: &Board, stack: &mut Vec<u128>, start: usize, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut nodes = 0;
    for &mv in b.legal_moves().iter() {
        let Move::Pit(k) = mv else {
            unreachable!("oware has no pie rule")
        };
        let len = stack.len();
        let mut child = *b;
        let mut history = RepStack {
            entries: stack,
            start,
        };
        child.play_oware(k as usize - 1, Some(&mut history));
        let child_start = history.start;
        nodes += perft_oware(&child, stack, child_start, depth - 1);
        stack.truncate(len);
    }
    nodes
}

/// The plain perft: a cloned `Position` per node. The reference the faster ones are tested
/// against.
#[cfg(test)]
fn perft_position(p: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = p.legal_moves();
    let mut nodes = 0;
    for &mv in moves.iter() {
        let mut child = p.clone();
        child.play_unchecked(mv);
        nodes += perft_position(&child, depth - 1);
    }
    nodes
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Positions a few random moves into a game (xorshift, so no dependency), Oware ones with a
    /// repetition history.
    fn random_positions(ruleset: Ruleset, count: usize, plies: u32) -> Vec<Position> {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut out = Vec::new();
        while out.len() < count {
            let mut p = Position::new(ruleset);
            for _ in 0..plies {
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                p.play_unchecked(moves[(x % moves.len() as u64) as usize]);
            }
            out.push(p);
        }
        out
    }

    #[test]
    fn fast_perfts_match_the_cloning_perft() {
        let cases = [
            ("kalah", 5),
            ("kalah:pits=3,seeds=2", 7),
            ("kalah:pits=7,seeds=8", 4),
            ("kalah:empty_capture=true,end_on_no_move=true,sweep=none", 5),
            ("kalah:pits=4,seeds=5,first_extra_turn=false", 5),
            ("kalah:pie=true", 5),
            ("oware", 5),
            ("oware:seeds=5", 4),
            ("congkak:holes=5", 4),
        ];
        for (spec, depth) in cases {
            let r: Ruleset = spec.parse().unwrap();
            for plies in [0, 3, 12, 40] {
                for p in random_positions(r, 8, plies) {
                    assert_eq!(
                        perft(&p, depth),
                        perft_position(&p, depth),
                        "{spec} {}",
                        p.to_state_string()
                    );
                }
            }
        }
    }

    #[test]
    fn pit_mask_matches_legal_moves() {
        macro_rules! check {
            ($n:literal, $p:expr) => {{
                let b = &$p.board;
                let side = b.mover.unwrap();
                let mask = b.pit_mask_n::<$n>(side);
                let from_moves = b.legal_moves().iter().fold(0u32, |m, mv| match mv {
                    Move::Pit(k) => m | 1 << (k - 1),
                    Move::Swap => m,
                });
                assert_eq!(mask, from_moves, "{}", $p.to_state_string());
            }};
        }
        for n in 1..=7u8 {
            let r = Ruleset::kalah(n, 8);
            for plies in [0, 1, 5, 20, 60] {
                for p in random_positions(r, 20, plies) {
                    if p.is_over() {
                        continue;
                    }
                    match n {
                        1 => check!(1, p),
                        2 => check!(2, p),
                        3 => check!(3, p),
                        4 => check!(4, p),
                        5 => check!(5, p),
                        6 => check!(6, p),
                        _ => check!(7, p),
                    }
                }
            }
        }
    }

    /// rules.md, `pie`: after the first player's first turn the second may answer `swap` and
    /// take over the first player's side and position; the first player, now North, moves next.
    #[test]
    fn a_swap_exchanges_the_seats_and_nothing_else_does() {
        let mut pos = Position::new("kalah:pie=true".parse().unwrap());
        let seated = |pos: &Position| {
            let players = [pos.player_on(Side::South), pos.player_on(Side::North)];
            (players, [pos.seat_of(0), pos.seat_of(1)])
        };
        let unswapped = ([0, 1], [Side::South, Side::North]);
        assert_eq!(seated(&pos), unswapped);
        // Pit 1's four seeds go to pits 2..5: no extra turn, North's first turn, swap legal.
        pos.play(Move::Pit(1)).unwrap();
        assert_eq!(seated(&pos), unswapped);
        assert!(pos.is_legal(Move::Swap));
        pos.play(Move::Swap).unwrap();
        assert_eq!(seated(&pos), ([1, 0], [Side::North, Side::South]));
        // The second player holds the position the first player made, and the first moves.
        assert_eq!(pos.pits(Side::South), [0, 5, 5, 5, 5, 4]);
        assert_eq!(pos.to_move(), Some(Side::North));
        assert_eq!(pos.player_on(Side::North), 0);
        // Later sows keep the seating.
        pos.play(Move::Pit(1)).unwrap();
        assert_eq!(seated(&pos), ([1, 0], [Side::North, Side::South]));
    }

    #[test]
    fn declining_the_swap_keeps_the_seats_for_the_whole_game() {
        let mut pos = Position::new("kalah:pits=4,seeds=3,pie=true".parse().unwrap());
        while let Some(mv) = pos.legal_moves().iter().copied().find(|&m| m != Move::Swap) {
            assert!(!pos.swapped());
            assert_eq!(
                (pos.player_on(Side::South), pos.seat_of(1)),
                (0, Side::North)
            );
            pos.play(mv).unwrap();
        }
        assert!(pos.is_over());
        assert_eq!(crate::seating(false), crate::BySide::new(0, 1));
        assert_eq!(crate::seating(true), crate::BySide::new(1, 0));
    }
}
