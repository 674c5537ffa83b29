//! `arena gate BANDS.toml`: does every level still play at the strength it was calibrated to?
//! The levels play colour-swapped pairs against a reference pool whose Elos are held fixed (a
//! gauntlet), each level with its own two-edge sequential test (`rating::gate`); a level that is
//! decided plays no more games, and the run stops when every level is decided.
//!
//! Exit codes (for CI): 0 every level inside its band, 3 some level proven outside (named, with
//! its estimate and interval), 4 the budget ran out with some level undecided, 1 error, 2 usage.
//!
//! The bands file (docs/regression-testing.md) is a tournament file's `[[bot]]` tables, each
//! with `elo` and `tolerance` (or `band = "1000 ± 50"`), a `[reference]` table of bundled
//! players with their Elos (`easy = 791`) and `[[reference.bot]]` tables with `elo`, and
//! optional game and gate settings; flags override it. `arena calibrate` writes one.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use serde::Deserialize;

use mancala_arena::engine::{BotSpec, Program};
use mancala_arena::rating::gate::{Band, GateSettings, GateVerdict, LevelGate, Verdict};
use mancala_arena::rating::sprt::PairTracker;
use mancala_arena::report::tables::{gate_table, gate_words};
use mancala_arena::run_folder::bands::BandsFile;
use mancala_arena::run_folder::gate::{GateFile, GateLevel, PoolMember};
use mancala_arena::run_folder::{GameRecord, RunKind};
use mancala_arena::session::{Finish, Session};
use mancala_arena::tournament::events::{OnGame, Steer};
use mancala_arena::tournament::runner::{RunMode, RunPlan};
use mancala_arena::vocab::{Format, RunConfig};

use super::pool::{Reference, ReferencePlayer};
use super::progress::Console;
use super::tournament::{default_out, FileBot, GameFlags};

pub const EXIT_PASS: u8 = 0;
pub const EXIT_OUTSIDE: u8 = 3;
pub const EXIT_UNDECIDED: u8 = 4;

/// The prefix of the reference players' names in the run folder, so that a level and the
/// reference player it is compared with (the old build's `easy`) can share a name in the file.
const REF_PREFIX: &str = "ref-";

/// The confidence level of the estimates' intervals.
const CONFIDENCE: f64 = 0.95;

/// The budget when neither the file nor `--max-pairs` gives one: pairs per level and reference
/// player (the simulations of docs/statistics.md §8 decide within a few hundred pairs per level
/// outside the indifference zones).
const DEFAULT_MAX_PAIRS: u32 = 300;

#[derive(clap::Args, Debug)]
pub struct GateArgs {
    /// The bands file (TOML): the levels with their bands, the reference pool with its Elos.
    pub bands: PathBuf,
    /// The program of every level, replacing the file's `cmd`/`bundled` (in CI: the build under
    /// test; the file gives each level's options).
    #[arg(long, value_name = "CMD")]
    pub bot: Option<String>,
    /// The chance that a level outside its band by at least the margin passes [default: 0.05].
    #[arg(long)]
    pub alpha: Option<f64>,
    /// The chance that the gate fails although every level is inside its band by at least the
    /// margin [default: 0.05].
    #[arg(long)]
    pub beta: Option<f64>,
    /// The indifference margin around each band edge, Elo [default: half of each tolerance].
    #[arg(long)]
    pub margin: Option<f64>,
    /// The budget: game pairs per level and reference player [default: 300].
    #[arg(long)]
    pub max_pairs: Option<u32>,
    /// Stop as soon as one level is proven outside its band.
    #[arg(long)]
    pub fail_fast: bool,
    #[arg(long)]
    pub seed: Option<u64>,
    /// Rules, openings (default on Kalah(6,4): the bundled suite), time control, concurrency.
    #[command(flatten)]
    pub game: GameFlags,
    /// Run folder [default: results/gate-<timestamp>/].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Do not rate the folder and draw its plots, report.html and summary.md at the end.
    #[arg(long)]
    pub no_plots: bool,
    #[arg(long, short)]
    pub quiet: bool,
}

/// A level to check.
struct Level {
    spec: BotSpec,
    band: Band,
}

/// The checked bands file with the flags applied.
struct Gate {
    levels: Vec<Level>,
    pool: Vec<Reference>,
    settings: GateSettings,
    game: GameFlags,
    max_pairs: u32,
    seed: u64,
}

/// What a bands file adds to a tournament `[[bot]]` table.
#[derive(Default)]
struct Extra {
    elo: Option<f64>,
    tolerance: Option<f64>,
    band: Option<Band>,
}

