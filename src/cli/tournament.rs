//! `arena run` / `arena tournament`: clap arguments and the TOML file in (what was typed), a
//! checked [`RunPlan`] out (what will be played), then a session plays it. The game settings,
//! the players' language and the file's schema are the library's (`mancala_arena::plan`).

use std::path::PathBuf;

use anyhow::{bail, Result};

use mancala_arena::engine::DEFAULT_LOG_CAP;
use mancala_arena::plan::players::{default_field, read_player};
use mancala_arena::plan::tournament_file::TournamentFile;
use mancala_arena::plan::{gauntlet, physical_cores};
use mancala_arena::run_folder::{RunFile, RunKind};
use mancala_arena::session::{Finish, Session};
use mancala_arena::tournament::runner::RunMode;
use mancala_arena::vocab::game_flags::{at_least_one, millis};
use mancala_arena::vocab::GameFlags;
use mancala_arena::vocab::{Format, RunPlan};

use super::output::OutputFlags;
use super::progress::Console;

/// Arguments of `arena run`. Command-line flags override the TOML file.
#[derive(clap::Args, Debug, Default)]
pub struct RunArgs {
    /// A tournament file (TOML; see tournament.example.toml).
    pub config: Option<PathBuf>,
    /// A player, in the player words (docs/players.md): a bundled name (`hard`), or `name=NAME
    /// cmd="PROGRAM ARGS"` or `bundled=NAME`, with `[option.KEY=VALUE ...]`
    /// `[protocol=mancala|mankalah|kgp|per-move]` `[sandbox=true] [dir=DIR] [shell=true]`.
    /// Repeat for each player.
    #[arg(long = "bot", num_args = 1.., value_name = "PLAYER", action = clap::ArgAction::Append)]
    pub bots: Vec<String>,
    /// The `--bot` values grouped by occurrence (clap's derive flattens them; filled by
    /// `cli::with_grouped_values`).
    #[arg(skip)]
    pub bot_groups: Vec<Vec<String>>,
    /// Ruleset, openings, time control, concurrency (shared with `sprt`, `gate` and `calibrate`).
    #[command(flatten)]
    pub game: GameFlags,
    /// Gauntlet: this player plays everyone else (repeat for several); default is round robin.
    #[arg(long = "gauntlet", value_name = "NAME")]
    pub gauntlet: Vec<String>,
    /// Game pairs per encounter (each pair: same opening, first player swapped) [default: 4].
    #[arg(long, allow_negative_numbers = true, value_parser = at_least_one::<u32>)]
    pub pairs: Option<u32>,
    /// Run seed: the schedule, openings and bot seeds are a function of it [default: 1].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Overhead allowance added to every time limit, in milliseconds [default: 100] (gate's
    /// --margin is in Elo).
    #[arg(long, value_name = "MS")]
    pub margin: Option<u64>,
    /// How long a bot may take for the handshake and `isready`, in ms [default: 10000].
    #[arg(long, allow_negative_numbers = true, value_parser = millis)]
    pub handshake_timeout: Option<u64>,
    /// End a game as soon as its outcome can no longer change.
    #[arg(long)]
    pub adjudicate: bool,
    /// Run every bot in the sandbox (bubblewrap: no other process visible, no network but a
    /// KGP agent's, the file system read-only but the bot's dir); one bot: sandbox=true.
    #[arg(long)]
    pub sandbox: bool,
    /// Finish an interrupted run folder: plays exactly its missing games.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["config", "bots", "out", "shard"])]
    pub resume: Option<PathBuf>,
    /// A name for the run (folder name and reports) [default: from the file name, or `arena`].
    #[arg(long)]
    pub name: Option<String>,
    /// Drop a player after this many failed starts in a row [default: 3].
    #[arg(long)]
    pub max_start_failures: Option<u32>,
    /// Play without the players whose bot cannot start before the first game (otherwise that
    /// is an error naming them).
    #[arg(long)]
    pub drop_unstartable: bool,
    /// Most of each player's stderr kept in its log for the whole run: bytes, or with a K, M or
    /// G suffix; the first and the last part are kept [default: 16M; on --resume, the run's].
    #[arg(long, value_name = "SIZE")]
    pub log_cap: Option<String>,
    /// Play only the game pairs with id ≡ I (mod N): `I/N`, zero-based.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    #[command(flatten)]
    pub rating: super::rate::RatingFlags,
    #[command(flatten)]
    pub output: OutputFlags,
}

