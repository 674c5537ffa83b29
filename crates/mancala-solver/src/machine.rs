//! What this machine offers the solver ([`crate::auto::Machine`]): RAM (the smaller of
//! `/proc/meminfo`'s `MemTotal` and a cgroup v2 `memory.max`) and cores. The only place the
//! setup reads the system.

use super::auto::{choose, plan_games, Expected, Machine, Purpose, Setup};
use super::board::BoardSpec;
use super::db::{cached_seeds, default_dir, partial_seeds};

impl Machine {
    /// This machine; 4 GiB when the memory cannot be read (not Linux).
    pub fn detect() -> Machine {
        let total = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|t| {
                let line = t.lines().find(|l| l.starts_with("MemTotal:"))?;
                let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
                Some(kib << 10)
            })
            .unwrap_or(4 << 30);
        let cgroup = std::fs::read_to_string("/sys/fs/cgroup/memory.max")
            .ok()
            .and_then(|t| t.trim().parse::<u64>().ok());
        Machine {
            mem_bytes: cgroup.map_or(total, |c| c.min(total)),
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }
}

impl Setup {
    /// A build goes on from the levels an interrupted build of the same K left in `dir`, when
    /// they are more than the cached file it would extend.
    pub fn resume_from(&mut self, dir: Option<&std::path::Path>, spec: &BoardSpec) {
        if let (super::auto::DbSource::Build { from }, Some(dir)) = (&mut self.db_source, dir) {
            if let Some(j) = partial_seeds(*spec, dir, self.db_seeds) {
                if from.map_or(true, |f| j > f) {
                    *from = Some(j);
                }
            }
        }
    }
}

/// [`crate::auto::choose`] for this machine and the cache folder (`cache`: read it, else as
/// if empty): the setup `arena solve`, `arena analyse`, `arena openings` and the bot start from.
pub fn setup_here(
    spec: &BoardSpec,
    seeds: u32,
    at_start: bool,
    purpose: Purpose,
    cache: bool,
) -> (Setup, Vec<usize>) {
    let dir = default_dir().filter(|_| cache);
    let cached = dir
        .as_deref()
        .map_or_else(Vec::new, |d| cached_seeds(*spec, d));
    let mut setup = choose(spec, seeds, at_start, Machine::detect(), &cached, purpose);
    setup.resume_from(dir.as_deref(), spec);
    (setup, cached)
}

/// [`crate::auto::plan_games`] for this machine and the cache folder: the setup `arena
/// analyse` judges `games` games of `spec` with, and what it expects to spend.
pub fn plan_games_here(spec: &BoardSpec, seeds: u32, games: usize) -> (Setup, Expected) {
    let dir = default_dir();
    let cached = dir
        .as_deref()
        .map_or_else(Vec::new, |d| cached_seeds(*spec, d));
    let machine = Machine::detect();
    let setup = choose(spec, seeds, false, machine, &cached, Purpose::Analyse);
    let base = |k: usize| {
        let below = cached.iter().copied().rfind(|&c| c < k);
        let partial = dir.as_deref().and_then(|d| partial_seeds(*spec, d, k));
        below.max(partial)
    };
    plan_games(spec, seeds, games, machine, &cached, &base, setup)
}
