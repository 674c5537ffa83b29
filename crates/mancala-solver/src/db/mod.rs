//! Endgame databases: the exact value of every position with at most `K` seeds left in the pits.
//!
//! Why: near the end of a Kalah game most of the search tree is positions with few seeds, which
//! transpose heavily and are cheap to enumerate. Storing all of them (one `i8` per position,
//! indexed by the position's rank among the ways to put `k` seeds into `2N` pits) turns every
//! such subtree into one table lookup.
//!
//! Build: level by level, `k = 0, 1, ..., K`. A sow never adds seeds to the pits, so a child is
//! either in a lower level (already complete) or in the same level (seeds only moved between
//! pits); the same level is filled by memoised recursion, which terminates because such sows
//! strictly advance seeds toward the mover's store (Kalah is acyclic). A level is built on all
//! cores, each position's children prefetched together (the lookups are cache misses). Sizes
//! for 6 pits: `C(K+12, 12)` bytes in all levels, e.g. K=18: 86 M entries (82 MiB), K=22: 548 M
//! (523 MiB, built in about 80 s on 2 cores).
//!
//! Caching: [`Db::load_or_build`] keeps a built database in a file named after the rules and K
//! under [`default_dir`] (`$MANCALA_SOLVER_DB`, else `$XDG_CACHE_HOME/mancala-arena/solver`,
//! else `~/.cache/mancala-arena/solver`). The file is the raw table behind a one-line header
//! naming the rules, K, the size and each level's CRC-32; a file of the wrong size or header, or
//! whose levels fail their checksums, is named ([`Db::refused`]) and rebuilt, and every entry
//! read is held to the bounds of its position ([`Db::get`]). The values do not depend on seeds
//! per pit.
//!
//! A cached file is served by a read-only memory map, not read: the levels are slices of the
//! mapping, so opening a 5 GiB table costs no copy, pages come in as the search touches them,
//! and every process using the file (the bot in each game, `arena analyse`) shares one copy in
//! the page cache. A build works on tables in memory (a mapped base is copied first), and
//! [`Db::into_memory`] copies a mapping for a search of minutes, where 4 KiB file pages cost
//! more than the copy. No `madvise` on the mapping: neither random access nor huge pages changed
//! the Kalah(6,4) solve (docs/solved.md).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use super::board::{BoardSpec, SBoard};

mod build;
#[cfg(test)]
mod reference;
mod rows;
pub mod sigbus;

/// The entry of a finished position (never looked up).
const UNKNOWN: i8 = i8::MIN;
/// Largest supported K (values must fit in `i8`, and the table in memory).
pub const MAX_DB_SEEDS: usize = 40;
const BINOM_ROWS: usize = MAX_DB_SEEDS + 17;

/// An endgame database; see the module docs.
pub struct Db {
    spec: BoardSpec,
    max_seeds: usize,
    levels: Levels,
    binom: Vec<[u64; 17]>,
    /// How long building (or loading) took.
    pub build_time: Duration,
    /// Whether it came from the cache file (then it is mapped, not read).
    pub loaded: bool,
    /// Cache files refused on the way, each named with why (a checksum that fails, an older
    /// format, a wrong size): the table was rebuilt or built in memory instead.
    pub refused: Vec<String>,
    /// Why the table just built is not in the cache folder (a full disk, say), naming the file.
    pub not_kept: Option<String>,
    /// The cache file the first levels are mapped from.
    path: Option<PathBuf>,
    /// Entries read that cannot be true (see [`Db::get`]): bypassed, and counted so that a
    /// value found meanwhile is not kept as proven.
    bad_reads: AtomicU64,
}

/// Where the levels live: the first `mapped` in a cache file's mapping (none for a table
/// built from nothing), the rest in tables in memory (being built, or just built).
struct Levels {
    /// Names the file on a SIGBUS in the map (dropped before it).
    watch: Option<sigbus::Watch>,
    map: Option<memmap2::Mmap>,
    /// Level `k < mapped` is `map[starts[k]..starts[k + 1]]`.
    starts: Vec<usize>,
    mapped: usize,
    owned: Vec<Vec<i8>>,
}

impl Levels {
    /// Level 0 alone (no position to value).
    fn empty() -> Levels {
        Levels {
            watch: None,
            map: None,
            starts: Vec::new(),
            mapped: 0,
            owned: vec![vec![UNKNOWN]],
        }
    }

    #[inline(always)]
    fn get(&self, k: usize) -> &[i8] {
        match &self.map {
            Some(map) if k < self.mapped => {
                bytemuck::cast_slice(&map[self.starts[k]..self.starts[k + 1]])
            }
            _ => &self.owned[k - self.mapped],
        }
    }

    fn count(&self) -> usize {
        self.mapped + self.owned.len()
    }

    /// Keeps the first `count` levels.
    fn truncate(&mut self, count: usize) {
        if count <= self.mapped {
            self.owned.clear();
            self.mapped = count;
        } else {
            self.owned.truncate(count - self.mapped);
        }
    }

    /// Copies the mapped levels into memory, on huge pages (read from the file once).
    fn copy_mapped(&mut self) {
        let copies: Vec<Vec<i8>> = (0..self.mapped)
            .map(|k| {
                let level = self.get(k);
                let mut copy = super::huge_vec(level.len(), UNKNOWN);
                copy.copy_from_slice(level);
                copy
            })
            .collect();
        self.owned.splice(0..0, copies);
        self.watch = None;
        (self.map, self.mapped) = (None, 0);
        self.starts.clear();
    }
}

