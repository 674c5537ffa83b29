//! Opening a ready solver: the database of a [`Setup`] (mapped from the cache folder, or built
//! there resumably), the TT, the threads and the value cache, in one call that every program
//! solving positions makes (`arena solve`, `arena analyse`, `arena openings`, the `solver` bot).
//!
//! Why one call: these pieces were wired together in five places, each with its own choice of
//! when to read the value cache or copy a table into memory. What happens on the way (a build
//! and its expected time, its progress, the value cache read) is reported through a callback,
//! so that the command line can print it and the bot can stay quiet.

use std::path::Path;
use std::sync::Arc;

use super::auto::{self, DbSource, Setup};
use super::board::BoardSpec;
use super::db::{db_entries, Db};
use super::search::Solver;
use super::values::ValueCache;

/// What opening a solver reports, in this order (each when it applies).
pub enum Opening<'a> {
    /// A database is about to be built: up to `k` seeds, extending the cached `from` (or the
    /// complete levels of an interrupted build of `k`), `entries` new entries, expected to take
    /// `secs` on `threads` threads, kept in `dir` (`None`: in memory only).
    Building {
        k: usize,
        from: Option<usize>,
        entries: u64,
        secs: f64,
        threads: usize,
        dir: Option<&'a Path>,
    },
    /// `done` of the `todo` entries built.
    Progress { done: u64, todo: u64 },
    /// The database is ready.
    Database(&'a Db),
    /// The value cache was read (or why it could not be; the solver goes on without it).
    Values(Result<&'a ValueCache, String>),
}

/// The solver of `setup` for `spec`: its database (none for K = 0) from the cache folder `dir`
/// (mapped; copied into memory when `setup.db_in_memory`), else built there (`dir = None`:
/// built in memory and not kept); a TT of `setup.tt_mib` MiB; `setup.threads` search threads;
/// and, when `values` and there is a folder, the value cache kept beside the databases.
pub fn open(
    spec: BoardSpec,
    setup: &Setup,
    dir: Option<&Path>,
    values: bool,
    on: &(dyn Fn(Opening) + Sync),
) -> Solver {
    let db = open_db(spec, setup, dir, on);
    let mut solver = Solver::new(spec, setup.tt_mib, db);
    solver.set_threads(setup.threads);
    if let Some(dir) = dir.filter(|_| values) {
        match ValueCache::open(&spec, dir) {
            Ok(cache) => {
                on(Opening::Values(Ok(&cache)));
                solver.set_values(Arc::new(cache));
            }
            Err(e) => on(Opening::Values(Err(e.to_string()))),
        }
    }
    solver
}

/// The database of `setup` (see [`open`]), `None` for K = 0.
pub fn open_db(
    spec: BoardSpec,
    setup: &Setup,
    dir: Option<&Path>,
    on: &(dyn Fn(Opening) + Sync),
) -> Option<Arc<Db>> {
    let k = setup.db_seeds;
    if k == 0 {
        return None;
    }
    let from = match setup.db_source {
        DbSource::Build { from } => Some(from.filter(|_| dir.is_some())),
        _ if dir.is_none() => Some(None),
        _ => None,
    };
    if let Some(from) = from {
        let before = from.map_or(0, |f| db_entries(spec.pits, f));
        on(Opening::Building {
            k,
            from,
            entries: (db_entries(spec.pits, k) - before.min(db_entries(spec.pits, k))) as u64,
            secs: auto::build_secs(spec.pits, from, k, setup.build_threads),
            threads: setup.build_threads,
            dir,
        });
    }
    let db = Db::load_or_build_with(spec, k, dir, setup.build_threads, &|done, todo| {
        on(Opening::Progress { done, todo })
    });
    let db = if setup.db_in_memory {
        db.into_memory()
    } else {
        db
    };
    on(Opening::Database(&db));
    Some(Arc::new(db))
}
