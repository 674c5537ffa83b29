//! The folder of a split solve (`arena solve --split DEPTH --plan DIR`, `--shard`, `--merge`;
//! `mancala_solver::split` has the method and why it is exact):
//!
//! - `plan.json`: the rules, the root position, the depth and the guess; every step rebuilds
//!   the same split from it, and checks it did by the root and the number of subproblems;
//! - `leaves/N.json`: one per solved subproblem, written whole under a temporary name, so a
//!   killed or requeued shard resumes where it stopped; each names its plan (every rule
//!   option, the root, the depth and a hash of the plan), and a leaf of another plan or with a
//!   value no position of its seeds can have is refused with its path;
//! - `result.json`: the merge's.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};

use crate::rules::{Position, Ruleset};
use crate::solver::split::{Leaf, Split};
use crate::solver::{BoardSpec, SBoard};

/// `plan.json`.
#[derive(Debug, Serialize, Deserialize)]
pub struct PlanFile {
    pub rules: String,
    /// The root position (docs/position.md).
    pub position: String,
    pub depth: usize,
    /// The root value the window is around (`None`: every subproblem exact).
    pub guess: Option<i32>,
    /// The database every shard uses (`None`: each shard's default setup).
    pub db_seeds: Option<usize>,
    pub leaves: usize,
    /// The root's pit vector, hex: a check that every step rebuilt the same split.
    pub root: String,
}

/// `leaves/N.json`: a subproblem's proven bounds, from its mover's view, and the plan it
/// belongs to (filled in by [`Plan::write_leaf`]; absent in leaves of older arenas, which are
/// refused).
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct LeafResult {
    pub leaf: usize,
    pub key: String,
    pub lo: i32,
    pub hi: i32,
    pub nodes: u64,
    pub secs: f64,
    /// The plan's rules with every option spelled out ([`full_rules`]).
    #[serde(default)]
    pub rules: Option<String>,
    /// The plan's root position (docs/position.md).
    #[serde(default)]
    pub root: Option<String>,
    #[serde(default)]
    pub depth: Option<usize>,
    /// [`Plan::hash`] of the plan.
    #[serde(default)]
    pub plan: Option<String>,
}

/// A split solve's folder, its plan read and its split rebuilt.
pub struct Plan {
    dir: PathBuf,
    pub file: PlanFile,
    pub rules: Ruleset,
    pub spec: BoardSpec,
    pub position: Position,
    pub split: Split,
}

/// A position's pit vector, hex (the key of `plan.json` and `leaves/N.json`).
pub fn key_hex(b: &SBoard) -> String {
    format!("{:032x}", b.key())
}

/// The solver board of `pos` and its store difference so far, or why the solver does not
/// value it.
pub fn board(spec: &BoardSpec, pos: &Position) -> anyhow::Result<(SBoard, i32)> {
    Ok(spec.solver_board(pos.board())?)
}

/// `rules` with every option written out, defaults included: what a leaf names, so that no
/// two rulesets (nor a change of a default) can be mistaken for each other.
pub fn full_rules(rules: &Ruleset) -> String {
    let options: Vec<String> = rules
        .kind()
        .keys()
        .iter()
        .map(|&key| {
            let value = match key {
                "pits" | "holes" => rules.pits().to_string(),
                "seeds" => rules.seeds().to_string(),
                "sow_cap" => rules.sow_cap().to_string(),
                "lap_cap" => rules.lap_cap().to_string(),
                "empty_capture" => rules.empty_capture().to_string(),
                "sweep" => format!("{:?}", rules.sweep()).to_lowercase(),
                "end_on_no_move" => rules.end_on_no_move().to_string(),
                "pie" => rules.pie().to_string(),
                "first_extra_turn" => rules.first_extra_turn().to_string(),
                other => format!("?{other}"),
            };
            format!("{key}={value}")
        })
        .collect();
    format!("{}:{}", rules.kind(), options.join(","))
}

