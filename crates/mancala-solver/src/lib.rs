//! The exact Kalah solver (`arena solve`, `arena analyse`, the `solver` bot): perfect-play values
//! of Kalah(N,S) positions for every board size the rules engine supports and the variants
//! `empty_capture`, `sweep` and `end_on_no_move`.
//!
//! - `board.rs`: the solver's own board (pits only, mover's view), checked against the rules
//!   engine.
//! - `search.rs`: MTD(f) + alpha-beta with a bounds TT, prefetched enhanced transposition
//!   cutoffs.
//! - `db.rs`: endgame databases for positions with few seeds in the pits, cached on disk.
//! - `values.rs`: the value cache, positions proven before, kept on disk and shared.
//! - `book.rs`: books of positions solved offline and committed (Hard's opening book, the
//!   Kalah(6,5) openings book the value cache serves).
//! - `auto.rs` (what to use on this machine), `open.rs` (a solver ready with all of it).
//!
//! A *value* is always the final store difference the side to move can force from here on
//! (future gain); add the current store difference for the final margin. See docs/solved.md.
//!
//! Pure computation except [`db::Db::load_or_build`]'s cache file and `machine.rs`.

pub mod auto;
pub mod board;
pub mod book;
pub mod db;
mod machine;
pub use machine::{plan_games_here, setup_here};
pub mod open;
pub mod search;
pub mod split;
pub mod values;

pub use auto::{Machine, Purpose, Setup};
pub use board::{check_rules, BoardSpec, SBoard, Sow, Unsupported, MAX_SEEDS};
pub use db::Db;
pub use open::{open, Opening};
pub use search::Solver;
pub use values::ValueCache;

/// Plain minimax without pruning or tables: the reference the tests check the solver against
/// (tiny boards only).
pub fn minimax(spec: &BoardSpec, b: &SBoard) -> i32 {
    let mut best = i32::MIN;
    for i in 0..spec.pits {
        if b.c[i] == 0 {
            continue;
        }
        let s = b.sow(spec, i);
        let v = if s.over {
            s.gain
        } else if s.extra {
            s.gain + minimax(spec, &s.next)
        } else {
            s.gain - minimax(spec, &s.next)
        };
        best = best.max(v);
    }
    best
}

/// A vector of `len` copies of `value`, backed by transparent huge pages where the kernel allows
/// them. Why: the TT and the databases are probed at random over hundreds of MiB; with 4 KiB
/// pages nearly every probe is also a TLB miss.
pub(crate) fn huge_vec<T: Clone>(len: usize, value: T) -> Vec<T> {
    let mut v = Vec::with_capacity(len);
    #[cfg(target_os = "linux")]
    advise_huge_pages(v.as_mut_ptr() as usize, len * std::mem::size_of::<T>());
    v.resize(len, value);
    v
}

/// `madvise(MADV_HUGEPAGE)` on the whole pages of an allocation of `bytes` at `start`, before
/// they are first touched; allocations under 4 MiB are left alone.
#[cfg(target_os = "linux")]
fn advise_huge_pages(start: usize, bytes: usize) {
    if bytes < 4 << 20 {
        return;
    }
    let page = 4096;
    let aligned = start.next_multiple_of(page);
    let len = (start + bytes).saturating_sub(aligned) / page * page;
    // SAFETY: the range lies inside an allocation the caller owns and has not touched;
    // MADV_HUGEPAGE only changes how the kernel backs it (never its contents), and a failure is
    // harmless.
    let _ = unsafe {
        rustix::mm::madvise(
            aligned as *mut std::ffi::c_void,
            len,
            rustix::mm::Advice::LinuxHugepage,
        )
    };
}

/// Asks the CPU to start loading the cache line holding `x` (no effect on other targets).
#[inline(always)]
pub(crate) fn prefetch_line<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint; it never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch(x as *const T as *const i8, std::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

#[cfg(test)]
mod tests;
