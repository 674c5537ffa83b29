//! The database built position by position, as the builder did before `build.rs`: each
//! position valued by plain recursion over its sows, same-level children first (memoised).
//! Slow and simple: the reference the block builder is compared with, entry by entry.

use super::super::board::{BoardSpec, SBoard};
use super::{binomials, UNKNOWN};

/// Levels `0..=max` of the database of `spec`.
pub(super) fn levels(spec: BoardSpec, max: usize) -> Vec<Vec<i8>> {
    let binom = binomials();
    let m = 2 * spec.pits;
    let mut levels: Vec<Vec<i8>> = Vec::new();
    for k in 0..=max {
        let mut cur = vec![UNKNOWN; binom[k + m - 1][m - 1] as usize];
        let mut cells = [0u8; 16];
        each(&spec, k, 0, &mut cells, &mut |b| {
            let terminal =
                !b.mover_can_move() || (!spec.end_on_no_move && (b.key() >> 64) as u64 == 0);
            if !terminal {
                value(&spec, &binom, &levels, &mut cur, b, k);
            }
        });
        levels.push(cur);
    }
    levels
}

/// Every position with `left` seeds over the pits from the `j`-th on.
fn each(spec: &BoardSpec, left: usize, j: usize, cells: &mut [u8; 16], f: &mut dyn FnMut(&SBoard)) {
    let n = spec.pits;
    let at = if j < n { j } else { 8 + j - n };
    if j == 2 * n - 1 {
        cells[at] = left as u8;
        f(&SBoard { c: *cells });
        return;
    }
    for x in 0..=left {
        cells[at] = x as u8;
        each(spec, left - x, j + 1, cells, f);
    }
    cells[at] = 0;
}

/// The index of `b` in its level (the combinatorial number system over the 2N pits).
pub(super) fn rank(spec: &BoardSpec, binom: &[[u64; 17]], b: &SBoard, k: usize) -> usize {
    let n = spec.pits;
    let m = 2 * n;
    let mut r = k;
    let mut idx = 0u64;
    for j in 0..m - 1 {
        let x = b.c[if j < n { j } else { 8 + j - n }] as usize;
        let t = m - 1 - j;
        idx += binom[r + t][t] - binom[r - x + t][t];
        r -= x;
    }
    idx as usize
}

/// The value of `b` (level `k`), valuing same-level children first.
fn value(
    spec: &BoardSpec,
    binom: &[[u64; 17]],
    lower: &[Vec<i8>],
    cur: &mut Vec<i8>,
    b: &SBoard,
    k: usize,
) -> i32 {
    let idx = rank(spec, binom, b, k);
    if cur[idx] != UNKNOWN {
        return cur[idx] as i32;
    }
    let mut best = i32::MIN;
    for i in (0..spec.pits).filter(|&i| b.c[i] != 0) {
        let s = b.sow(spec, i);
        let v = if s.over {
            s.gain
        } else {
            let ks = s.next.seeds() as usize;
            let cv = if ks < k {
                lower[ks][rank(spec, binom, &s.next, ks)] as i32
            } else {
                value(spec, binom, lower, cur, &s.next, k)
            };
            if s.extra {
                s.gain + cv
            } else {
                s.gain - cv
            }
        };
        best = best.max(v);
    }
    cur[idx] = best as i8;
    best
}
