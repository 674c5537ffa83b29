//! `arena gate BANDS.toml`: does every level still play at the strength it was calibrated to?
//! This file reads the bands file and the flags into a [`GatePlan`] and prints; the gate itself
//! (the levels against a reference pool held at fixed Elos, each with its own two-edge
//! sequential test) is `mancala_arena::session::gate`.
//!
//! Exit codes (for CI): 0 every level inside its band, 3 some level proven outside (named, with
//! its estimate and interval), 4 the budget ran out with some level undecided, 1 error, 2 usage.
//!
//! The bands file (docs/regression-testing.md) is a tournament file's `[[bot]]` tables, each
//! with `elo` and `tolerance` (or `band = "1000 ± 50"`), a `[reference]` table of bundled
//! players with their Elos (`easy = 791`) and `[[reference.bot]]` tables with `elo`, and
//! optional game and gate settings; flags override it. `arena calibrate` writes one. The pool's
//! Elos may come from a rating instead (`reference_ratings = "site/ratings.csv"`, relative to the
//! file, by name; a typed Elo wins), and `reference_source` says where they came from: both go
//! into `gate.json` and the report.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};

use mancala_arena::plan::players::read_player;
use mancala_arena::plan::pool::{elos_from_ratings, Reference, ReferencePlayer};
use mancala_arena::rating::gate::GateSettings;
use mancala_arena::report::tables::{gate_table, gate_words};
use mancala_arena::run_folder::bands::BandsFile;
use mancala_arena::run_folder::ratings::RatingsFile;
use mancala_arena::session::gate::{self, GatePlan, Level, LevelUpdate};
use mancala_arena::vocab::GameFlags;

use super::output::OutputFlags;
use super::progress::Console;

/// The budget when neither the file nor `--max-pairs` gives one: pairs per level and reference
/// player (the simulations of docs/statistics.md §8 decide within a few hundred pairs per level
/// outside the indifference zones).
const DEFAULT_MAX_PAIRS: u32 = 300;

#[derive(clap::Args, Debug)]
pub struct GateArgs {
    /// The bands file (TOML): the levels with their bands, the reference pool with its Elos.
    pub bands: PathBuf,
    /// The bot of every level, in the player words (docs/players.md), replacing the file's
    /// program (in CI: the build under test): a bare command line (`./alphabeta-branch`),
    /// `cmd="..."` or a bundled name, with its protocol, sandbox, folder and options; each level
    /// keeps its name and its options (the flag's own win).
    #[arg(long, num_args = 1.., value_name = "PLAYER")]
    pub bot: Option<Vec<String>>,
    /// The chance that a level outside its band by at least the margin passes [default: 0.05].
    #[arg(long)]
    pub alpha: Option<f64>,
    /// The chance that the gate fails although every level is inside its band by at least the
    /// margin [default: 0.05].
    #[arg(long)]
    pub beta: Option<f64>,
    /// The indifference margin around each band edge, in Elo [default: half of each tolerance]
    /// (run's --margin is a time allowance in milliseconds).
    #[arg(long, value_name = "ELO")]
    pub margin: Option<f64>,
    /// The budget: game pairs per level and reference player [default: 300].
    #[arg(long)]
    pub max_pairs: Option<u32>,
    /// Stop as soon as one level is proven outside its band.
    #[arg(long)]
    pub fail_fast: bool,
    /// How long a bot may take for the handshake and each `isready`, in ms [default: 10000]:
    /// Hard and the strongest Elo settings build their endgame database at `newgame`, which
    /// takes far longer than its 0.4 s of CPU on a crowded machine.
    #[arg(long, value_parser = mancala_arena::vocab::game_flags::millis, value_name = "MS")]
    pub handshake_timeout: Option<u64>,
    /// Run seed: the openings and the bots' per-game seeds are a function of it [default: 1, or
    /// the bands file's `seed`].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Rules, openings (default on Kalah(6,4): the bundled suite), time control, concurrency.
    #[command(flatten)]
    pub game: GameFlags,
    #[command(flatten)]
    pub output: OutputFlags,
}