/// Parses `1000 ± 50` (also `1000 +- 50`, `1000+/-50`).
fn parse_band(text: &str) -> Result<Band> {
    let t = text.replace("+/-", "±").replace("+-", "±");
    let (elo, tol) = t
        .split_once('±')
        .with_context(|| format!("band `{text}`: expected ELO ± TOLERANCE, e.g. 1000 ± 50"))?;
    let number = |s: &str| -> Result<f64> {
        s.trim()
            .parse::<f64>()
            .with_context(|| format!("band `{text}`: `{}` is not a number", s.trim()))
    };
    Ok(Band {
        elo: number(elo)?,
        tolerance: number(tol)?,
    })
}

/// Splits a bands file's `[[bot]]` table into the tournament player and what the bands file
/// adds (`elo`, `tolerance`, `band`).
fn bot_table(mut table: toml::Table) -> Result<(FileBot, Extra)> {
    let name = table
        .get("name")
        .and_then(toml::Value::as_str)
        .unwrap_or("?")
        .to_string();
    let mut number = |key: &str| -> Result<Option<f64>> {
        match table.remove(key) {
            None => Ok(None),
            Some(toml::Value::Integer(i)) => Ok(Some(i as f64)),
            Some(toml::Value::Float(x)) => Ok(Some(x)),
            Some(other) => bail!("bot `{name}`: `{key}` must be a number, not {other}"),
        }
    };
    let mut extra = Extra {
        elo: number("elo")?,
        tolerance: number("tolerance")?,
        band: None,
    };
    if let Some(band) = table.remove("band") {
        let text = band
            .as_str()
            .with_context(|| format!("bot `{name}`: `band` must be a string like \"1000 ± 50\""))?;
        extra.band = Some(parse_band(text).with_context(|| format!("bot `{name}`"))?);
    }
    let bot =
        FileBot::deserialize(toml::Value::Table(table)).with_context(|| format!("bot `{name}`"))?;
    Ok((bot, extra))
}

impl GateArgs {
    /// Reads the bands file and applies the flags.
    fn gate(&self) -> Result<Gate> {
        let text = std::fs::read_to_string(&self.bands)
            .with_context(|| format!("cannot read {}", self.bands.display()))?;
        let base = self
            .bands
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let file = BandsFile::parse(&text)
            .with_context(|| format!("{} is not a valid bands file", self.bands.display()))?;
        self.gate_from(file, &base)
            .with_context(|| format!("bands file {}", self.bands.display()))
    }

    fn gate_from(&self, file: BandsFile, base: &Path) -> Result<Gate> {
        let mut levels = Vec::new();
        for table in file.bot {
            let (bot, extra) = bot_table(table)?;
            let band = match extra {
                Extra {
                    elo: Some(elo),
                    tolerance: Some(tolerance),
                    band: None,
                } => Band { elo, tolerance },
                Extra {
                    elo: None,
                    tolerance: None,
                    band: Some(band),
                } => band,
                _ => bail!(
                    "level `{}` needs `elo` and `tolerance`, or `band = \"ELO ± TOLERANCE\"` instead",
                    bot.name
                ),
            };
            // With --bot the program comes from the flag: the file's cmd or bundled is unused.
            let spec = match &self.bot {
                Some(cmd) => BotSpec {
                    name: bot.name.clone(),
                    program: Program::from_command_line(cmd).map_err(anyhow::Error::msg)?,
                    dir: None,
                    options: bot.options(),
                    protocol: bot.protocol,
                },
                None => bot.spec(base)?,
            };
            levels.push(Level { spec, band });
        }
        if levels.is_empty() {
            bail!("no levels: add [[bot]] tables with elo and tolerance");
        }
        let mut pool = Vec::new();
        for (name, &elo) in &file.reference.bundled {
            pool.push(Reference::bundled(name, Some(elo)).context("[reference]")?);
        }
        for table in file.reference.bot {
            let (bot, extra) = bot_table(table)?;
            let (Some(elo), None, None) = (extra.elo, extra.tolerance, extra.band) else {
                bail!(
                    "[[reference.bot]] `{}` needs its `elo` (and no band: bands are for levels)",
                    bot.name
                );
            };
            pool.push(Reference {
                name: bot.name.clone(),
                player: ReferencePlayer::Bot(bot.spec(base)?),
                elo: Some(elo),
            });
        }
        if pool.is_empty() {
            bail!("no reference players: give [reference] NAME = ELO or [[reference.bot]] tables");
        }
        let file_game = GameFlags::from_table(&file.game, base);
        let file_gate = file.gate;
        let defaults = GateSettings::default();
        Ok(Gate {
            levels,
            pool,
            settings: GateSettings {
                alpha: self.alpha.or(file_gate.alpha).unwrap_or(defaults.alpha),
                beta: self.beta.or(file_gate.beta).unwrap_or(defaults.beta),
                margin: self.margin.or(file_gate.margin),
                first_move_advantage: file_gate.first_move_advantage.unwrap_or(0.0),
            },
            game: self.game.or(&file_game),
            max_pairs: self
                .max_pairs
                .or(file_gate.max_pairs)
                .unwrap_or(DEFAULT_MAX_PAIRS),
            seed: self.seed.or(file_gate.seed).unwrap_or(1),
        })
    }
}

