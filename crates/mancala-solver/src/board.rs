//! The solver's own Kalah board: pits only, from the mover's point of view.
//!
//! Why not the rules engine's `Board`: the solver values a position by the *future* store gain
//! (mover minus opponent) under perfect play, so the stores, the seat and the sow count are not
//! part of the state. Two positions with the same pit contents and the same player to move then
//! have the same value whatever the stores hold, which is what makes the transposition table and
//! the endgame databases work (a position key is exactly its 16 pit bytes, no hashing collisions).
//!
//! Layout: `c[0..n]` are the mover's pits 1..n, `c[8..8+n]` the opponent's pits 1..n (their own
//! numbering), the other bytes stay 0. Passing the turn swaps the two halves, i.e. rotates the
//! `u128` key by 64 bits. The test module checks this board against the rules engine sow by sow.

use mancala_rules::{Board, GameKind, Ruleset, Sweep};

/// The Kalah rules that matter to the solver (pits per side and the variants). Seeds per pit do
/// not matter: the value of a position only depends on its pits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BoardSpec {
    pub pits: usize,
    pub empty_capture: bool,
    /// `sweep=owner` (true, the default) or `sweep=none`.
    pub sweep: bool,
    pub end_on_no_move: bool,
}

/// Whether `value` can be the exact value (mover's future gain) of a position with `seeds` seeds
/// in the pits under `spec`: the mover cannot gain more than every seed in play, nor lose more;
/// and with `sweep=owner` every one of them ends in a store, so the two gains add up to `seeds`
/// and their difference has its parity. Every value read from a file (database entry, value
/// cache) and every search result is held to it.
#[inline(always)]
pub fn plausible(spec: &BoardSpec, seeds: i32, value: i32) -> bool {
    value.abs() <= seeds && (!spec.sweep || (value - seeds) & 1 == 0)
}

impl BoardSpec {
    /// The solver's view of a ruleset, or why it cannot solve it. The sow cap is ignored (Kalah
    /// games are finite and far shorter than the default cap of 400 sows: every sow either puts
    /// a seed into a store or moves seeds toward the mover's store), and the pie rule is handled
    /// per position (a position where `swap` is legal is refused, see [`BoardSpec::board_of`]).
    pub fn from_ruleset(r: &Ruleset) -> Result<BoardSpec, String> {
        if r.kind() != GameKind::Kalah {
            return Err(format!(
                "the solver only solves Kalah, not {} (bots fall back to alpha-beta)",
                r.kind()
            ));
        }
        if r.pits() > 8 {
            return Err("the solver supports at most 8 pits per side".into());
        }
        Ok(BoardSpec {
            pits: r.pits(),
            empty_capture: r.empty_capture(),
            sweep: r.sweep() == Sweep::Owner,
            end_on_no_move: r.end_on_no_move(),
        })
    }

    /// A short file-name-safe tag, used for database file names.
    pub fn tag(&self) -> String {
        format!(
            "kalah-n{}-ec{}-sw{}-eonm{}",
            self.pits, self.empty_capture as u8, self.sweep as u8, self.end_on_no_move as u8
        )
    }

    /// The solver board of a rules-engine board, with the store difference so far from the
    /// mover's view. `None` when the game is over, `swap` is legal (pie rule) or the first sow
    /// earns no extra turn (`first_extra_turn=false`): the solver only values ordinary positions.
    pub fn board_of(&self, b: &Board) -> Option<(SBoard, i32)> {
        let side = b.to_move()?;
        if b.legal_moves().contains(&mancala_rules::Move::Swap) {
            return None;
        }
        // With `first_extra_turn=false` the game's first sow follows another rule than the
        // solver's; every later position is an ordinary one.
        if b.sows() == 0 && !b.ruleset().first_extra_turn() {
            return None;
        }
        let mut c = [0u8; 16];
        c[..self.pits].copy_from_slice(b.pits(side));
        c[8..8 + self.pits].copy_from_slice(b.pits(side.other()));
        let diff = b.store(side) as i32 - b.store(side.other()) as i32;
        Some((SBoard { c }, diff))
    }

    /// The start position of Kalah(pits, seeds).
    pub fn start(&self, seeds: u8) -> SBoard {
        let mut c = [0u8; 16];
        c[..self.pits].fill(seeds);
        c[8..8 + self.pits].fill(seeds);
        SBoard { c }
    }
}

/// Pits from the mover's view; see the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct SBoard {
    pub c: [u8; 16],
}

/// What one sow does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Sow {
    /// The board after the sow, from the view of whoever moves next (all zero when `over`).
    pub next: SBoard,
    /// Seeds the mover gained relative to the opponent by this sow: store seeds, captures, and
    /// at a game end the sweep (mover's pits minus the opponent's).
    pub gain: i32,
    /// The mover moves again (last seed in the own store and the game goes on).
    pub extra: bool,
    /// The game ended with this sow.
    pub over: bool,
}

impl SBoard {
    /// The exact key: the 16 pit bytes.
    #[inline(always)]
    pub fn key(&self) -> u128 {
        u128::from_le_bytes(self.c)
    }

    #[inline(always)]
    pub fn from_key(k: u128) -> SBoard {
        SBoard { c: k.to_le_bytes() }
    }

    /// Seeds still in the pits.
    #[inline(always)]
    pub fn seeds(&self) -> i32 {
        let k = self.key();
        let (a, b) = (k as u64, (k >> 64) as u64);
        (byte_sum(a) + byte_sum(b)) as i32
    }

    /// The same pits with the other player to move.
    #[inline(always)]
    pub fn flipped(&self) -> SBoard {
        SBoard::from_key(self.key().rotate_left(64))
    }

