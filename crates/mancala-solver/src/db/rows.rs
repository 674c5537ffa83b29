//! One side's rows (every way to put `s` seeds into the `n` pits of a side) and what each sow
//! does to its own row: the pieces the level builder (`build.rs`) works with.
//!
//! Why rows: a database position is two rows, the mover's and the opponent's, and a sow changes
//! the mover's row in a way that depends on that row alone, and the opponent's row by adding
//! seeds to its first pits (and, when the last seed captures, emptying one pit). So everything
//! about a sow except the capture is worked out once per row, not once per position.

#[cfg(test)]
use super::super::board::BoardSpec;
use super::super::board::SBoard;

/// The rows of sums `0..=max`, grouped by sum, each group in the order a database level lays
/// them out (lexicographic, pit 0 most significant, fewer seeds first).
pub(super) struct Rows {
    pub n: usize,
    /// First id of each sum; `offset[s + 1] - offset[s]` rows have sum `s`.
    offset: Vec<usize>,
    pits: Vec<[u8; 8]>,
    sums: Vec<u8>,
    /// `binom[a][b]` = C(a, b) for b ≤ 16.
    binom: Vec<[u64; 17]>,
}

impl Rows {
    pub fn new(n: usize, max: usize, binom: &[[u64; 17]]) -> Rows {
        let mut rows = Rows {
            n,
            offset: vec![0],
            pits: Vec::new(),
            sums: Vec::new(),
            binom: binom.to_vec(),
        };
        for s in 0..=max {
            let mut row = [0u8; 8];
            rows.push_all(s, 0, &mut row);
            rows.offset.push(rows.pits.len());
        }
        rows
    }

    /// Every row of sum `left` over pits `j..n` after `row[..j]`, in lexicographic order.
    fn push_all(&mut self, left: usize, j: usize, row: &mut [u8; 8]) {
        if j == self.n - 1 {
            row[j] = left as u8;
            self.pits.push(*row);
            let total: usize = row.iter().map(|&x| x as usize).sum();
            self.sums.push(total as u8);
            return;
        }
        for x in 0..=left {
            row[j] = x as u8;
            self.push_all(left - x, j + 1, row);
        }
        row[j] = 0;
    }

    /// Rows of sum `s`.
    #[inline(always)]
    pub fn count(&self, s: usize) -> usize {
        self.offset[s + 1] - self.offset[s]
    }

    /// The id of the `r`-th row of sum `s`.
    #[inline(always)]
    pub fn id(&self, s: usize, r: usize) -> usize {
        self.offset[s] + r
    }

    /// A row's place among the rows of its sum.
    #[inline(always)]
    pub fn rank_of_id(&self, id: usize) -> usize {
        id - self.offset[self.sums[id] as usize]
    }

    #[inline(always)]
    pub fn pits(&self, id: usize) -> &[u8; 8] {
        &self.pits[id]
    }

    #[inline(always)]
    pub fn sum(&self, id: usize) -> usize {
        self.sums[id] as usize
    }

    /// The id of the row `pits` (its first `n` bytes; the sum must be at most `max`).
    pub fn id_of(&self, pits: &[u8; 8]) -> usize {
        let s: usize = pits[..self.n].iter().map(|&x| x as usize).sum();
        let mut r = s;
        let mut idx = 0u64;
        for (j, &x) in pits[..self.n - 1].iter().enumerate() {
            let t = self.n - 1 - j;
            let x = x as usize;
            idx += self.binom[r + t][t] - self.binom[r - x + t][t];
            r -= x;
        }
        self.offset[s] + idx as usize
    }

    /// Ids of all rows whose sum is at most `max`.
    pub fn up_to(&self, max: usize) -> std::ops::Range<usize> {
        0..self.offset[max + 1]
    }
}

/// What sowing one pit does to the mover's own row; see the module docs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Mv {
    /// The mover's row after the sow, before a capture (an id of [`Rows`]).
    pub row: u32,
    /// Its place among the rows of its sum.
    pub rank: u32,
    /// The place of that row with the landing pit emptied among the rows of its sum, when the
    /// last seed may capture (`cand`).
    pub cap_rank: u32,
    /// Seeds sown into the mover's store (laps included).
    pub store: u8,
    /// The opponent's row gains `laps` seeds in every pit and one more in each of its first
    /// `r` pits: [`delta_id`]`(laps, r)`.
    pub delta: u8,
    /// Where the last seed fell: an own pit `0..n`, the store `n` (an extra turn), or the
    /// opponent's side `n + 1`.
    pub land: u8,
    /// The last seed fell into an own pit that was empty: a capture of the opposite pit (when
    /// that holds seeds, or always under `empty_capture`).
    pub cand: bool,
    /// Seeds in `row`.
    pub sum: u8,
}

/// The id of an opponent increment of `laps` seeds everywhere plus one in the first `r` pits.
#[inline(always)]
pub(super) fn delta_id(n: usize, laps: usize, r: usize) -> usize {
    laps * (n + 1) + r
}

/// The opponent's row `pits` after the increment `delta` (an id of [`delta_id`]).
#[inline(always)]
pub(super) fn add_delta(n: usize, pits: &[u8; 8], delta: usize) -> [u8; 8] {
    let (laps, r) = (delta / (n + 1), delta % (n + 1));
    let mut out = *pits;
    for (j, x) in out[..n].iter_mut().enumerate() {
        *x += laps as u8 + u8::from(j < r);
    }
    out
}

