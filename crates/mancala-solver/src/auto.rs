//! The default setup of a solve, chosen from the machine and the database cache, so that a user
//! who types `arena solve --rules kalah:seeds=5` gets the fast path without knowing the flags.
//! `arena solve`, `arena analyse` and the `solver` bot all call [`choose`]; what it picks is
//! printed by [`Setup::describe`]. Pure: the caller passes the [`Machine`] (see
//! `machine.rs`) and the K of the cached database files.
//!
//! The rules, and why (figures in docs/solved.md):
//!
//! - **Memory**: the database and the TT together take at most [`MEM_SHARE_PERCENT`] of RAM
//!   (the rest is the system's and other programs'); the database at most half of that.
//! - **Database size**: the largest K that fits, but for a game of `T` seeds no more than
//!   `T − 26` ([`worth_db_seeds`]) or the K of [`BOT_DB_ENTRIES`], whichever is larger, and
//!   never more than `T`: building costs about one core-second per 2–3 M entries,
//!   which pays off only where the search needs it (Kalah(6,3): 0.01 s without any; Kalah(6,4):
//!   K = 22 beats 24; Kalah(6,5): every step up to the memory limit cuts the search).
//! - **Cache first**: a cached file of a larger K serves as its prefix (loaded only up to K);
//!   a build extends the largest smaller file cached. From the cache, `arena solve` and
//!   `arena analyse` load up to `T − 20` seeds ([`worth_loading_db_seeds`]): loading costs
//!   only reading, and larger tables cut the search further.
//! - **The bot** builds at most [`BOT_DB_ENTRIES`] entries (a second), but loads any larger
//!   cached file up to the same limit as `arena solve`.
//! - **TT**: the rest of the share, but 1 GiB for games of at most 48 seeds (Kalah(6,4) needs
//!   about 12 M nodes; zeroing 6 GiB would cost more than the search).
//! - **First guess**: the published value for a known start position ([`KNOWN`]): MTD(f)
//!   then proves it in two null-window passes; any guess gives the same exact value.
//! - **A cached table is mapped** (shared, nothing to read), but `arena solve` of a game of
//!   more than 48 seeds copies it into its own memory on huge pages
//!   ([`Setup::db_in_memory`]): its search runs minutes, and probing file pages of 4 KiB costs
//!   it more than the copy's seconds.
//! - **Every optimal move** only for games of at most 48 seeds: on Kalah(6,5) proving that
//!   each other first move is worse costs more than the value itself.

use super::board::BoardSpec;
use super::db::db_entries;

/// What the machine offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Machine {
    pub mem_bytes: u64,
    pub cores: usize,
}

/// Who is solving: they differ in what they may build and how many threads they take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// `arena solve`: one position, every core.
    Solve,
    /// `arena analyse`: many positions; threads are its own business.
    Analyse,
    /// The `solver` bot: builds only a small database at `newgame`.
    Bot,
}

/// Where the database comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DbSource {
    /// No database (K = 0).
    None,
    /// Loaded from the cached file of this K (its prefix when larger than the chosen K).
    Cached(usize),
    /// Built now, extending the cached file of this K if any.
    Build { from: Option<usize> },
}

/// The chosen setup; see the module docs.
#[derive(Clone, Debug, PartialEq)]
pub struct Setup {
    pub db_seeds: usize,
    pub db_source: DbSource,
    /// Copy a cached table into memory (huge pages) instead of searching its mapping.
    pub db_in_memory: bool,
    pub tt_mib: usize,
    pub threads: usize,
    /// Threads of a database build (every core, whoever solves).
    pub build_threads: usize,
    /// MTD(f)'s first guess, and where it comes from.
    pub guess: i32,
    pub guess_from: &'static str,
    /// Find every optimal move (else the value and one proven move).
    pub all_best: bool,
}

/// `Setup::guess_from` when no start value is known (the guess is then 0).
pub const NO_KNOWN_GUESS: &str = "none known";

/// Percent of RAM the database and the TT may take together.
pub const MEM_SHARE_PERCENT: u64 = 50;

/// Largest database the bot builds at `newgame` (about a second on one core).
pub const BOT_DB_ENTRIES: usize = 4 << 20;

/// CPU time per database entry of a build, measured (docs/solved.md): for the expected time.
pub const BUILD_NS_PER_ENTRY: f64 = 300.0;

/// Published start values (mover's margin = future gain at the start): pits, seeds, empty
/// capture, value, source. Only a first guess for MTD(f); the search proves the value.
pub const KNOWN: [(usize, u32, bool, i32, &str); 6] = [
    (6, 3, false, 2, "Kalah(6,3)"),
    (6, 4, false, 8, "Kalah(6,4), Irving et al. 2000"),
    (
        6,
        4,
        true,
        10,
        "Kalah(6,4) empty capture, Irving et al. 2000",
    ),
    (6, 5, false, 10, "Kalah(6,5), Rawlings 2015"),
    (
        6,
        5,
        true,
        12,
        "Kalah(6,5) empty capture, Irving et al. 2000",
    ),
    (5, 4, false, 10, "Kalah(5,4)"),
];