/// Builds the plan from the file and the flags (flags win).
pub fn build_plan(args: &RunArgs) -> Result<RunPlan> {
    let (file, base) = match &args.config {
        Some(path) => TournamentFile::read(path)?,
        None => (TournamentFile::default(), PathBuf::new()),
    };
    let game = args.game.or(&file.game.relative_to(&base)).settings()?;

    let mut players = Vec::new();
    for b in &file.bot {
        players.push(b.spec(&base)?);
    }
    for words in &args.bot_groups {
        players.push(read_player("--bot", words, &[])?.spec(None)?);
    }
    if players.is_empty() {
        if let Some(path) = &args.config {
            bail!(
                "{} has no players: add [[bot]] tables (see tournament.example.toml) or --bot flags",
                path.display()
            );
        }
        players = default_field()?;
    }
    for p in &players {
        if let Some(dir) = &p.dir {
            if !dir.is_dir() {
                bail!(
                    "player `{}`: its working directory {} does not exist",
                    p.name,
                    dir.display()
                );
            }
        }
    }

    let gauntlet_names = if args.gauntlet.is_empty() {
        file.gauntlet.clone().unwrap_or_default()
    } else {
        args.gauntlet.clone()
    };
    let format = match (file.format.as_deref(), gauntlet_names.is_empty()) {
        (Some("gauntlet"), true) => bail!("format = \"gauntlet\" needs gauntlet = [\"NAME\", ...]"),
        (Some("round-robin" | "round_robin"), false) if args.gauntlet.is_empty() => {
            bail!("format = \"round-robin\" and a gauntlet list contradict each other")
        }
        (Some(other), _) if !matches!(other, "gauntlet" | "round-robin" | "round_robin") => {
            bail!("unknown format `{other}` (round-robin or gauntlet)")
        }
        (_, true) => Format::RoundRobin,
        (_, false) => gauntlet(&players, &gauntlet_names)?,
    };

    let mut game = game;
    if let Some(margin) = args.margin.or(file.margin) {
        game.time.margin_ms = margin;
    }
    if let Some(ms) = args.handshake_timeout.or(file.handshake_timeout) {
        game.time.handshake_ms = ms;
    }

    let name = args
        .name
        .clone()
        .or(file.name.clone())
        .or_else(|| {
            args.config
                .as_ref()
                .and_then(|p| p.file_stem())
                .map(|s| s.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "arena".to_string());
    if name.is_empty() || name.contains(['/', '\\']) || name == "." || name == ".." {
        bail!("--name `{name}`: a run name is one folder name (no `/`, `\\`, `.` or `..`)");
    }
    let out = args
        .output
        .out
        .clone()
        .or(file.out.clone())
        .unwrap_or_else(|| mancala_arena::plan::default_out(&name));
    let mut plan = game.plan(
        &name,
        players,
        format,
        args.pairs.or(file.pairs).unwrap_or(4),
        args.seed.or(file.seed).unwrap_or(1),
        out,
    )?;
    plan.config.adjudicate = args.adjudicate || file.adjudicate.unwrap_or(false);
    if args.sandbox {
        for player in &mut plan.config.players {
            player.sandbox = true;
        }
    }
    plan.config.max_start_failures = args
        .max_start_failures
        .or(file.max_start_failures)
        .unwrap_or(3);
    Ok(plan)
}

pub fn parse_shard(text: &str) -> Result<(u64, u64)> {
    let parse = || -> Option<(u64, u64)> {
        let (i, n) = text.split_once('/')?;
        Some((i.trim().parse().ok()?, n.trim().parse().ok()?))
    };
    match parse() {
        Some((i, n)) if n > 0 && i < n => Ok((i, n)),
        _ => bail!("--shard `{text}`: expected I/N with 0 <= I < N, e.g. 0/4"),
    }
}

/// The flags `--resume` cannot honour: the run goes on as its `run.json` says.
fn ignored_by_resume(args: &RunArgs) -> Vec<&'static str> {
    let g = &args.game;
    [
        ("--rules", g.rules.is_some()),
        ("--opening-plies", g.opening_plies.is_some()),
        ("--openings", g.openings.is_some()),
        ("--movetime", g.movetime.is_some()),
        ("--tc", g.tc.is_some()),
        ("--depth", g.depth.is_some()),
        ("--nodes", g.nodes.is_some()),
        ("--time-by", g.time_by.is_some()),
        ("--gauntlet", !args.gauntlet.is_empty()),
        ("--pairs", args.pairs.is_some()),
        ("--seed", args.seed.is_some()),
        ("--margin", args.margin.is_some()),
        ("--handshake-timeout", args.handshake_timeout.is_some()),
        ("--adjudicate", args.adjudicate),
        ("--sandbox", args.sandbox),
        ("--name", args.name.is_some()),
        ("--max-start-failures", args.max_start_failures.is_some()),
    ]
    .into_iter()
    .filter_map(|(flag, given)| given.then_some(flag))
    .collect()
}

/// `--log-cap`: `16M`, `512K`, `1G` or plain bytes.
fn parse_size(text: &str) -> Result<u64> {
    let text = text.trim();
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => text.split_at(i),
        None => (text, ""),
    };
    let scale: u64 = match unit.to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        _ => bail!("--log-cap `{text}`: expected a size such as 16M, 512K or 1048576"),
    };
    let n: u64 = digits
        .parse()
        .map_err(|_| anyhow::anyhow!("--log-cap `{text}`: expected a size such as 16M"))?;
    match n.checked_mul(scale) {
        Some(bytes) if bytes >= 4096 => Ok(bytes),
        _ => bail!("--log-cap `{text}`: at least 4K and at most a few gigabytes"),
    }
}

