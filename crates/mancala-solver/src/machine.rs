//! What this machine offers the solver ([`crate::auto::Machine`]): RAM (the smaller of
//! `/proc/meminfo`'s `MemTotal` and a cgroup v2 `memory.max`) and cores. The only place the
//! setup reads the system.

use super::auto::{choose, Machine, Purpose, Setup};
use super::board::BoardSpec;
use super::db::{cached_seeds, default_dir};

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

/// [`crate::auto::choose`] for this machine and the cache folder (`cache`: read it, else as
/// if empty): the setup `arena solve`, `arena analyse`, `arena openings` and the bot start from.
pub fn setup_here(
    spec: &BoardSpec,
    seeds: u32,
    at_start: bool,
    purpose: Purpose,
    cache: bool,
) -> (Setup, Vec<usize>) {
    let cached = match default_dir().filter(|_| cache) {
        Some(dir) => cached_seeds(*spec, &dir),
        None => Vec::new(),
    };
    let setup = choose(spec, seeds, at_start, Machine::detect(), &cached, purpose);
    (setup, cached)
}