/// The largest K worth building for a game of `total` seeds (see the module docs); one of
/// [`BOT_DB_ENTRIES`] entries (built in about a second) always is.
pub fn worth_db_seeds(total: usize) -> usize {
    total.saturating_sub(26)
}

/// The largest K worth loading from the cache for a game of `total` seeds: `total − 20`
/// (Kalah(6,4): 28, whose prefix reads in seconds and cuts the search to a fraction of a
/// second; Kalah(6,3): 16, not 28: its search takes milliseconds).
pub fn worth_loading_db_seeds(total: usize) -> usize {
    total.saturating_sub(20)
}

/// The largest K whose database has at most `max_entries` entries for `pits` pits per side.
pub fn fit_db_seeds(pits: usize, max_entries: usize) -> usize {
    (0..=super::db::MAX_DB_SEEDS)
        .rev()
        .find(|&k| db_entries(pits, k) <= max_entries)
        .unwrap_or(0)
}

/// The setup for solving positions of a game of `spec` with `total` seeds, `root_seeds` of
/// them in the pits of the position solved first (`None`: many positions), from the start
/// position when `at_start` (`seeds` per pit); `cached`: the K of the cached files, smallest
/// first.
pub fn choose(
    spec: &BoardSpec,
    seeds: u32,
    at_start: bool,
    machine: Machine,
    cached: &[usize],
    purpose: Purpose,
) -> Setup {
    let total = 2 * spec.pits * seeds as usize;
    let share = machine.mem_bytes / 100 * MEM_SHARE_PERCENT;
    let fit = fit_db_seeds(spec.pits, (share / 2) as usize);
    let small = fit_db_seeds(spec.pits, BOT_DB_ENTRIES);
    let want = worth_db_seeds(total).max(small).min(total).min(fit);
    let larger = cached.iter().copied().find(|&k| k >= want);
    let smaller = cached.iter().copied().rfind(|&k| k < want);
    let top = cached.last().copied().unwrap_or(0);
    let (db_seeds, db_source) = match (purpose, larger) {
        (_, _) if want == 0 => (0, DbSource::None),
        (Purpose::Bot, Some(k)) => (want, DbSource::Cached(k)),
        (_, Some(_)) => {
            let k = top.min(worth_loading_db_seeds(total)).min(fit).max(want);
            (k, DbSource::Cached(top))
        }
        (Purpose::Bot, None) => match smaller {
            Some(k) if k >= small => (k, DbSource::Cached(k)),
            _ => (small.min(want), DbSource::Build { from: smaller }),
        },
        (_, None) => (want, DbSource::Build { from: smaller }),
    };
    let db_bytes = if db_seeds == 0 {
        0
    } else {
        db_entries(spec.pits, db_seeds) as u64
    };
    let rest_mib = (share.saturating_sub(db_bytes) >> 20) as usize;
    let tt_mib = match purpose {
        Purpose::Bot => 256,
        _ if total <= 48 => rest_mib.min(1024),
        _ => rest_mib,
    }
    .max(16);
    let threads = match purpose {
        Purpose::Solve => machine.cores.max(1),
        Purpose::Analyse | Purpose::Bot => 1,
    };
    let known = KNOWN
        .iter()
        .find(|&&(p, s, ec, _, _)| p == spec.pits && s == seeds && ec == spec.empty_capture)
        .filter(|_| at_start && spec.sweep && !spec.end_on_no_move);
    let (guess, guess_from) = known.map_or((0, NO_KNOWN_GUESS), |&(_, _, _, v, from)| (v, from));
    Setup {
        db_seeds,
        db_source,
        db_in_memory: purpose == Purpose::Solve && total > 48,
        tt_mib,
        threads,
        build_threads: machine.cores.max(1),
        guess,
        guess_from,
        all_best: !at_start || total <= 48,
    }
}

/// Expected wall time of building the database levels above `from` up to `k` on `threads`
/// threads, in seconds (from [`BUILD_NS_PER_ENTRY`]).
pub fn build_secs(pits: usize, from: Option<usize>, k: usize, threads: usize) -> f64 {
    let before = from.map_or(0, |f| db_entries(pits, f));
    (db_entries(pits, k) - before.min(db_entries(pits, k))) as f64 * BUILD_NS_PER_ENTRY
        / 1e9
        / threads.max(1) as f64
}

impl Setup {
    /// The first guess when it is a known value (a published one, or `--guess`), not the
    /// default 0.
    pub fn known_guess(&self) -> Option<i32> {
        (self.guess_from != NO_KNOWN_GUESS).then_some(self.guess)
    }