fn binomials() -> Vec<[u64; 17]> {
    let mut t = vec![[0u64; 17]; BINOM_ROWS];
    for a in 0..BINOM_ROWS {
        t[a][0] = 1;
        for b in 1..17.min(a + 1) {
            t[a][b] = t[a - 1][b - 1] + if b < a { t[a - 1][b] } else { 0 };
        }
    }
    t
}

/// Entries in the database level with `k` seeds over `m` pits: C(k+m-1, m-1).
pub fn level_size(k: usize, m: usize) -> usize {
    let t = binomials();
    t[k + m - 1][m - 1] as usize
}

/// Total entries (bytes) of a database with levels `0..=k` for `pits` pits per side.
pub fn db_entries(pits: usize, k: usize) -> usize {
    (0..=k).map(|j| level_size(j, 2 * pits)).sum()
}

impl Db {
    /// Builds the database of levels `0..=max_seeds` in memory, on every available core.
    pub fn build(spec: BoardSpec, max_seeds: usize) -> Db {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        Db::build_with_threads(spec, max_seeds, threads)
    }

    /// [`Db::build`] on `threads` threads.
    pub fn build_with_threads(spec: BoardSpec, max_seeds: usize, threads: usize) -> Db {
        Db::empty(spec).extend(max_seeds, threads, &|_, _| {})
    }

    /// The database of level 0 only (no position to value), to [`Db::extend`].
    pub fn empty(spec: BoardSpec) -> Db {
        Db {
            spec,
            max_seeds: 0,
            levels: Levels::empty(),
            binom: binomials(),
            build_time: Duration::ZERO,
            loaded: false,
            refused: Vec::new(),
            not_kept: None,
            path: None,
            bad_reads: AtomicU64::new(0),
        }
    }

    /// Builds the levels above the ones already here, up to `max_seeds`, on `threads` threads,
    /// calling `progress(entries done, entries to do)` as blocks finish (from any thread). Why
    /// extend: a larger database reuses a smaller cached one (its levels are a prefix, read
    /// from its mapping).
    ///
    /// Each level is built from the ones below by `build.rs` (blocks of rows in sequential
    /// passes; threads take pairs of blocks). `build_time` adds the time spent here.
    pub fn extend(
        self,
        max_seeds: usize,
        threads: usize,
        progress: &(dyn Fn(u64, u64) + Sync),
    ) -> Db {
        self.extend_with(max_seeds, threads, progress, &mut |_| {})
    }

    /// [`Db::extend`], handing each new level to `sink` once it is complete (the cache file
    /// being written).
    fn extend_with(
        mut self,
        max_seeds: usize,
        threads: usize,
        progress: &(dyn Fn(u64, u64) + Sync),
        sink: &mut dyn FnMut(&[i8]),
    ) -> Db {
        assert!(max_seeds <= MAX_DB_SEEDS);
        let started = Instant::now();
        let m = 2 * self.spec.pits;
        self.levels.truncate(max_seeds + 1);
        let first = self.levels.count();
        let todo: u64 = (first..=max_seeds)
            .map(|k| self.binom[k + m - 1][m - 1])
            .sum();
        if first <= max_seeds {
            let builder = build::Builder::new(self.spec, max_seeds, &self.binom);
            let done = AtomicU64::new(0);
            for k in first..=max_seeds {
                let level = {
                    let lower: Vec<&[i8]> = (0..k).map(|j| self.levels.get(j)).collect();
                    builder.level(&lower, k, threads, &|n| {
                        progress(done.fetch_add(n, Relaxed) + n, todo)
                    })
                };
                sink(&level);
                self.levels.owned.push(level);
            }
        }
        self.max_seeds = max_seeds;
        self.build_time += started.elapsed();
        self
    }

    /// The position's index in its level (combinatorial number system over the 2N pits).
    #[inline]
    fn rank(&self, b: &SBoard, k: usize) -> usize {
        let n = self.spec.pits;
        let m = 2 * n;
        let mut r = k;
        let mut idx = 0u64;
        for j in 0..m - 1 {
            let x = b.c[if j < n { j } else { 8 + j - n }] as usize;
            let t = m - 1 - j;
            idx += self.binom[r + t][t] - self.binom[r - x + t][t];
            r -= x;
        }
        idx as usize
    }

    /// The exact value of a (not finished) position with `seeds` seeds in the pits, if the
    /// database covers it. An entry that cannot be true ([`crate::board::plausible`]: beyond
    /// the seeds in play, or of the wrong parity) is not served but counted
    /// ([`Db::bad_reads`]): the search then values the position itself.
    #[inline]
    pub fn get(&self, b: &SBoard, seeds: i32) -> Option<i32> {
        let k = seeds as usize;
        if k > self.max_seeds {
            return None;
        }
        self.get_at(seeds, self.rank(b, k))
    }

    /// The index of `b`'s entry in its level (`seeds` must be covered), for
    /// [`Db::prefetch_at`] and [`Db::get_at`]: the search computes it once per child
    /// instead of once for the prefetch and again for the read (the rank is a loop over every
    /// pit, a sizeable part of a node's work).
    #[inline]
    pub fn index(&self, b: &SBoard, seeds: i32) -> usize {
        self.rank(b, seeds as usize)
    }

