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
//! - **TT**: 256 MiB for `arena solve` ([`SOLVE_TT_MIB`]: a larger table costs more CPU per node
//!   in page walks than it saves in nodes); for `arena analyse` the rest of the share, but 1 GiB
//!   for games of at most 48 seeds.
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
    /// The largest table (bytes) copied so: a long solve's, up to [`COPY_SHARE_PERCENT`] of
    /// RAM (0: none).
    pub copy_limit: u64,
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
pub const MEM_SHARE_PERCENT: u64 = 60;

/// Percent of RAM the database may take: on 24 GiB, the 30-seed table of 6 pits (10.3 GiB).
/// Why more than the TT: a cached table is mapped, so processes share it and the kernel can
/// drop its pages under pressure, where a TT is each process's own.
pub const DB_SHARE_PERCENT: u64 = 45;

/// Percent of RAM up to which `arena solve` copies a mapped table into its own memory (see
/// [`Setup::db_in_memory`]): a larger one stays mapped (a private copy of 10 GiB beside a TT
/// is what gets a process killed on a shared machine, and the 30-seed table's copy took 17 s
/// for a Kalah(6,5) search no faster than on the mapping: docs/solved.md).
pub const COPY_SHARE_PERCENT: u64 = 25;

/// Largest TT `arena solve` gets by default (256 MiB, a table of 192 MiB). Why not the rest of
/// the memory share: the search waits mostly on page walks, not on computing, and a larger
/// table is more pages to translate. On the largest Kalah(6,5) positions of the fixed set each
/// fourfold of table cost about a quarter more CPU per node for under 2 % fewer nodes; on the
/// Kalah(6,5) start, side by side, 768 MiB against 192 MiB saved 8 % of the nodes and cost
/// 17 % more CPU, and 3 GiB against 768 MiB saved 12 % and cost 14 % more
/// (docs/solved.md, "Where a node's time goes").
pub const SOLVE_TT_MIB: usize = 256;

/// Largest database the bot builds at `newgame` (about a second on one core, well inside the
/// ready timeout of 10 s).
pub const BOT_DB_ENTRIES: usize = 32 << 20;

/// CPU time per database entry of a build, measured (docs/solved.md, `scripts/db-bench.sh`:
/// 23–30 ns on the 24- to 28-seed builds): for the expected time.
pub const BUILD_NS_PER_ENTRY: f64 = 30.0;

/// CPU seconds of search to judge one game whose total seeds exceed the database's K by 20
/// ([`judge_cpu_secs`]).
pub const JUDGE_SECS_PER_GAME: f64 = 0.5;

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
    let fit = fit_db_seeds(
        spec.pits,
        (machine.mem_bytes / 100 * DB_SHARE_PERCENT) as usize,
    );
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
        Purpose::Solve => rest_mib.min(SOLVE_TT_MIB),
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
    let copy_limit = if purpose == Purpose::Solve && total > 48 {
        machine.mem_bytes / 100 * COPY_SHARE_PERCENT
    } else {
        0
    };
    Setup {
        db_seeds,
        db_source,
        db_in_memory: db_bytes > 0 && db_bytes <= copy_limit,
        copy_limit,
        tt_mib,
        threads,
        build_threads: machine.cores.max(1),
        guess,
        guess_from,
        all_best: !at_start || total <= 48,
    }
}

/// The model of a judged game's cost: CPU seconds of search to judge `games` games of `total`
/// seeds with a database of `k` seeds: [`JUDGE_SECS_PER_GAME`] when `total − k` is 20, twice
/// as much for every 2 seeds more. Measured (docs/solved.md): 0.51 s a game of Kalah(6,4) with
/// K = 28, 3.8 s with K = 22 (×1.95 per 2 seeds); about 40 s a game of Kalah(6,5) with K = 28.
pub fn judge_cpu_secs(total: usize, k: usize, games: usize) -> f64 {
    let over = total as f64 - k as f64 - 20.0;
    games as f64 * JUDGE_SECS_PER_GAME * 2f64.powf(over / 2.0)
}

