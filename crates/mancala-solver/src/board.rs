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

use mancala_rules::{Board, GameKind, Ruleset, Sweep, DEFAULT_SOW_CAP};

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

/// The most seeds a position the solver values may hold in its pits: every value and bound
/// lies in `[-seeds, +seeds]` and is kept in one signed byte (the TT, the value cache, the
/// databases), so 127. Only Kalah(8,8) (128 seeds) has positions above it.
pub const MAX_SEEDS: i32 = i8::MAX as i32;

/// Why the solver refuses a ruleset or a position: a rule it does not model, named in a
/// sentence. Why refuse: a value computed under other rules than the game's would be printed,
/// cached and played as proven.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unsupported(pub String);

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unsupported {}

/// The one check every user of the solver goes through (via [`BoardSpec::from_ruleset`]):
/// `Ok` when the solver's values are the game's under `r`, else the rule it does not model.
pub fn check_rules(r: &Ruleset) -> Result<(), Unsupported> {
    let no = |s: String| Err(Unsupported(s));
    if r.kind() != GameKind::Kalah {
        return no(format!(
            "the solver only solves Kalah, not {} (bots fall back to alpha-beta)",
            r.kind()
        ));
    }
    if r.pits() > 8 {
        return no("the solver supports at most 8 pits per side".into());
    }
    if r.pie() {
        return no(format!(
            "the solver does not model the pie rule (`pie=true` in {r}): the second player's \
             swap after the first turn is not in its values"
        ));
    }
    if r.sow_cap() < DEFAULT_SOW_CAP {
        return no(format!(
            "the solver does not model a sow cap below {DEFAULT_SOW_CAP} (`sow_cap={}` in {r}): \
             its values assume the game ends by the rules, never by the cap",
            r.sow_cap()
        ));
    }
    Ok(())
}

impl BoardSpec {
    /// The solver's view of a ruleset, or the rule it does not model ([`check_rules`]). A sow
    /// cap of 400 or more is taken as never reached (Kalah games are finite and, for the
    /// supported sizes, far shorter), and the rule `first_extra_turn=false` is handled per
    /// position ([`BoardSpec::board_of`]).
    pub fn from_ruleset(r: &Ruleset) -> Result<BoardSpec, Unsupported> {
        check_rules(r)?;
        Ok(BoardSpec {
            pits: r.pits(),
            empty_capture: r.empty_capture(),
            sweep: r.sweep() == Sweep::Owner,
            end_on_no_move: r.end_on_no_move(),
        })
    }

    /// Whether the solver values `b`: at most [`MAX_SEEDS`] seeds in its pits, else a sentence
    /// saying why not.
    pub fn check_board(b: &SBoard) -> Result<(), Unsupported> {
        if b.seeds() > MAX_SEEDS {
            return Err(Unsupported(format!(
                "the solver values positions with at most {MAX_SEEDS} seeds in the pits (its \
                 values are kept in one signed byte); this one has {}",
                b.seeds()
            )));
        }
        Ok(())
    }

    /// A short file-name-safe tag, used for database file names.
    pub fn tag(&self) -> String {
        format!(
            "kalah-n{}-ec{}-sw{}-eonm{}",
            self.pits, self.empty_capture as u8, self.sweep as u8, self.end_on_no_move as u8
        )
    }

    /// The solver board of a rules-engine board, with the store difference so far from the
    /// mover's view. `None` when the game is over, `swap` is legal (pie rule), the first sow
    /// earns no extra turn (`first_extra_turn=false`) or the pits hold more than
    /// [`MAX_SEEDS`]: the solver only values ordinary positions ([`BoardSpec::solver_board`]
    /// says why not).
    pub fn board_of(&self, b: &Board) -> Option<(SBoard, i32)> {
        self.solver_board(b).ok()
    }

    /// [`BoardSpec::board_of`], or a sentence saying why the solver does not value `b`.
    pub fn solver_board(&self, b: &Board) -> Result<(SBoard, i32), Unsupported> {
        let no = |s: &str| Err(Unsupported(s.into()));
        let Some(side) = b.to_move() else {
            return no("nothing to solve: the game is over");
        };
        if b.legal_moves().contains(&mancala_rules::Move::Swap) {
            return no("the solver does not value a position where `swap` is legal (pie rule)");
        }
        // With `first_extra_turn=false` the game's first sow follows another rule than the
        // solver's; every later position is an ordinary one.
        if b.sows() == 0 && !b.ruleset().first_extra_turn() {
            return no(
                "the solver does not value the first sow under `first_extra_turn=false`; \
                 play it and solve the position after it",
            );
        }
        let (board, diff) = self.pits_of(b, side);
        BoardSpec::check_board(&board)?;
        Ok((board, diff))
    }

    /// The pits of `b` from `side`'s view and its store difference, unchecked.
    fn pits_of(&self, b: &Board, side: mancala_rules::Side) -> (SBoard, i32) {
        let mut c = [0u8; 16];
        c[..self.pits].copy_from_slice(b.pits(side));
        c[8..8 + self.pits].copy_from_slice(b.pits(side.other()));
        let diff = b.store(side) as i32 - b.store(side.other()) as i32;
        (SBoard { c }, diff)
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
                // Unchecked: the sows of Kalah(8,8) hold 128 seeds, more than values may.
                let mover = pos.to_move().unwrap();
                let (sb, diff) = spec.pits_of(pos.board(), mover);
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
                    let (nb, _) = spec.pits_of(pos.board(), next);
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

    /// The one check every user of the solver goes through: rules it does not model are
    /// refused with a sentence naming the rule, and so are positions whose values do not fit
    /// its value type (Kalah(8,8) with all 128 seeds in the pits).
    #[test]
    fn unmodelled_rules_and_boards_are_refused_by_name() {
        let refused = |rules: &str| {
            let r: Ruleset = rules.parse().unwrap();
            BoardSpec::from_ruleset(&r).unwrap_err().to_string()
        };
        assert!(refused("kalah:pits=4,seeds=2,pie=true").contains("pie rule (`pie=true`"));
        assert!(refused("kalah:pits=4,seeds=2,sow_cap=1").contains("sow cap below 400"));
        assert!(refused("oware").contains("only solves Kalah"));
        for ok in [
            "kalah:sow_cap=400",
            "kalah:sow_cap=1000",
            "kalah:pits=8,seeds=8",
        ] {
            let r: Ruleset = ok.parse().unwrap();
            assert!(check_rules(&r).is_ok(), "{ok}");
        }
        let r = Ruleset::kalah(8, 8);
        let spec = BoardSpec::from_ruleset(&r).unwrap();
        let full = Board::new(r);
        let why = spec.solver_board(&full).unwrap_err().to_string();
        assert!(
            why.contains("at most 127 seeds") && why.contains("has 128"),
            "{why}"
        );
        assert!(spec.board_of(&full).is_none());
        let mut c = [0u8; 16];
        c[..8].fill(15);
        c[8] = 7;
        assert_eq!(BoardSpec::check_board(&SBoard { c }), Ok(()));
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