    /// [`Db::get`] of the position at `index` ([`Db::index`]) of level `seeds`.
    #[inline]
    pub fn get_at(&self, seeds: i32, index: usize) -> Option<i32> {
        let k = seeds as usize;
        if k > self.max_seeds {
            return None;
        }
        let v = self.levels.get(k)[index];
        if v == UNKNOWN {
            return None;
        }
        let v = i32::from(v);
        if !crate::board::plausible(&self.spec, seeds, v) {
            self.bad_reads.fetch_add(1, Relaxed);
            return None;
        }
        Some(v)
    }

    /// How many entries read so far could not be true (and were bypassed): a damaged table.
    pub fn bad_reads(&self) -> u64 {
        self.bad_reads.load(Relaxed)
    }

    /// The cache file the table is (or its first levels are) mapped from, if any.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref().filter(|_| self.levels.map.is_some())
    }

    /// Starts loading `b`'s entry into the cache (`seeds` must be covered).
    #[inline]
    pub fn prefetch(&self, b: &SBoard, seeds: i32) {
        self.prefetch_at(seeds, self.index(b, seeds));
    }

    /// [`Db::prefetch`] of the position at `index` ([`Db::index`]) of level `seeds`.
    #[inline]
    pub fn prefetch_at(&self, seeds: i32, index: usize) {
        super::prefetch_line(&self.levels.get(seeds as usize)[index]);
    }

    /// Largest number of seeds in the pits the database covers.
    pub fn max_seeds(&self) -> usize {
        self.max_seeds
    }

    /// The raw values of level `k` (`i8::MIN` for finished positions).
    pub fn level(&self, k: usize) -> &[i8] {
        self.levels.get(k)
    }

    /// Bytes of table (levels `0..=max_seeds`; a mapped file may hold more).
    pub fn bytes(&self) -> usize {
        (0..self.levels.count()).map(|k| self.level(k).len()).sum()
    }

    /// Whether the levels (or the first of them, for a table extended just now) are a cache
    /// file's mapping, rather than tables in memory.
    pub fn is_mapped(&self) -> bool {
        self.levels.map.is_some()
    }

    /// The same database in this process's own memory, on huge pages (a mapped one is copied
    /// from the file; `build_time` adds the copy). Why: a mapping is file pages of 4 KiB, and
    /// a search of minutes probes it at random; on huge pages it took 7–18 % less CPU
    /// (docs/solved.md), worth the few seconds of copying only for a long search.
    pub fn into_memory(mut self) -> Db {
        let started = Instant::now();
        self.levels.copy_mapped();
        self.build_time += started.elapsed();
        self
    }

    pub fn spec(&self) -> BoardSpec {
        self.spec
    }

    /// The cache file name for these rules and K.
    pub fn file_name(spec: &BoardSpec, max_seeds: usize) -> String {
        format!("{}-k{max_seeds}.db", spec.tag())
    }

    /// Loads the database from `dir` if a good file is there; otherwise builds it and (if `dir`
    /// is given) writes it there. Write errors are not fatal: the built table is returned.
    pub fn load_or_build(spec: BoardSpec, max_seeds: usize, dir: Option<&Path>) -> Db {
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        Db::load_or_build_with(spec, max_seeds, dir, threads, &|_, _| {})
    }

    /// The levels `0..=max_seeds` of a good cached file of `max_seeds` seeds or more in `dir`,
    /// mapped, and never a build: for a program that must not spend a build's time where it
    /// looks (a bot getting ready). `Err` says why there is none: no such file, or each one
    /// refused and why (a damaged file is named, not rebuilt).
    pub fn load_cached_only(dir: &Path, spec: BoardSpec, max_seeds: usize) -> Result<Db, String> {
        let mut refused = Vec::new();
        match Db::load_cached(dir, spec, max_seeds, &mut refused) {
            Some(db) => Ok(db),
            None if refused.is_empty() => Err(format!(
                "no table of {max_seeds} seeds or more for these rules in {}",
                dir.display()
            )),
            None => Err(refused.join("; ")),
        }
    }

    /// [`Db::load_or_build`] on `threads` threads with a build progress callback (see
    /// [`Db::extend`]). A cached file of a larger K serves too (its first levels are this
    /// database), and a build starts from the largest smaller one cached, or resumes an
    /// interrupted build of this K (see [`Db::build_into`]). Files refused on the way are named
    /// in [`Db::refused`]; a table that could not be written, in [`Db::not_kept`].
    pub fn load_or_build_with(
        spec: BoardSpec,
        max_seeds: usize,
        dir: Option<&Path>,
        threads: usize,
        progress: &(dyn Fn(u64, u64) + Sync),
    ) -> Db {
        let Some(dir) = dir else {
            return Db::empty(spec).extend(max_seeds, threads, progress);
        };
        let started = Instant::now();
        let mut refused = Vec::new();
        if let Some(mut db) = Db::load_cached(dir, spec, max_seeds, &mut refused) {
            db.build_time = started.elapsed();
            db.refused = refused;
            return db;
        }
        let mut db = match Db::build_into(dir, spec, max_seeds, threads, progress, &mut refused) {
            Ok(db) => db,
            // The folder cannot be written: build in memory, from what it holds.
            Err(e) => {
                let mut db = Db::largest_below(dir, spec, max_seeds, &mut refused)
                    .unwrap_or_else(|| Db::empty(spec))
                    .extend(max_seeds, threads, progress);
                db.not_kept = Some(Db::not_kept(dir, &spec, max_seeds, &e));
                db
            }
        };
        refused.dedup();
        db.refused = refused;
        db
    }

    /// Why the table of `max_seeds` is not kept in `dir`: the file and the error (`disk full`
    /// spelled out for the errors a full disk or a file size limit give).
    fn not_kept(dir: &Path, spec: &BoardSpec, max_seeds: usize, e: &std::io::Error) -> String {
        let full = matches!(e.raw_os_error(), Some(27 | 28 | 122));
        format!(
            "{} not kept: {e}{}; the table was built in memory for this run only",
            dir.join(Db::file_name(spec, max_seeds)).display(),
            if full {
                " (disk full or file size limit)"
            } else {
                ""
            }
        )
    }

    /// The first `max_seeds` levels of a good cached file of that K or larger, mapped; the
    /// files refused on the way are added to `refused`.
    fn load_cached(
        dir: &Path,
        spec: BoardSpec,
        max_seeds: usize,
        refused: &mut Vec<String>,
    ) -> Option<Db> {
        cached_seeds(spec, dir)
            .into_iter()
            .filter(|&k| k >= max_seeds)
            .find_map(|k| {
                Db::load(dir, spec, k, max_seeds)
                    .map_err(|e| refused.extend(e))
                    .ok()
            })
    }

    /// The largest good cached file smaller than `max_seeds`, mapped, as a base to extend.
    fn largest_below(
        dir: &Path,
        spec: BoardSpec,
        max_seeds: usize,
        refused: &mut Vec<String>,
    ) -> Option<Db> {
        cached_seeds(spec, dir)
            .into_iter()
            .rev()
            .filter(|&k| k < max_seeds)
            .find_map(|k| {
                Db::load(dir, spec, k, k)
                    .map_err(|e| refused.extend(e))
                    .ok()
            })
            .map(|db| Db {
                loaded: false,
                ..db
            })
    }

    /// The name of the file a build of this K writes as it goes.
    fn partial_name(spec: &BoardSpec, max_seeds: usize) -> String {
        format!("{}.partial", Db::file_name(spec, max_seeds))
    }

    /// Builds the levels up to `max_seeds` into the cache folder, resumably: the cache file is
    /// written as `NAME.partial` (the header with its checksums still blank, then each level as
    /// soon as it is built), its checksums filled in and checked against the file when
    /// complete, then synced and renamed to `NAME`. An interrupted build leaves the partial file
    /// with its complete levels, and the next build of this K goes on from the last of them (or
    /// from a larger cached smaller file, if there is one). A lock on the partial file makes a
    /// second process wait for the first and then map its file. A write that fails (a full
    /// disk) removes the partial file: the table is returned with [`Db::not_kept`] saying why.
    fn build_into(
        dir: &Path,
        spec: BoardSpec,
        max_seeds: usize,
        threads: usize,
        progress: &(dyn Fn(u64, u64) + Sync),
        refused: &mut Vec<String>,
    ) -> std::io::Result<Db> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(Db::partial_name(&spec, max_seeds));
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)?;
        let result = Db::build_into_file(
            file, &path, dir, spec, max_seeds, threads, progress, refused,
        );
        if let Err(e) = &result {
            // Nothing half-written left to mislead the next run (it builds again).
            let _ = std::fs::remove_file(&path);
            return Err(std::io::Error::new(
                e.kind(),
                format!("writing {}: {e}", path.display()),
            ));
        }
        result
    }

    #[allow(clippy::too_many_arguments)]
    fn build_into_file(
        mut file: std::fs::File,
        path: &Path,
        dir: &Path,
        spec: BoardSpec,
        max_seeds: usize,
        threads: usize,
        progress: &(dyn Fn(u64, u64) + Sync),
        refused: &mut Vec<String>,
    ) -> std::io::Result<Db> {
        use std::io::{Seek, Write};
        use std::os::unix::fs::FileExt;
        rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)?;
        if let Some(db) = Db::load_cached(dir, spec, max_seeds, &mut Vec::new()) {
            return Ok(db); // built by the process we waited for
        }
        let header = Db::header(&spec, max_seeds, None);
        let len = file.metadata()?.len() as usize;
        let mut head = vec![0u8; header.len().min(len)];
        std::io::Read::read_exact(&mut file, &mut head)?;
        // Levels complete in the partial file, if it is this build's.
        let resumed = (head == header.as_bytes())
            .then(|| {
                (0..=max_seeds)
                    .rev()
                    .find(|&j| header.len() + db_entries(spec.pits, j) <= len)
            })
            .flatten();
        let below = cached_seeds(spec, dir).into_iter().rev().find(|&k| {
            k < max_seeds
                && Db::load(dir, spec, k, k)
                    .map_err(|e| refused.extend(e))
                    .is_ok()
        });
        let have = match resumed {
            Some(j) if below.map_or(true, |k| j >= k) => j,
            _ => {
                // Start the file afresh: the header, then the levels of the base.
                file.set_len(0)?;
                file.rewind()?;
                file.write_all(header.as_bytes())?;
                match below {
                    Some(k) => {
                        let mut base = std::fs::File::open(dir.join(Db::file_name(&spec, k)))?;
                        base.seek(std::io::SeekFrom::Start(
                            Db::header(&spec, k, None).len() as u64
                        ))?;
                        std::io::copy(&mut base, &mut file)?;
                        k
                    }
                    None => {
                        file.write_all(&[UNKNOWN as u8])?;
                        0
                    }
                }
            }
        };
        let complete = header.len() + db_entries(spec.pits, have);
        file.set_len(complete as u64)?;
        file.seek(std::io::SeekFrom::Start(complete as u64))?;
        let base = Db::map(&file, path, (&header, header.len()), spec, have)
            .ok_or_else(|| std::io::Error::other("the partial database file cannot be mapped"))?;
        let mut failed = None;
        let db = base.extend_with(max_seeds, threads, progress, &mut |level| {
            if failed.is_none() {
                failed = file.write_all(bytemuck::cast_slice(level)).err();
            }
        });
        let mut db = Db {
            loaded: false,
            ..db
        };
        let kept = match failed {
            Some(e) => Err(e),
            None => (|| {
                // The checksums of the levels as built (a base's as read from its file, which
                // was checked when opened), then the file read back against them.
                let crcs = db.checksums();
                file.write_all_at(Db::header(&spec, max_seeds, Some(&crcs)).as_bytes(), 0)?;
                file.sync_all()?;
                if let Err(e) = Db::open_file(&file, path, spec, max_seeds, max_seeds) {
                    return Err(std::io::Error::other(e.unwrap_or_default()));
                }
                std::fs::rename(path, dir.join(Db::file_name(&spec, max_seeds)))?;
                // The rename itself on disk (a crash then finds the file or the partial one).
                std::fs::File::open(dir)?.sync_all()
            })(),
        };
        if let Err(e) = kept {
            let _ = std::fs::remove_file(path);
            let e = std::io::Error::new(e.kind(), format!("writing {}: {e}", path.display()));
            db.not_kept = Some(Db::not_kept(dir, &spec, max_seeds, &e));
        }
        // The mapping keeps the file open, and with it the lock: let the waiting go now.
        rustix::fs::flock(&file, rustix::fs::FlockOperation::Unlock)?;
        Ok(db)
    }

    /// The CRC-32 of each level.
    fn checksums(&self) -> Vec<u32> {
        (0..self.levels.count())
            .map(|k| crc32fast::hash(bytemuck::cast_slice(self.level(k))))
            .collect()
    }

    /// The fixed start of a database file of these rules and K (format, rules, K, size).
    fn header_start(spec: &BoardSpec, max_seeds: usize) -> String {
        format!(
            "mancala-arena solver db v2 {} k{max_seeds} entries {} crc32 ",
            spec.tag(),
            db_entries(spec.pits, max_seeds)
        )
    }

    /// A database file's first line: [`Db::header_start`], then the CRC-32 of each level in
    /// hex, comma-separated; `--------` for each while a build writes the file (same length).
    fn header(spec: &BoardSpec, max_seeds: usize, crcs: Option<&[u32]>) -> String {
        let sums: Vec<String> = (0..=max_seeds)
            .map(|k| crcs.map_or("--------".into(), |c| format!("{:08x}", c[k])))
            .collect();
        format!("{}{}\n", Db::header_start(spec, max_seeds), sums.join(","))
    }

    /// Levels `0..=max_seeds` of the cache file of K = `file_seeds` in `dir`, mapped, if that
    /// file has the right header and size and the levels their checksums. `Err(None)`: there
    /// is no such file; `Err(Some(why))`: it is refused, and why, naming it.
    fn load(
        dir: &Path,
        spec: BoardSpec,
        file_seeds: usize,
        max_seeds: usize,
    ) -> Result<Db, Option<String>> {
        let path = dir.join(Db::file_name(&spec, file_seeds));
        let file = std::fs::File::open(&path).map_err(|_| None)?;
        let mut db = Db::open_file(&file, &path, spec, file_seeds, max_seeds)?;
        db.loaded = true;
        Ok(db)
    }

    /// [`Db::load`] of the open `file` at `path`.
    fn open_file(
        file: &std::fs::File,
        path: &Path,
        spec: BoardSpec,
        file_seeds: usize,
        max_seeds: usize,
    ) -> Result<Db, Option<String>> {
        let refuse = |why: String| Some(format!("database {}: {why}: refused", path.display()));
        let meta = file.metadata().map_err(|e| refuse(e.to_string()))?;
        if !meta.is_file() {
            return Err(refuse("not a regular file".into()));
        }
        let start = Db::header_start(&spec, file_seeds);
        let header_len = Db::header(&spec, file_seeds, None).len();
        let len = (header_len + db_entries(spec.pits, file_seeds)) as u64;
        let mut head = vec![0u8; start.len().min(meta.len() as usize)];
        std::os::unix::fs::FileExt::read_exact_at(file, &mut head, 0)
            .map_err(|e| refuse(e.to_string()))?;
        if head.starts_with(b"mancala-arena solver db v1 ") {
            return Err(refuse(
                "an older format without checksums (rebuilt in the new one)".into(),
            ));
        }
        if head != start.as_bytes() {
            return Err(refuse(format!(
                "its first line is not {:?} (another format, other rules, or damaged)",
                start.trim_end()
            )));
        }
        if meta.len() != len {
            return Err(refuse(format!(
                "{} bytes where a database of {file_seeds} seeds has {len} (cut short or grown)",
                meta.len()
            )));
        }
        let db = Db::map(file, path, (&start, header_len), spec, max_seeds)
            .ok_or_else(|| refuse("cannot be mapped".into()))?;
        let map = db.levels.map.as_ref().expect("just mapped");
        let line = &map[start.len()..db.levels.starts[0] - 1];
        let crcs: Vec<Option<u32>> = line
            .split(|&b| b == b',')
            .map(|h| u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok())
            .collect();
        if crcs.len() != file_seeds + 1 || crcs.iter().any(Option::is_none) {
            return Err(refuse(
                "its header holds no checksums (an unfinished build?)".into(),
            ));
        }
        for (k, &crc) in crcs.iter().enumerate().take(max_seeds + 1) {
            if Some(crc32fast::hash(bytemuck::cast_slice(db.level(k)))) != crc {
                return Err(refuse(format!(
                    "the checksum of level {k} (positions with {k} seeds) fails: the file is damaged"
                )));
            }
        }
        Ok(db)
    }

    /// Levels `0..=max_seeds` of `file` (at `path`; it starts with `start`, its header is
    /// `header_len` bytes), mapped, and watched for SIGBUS ([`sigbus`]).
    fn map(
        file: &std::fs::File,
        path: &Path,
        (start, header_len): (&str, usize),
        spec: BoardSpec,
        max_seeds: usize,
    ) -> Option<Db> {
        // SAFETY: the mapping is read-only, and nothing changes the mapped bytes of a cache
        // file: a finished file is only ever replaced by rename, which leaves this mapping on
        // the old file's pages, and a partial file is only appended to, past what is mapped,
        // by the one process holding its lock. (Another program truncating the file is
        // caught by `sigbus`, which names it; one writing it in place, by the value checks of
        // `get`.)
        let map = unsafe { memmap2::Mmap::map(file) }.ok()?;
        if !map.starts_with(start.as_bytes()) || map.get(header_len - 1) != Some(&b'\n') {
            return None;
        }
        let mut db = Db::empty(spec);
        let m = 2 * spec.pits;
        let mut starts = vec![header_len];
        for k in 0..=max_seeds {
            starts.push(starts[k] + db.binom[k + m - 1][m - 1] as usize);
        }
        if *starts.last()? > map.len() {
            return None;
        }
        let watch = sigbus::watch(&map, path);
        db.levels = Levels {
            watch: Some(watch),
            map: Some(map),
            starts,
            mapped: max_seeds + 1,
            owned: Vec::new(),
        };
        db.max_seeds = max_seeds;
        db.path = Some(path.to_path_buf());
        Some(db)
    }

    /// Writes the table to `path` level by level (no second copy in memory), under a temporary
    /// name then renamed, so a concurrent reader never sees half a file.
    #[cfg(test)]
    fn save(&self, path: &Path) -> std::io::Result<()> {
        use std::io::Write;
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        let mut file = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&tmp)?);
        let crcs = self.checksums();
        file.write_all(Db::header(&self.spec, self.max_seeds, Some(&crcs)).as_bytes())?;
        for k in 0..self.levels.count() {
            file.write_all(bytemuck::cast_slice(self.level(k)))?;
        }
        file.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, path)
    }
}