/// `arena run`: builds (or, with --resume, reads) the plan, plays it on a session, rates the
/// folder and draws its report.
pub fn main(args: &RunArgs) -> Result<()> {
    let (plan, shard, run_log_cap) = match &args.resume {
        Some(dir) => {
            let ignored = ignored_by_resume(args);
            if !ignored.is_empty() {
                bail!(
                    "--resume finishes the run as {}'s run.json says: {} would be ignored; drop {}",
                    dir.display(),
                    ignored.join(", "),
                    if ignored.len() == 1 { "it" } else { "them" }
                );
            }
            if args.game.concurrency == Some(0) {
                bail!("--concurrency must be at least 1");
            }
            if !dir.exists() {
                bail!(
                    "{} does not exist: --resume takes the folder of an interrupted run \
                     (`arena serve` shows each with its --resume command)",
                    dir.display()
                );
            }
            let run_file = RunFile::read(dir)?;
            let plan = RunPlan {
                config: run_file.config,
                concurrency: args.game.concurrency.unwrap_or_else(physical_cores),
                out: dir.clone(),
            };
            (plan, run_file.shard, run_file.log_cap)
        }
        None => {
            let shard = args.shard.as_deref().map(parse_shard).transpose()?;
            (build_plan(args)?, shard, None)
        }
    };
    // Rating settings are checked before a game is played, not after the last.
    let rating = args.rating.options()?;
    rating.config(
        &plan
            .config
            .players
            .iter()
            .map(|p| p.name.clone())
            .collect::<Vec<_>>(),
    )?;
    let mode = RunMode {
        resume: args.resume.is_some(),
        shard,
        drop_unstartable: args.drop_unstartable,
        // A resume keeps the run's cap unless told otherwise.
        log_cap: match &args.log_cap {
            Some(text) => parse_size(text)?,
            None => run_log_cap.unwrap_or(DEFAULT_LOG_CAP),
        },
        kind: RunKind::Tournament,
    };
    if !args.output.quiet {
        let config = &plan.config;
        eprintln!(
            "{}: {} players, {} ({} pair{} per encounter), {} game(s) at once, results in {}",
            config.name,
            config.players.len(),
            config.rules,
            config.pairs,
            if config.pairs == 1 { "" } else { "s" },
            plan.concurrency,
            plan.out.display()
        );
    }
    let gauntlet = match &plan.config.format {
        Format::Gauntlet { challengers } => challengers
            .iter()
            .map(|&i| plan.config.players[i].name.clone())
            .collect(),
        Format::RoundRobin => Vec::new(),
    };
    let session = Session::open(plan, mode)?;
    let dir = session.dir().to_path_buf();
    let mut console = Console::new(!args.output.quiet, Some(dir.clone())).always_showing(gauntlet);
    let outcome = session.play(&mut [&mut console])?;
    if !args.output.quiet {
        eprintln!(
            "{} game(s) played ({} forfeit(s)), {} skipped; results in {}",
            outcome.played,
            outcome.forfeits,
            outcome.skipped,
            dir.display()
        );
    }
    let finished = session.finish(
        outcome,
        &Finish {
            rating: Some(rating),
            report: !args.output.no_plots,
        },
    );
    super::plot::say_finished(&dir, &finished, true)?;
    finished.outcome.check(&dir, true, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_cap_sizes() {
        assert_eq!(parse_size("16M").unwrap(), 16 << 20);
        assert_eq!(parse_size("512k").unwrap(), 512 << 10);
        assert_eq!(parse_size("100000").unwrap(), 100_000);
        assert!(parse_size("12").is_err());
        assert!(parse_size("lots").is_err());
        assert!(parse_size("99999999999G").is_err());
    }
}