/// Sowing pit `i` (non-empty) of row `pits`, as [`SBoard::sow`] does it, split into the part
/// that depends on this row alone.
pub(super) fn sow_row(rows: &Rows, pits: &[u8; 8], i: usize) -> Mv {
    let n = rows.n;
    let l = 2 * n + 1;
    let mut c = *pits;
    let s = c[i] as usize;
    debug_assert!(s > 0 && i < n);
    c[i] = 0;
    let (laps, rem) = (s / l, s % l);
    for x in c[..n].iter_mut() {
        *x += laps as u8;
    }
    let (mut store, mut r) = (laps, 0);
    let mut p = i;
    for _ in 0..rem {
        p = if p + 1 == l { 0 } else { p + 1 };
        if p < n {
            c[p] += 1;
        } else if p == n {
            store += 1;
        } else {
            r += 1;
        }
    }
    let land = if p < n {
        p
    } else if p == n {
        n
    } else {
        n + 1
    };
    let cand = p < n && c[p] == 1;
    let row = rows.id_of(&c);
    let cap_rank = if cand {
        let mut z = c;
        z[p] = 0;
        rows.rank_of_id(rows.id_of(&z))
    } else {
        0
    };
    Mv {
        row: row as u32,
        rank: rows.rank_of_id(row) as u32,
        cap_rank: cap_rank as u32,
        store: store as u8,
        delta: delta_id(n, laps, r) as u8,
        land: land as u8,
        cand,
        sum: rows.sum(row) as u8,
    }
}

/// The sows of every row up to a sum, split into those that end in the store (an extra turn)
/// and the others.
pub(super) struct Moves {
    extra: Vec<Mv>,
    extra_at: Vec<u32>,
    flip: Vec<Mv>,
    flip_at: Vec<u32>,
}

impl Moves {
    pub fn new(rows: &Rows, max: usize) -> Moves {
        let mut m = Moves {
            extra: Vec::new(),
            extra_at: vec![0],
            flip: Vec::new(),
            flip_at: vec![0],
        };
        for id in rows.up_to(max) {
            let pits = *rows.pits(id);
            for i in (0..rows.n).filter(|&i| pits[i] != 0) {
                let mv = sow_row(rows, &pits, i);
                if mv.land as usize == rows.n {
                    m.extra.push(mv);
                } else {
                    m.flip.push(mv);
                }
            }
            m.extra_at.push(m.extra.len() as u32);
            m.flip_at.push(m.flip.len() as u32);
        }
        m
    }

    /// The sows of row `id` that end in the store.
    #[inline(always)]
    pub fn extra(&self, id: usize) -> &[Mv] {
        &self.extra[self.extra_at[id] as usize..self.extra_at[id + 1] as usize]
    }

    /// The other sows of row `id`: the opponent moves next (or the game ends).
    #[inline(always)]
    pub fn flip(&self, id: usize) -> &[Mv] {
        &self.flip[self.flip_at[id] as usize..self.flip_at[id + 1] as usize]
    }
}

/// The board of the mover's row `mine` and the opponent's row `theirs`.
pub(super) fn board(n: usize, mine: &[u8; 8], theirs: &[u8; 8]) -> SBoard {
    let mut c = [0u8; 16];
    c[..n].copy_from_slice(&mine[..n]);
    c[8..8 + n].copy_from_slice(&theirs[..n]);
    SBoard { c }
}

/// What [`SBoard::sow`] gives for the row sow `mv` against the opponent's row `theirs`: the
/// same gain, extra turn, end and next board, put together from the row's part. The tests
/// check it against `SBoard::sow`; the builder inlines the same steps.
#[cfg(test)]
pub(super) fn combine(
    rows: &Rows,
    spec: &BoardSpec,
    mv: &Mv,
    theirs: &[u8; 8],
) -> super::super::Sow {
    let n = rows.n;
    let mut mine = *rows.pits(mv.row as usize);
    let mut opp = add_delta(n, theirs, mv.delta as usize);
    let mut gain = mv.store as i32;
    let extra = mv.land as usize == n;
    if mv.cand {
        let o = n - 1 - mv.land as usize;
        if opp[o] != 0 || spec.empty_capture {
            gain += 1 + opp[o] as i32;
            mine[mv.land as usize] = 0;
            opp[o] = 0;
        }
    }
    let (m, t) = (
        mine[..n].iter().map(|&x| x as i32).sum::<i32>(),
        opp[..n].iter().map(|&x| x as i32).sum::<i32>(),
    );
    let over = if spec.end_on_no_move {
        if extra {
            m == 0
        } else {
            t == 0
        }
    } else {
        m == 0 || t == 0
    };
    if over {
        if spec.sweep {
            gain += m - t;
        }
        return super::super::Sow {
            next: SBoard::default(),
            gain,
            extra: false,
            over: true,
        };
    }
    super::super::Sow {
        next: if extra {
            board(n, &mine, &opp)
        } else {
            board(n, &opp, &mine)
        },
        gain,
        extra,
        over: false,
    }
}