/// The levels an interrupted build of K = `max_seeds` left complete in `dir` (its partial
/// file; see [`Db::build_into`]): the K a new build goes on from.
pub fn partial_seeds(spec: BoardSpec, dir: &Path, max_seeds: usize) -> Option<usize> {
    use std::io::Read;
    let mut file = std::fs::File::open(dir.join(Db::partial_name(&spec, max_seeds))).ok()?;
    let len = file.metadata().ok()?.len() as usize;
    let header = Db::header(&spec, max_seeds, None);
    let mut head = vec![0u8; header.len()];
    file.read_exact(&mut head).ok()?;
    (head == header.as_bytes())
        .then(|| {
            (0..max_seeds)
                .rev()
                .find(|&j| header.len() + db_entries(spec.pits, j) <= len)
        })
        .flatten()
}

/// The K of every database file for `spec` in `dir`, smallest first (sizes not checked).
pub fn cached_seeds(spec: BoardSpec, dir: &Path) -> Vec<usize> {
    (1..=MAX_DB_SEEDS)
        .filter(|&k| dir.join(Db::file_name(&spec, k)).is_file())
        .collect()
}

/// The documented cache folder for databases: `$MANCALA_SOLVER_DB`, else
/// `$XDG_CACHE_HOME/mancala-arena/solver`, else `$HOME/.cache/mancala-arena/solver`.
pub fn default_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("MANCALA_SOLVER_DB") {
        return Some(PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return Some(PathBuf::from(d).join("mancala-arena/solver"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/mancala-arena/solver"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_rules::Ruleset;

    #[test]
    fn ranks_are_a_bijection() {
        let spec = BoardSpec::from_ruleset(&Ruleset::kalah(2, 1)).unwrap();
        let db = Db::build(spec, 5);
        for k in 0..=5 {
            let size = db.level(k).len();
            let mut seen = vec![false; size];
            for a in 0..=k {
                for b in 0..=k - a {
                    for c in 0..=k - a - b {
                        let d = k - a - b - c;
                        let mut s = SBoard::default();
                        s.c[0] = a as u8;
                        s.c[1] = b as u8;
                        s.c[8] = c as u8;
                        s.c[9] = d as u8;
                        let r = db.rank(&s, k);
                        assert!(!seen[r]);
                        seen[r] = true;
                    }
                }
            }
            assert!(seen.iter().all(|&x| x));
        }
    }

    /// The block builder gives every entry the position-by-position recursion gives, on
    /// boards of 1 to 8 pits and every variant the solver supports (captures of empty pits,
    /// no sweep, the game ending only when the mover cannot move), on 1 and 3 threads.
    #[test]
    fn block_build_equals_the_recursion() {
        for (rules, k) in [
            ("kalah:pits=1,seeds=4", 30),
            ("kalah:pits=2,seeds=4", 16),
            ("kalah:pits=3,seeds=4", 13),
            ("kalah:pits=4,seeds=4", 10),
            ("kalah:pits=6,seeds=4", 8),
            ("kalah:pits=8,seeds=4", 6),
            ("kalah:pits=3,seeds=4,empty_capture=true", 13),
            ("kalah:pits=4,seeds=4,sweep=none", 10),
            ("kalah:pits=3,seeds=4,end_on_no_move=true", 13),
            (
                "kalah:pits=4,seeds=4,end_on_no_move=true,empty_capture=true,sweep=none",
                9,
            ),
        ] {
            let spec = BoardSpec::from_ruleset(&rules.parse::<Ruleset>().unwrap()).unwrap();
            let want = reference::levels(spec, k);
            for threads in [1, 3] {
                let db = Db::build_with_threads(spec, k, threads);
                for (j, level) in want.iter().enumerate() {
                    if db.level(j) != &level[..] {
                        let at = (0..level.len())
                            .find(|&i| db.level(j)[i] != level[i])
                            .unwrap();
                        panic!(
                            "{rules}: level {j} entry {at}: {} built, {} by recursion ({threads} threads)",
                            db.level(j)[at],
                            level[at]
                        );
                    }
                }
            }
        }
    }

    /// Each row sow put together with an opponent's row is `SBoard::sow` of the whole board.
    #[test]
    fn row_sows_combine_into_board_sows() {
        for rules in [
            "kalah:pits=3,seeds=4",
            "kalah:pits=6,seeds=4",
            "kalah:pits=2,seeds=4,empty_capture=true",
            "kalah:pits=3,seeds=4,end_on_no_move=true,sweep=none",
        ] {
            let spec = BoardSpec::from_ruleset(&rules.parse::<Ruleset>().unwrap()).unwrap();
            let n = spec.pits;
            let max = if n == 6 { 9 } else { 16 };
            let r = rows::Rows::new(n, max, &binomials());
            let moves = rows::Moves::new(&r, max);
            let mut checked = 0;
            for a in r.up_to(max / 2) {
                for b in r.up_to(max / 2) {
                    let board = rows::board(n, r.pits(a), r.pits(b));
                    let listed = moves.extra(a).len() + moves.flip(a).len();
                    assert_eq!(listed, (0..n).filter(|&i| board.c[i] != 0).count());
                    for i in (0..n).filter(|&i| board.c[i] != 0) {
                        let mv = rows::sow_row(&r, r.pits(a), i);
                        assert!(moves.extra(a).contains(&mv) || moves.flip(a).contains(&mv));
                        let got = rows::combine(&r, &spec, &mv, r.pits(b));
                        assert_eq!(got, board.sow(&spec, i), "{rules}: {board:?} pit {i}");
                        checked += 1;
                    }
                }
            }
            assert!(checked > 1000, "{checked}");
        }
    }

    /// A fresh cache folder for one test.
    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("mancala-db-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn same_levels(a: &Db, b: &Db) {
        assert_eq!(a.max_seeds(), b.max_seeds());
        assert_eq!(a.bytes(), b.bytes());
        for k in 0..=a.max_seeds() {
            assert!(a.level(k) == b.level(k), "level {k} differs");
        }
    }

    #[test]
    fn save_and_load_round_trip() {
        let spec = BoardSpec::from_ruleset(&Ruleset::kalah(3, 1)).unwrap();
        let dir = temp_dir("round-trip");
        let built = Db::load_or_build(spec, 6, Some(&dir));
        assert!(!built.loaded);
        let loaded = Db::load_or_build(spec, 6, Some(&dir));
        assert!(loaded.loaded && loaded.is_mapped());
        same_levels(&built, &loaded);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A mapped file answers exactly as the tables built in memory, level by level and through
    /// `get`, and a larger file's prefix serves a smaller K.
    #[test]
    fn mapped_file_matches_the_built_tables() {
        let spec = BoardSpec::from_ruleset(&Ruleset::kalah(6, 4)).unwrap();
        let dir = temp_dir("mapped");
        let built = Db::build_with_threads(spec, 9, 2);
        built.save(&dir.join(Db::file_name(&spec, 9))).unwrap();
        let mapped = Db::load_or_build(spec, 9, Some(&dir));
        assert!(mapped.is_mapped());
        same_levels(&built, &mapped);
        let copied = Db::load_or_build(spec, 9, Some(&dir)).into_memory();
        assert!(copied.loaded && !copied.is_mapped());
        same_levels(&built, &copied);
        let prefix = Db::load_or_build(spec, 7, Some(&dir));
        assert!(prefix.is_mapped());
        same_levels(&Db::build_with_threads(spec, 7, 1), &prefix);
        // Every position of level 5 through the public lookup.
        let mut cells = [0u8; 16];
        let mut checked = 0;
        each_position(&spec, 5, 0, &mut cells, &mut |b| {
            assert_eq!(built.get(b, 5), mapped.get(b, 5));
            mapped.prefetch(b, 5);
            checked += 1;
        });
        assert_eq!(checked, level_size(5, 12));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Every distribution of `left` seeds over the pits from the `j`-th on.
    fn each_position(
        spec: &BoardSpec,
        left: usize,
        j: usize,
        cells: &mut [u8; 16],
        f: &mut dyn FnMut(&SBoard),
    ) {
        let n = spec.pits;
        let at = if j < n { j } else { 8 + j - n };
        if j == 2 * n - 1 {
            cells[at] = left as u8;
            f(&SBoard { c: *cells });
            return;
        }
        for x in 0..=left {
            cells[at] = x as u8;
            each_position(spec, left - x, j + 1, cells, f);
        }
        cells[at] = 0;
    }

    /// A build extending a mapped smaller file gives the same tables as one from nothing.
    #[test]
    fn extending_a_mapped_file() {
        let spec = BoardSpec::from_ruleset(&Ruleset::kalah(4, 3)).unwrap();
        let dir = temp_dir("extend");
        Db::load_or_build(spec, 6, Some(&dir));
        let extended = Db::load_or_build(spec, 9, Some(&dir));
        assert!(!extended.loaded);
        same_levels(&Db::build_with_threads(spec, 9, 1), &extended);
        assert!(Db::load_or_build(spec, 9, Some(&dir)).is_mapped());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A build killed after some levels leaves `NAME.partial` with them (and perhaps part of
    /// the next): the next build goes on from its last complete level, builds only the levels
    /// above (the progress counts only those), and gives the table a build from nothing gives.
    /// Two processes asking at once: one builds, the other waits and maps its file.
    #[test]
    fn an_interrupted_build_resumes_from_its_last_level() {
        let spec = BoardSpec::from_ruleset(&Ruleset::kalah(4, 3)).unwrap();
        let dir = temp_dir("resume");
        std::fs::create_dir_all(&dir).unwrap();
        let want = Db::build_with_threads(spec, 10, 2);
        // What a build of K = 10 killed while writing level 8 leaves behind.
        let mut bytes = Db::header(&spec, 10, None).into_bytes();
        for k in 0..=7 {
            bytes.extend(bytemuck::cast_slice::<i8, u8>(want.level(k)));
        }
        bytes.extend(&bytemuck::cast_slice::<i8, u8>(want.level(8))[..100]);
        let partial = dir.join(Db::partial_name(&spec, 10));
        std::fs::write(&partial, &bytes).unwrap();
        let todo = std::sync::Mutex::new(Vec::new());
        let db = Db::load_or_build_with(spec, 10, Some(&dir), 2, &|_, t| {
            todo.lock().unwrap().push(t)
        });
        let above = (level_size(8, 8) + level_size(9, 8) + level_size(10, 8)) as u64;
        assert!(todo.lock().unwrap().iter().all(|&t| t == above));
        same_levels(&want, &db);
        assert!(!partial.exists());
        let cached = Db::load_or_build(spec, 10, Some(&dir));
        assert!(cached.loaded);
        same_levels(&want, &cached);
        // A stale partial file of another header is started over.
        std::fs::write(dir.join(Db::partial_name(&spec, 11)), b"not a database").unwrap();
        let eleven = Db::load_or_build(spec, 11, Some(&dir));
        same_levels(&Db::build_with_threads(spec, 11, 1), &eleven);
        // Two at once.
        let twelve: Vec<Db> = std::thread::scope(|s| {
            let both: Vec<_> = (0..2)
                .map(|_| s.spawn(|| Db::load_or_build(spec, 12, Some(&dir))))
                .collect();
            both.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(
            twelve.iter().filter(|d| d.loaded).count() == 1,
            "one waited and mapped"
        );
        same_levels(&twelve[0], &twelve[1]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A file one byte short, or with another header, is not mapped: the table is built again
    /// (and the file rewritten).
    #[test]
    fn bad_files_are_refused() {
        let spec = BoardSpec::from_ruleset(&Ruleset::kalah(3, 2)).unwrap();
        let dir = temp_dir("refused");
        let good = Db::load_or_build(spec, 6, Some(&dir));
        let path = dir.join(Db::file_name(&spec, 6));
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        assert!(Db::load(&dir, spec, 6, 6).is_err(), "short file");
        let mut other = bytes.clone();
        other[0] ^= 1;
        std::fs::write(&path, &other).unwrap();
        assert!(Db::load(&dir, spec, 6, 6).is_err(), "wrong header");
        let rebuilt = Db::load_or_build(spec, 6, Some(&dir));
        assert!(!rebuilt.loaded);
        same_levels(&good, &rebuilt);
        assert_eq!(std::fs::read(&path).unwrap(), bytes);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