/// FNV-1a, 64 bits: a hash that every build and platform computes alike (the std hasher does
/// not promise that).
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl Plan {
    /// Splits `position` of `rules` `depth` sows deep around `guess` and writes `plan.json` into
    /// the new plan folder `dir` (refused if it holds a plan already).
    pub fn create(
        dir: &Path,
        rules: Ruleset,
        position: Position,
        depth: usize,
        guess: Option<i32>,
        db_seeds: Option<usize>,
    ) -> anyhow::Result<Plan> {
        let spec = BoardSpec::from_ruleset(&rules).map_err(anyhow::Error::msg)?;
        let (root, _) = board(&spec, &position)?;
        Split::check_size(&spec, root, depth)?;
        let split = Split::new(&spec, root, depth, guess);
        if dir.join("plan.json").exists() {
            bail!(
                "{}: already holds a plan; use another folder, or delete it to start over",
                dir.display()
            );
        }
        std::fs::create_dir_all(dir.join("leaves"))
            .with_context(|| format!("cannot create {}", dir.display()))?;
        let file = PlanFile {
            rules: rules.to_string(),
            position: position.to_state_string(),
            depth,
            guess,
            db_seeds,
            leaves: split.leaves.len(),
            root: key_hex(&root),
        };
        write_json(&dir.join("plan.json"), &file)?;
        Ok(Plan {
            dir: dir.to_path_buf(),
            file,
            rules,
            spec,
            position,
            split,
        })
    }

    /// The plan in `dir`, its split rebuilt and checked against it.
    pub fn load(dir: &Path) -> anyhow::Result<Plan> {
        let path = dir.join("plan.json");
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!("{}: no plan (make one with --split DEPTH)", path.display())
        })?;
        let file: PlanFile = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a plan", path.display()))?;
        let rules: Ruleset = file
            .rules
            .parse()
            .map_err(|e| anyhow::anyhow!("{}: rules: {e}", path.display()))?;
        let spec = BoardSpec::from_ruleset(&rules).map_err(anyhow::Error::msg)?;
        let position = Position::from_state(rules, &file.position)
            .with_context(|| format!("{}: position", path.display()))?;
        let (root, _) = board(&spec, &position)?;
        Split::check_size(&spec, root, file.depth)
            .with_context(|| format!("{}: depth {}", path.display(), file.depth))?;
        let split = Split::new(&spec, root, file.depth, file.guess);
        if key_hex(&root) != file.root || split.leaves.len() != file.leaves {
            bail!(
                "{}: this arena splits the plan into {} subproblems at root {}, the plan says {} at {}",
                path.display(),
                split.leaves.len(),
                key_hex(&root),
                file.leaves,
                file.root
            );
        }
        Ok(Plan {
            dir: dir.to_path_buf(),
            file,
            rules,
            spec,
            position,
            split,
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The plan's hash: its full rules, root position, depth, guess, subproblem count and
    /// root board, hex.
    pub fn hash(&self) -> String {
        let f = &self.file;
        format!(
            "{:016x}",
            fnv1a(&format!(
                "{}\n{}\n{}\n{:?}\n{}\n{}",
                full_rules(&self.rules),
                f.position,
                f.depth,
                f.guess,
                f.leaves,
                f.root
            ))
        )
    }

    /// Why a leaf's stamp does not name this plan: what differs (`None`: it names this plan).
    fn foreign(&self, r: &LeafResult) -> Option<String> {
        let (Some(rules), Some(root), Some(depth), Some(plan)) =
            (&r.rules, &r.root, r.depth, &r.plan)
        else {
            return Some(
                "it names no plan (written by an older arena, or by hand); delete it and run \
                 its shard again"
                    .into(),
            );
        };
        let mine = full_rules(&self.rules);
        let mut differs = Vec::new();
        if *rules != mine {
            differs.push(format!("rules {rules}, this plan's {mine}"));
        }
        if *root != self.file.position {
            differs.push(format!("root {root}, this plan's {}", self.file.position));
        }
        if depth != self.file.depth {
            differs.push(format!("depth {depth}, this plan's {}", self.file.depth));
        }
        if differs.is_empty() && *plan != self.hash() {
            differs.push(format!(
                "plan hash {plan}, this plan's {} (another guess or arena)",
                self.hash()
            ));
        }
        (!differs.is_empty()).then(|| {
            format!(
                "it belongs to another plan: {}; delete it and run its shard again",
                differs.join("; ")
            )
        })
    }

    fn leaf_path(&self, i: usize) -> PathBuf {
        self.dir.join("leaves").join(format!("{i}.json"))
    }

    /// The stored result of leaf `i`, checked against the leaf (`Ok(None)`: not solved yet).
    pub fn read_leaf(&self, i: usize) -> anyhow::Result<Option<LeafResult>> {
        let leaf: &Leaf = &self.split.leaves[i];
        let path = self.leaf_path(i);
        let Ok(text) = std::fs::read_to_string(&path) else {
            return Ok(None);
        };
        let r: LeafResult = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a subproblem's result", path.display()))?;
        if let Some(why) = self.foreign(&r) {
            bail!("{}: {why}", path.display());
        }
        // Every value lies within the seeds in the pits, and (when every seed ends in a store:
        // `sweep=owner`) has their parity.
        let seeds = leaf.board.seeds();
        if r.lo > r.hi || r.lo < -seeds || r.hi > seeds {
            bail!(
                "{}: subproblem {i}: [{}, {}] cannot be true: every value of a position with {seeds} seeds in the pits lies within [-{seeds}, {seeds}]",
                path.display(),
                r.lo,
                r.hi
            );
        }
        if self.spec.sweep && r.lo == r.hi && (r.lo - seeds) % 2 != 0 {
            bail!(
                "{}: subproblem {i}: exact value {} has the wrong parity: with {seeds} seeds in the pits every value is {}",
                path.display(),
                r.lo,
                if seeds % 2 == 0 { "even" } else { "odd" }
            );
        }
        if r.leaf != i || r.key != key_hex(&leaf.board) || !Split::decided(leaf, (r.lo, r.hi)) {
            bail!(
                "{}: does not answer subproblem {i} of this plan (position {}, window ({}, {}))",
                path.display(),
                key_hex(&leaf.board),
                leaf.alpha,
                leaf.beta
            );
        }
        Ok(Some(r))
    }

    /// Stores a solved leaf's result, stamped with this plan.
    pub fn write_leaf(&self, r: &LeafResult) -> anyhow::Result<()> {
        let stamped = LeafResult {
            rules: Some(full_rules(&self.rules)),
            root: Some(self.file.position.clone()),
            depth: Some(self.file.depth),
            plan: Some(self.hash()),
            leaf: r.leaf,
            key: r.key.clone(),
            lo: r.lo,
            hi: r.hi,
            nodes: r.nodes,
            secs: r.secs,
        };
        write_json(&self.leaf_path(r.leaf), &stamped)
    }

    /// Every leaf's stored bounds so far.
    pub fn results(&self) -> anyhow::Result<Vec<Option<(i32, i32)>>> {
        let mut results = vec![None; self.split.leaves.len()];
        for i in self.stored_leaves()? {
            results[i] = self.read_leaf(i)?.map(|r| (r.lo, r.hi));
        }
        Ok(results)
    }

    /// The subproblems with a file in `leaves/` (listed, not opened one by one: most of a
    /// large plan's leaves have none while it runs).
    fn stored_leaves(&self) -> anyhow::Result<Vec<usize>> {
        let dir = self.dir.join("leaves");
        let entries =
            std::fs::read_dir(&dir).with_context(|| format!("cannot read {}", dir.display()))?;
        let mut stored = Vec::new();
        for entry in entries {
            let entry = entry.with_context(|| format!("cannot read {}", dir.display()))?;
            let name = entry.file_name();
            let index = name
                .to_str()
                .and_then(|n| n.strip_suffix(".json")?.parse().ok());
            if let Some(i) = index.filter(|&i: &usize| i < self.split.leaves.len()) {
                stored.push(i);
            }
        }
        Ok(stored)
    }

    /// Writes `result.json`.
    pub fn write_result(&self, result: &serde_json::Value) -> anyhow::Result<()> {
        write_json(&self.dir.join("result.json"), result)
    }
}

/// The leaves' results as one shard follows them while it works. A stored result never
/// changes, so a leaf once known is not read again, and the folder is read for the other
/// shards' new results at most once a [`Progress::REREAD`] (and whenever the shard asks, at the
/// start of a pass). Reading every leaf before each subproblem made a shard quadratic in the
/// plan's size: a Kalah(6,3) plan of 17,871 subproblems had 1,746 of them solved after 10
/// minutes. The other shards' results only save work (a subproblem they make unneeded is
/// skipped), so a view up to a second old costs time, never the value; the shard's own results
/// count at once.
pub struct Progress {
    results: Vec<Option<(i32, i32)>>,
    needed: Vec<bool>,
    /// `needed` is out of date with `results`.
    stale: bool,
    read_at: Option<Instant>,
}

impl Progress {
    /// The longest a shard works on without reading the other shards' results.
    pub const REREAD: Duration = Duration::from_secs(1);

    /// No result known yet: the first [`Progress::read`] reads the folder.
    pub fn new(plan: &Plan) -> Progress {
        Progress {
            results: vec![None; plan.split.leaves.len()],
            needed: Vec::new(),
            stale: true,
            read_at: None,
        }
    }

    /// Reads the results stored since the last read: always when `now` or on the first read,
    /// else only once [`Progress::REREAD`] has passed since the last.
    pub fn read(&mut self, plan: &Plan, now: bool) -> anyhow::Result<()> {
        if !now && self.read_at.is_some_and(|t| t.elapsed() < Self::REREAD) {
            return Ok(());
        }
        for i in plan.stored_leaves()? {
            if self.results[i].is_none() {
                self.results[i] = plan.read_leaf(i)?.map(|r| (r.lo, r.hi));
                self.stale |= self.results[i].is_some();
            }
        }
        self.read_at = Some(Instant::now());
        Ok(())
    }

    /// This shard's own result for leaf `i`.
    pub fn record(&mut self, i: usize, bounds: (i32, i32)) {
        self.results[i] = Some(bounds);
        self.stale = true;
    }

    /// Whether leaf `i` still matters to the root's value, given every result known.
    pub fn needed(&mut self, plan: &Plan, i: usize) -> bool {
        if self.stale {
            self.needed = plan.split.needed(&self.results);
            self.stale = false;
        }
        self.needed[i]
    }

    pub fn results(&self) -> &[Option<(i32, i32)>] {
        &self.results
    }
}

/// Writes `value` as JSON to `path` under a temporary name, then renames it.
fn write_json<T: Serialize>(path: &Path, value: &T) -> anyhow::Result<()> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, serde_json::to_string_pretty(value)? + "\n")
        .with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plan written, read back and its leaves stored: the same split, and a leaf result that
    /// does not answer its subproblem is refused with its path.
    #[test]
    fn a_plan_round_trips_and_checks_its_leaves() {
        let dir = std::env::temp_dir().join(format!("split-plan-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let rules = Ruleset::kalah(4, 3);
        let plan = Plan::create(&dir, rules, Position::new(rules), 2, Some(6), None).unwrap();
        assert!(Plan::create(&dir, rules, Position::new(rules), 2, None, None).is_err());
        let again = Plan::load(&dir).unwrap();
        assert_eq!(again.split.leaves.len(), plan.split.leaves.len());
        assert_eq!(again.file.root, plan.file.root);
        assert!(again.results().unwrap().iter().all(Option::is_none));
        let leaf = &again.split.leaves[0];
        let good = LeafResult {
            leaf: 0,
            key: key_hex(&leaf.board),
            lo: leaf.beta,
            hi: leaf.board.seeds(),
            nodes: 1,
            secs: 0.0,
            ..LeafResult::default()
        };
        again.write_leaf(&good).unwrap();
        assert_eq!(again.results().unwrap()[0], Some((good.lo, good.hi)));
        let (good_lo, good_hi) = (good.lo, good.hi);
        // Another position's result, then bounds no position of the leaf's seeds can have.
        let other = LeafResult {
            key: key_hex(&again.split.leaves[1].board),
            lo: good.lo,
            hi: good.hi,
            ..LeafResult::default()
        };
        again.write_leaf(&other).unwrap();
        let err = again.read_leaf(0).unwrap_err().to_string();
        assert!(
            err.contains("0.json: does not answer subproblem 0"),
            "{err}"
        );
        let bad = LeafResult {
            lo: -99,
            hi: 99,
            ..good
        };
        again.write_leaf(&bad).unwrap();
        let err = again.read_leaf(0).unwrap_err().to_string();
        assert!(
            err.contains("0.json: subproblem 0: [-99, 99] cannot be true"),
            "{err}"
        );
        // A leaf written by another plan (or an older arena, unstamped) is refused by name.
        let unstamped = serde_json::json!({"leaf": 0, "key": key_hex(&leaf.board),
            "lo": good_lo, "hi": good_hi, "nodes": 1, "secs": 0.0});
        std::fs::write(dir.join("leaves/0.json"), unstamped.to_string()).unwrap();
        let err = again.read_leaf(0).unwrap_err().to_string();
        assert!(err.contains("0.json: it names no plan"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A shard's view of the results: another shard's stored leaf is read when asked, its own
    /// results count at once, what it calls needed is the split's own answer for every result
    /// known as each leaf is solved in turn, and the leaves it solves give the root's value
    /// found unsplit (Kalah(4,2), the window around its true value, so that most leaves are cut).
    #[test]
    fn a_shards_progress_follows_the_stored_and_its_own_results() {
        use crate::solver::Solver;
        let dir = std::env::temp_dir().join(format!("split-progress-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let rules = Ruleset::kalah(4, 2);
        let spec = BoardSpec::from_ruleset(&rules).unwrap();
        let (root, _) = board(&spec, &Position::new(rules)).unwrap();
        let mut solver = Solver::new(spec, 16, None);
        let truth = solver.solve(&root, 0, &mut |_| false).unwrap();
        let plan = Plan::create(&dir, rules, Position::new(rules), 3, Some(truth), None).unwrap();
        let mut bounds = |i: usize| {
            let leaf = &plan.split.leaves[i];
            solver
                .bounds_within(
                    &leaf.board,
                    leaf.alpha,
                    leaf.beta,
                    leaf.alpha + 1,
                    &mut |_| false,
                )
                .unwrap()
        };
        let n = plan.split.leaves.len();
        assert!(n > 10, "{n} leaves");
        let mut progress = Progress::new(&plan);
        // Leaf 0 solved by another shard: seen on the next read asked for.
        let first = bounds(0);
        plan.write_leaf(&LeafResult {
            leaf: 0,
            key: key_hex(&plan.split.leaves[0].board),
            lo: first.0,
            hi: first.1,
            ..LeafResult::default()
        })
        .unwrap();
        assert_eq!(progress.results()[0], None);
        progress.read(&plan, true).unwrap();
        assert_eq!(progress.results()[0], Some(first));
        // The rest solved here in order, skipping what is not needed.
        let mut solved = 1;
        for i in 1..n {
            let expected = plan.split.needed(progress.results())[i];
            assert_eq!(progress.needed(&plan, i), expected, "leaf {i}");
            if expected {
                progress.record(i, bounds(i));
                solved += 1;
            }
        }
        assert!(solved < n, "all {n} leaves were solved: none was cut");
        assert_eq!(plan.split.merge(progress.results()), (truth, truth));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