    /// Seeds in the mover's pits.
    #[inline(always)]
    pub fn mover_seeds(&self) -> i32 {
        byte_sum(self.key() as u64) as i32
    }

    /// Whether the mover has a legal move (a non-empty pit).
    #[inline(always)]
    pub fn mover_can_move(&self) -> bool {
        self.key() as u64 != 0
    }

    /// Plays the mover's pit `i` (0-based, non-empty) under `spec`.
    #[inline]
    pub fn sow(&self, spec: &BoardSpec, i: usize) -> Sow {
        let n = spec.pits;
        let mut c = self.c;
        let s = c[i] as usize;
        debug_assert!(s > 0 && i < n);
        c[i] = 0;
        let l = 2 * n + 1;
        let mut gain = 0i32;
        let (laps, rem) = if s >= l { (s / l, s % l) } else { (0, s) };
        if laps > 0 {
            let lp = laps as u8;
            for j in 0..n {
                c[j] += lp;
                c[8 + j] += lp;
            }
            gain += laps as i32;
        }
        // Walk the rest of the seeds along the path: mover's pits, store (p = n), opponent's pits.
        let mut p = i;
        for _ in 0..rem {
            p += 1;
            if p == l {
                p = 0;
            }
            if p < n {
                c[p] += 1;
            } else if p == n {
                gain += 1;
            } else {
                c[8 + p - n - 1] += 1;
            }
        }
        let extra = p == n;
        if p < n && c[p] == 1 {
            // Last seed in an own pit that was empty: capture (rule 4 / empty_capture).
            let o = 8 + n - 1 - p;
            if c[o] != 0 || spec.empty_capture {
                gain += c[o] as i32 + 1;
                c[p] = 0;
                c[o] = 0;
            }
        }
        let b = SBoard { c };
        let mine = b.key() as u64;
        let theirs = (b.key() >> 64) as u64;
        let over = if spec.end_on_no_move {
            if extra {
                mine == 0
            } else {
                theirs == 0
            }
        } else {
            mine == 0 || theirs == 0
        };
        if over {
            if spec.sweep {
                gain += byte_sum(mine) as i32 - byte_sum(theirs) as i32;
            }
            return Sow {
                next: SBoard::default(),
                gain,
                extra: false,
                over: true,
            };
        }
        Sow {
            next: if extra { b } else { b.flipped() },
            gain,
            extra,
            over: false,
        }
    }

    /// The mover's legal moves as 0-based pit indices (a bit mask).
    #[inline(always)]
    pub fn moves_mask(&self, spec: &BoardSpec) -> u8 {
        let mut m = 0u8;
        for i in 0..spec.pits {
            if self.c[i] != 0 {
                m |= 1 << i;
            }
        }
        m
    }
}

#[inline(always)]
fn byte_sum(x: u64) -> u32 {
    // Pits hold at most 2·8·8 = 128 seeds and the sum of 8 of them fits in 16 bits.
    let pairs = (x & 0x00ff_00ff_00ff_00ff) + ((x >> 8) & 0x00ff_00ff_00ff_00ff);
    let quads = (pairs & 0x0000_ffff_0000_ffff) + ((pairs >> 16) & 0x0000_ffff_0000_ffff);
    ((quads & 0xffff_ffff) + (quads >> 32)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_rules::{Move, Position};
    use rand::{Rng, SeedableRng};

    /// Plays random games with the rules engine and the solver board side by side: the value
    /// accounting (store difference + gains) and the pits must agree after every sow.
    fn cross_check(rules: &str, games: usize) {
        let ruleset: Ruleset = rules.parse().unwrap();
        let spec = BoardSpec::from_ruleset(&ruleset).unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for _ in 0..games {
            let mut pos = Position::new(ruleset);
            while !pos.is_over() {
                let (sb, diff) = spec.board_of(pos.board()).unwrap();
                let mover = pos.to_move().unwrap();
                let moves = pos.legal_moves();
                let mv = moves[rng.gen_range(0..moves.len())];
                let Move::Pit(k) = mv else { unreachable!() };
                let sow = sb.sow(&spec, k as usize - 1);
                pos.play(mv).unwrap();
                let after = pos.store(mover) as i32 - pos.store(mover.other()) as i32;
                assert_eq!(diff + sow.gain, after, "{rules}: gain of {mv}");
                assert_eq!(sow.over, pos.is_over(), "{rules}: end after {mv}");
                if !sow.over {
                    let next = pos.to_move().unwrap();
                    assert_eq!(sow.extra, next == mover);
                    let (nb, _) = spec.board_of(pos.board()).unwrap();
                    assert_eq!(sow.next, nb, "{rules}: pits after {mv}");
                }
            }
        }
    }

    #[test]
    fn agrees_with_the_rules_engine() {
        for rules in [
            "kalah",
            "kalah:empty_capture=true",
            "kalah:pits=4,seeds=3",
            "kalah:pits=3,seeds=8",
            "kalah:pits=1,seeds=5",
            "kalah:pits=8,seeds=8",
            "kalah:pits=2,seeds=7,empty_capture=true",
            "kalah:sweep=none",
            "kalah:pits=4,seeds=4,end_on_no_move=true",
        ] {
            cross_check(rules, 200);
        }
    }

    #[test]
    fn seeds_and_flip() {
        let spec = BoardSpec::from_ruleset(&Ruleset::kalah(6, 4)).unwrap();
        let b = spec.start(4);
        assert_eq!(b.seeds(), 48);
        assert_eq!(b.mover_seeds(), 24);
        let mut c = b;
        c.c[0] = 9;
        assert_eq!(c.flipped().c[8], 9);
        assert_eq!(c.flipped().flipped(), c);
    }
}