    /// One line saying which path the solve takes.
    pub fn describe(&self, spec: &BoardSpec) -> String {
        let how = if self.db_in_memory {
            "copied into memory"
        } else {
            "mapped"
        };
        let db = match self.db_source {
            DbSource::None => "no database".to_string(),
            DbSource::Cached(k) if k == self.db_seeds => format!("database K={k} cached ({how})"),
            DbSource::Cached(k) => format!(
                "database K={} (prefix of cached K={k}, {how})",
                self.db_seeds
            ),
            DbSource::Build { from } => format!(
                "database K={} to build{} (about {:.0}s on {} threads)",
                self.db_seeds,
                from.map(|f| format!(" from cached K={f}"))
                    .unwrap_or_default(),
                build_secs(spec.pits, from, self.db_seeds, self.build_threads),
                self.build_threads
            ),
        };
        format!(
            "{db}, {:.0} MiB; tt {} MiB; threads {}; guess {:+} ({}); {}",
            db_entries(spec.pits, self.db_seeds) as f64 / (1 << 20) as f64,
            self.tt_mib,
            self.threads,
            self.guess,
            self.guess_from,
            if self.all_best {
                "every optimal move"
            } else {
                "value and one proven move"
            }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_rules::Ruleset;

    const GIB: u64 = 1 << 30;

    fn pick(rules: &str, mem_gib: u64, cached: &[usize], purpose: Purpose) -> Setup {
        let r: Ruleset = rules.parse().unwrap();
        let spec = BoardSpec::from_ruleset(&r).unwrap();
        let machine = Machine {
            mem_bytes: mem_gib * GIB,
            cores: 2,
        };
        choose(&spec, r.seeds(), true, machine, cached, purpose)
    }

    #[test]
    fn kalah_6_5_takes_the_largest_database_that_fits() {
        // 24 GiB: half for tables, at most 6 GiB of database: K = 28 is C(40,12) = 5.59 G
        // entries (5.2 GiB), K = 29 would be 7.9 G.
        let s = pick("kalah:seeds=5", 24, &[], Purpose::Solve);
        assert_eq!(s.db_seeds, 28);
        assert_eq!(s.db_source, DbSource::Build { from: None });
        // The TT gets the rest of the 12 GiB share: 12 GiB − 5,586,853,480 bytes.
        assert_eq!(s.tt_mib, ((12 * GIB - 5_586_853_480) >> 20) as usize);
        assert_eq!((s.threads, s.guess, s.all_best), (2, 10, false));
        // Its search runs minutes: a cached table is copied onto huge pages, not searched mapped.
        assert!(s.db_in_memory);
        // A cached K = 24 is extended, not rebuilt.
        let s = pick("kalah:seeds=5", 24, &[12, 24], Purpose::Solve);
        assert_eq!(s.db_source, DbSource::Build { from: Some(24) });
        // 4 GiB: at most 1 GiB of database: K = 23 (C(35,12) = 834 M entries), not 24 (1.25 G).
        assert_eq!(pick("kalah:seeds=5", 4, &[], Purpose::Solve).db_seeds, 23);
    }

    #[test]
    fn smaller_games_build_less_and_load_what_is_cached() {
        let s = pick("kalah", 24, &[], Purpose::Solve);
        assert_eq!((s.db_seeds, s.tt_mib, s.guess), (22, 1024, 8));
        assert!(s.all_best);
        // Kalah(6,4) loads up to 28 seeds from the cache (48 − 20); Kalah(6,3) up to 16.
        let s = pick("kalah", 24, &[28], Purpose::Solve);
        assert_eq!((s.db_seeds, s.db_source), (28, DbSource::Cached(28)));
        assert!(!s.db_in_memory, "a search of a second maps the table");
        assert_eq!(pick("kalah", 24, &[24], Purpose::Solve).db_seeds, 24);
        let s = pick("kalah:seeds=3", 24, &[28], Purpose::Solve);
        assert_eq!((s.db_seeds, s.db_source), (16, DbSource::Cached(28)));
        // Tiny games: the whole game's database (one of at most 4 M entries always pays).
        assert_eq!(
            pick("kalah:pits=3,seeds=2", 24, &[], Purpose::Solve).db_seeds,
            12
        );
        // No known value: guess 0.
        let s = pick("kalah:seeds=6", 24, &[], Purpose::Solve);
        assert_eq!((s.guess, s.guess_from), (0, "none known"));
    }

    #[test]
    fn the_bot_builds_small_and_loads_larger_cached_files() {
        let s = pick("kalah", 24, &[], Purpose::Bot);
        assert_eq!(
            (s.db_seeds, s.db_source),
            (12, DbSource::Build { from: None })
        );
        assert_eq!(s.threads, 1);
        let s = pick("kalah", 24, &[28], Purpose::Bot);
        assert_eq!((s.db_seeds, s.db_source), (22, DbSource::Cached(28)));
        let s = pick("kalah", 24, &[16], Purpose::Bot);
        assert_eq!((s.db_seeds, s.db_source), (16, DbSource::Cached(16)));
    }

    #[test]
    fn build_time_counts_only_the_new_levels() {
        let all = build_secs(6, None, 24, 2);
        let ext = build_secs(6, Some(22), 24, 2);
        let want = (db_entries(6, 24) - db_entries(6, 22)) as f64 * BUILD_NS_PER_ENTRY / 2e9;
        assert!((ext - want).abs() < 1e-9 && ext < all);
    }
}