/// What a plan expects: wall seconds of building (0 when cached) and of searching.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Expected {
    pub build_secs: f64,
    pub search_secs: f64,
}

/// The database `arena analyse` uses by default to judge `games` games of `spec` (`seeds` per
/// pit): of the K that fit the memory share (or are cached), the one with the least expected
/// wall time on the machine's cores, building the levels not cached (`base(k)`: the complete
/// levels a build of `k` goes on from, a smaller cached file or an interrupted build of `k`)
/// plus judging the games ([`judge_cpu_secs`]). `setup` is [`choose`]'s for
/// [`Purpose::Analyse`]; its database part is replaced.
pub fn plan_games(
    spec: &BoardSpec,
    seeds: u32,
    games: usize,
    machine: Machine,
    cached: &[usize],
    base: &dyn Fn(usize) -> Option<usize>,
    setup: Setup,
) -> (Setup, Expected) {
    let total = 2 * spec.pits * seeds as usize;
    let fit = fit_db_seeds(
        spec.pits,
        (machine.mem_bytes / 100 * DB_SHARE_PERCENT) as usize,
    );
    let cores = machine.cores.max(1) as f64;
    let top = cached.last().copied().unwrap_or(0);
    let plans = (0..=fit.max(top.min(total)).min(total)).map(|k| {
        let source = match cached.iter().copied().find(|&c| c >= k) {
            _ if k == 0 => DbSource::None,
            Some(c) => DbSource::Cached(c),
            None => DbSource::Build { from: base(k) },
        };
        let build_secs = match source {
            DbSource::Build { from } => build_secs(spec.pits, from, k, machine.cores),
            _ => 0.0,
        };
        let expected = Expected {
            build_secs,
            search_secs: judge_cpu_secs(total, k, games) / cores,
        };
        (k, source, expected)
    });
    // The least total; a tie goes to the larger table (the later one).
    let best = plans.fold(
        None,
        |best: Option<(usize, DbSource, Expected)>, p| match best {
            Some(b) if b.2.build_secs + b.2.search_secs < p.2.build_secs + p.2.search_secs => {
                Some(b)
            }
            _ => Some(p),
        },
    );
    let (k, source, expected) = best.expect("K = 0 is always a plan");
    let tt_share = (machine.mem_bytes / 100 * MEM_SHARE_PERCENT)
        .saturating_sub(db_entries(spec.pits, k) as u64);
    let setup = Setup {
        db_seeds: k,
        db_source: source,
        tt_mib: setup.tt_mib.min((tt_share >> 20) as usize).max(16),
        ..setup
    };
    (setup, expected)
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
    /// The same setup with a database of `k` seeds (a `--db-seeds` flag): mapped from the
    /// smallest cached file of `k` or more (`cached`, smallest first), else built from the
    /// largest smaller one.
    pub fn with_db_seeds(mut self, spec: &BoardSpec, k: usize, cached: &[usize]) -> Setup {
        self.db_seeds = k;
        self.db_in_memory = k > 0 && db_entries(spec.pits, k) as u64 <= self.copy_limit;
        self.db_source = match cached.iter().copied().find(|&c| c >= k) {
            _ if k == 0 => DbSource::None,
            Some(c) => DbSource::Cached(c),
            None => DbSource::Build {
                from: cached.iter().copied().rfind(|&c| c < k),
            },
        };
        self
    }

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
        // 24 GiB: at most 45 % of it for the database: K = 30 is C(42,12) = 11.06 G entries
        // (10.3 GiB), K = 31 would be 15.1 G.
        let s = pick("kalah:seeds=5", 24, &[], Purpose::Solve);
        assert_eq!(s.db_seeds, 30);
        assert_eq!(s.db_source, DbSource::Build { from: None });
        // The TT: 256 MiB, not the rest of the 60 % share (14.4 GiB − 11,058,116,888 bytes,
        // 4.1 GiB): more of it costs more CPU per node than it saves nodes.
        assert_eq!(s.tt_mib, 256);
        // Analysing games keeps the rest of the share.
        let share = 24 * GIB / 100 * 60;
        let a = pick("kalah:seeds=5", 24, &[], Purpose::Analyse);
        assert_eq!(a.tt_mib, ((share - 11_058_116_888) >> 20) as usize);
        assert_eq!((s.threads, s.guess, s.all_best), (2, 10, false));
        // A table of more than a quarter of the memory stays mapped, not copied.
        assert!(!s.db_in_memory);
        // K = 28 (5.2 GiB) asked for: the search of minutes copies it onto huge pages.
        let r: Ruleset = "kalah:seeds=5".parse().unwrap();
        let spec = BoardSpec::from_ruleset(&r).unwrap();
        let s = s.with_db_seeds(&spec, 28, &[28]);
        assert_eq!((s.db_seeds, s.db_source), (28, DbSource::Cached(28)));
        assert!(s.db_in_memory);
        // A cached K = 24 is extended, not rebuilt.
        let s = pick("kalah:seeds=5", 24, &[12, 24], Purpose::Solve);
        assert_eq!(s.db_source, DbSource::Build { from: Some(24) });
        // 4 GiB: at most 1.8 GiB of database: K = 25 (C(37,12) = 1.85 G entries), not 26.
        assert_eq!(pick("kalah:seeds=5", 4, &[], Purpose::Solve).db_seeds, 25);
    }

    /// `arena analyse`'s table: the least build + search time for the games given.
    #[test]
    fn analysis_builds_what_the_games_pay_for() {
        let plan = |rules: &str, games: usize, cached: &[usize]| {
            let r: Ruleset = rules.parse().unwrap();
            let spec = BoardSpec::from_ruleset(&r).unwrap();
            let machine = Machine {
                mem_bytes: 24 * GIB,
                cores: 2,
            };
            let setup = choose(&spec, r.seeds(), false, machine, cached, Purpose::Analyse);
            let below = |k: usize| cached.iter().copied().rfind(|&c| c < k);
            plan_games(&spec, r.seeds(), games, machine, cached, &below, setup)
        };
        // 100 games of Kalah(6,4) from nothing: a large table pays for itself.
        let (s, e) = plan("kalah", 100, &[]);
        assert!((25..=28).contains(&s.db_seeds), "{s:?}");
        assert_eq!(s.db_source, DbSource::Build { from: None });
        assert!(
            e.build_secs > 0.0 && e.build_secs + e.search_secs < 300.0,
            "{e:?}"
        );
        // Four games: a small one (#47: 86 s and 2.1 GB for 4 games before).
        let (s, e) = plan("kalah", 4, &[]);
        assert!(
            s.db_seeds <= 24 && e.build_secs + e.search_secs < 30.0,
            "{s:?} {e:?}"
        );
        // A cached K = 28 is used as it is: nothing to build.
        let (s, e) = plan("kalah", 4, &[28]);
        assert_eq!(
            (s.db_seeds, s.db_source, e.build_secs),
            (28, DbSource::Cached(28), 0.0)
        );
        // 30 games of Kalah(6,5): the largest table that fits, extending the cached 28.
        let (s, _) = plan("kalah:seeds=5", 30, &[28]);
        assert_eq!(
            (s.db_seeds, s.db_source),
            (30, DbSource::Build { from: Some(28) })
        );
    }

    #[test]
    fn smaller_games_build_less_and_load_what_is_cached() {
        let s = pick("kalah", 24, &[], Purpose::Solve);
        assert_eq!((s.db_seeds, s.tt_mib, s.guess), (22, 256, 8));
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
            (16, DbSource::Build { from: None })
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