/// Who a player of the run is.
#[derive(Clone, Copy)]
enum Role {
    Level(usize),
    Reference(usize),
}

pub fn run(args: &GateArgs) -> Result<ExitCode> {
    let gate = args.gate()?;
    let n = gate.levels.len();
    let pool_elos: Vec<f64> = gate.pool.iter().map(|r| r.elo.unwrap_or(0.0)).collect();
    let mut tests = gate
        .levels
        .iter()
        .map(|l| {
            LevelGate::new(l.band, &pool_elos, &gate.settings, n)
                .with_context(|| format!("level `{}`", l.spec.name))
        })
        .collect::<Result<Vec<_>>>()?;
    let game = gate.game.settings_with_suite()?;
    let mut players: Vec<BotSpec> = gate.levels.iter().map(|l| l.spec.clone()).collect();
    for r in &gate.pool {
        players.push(r.spec_named(&format!("{REF_PREFIX}{}", r.name))?);
    }
    let mut roles = HashMap::new();
    for (i, p) in players.iter().enumerate() {
        let role = if i < n {
            Role::Level(i)
        } else {
            Role::Reference(i - n)
        };
        roles.insert(p.name.clone(), role);
    }
    let config = RunConfig {
        name: "gate".to_string(),
        rules: game.rules,
        players,
        format: Format::Gauntlet {
            challengers: (0..n).collect(),
        },
        pairs: gate.max_pairs,
        openings: game.openings,
        seed: gate.seed,
        time: game.time,
        adjudicate: false,
        max_start_failures: 3,
    };
    config.validate().map_err(anyhow::Error::msg)?;
    let plan = RunPlan {
        config,
        concurrency: game.concurrency,
        out: args.out.clone().unwrap_or_else(|| default_out("gate")),
    };
    let dir = plan.out.clone();
    if !args.quiet {
        let pool: Vec<String> = gate
            .pool
            .iter()
            .map(|r| format!("{}={:.0}", r.name, r.elo.unwrap_or(0.0)))
            .collect();
        eprintln!(
            "gate: {n} level(s) against {} (fixed Elos), alpha {} beta {}, at most {} pairs per level and reference player; results in {}",
            pool.join(", "),
            gate.settings.alpha,
            gate.settings.beta,
            gate.max_pairs,
            dir.display()
        );
    }
    if mancala_arena::run_folder::holds_run(&dir) {
        bail!(
            "{} already holds a run: choose another --out",
            dir.display()
        );
    }
    let mode = RunMode {
        kind: RunKind::Gate,
        ..RunMode::default()
    };
    // The session's lock covers gate.json too, written beside the games after the run.
    let session = Session::open(plan, mode)?;
    let names: Vec<String> = gate.levels.iter().map(|l| l.spec.name.clone()).collect();
    let mut tracker = PairTracker::default();
    let quiet = args.quiet;
    let fail_fast = args.fail_fast;
    let mut observer = OnGame(|record: &GameRecord| -> Steer {
        let row = &record.row;
        let points = row.result.score();
        let (level, opponent, level_points) = match (roles.get(&row.first), roles.get(&row.second))
        {
            (Some(&Role::Level(l)), Some(&Role::Reference(r))) => (l, r, points),
            (Some(&Role::Reference(r)), Some(&Role::Level(l))) => (l, r, 1.0 - points),
            _ => return Steer::Continue,
        };
        let Some(half) = tracker.complete(row.pair_id, level_points) else {
            return Steer::Continue;
        };
        let test = &mut tests[level];
        if test.verdict().is_decided() {
            // A game that was under way when the level was decided.
            return Steer::Continue;
        }
        let verdict = test.add_pair(opponent, half);
        if !quiet {
            let s = test.status(CONFIDENCE);
            eprintln!(
                "{:<12} pairs {:>4}  lower LLR {:+.2} [{:.2}, {:.2}]  upper LLR {:+.2}  {}",
                names[level],
                s.pairs,
                s.lower.llr,
                s.lower.lower,
                s.lower.upper,
                s.upper.llr,
                verdict.word()
            );
        }
        if !verdict.is_decided() {
            return Steer::Continue;
        }
        if fail_fast && verdict.is_outside() {
            Steer::Stop(format!(
                "the gate failed: `{}` is outside its band",
                names[level]
            ))
        } else if tests.iter().all(|t| t.verdict().is_decided()) {
            Steer::Stop("the gate decided every level".to_string())
        } else {
            Steer::Retire(vec![level])
        }
    });
    let mut console = Console::new(false, None);
    let outcome = session.play(&mut [&mut observer, &mut console])?;
    outcome.check(&dir, false, false)?;
    let verdicts: Vec<Verdict> = tests.iter().map(LevelGate::verdict).collect();
    let verdict = GateVerdict::of(&verdicts);
    let code = match verdict {
        GateVerdict::Pass => EXIT_PASS,
        GateVerdict::Fail => EXIT_OUTSIDE,
        GateVerdict::Undecided => EXIT_UNDECIDED,
    };
    let file = GateFile {
        settings: gate.settings,
        confidence: CONFIDENCE,
        max_pairs: gate.max_pairs,
        pool: gate
            .pool
            .iter()
            .zip(&pool_elos)
            .map(|(r, &elo)| PoolMember {
                name: format!("{REF_PREFIX}{}", r.name),
                elo,
            })
            .collect(),
        levels: names
            .iter()
            .zip(&tests)
            .map(|(name, t)| GateLevel {
                name: name.clone(),
                status: t.status(CONFIDENCE),
            })
            .collect(),
        verdict,
        exit_code: code,
    };
    file.write(&dir)?;
    let finished = session.finish(outcome, &Finish::sequential_test(!args.no_plots));
    super::plot::say_finished(&dir, &finished, false)?;
    out!("{}", gate_table(&file).text())?;
    for (level, name) in file.levels.iter().zip(&names) {
        if !level.status.verdict.is_outside() {
            continue;
        }
        let band = level.status.band;
        let estimate = level.status.estimate.map_or(String::new(), |e| {
            format!(
                ": Elo {:.0} [{:.0}, {:.0}] against the pool",
                e.elo, e.ci_low, e.ci_high
            )
        });
        outln!(
            "{name} is {} its band {:.0} ± {:.0}{estimate}",
            level.status.verdict.word(),
            band.elo,
            band.tolerance
        )?;
    }
    outln!(
        "gate {} ({} games; results in {})",
        gate_words(verdict),
        finished.outcome.played,
        dir.display()
    )?;
    Ok(ExitCode::from(code))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(extra: &[&str]) -> GateArgs {
        use clap::Parser;
        #[derive(Parser)]
        struct Wrap {
            #[command(flatten)]
            args: GateArgs,
        }
        let mut argv = vec!["gate", "bands.toml"];
        argv.extend(extra);
        Wrap::parse_from(argv).args
    }

    fn parse(text: &str, extra: &[&str]) -> Result<Gate> {
        args(extra).gate_from(BandsFile::parse(text)?, Path::new("/base"))
    }

    const FILE: &str = r#"
        rules = "kalah"
        opening_plies = 4
        alpha = 0.1
        first_move_advantage = 35
        [reference]
        easy = 791
        normal = 1258
        [[reference.bot]]
        name = "deep"
        cmd = "bots/ab --x"
        options = { Level = "normal", Depth = 7 }
        elo = 1551
        [[bot]]
        name = "easy"
        cmd = "new/ab"
        options = { Level = "easy" }
        elo = 800
        tolerance = 60
        [[bot]]
        name = "normal"
        cmd = "new/ab"
        options = { Level = "normal" }
        band = "1250 ± 50"
    "#;

    #[test]
    fn bands_file_with_both_band_forms() {
        let gate = parse(FILE, &[]).unwrap();
        assert_eq!(gate.levels.len(), 2);
        assert_eq!(
            gate.levels[1].band,
            Band {
                elo: 1250.0,
                tolerance: 50.0
            }
        );
        assert_eq!(
            gate.levels[0].spec.options,
            vec![("Level".into(), "easy".into())]
        );
        let names: Vec<&str> = gate.pool.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["easy", "normal", "deep"]);
        assert_eq!(gate.pool[2].elo, Some(1551.0));
        assert_eq!(gate.settings.alpha, 0.1);
        assert_eq!(gate.settings.beta, 0.05);
        assert_eq!(gate.settings.first_move_advantage, 35.0);
        assert_eq!(gate.game.opening_plies, Some(4));
        assert_eq!(gate.max_pairs, DEFAULT_MAX_PAIRS);
    }

    #[test]
    fn flags_override_the_file() {
        let gate = parse(
            FILE,
            &[
                "--alpha",
                "0.02",
                "--max-pairs",
                "9",
                "--bot",
                "ci/new-ab --fast",
            ],
        )
        .unwrap();
        assert_eq!(gate.settings.alpha, 0.02);
        assert_eq!(gate.max_pairs, 9);
        let spec = &gate.levels[1].spec;
        assert_eq!(spec.program.display(), "ci/new-ab --fast");
        assert_eq!(spec.options, vec![("Level".into(), "normal".into())]);
    }

    #[test]
    fn calibrate_writes_a_bands_file_the_gate_reads() {
        use mancala_arena::calibrate::{self, sim::SimulatedPlayer, Knob, Settings};
        use mancala_arena::run_folder::bands::{GameTable, GateTable};
        use mancala_arena::run_folder::calibration::{bands_toml, BandsReference};
        let pool = [1000.0, 1400.0];
        let knob = Knob::parse("option.Noise=0..2.0").unwrap();
        let mut player = SimulatedPlayer::new(|x: f64| 1700.0 - 400.0 * x, pool.to_vec(), 1);
        let settings = Settings {
            targets: vec![1200.0, 1500.0],
            tolerance: 60.0,
            ..Settings::default()
        };
        let cal = calibrate::calibrate(&knob, &pool, &settings, &mut player, |_| {}).unwrap();
        let deep = BotSpec {
            name: "deep".into(),
            program: Program::from_command_line("bots/ab --fast").unwrap(),
            dir: None,
            options: vec![("Depth".into(), "7".into())],
            protocol: Default::default(),
        };
        let refs = [
            BandsReference {
                name: "easy".into(),
                elo: 1000.0,
                spec: None,
            },
            BandsReference {
                name: "deep".into(),
                elo: 1400.0,
                spec: Some(deep),
            },
        ];
        let game = GameTable {
            rules: Some("kalah".into()),
            opening_plies: Some(2),
            ..GameTable::default()
        };
        let gate_table = GateTable {
            first_move_advantage: Some(30.0),
            ..GateTable::default()
        };
        let text = bands_toml(
            &cal,
            "target/release/mancala-alphabeta",
            &["Level=normal".to_string()],
            &refs,
            &game,
            &gate_table,
            50.0,
        );
        let gate = parse(&text, &[]).unwrap_or_else(|e| panic!("{e:#}\n{text}"));
        assert_eq!(gate.levels.len(), 2);
        assert_eq!(gate.levels[0].spec.name, "elo-1200");
        assert_eq!(gate.levels[0].band.elo, cal.targets[0].elo.round());
        assert_eq!(gate.levels[0].band.tolerance, 50.0);
        assert_eq!(
            gate.levels[0].spec.options,
            vec![
                ("Level".to_string(), "normal".to_string()),
                ("Noise".to_string(), knob.format(cal.targets[0].x))
            ]
        );
        let pool: Vec<(&str, Option<f64>)> =
            gate.pool.iter().map(|r| (r.name.as_str(), r.elo)).collect();
        assert_eq!(pool, [("easy", Some(1000.0)), ("deep", Some(1400.0))]);
        assert_eq!(gate.game.opening_plies, Some(2));
        assert_eq!(gate.settings.first_move_advantage, 30.0);
    }

    #[test]
    fn bad_bands_files_are_refused() {
        let missing_band = FILE.replace("band = \"1250 ± 50\"", "");
        assert!(parse(&missing_band, &[]).is_err());
        let no_pool = "[[bot]]\nname = \"a\"\ncmd = \"x\"\nelo = 1\ntolerance = 2\n";
        assert!(parse(no_pool, &[]).is_err());
        let unknown_key = FILE.replace("tolerance = 60", "tolerance = 60\ncolour = 1");
        assert!(parse(&unknown_key, &[]).is_err());
        let bad_bundled = FILE.replace("easy = 791", "nosuch = 791");
        assert!(parse(&bad_bundled, &[]).is_err());
        assert!(parse_band("1000 +- 50").is_ok());
        assert!(parse_band("1000+/-50").is_ok());
        assert!(parse_band("1000 50").is_err());
    }
}