impl GateArgs {
    /// Reads the bands file and applies the flags.
    fn gate(&self) -> Result<GatePlan> {
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

    fn gate_from(&self, file: BandsFile, base: &Path) -> Result<GatePlan> {
        let flag = match &self.bot {
            Some(words) => Some(read_player("--bot", words, &[])?.table),
            None => None,
        };
        let mut levels = Vec::new();
        for level in &file.bot {
            let band = level.level_band()?;
            // With --bot the program comes from the flag: the file's cmd or bundled is unused.
            let spec = match &flag {
                Some(flag) => flag.in_place_of(&level.bot).spec(Path::new(""))?,
                None => level.bot.spec(base)?,
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
        for player in &file.reference.bot {
            pool.push(Reference {
                name: player.bot.name.clone(),
                player: ReferencePlayer::Bot(player.bot.spec(base)?),
                elo: player.reference_elo()?,
            });
        }
        if pool.is_empty() {
            bail!("no reference players: give [reference] NAME = ELO or [[reference.bot]] tables");
        }
        // Elos from a rating where the file types none (a typed Elo wins), and where they came
        // from: the file's own words first.
        let from_ratings = match &file.gate.reference_ratings {
            Some(path) => {
                let ratings = RatingsFile::read(&base.join(path)).context("reference_ratings")?;
                Some(elos_from_ratings(&mut pool, &ratings).context("reference_ratings")?)
            }
            None => None,
        };
        if let Some(r) = pool.iter().find(|r| r.elo.is_none()) {
            bail!(
                "[[reference.bot]] `{}` needs its `elo`, or a `reference_ratings` file rating it",
                r.name
            );
        }
        let reference_source = match (file.gate.reference_source.clone(), from_ratings) {
            (Some(text), Some(from)) => Some(format!("{text}; {from}")),
            (text, from) => text.or(from),
        };
        let file_game = file.game.relative_to(base);
        let file_gate = file.gate;
        let defaults = GateSettings::default();
        Ok(GatePlan {
            levels,
            pool,
            settings: GateSettings {
                alpha: self.alpha.or(file_gate.alpha).unwrap_or(defaults.alpha),
                beta: self.beta.or(file_gate.beta).unwrap_or(defaults.beta),
                margin: self.margin.or(file_gate.margin),
                first_move_advantage: file_gate.first_move_advantage.unwrap_or(0.0),
            },
            game: self.game.or(&file_game),
            max_pairs: match (self.max_pairs, file_gate.max_pairs) {
                (Some(0), _) => bail!("--max-pairs must be at least 1"),
                (None, Some(0)) => {
                    bail!("{}: max_pairs must be at least 1", self.bands.display())
                }
                (given, from_file) => given.or(from_file).unwrap_or(DEFAULT_MAX_PAIRS),
            },
            seed: self.seed.or(file_gate.seed).unwrap_or(1),
            fail_fast: self.fail_fast,
            reference_source,
            handshake_ms: self.handshake_timeout,
        })
    }
}

pub fn run(args: &GateArgs) -> Result<ExitCode> {
    let gate = args.gate()?;
    let out = args.output.out_or_default("gate");
    let dir = out.clone();
    let quiet = args.output.quiet;
    if !quiet {
        let pool: Vec<String> = gate
            .pool
            .iter()
            .map(|r| format!("{}={:.0}", r.name, r.elo.unwrap_or(0.0)))
            .collect();
        eprintln!(
            "gate: {} level(s) against {} (fixed Elos{}), alpha {} beta {}, at most {} pairs per level and reference player; results in {}",
            gate.levels.len(),
            pool.join(", "),
            gate.reference_source
                .as_deref()
                .map_or(String::new(), |s| format!(": {s}")),
            gate.settings.alpha,
            gate.settings.beta,
            gate.max_pairs,
            dir.display()
        );
    }
    let mut on_pair = |u: &LevelUpdate<'_>| {
        if quiet {
            return;
        }
        let s = &u.status;
        eprintln!(
            "{:<12} pairs {:>4}  lower LLR {:+.2} [{:.2}, {:.2}]  upper LLR {:+.2}  {}",
            u.name,
            s.pairs,
            s.lower.llr,
            s.lower.lower,
            s.lower.upper,
            s.upper.llr,
            u.verdict.word()
        );
    };
    let mut console = Console::new(false, None);
    let end = gate::play(
        &gate,
        out,
        !args.output.no_plots,
        &mut on_pair,
        &mut [&mut console],
    )?;
    super::say::say_finished(&dir, &end.finished, false)?;
    let file = &end.file;
    out!("{}", gate_table(file).text())?;
    for level in file.levels.iter() {
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
            "{} is {} its band {:.0} ± {:.0}{estimate}",
            level.name,
            level.status.verdict.word(),
            band.elo,
            band.tolerance
        )?;
    }
    outln!(
        "gate {} ({} games; results in {})",
        gate_words(file.verdict),
        end.finished.outcome.played,
        dir.display()
    )?;
    Ok(ExitCode::from(file.exit_code))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_arena::rating::gate::Band;
    use mancala_arena::vocab::{BotSpec, Program};

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

    fn parse(text: &str, extra: &[&str]) -> Result<GatePlan> {
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
        use mancala_arena::run_folder::bands::GateTable;
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
            sandbox: false,
            memory: None,
            time_by: None,
            kgp_missing_move: Default::default(),
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
        let game = GameFlags {
            rules: Some("kalah".into()),
            opening_plies: Some(2),
            ..GameFlags::default()
        };
        let gate_table = GateTable {
            first_move_advantage: Some(30.0),
            ..GateTable::default()
        };
        let candidate = BotSpec {
            name: "candidate".into(),
            program: Program::from_command_line("target/release/mancala-alphabeta").unwrap(),
            dir: None,
            options: vec![("Level".into(), "normal".into())],
            protocol: Default::default(),
            sandbox: false,
            memory: None,
            time_by: None,
            kgp_missing_move: Default::default(),
        };
        let text = bands_toml(&cal, &candidate, &refs, &game, &gate_table, 50.0);
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

    /// `reference_ratings` is relative to the bands file, fills the Elos the file does not type
    /// (a typed one wins) and is named, with `reference_source`, as where the Elos came from.
    #[test]
    fn reference_elos_from_a_ratings_file_relative_to_the_bands_file() {
        let base = std::env::temp_dir().join(format!("arena-gate-ratings-{}", std::process::id()));
        std::fs::create_dir_all(base.join("site")).unwrap();
        std::fs::write(
            base.join("site/ratings.csv"),
            "rank,name,elo\n1,hard,1685.44\n2,normal,1261.08\n3,easy,897.78\n",
        )
        .unwrap();
        let text = r#"
            reference_ratings = "site"
            reference_source = "the site's November games"
            [reference]
            easy = 900
            [[reference.bot]]
            name = "hard"
            cmd = "old/ab"
            options = { Level = "hard" }
            [[bot]]
            name = "normal"
            cmd = "new/ab"
            band = "1261 ± 60"
        "#;
        let gate = args(&[])
            .gate_from(BandsFile::parse(text).unwrap(), &base)
            .unwrap();
        let pool: Vec<(&str, Option<f64>)> =
            gate.pool.iter().map(|r| (r.name.as_str(), r.elo)).collect();
        assert_eq!(pool, [("easy", Some(900.0)), ("hard", Some(1685.44))]);
        assert_eq!(
            gate.reference_source.unwrap(),
            format!(
                "the site's November games; reference Elos from {} ; easy = 900 typed",
                base.join("site/ratings.csv").display()
            )
            .replace(" ;", ";")
        );
        // Without the file a reference player with no Elo is refused, naming it; with a file
        // that does not rate it too.
        let no_file = text.replace("reference_ratings = \"site\"", "");
        let Err(err) = args(&[]).gate_from(BandsFile::parse(&no_file).unwrap(), &base) else {
            panic!("a reference player without an Elo was taken");
        };
        assert!(
            format!("{err:#}").contains("`hard` needs its `elo`"),
            "{err:#}"
        );
        let unrated = text.replace("name = \"hard\"", "name = \"expert\"");
        let Err(err) = args(&[]).gate_from(BandsFile::parse(&unrated).unwrap(), &base) else {
            panic!("a reference player the file does not rate was taken");
        };
        assert!(
            format!("{err:#}").contains("the reference player `expert` is not rated in"),
            "{err:#}"
        );
        let _ = std::fs::remove_dir_all(&base);
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
        use mancala_arena::run_folder::bands::parse_band;
        assert!(parse_band("1000 +- 50").is_ok());
        assert!(parse_band("1000+/-50").is_ok());
        assert!(parse_band("1000 50").is_err());
    }
}
