//! `arena check-bot --bot PLAYER` (or `-- CMD ARGS...`): the protocol compliance check
//! (docs/protocol.md), of any player the player words name (docs/players.md).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use mancala_arena::engine::check::{check_bot, CheckConfig, DEFAULT_RULESETS};
use mancala_arena::engine::{last_lines, BotSpec, Protocol};
use mancala_arena::plan::players::read_player;
use mancala_arena::tournament::check_driver::check_driver;

#[derive(clap::Args, Debug)]
pub struct CheckBotArgs {
    /// A ruleset to play test positions in (repeatable; default: kalah, kalah:pits=4,seeds=3,
    /// kalah:pie=true, oware, congkak).
    #[arg(long = "ruleset")]
    pub rulesets: Vec<String>,
    /// The bot, in the player words (docs/players.md): a bundled name (`hard`), or
    /// `cmd="PROGRAM ARGS"` with `protocol=`, `option.NAME=VALUE`, `sandbox=` and `dir=`.
    /// The words may also follow `--` in place of a command line.
    #[arg(long, num_args = 1.., value_name = "PLAYER", conflicts_with = "command")]
    pub bot: Option<Vec<String>>,
    /// An option to set before the checks, NAME=VALUE (repeatable; shorthand for
    /// option.NAME=VALUE).
    #[arg(long = "option", value_name = "NAME=VALUE")]
    pub options: Vec<String>,
    /// Safety timeout for `go depth`/`nodes`/plain `go`, in ms.
    #[arg(long, default_value_t = 10_000)]
    pub timeout_ms: u64,
    /// Allowance added to `movetime` budgets, in ms.
    #[arg(long, default_value_t = 100)]
    pub margin_ms: u64,
    /// Seed of the random playouts that make the test positions, and the one sent with `newgame`
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Where to write the transcript [default: a file in the temporary folder].
    #[arg(long)]
    pub transcript: Option<PathBuf>,
    /// The protocol the bot speaks (shorthand for protocol=): mancala (the arena's own, every
    /// check of docs/protocol.md; the default), mankalah, kgp or per-move (played through their
    /// drivers against random moves, docs/protocols.md).
    #[arg(long)]
    pub protocol: Option<Protocol>,
    /// The bot's command line (run without a shell), or its player words.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<String>,
}

impl CheckBotArgs {
    /// The checked bot: `--bot`'s words or those after `--`, with the shorthand flags.
    fn spec(&self) -> Result<BotSpec> {
        let (flag, words) = match &self.bot {
            Some(words) => ("--bot", words.as_slice()),
            None if !self.command.is_empty() => ("--", self.command.as_slice()),
            None => anyhow::bail!(
                "which bot? give --bot PLAYER (docs/players.md) or its command line after `--`"
            ),
        };
        let mut words = read_player(flag, words, &[])?.with_options("--option", &self.options)?;
        if let Some(protocol) = self.protocol {
            let given = words.table.protocol;
            if !given.is_native() && given != protocol {
                anyhow::bail!("--protocol {protocol} and protocol={given}: give one");
            }
            words.table.protocol = protocol;
        }
        words.spec(Some("checked"))
    }
}

/// A new transcript and stderr log in the temporary folder, created exclusively (`O_EXCL`, so a
/// file or symlink someone planted there is never followed or overwritten) under a name no one
/// could guess in advance.
fn new_transcript_files() -> Result<(PathBuf, PathBuf)> {
    use std::hash::{BuildHasher, Hasher};
    let tmp = std::env::temp_dir();
    for _ in 0..16 {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        let stem = format!("arena-check-bot-{}-{:016x}", std::process::id(), h.finish());
        if let Some(files) = create_new_pair(&tmp, &stem) {
            return Ok(files);
        }
    }
    anyhow::bail!("cannot create a transcript file in {}", tmp.display())
}

/// `STEM.txt` and `STEM.stderr.log` in `dir`, both created new (`O_EXCL`: whatever is already
/// there under either name, a file or a symlink, dangling or not, is neither followed nor
/// overwritten); `None` when either name is taken.
fn create_new_pair(dir: &std::path::Path, stem: &str) -> Option<(PathBuf, PathBuf)> {
    let (transcript, log) = (
        dir.join(format!("{stem}.txt")),
        dir.join(format!("{stem}.stderr.log")),
    );
    let create = |p: &PathBuf| {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(p)
    };
    create(&transcript).ok()?;
    if create(&log).is_err() {
        let _ = std::fs::remove_file(&transcript);
        return None;
    }
    Some((transcript, log))
}

/// Exit codes: 0 compliant (warnings allowed), 1 a check failed, 2 the bot could not be started.
pub fn run(args: &CheckBotArgs) -> Result<ExitCode> {
    let spec = args.spec()?;
    let protocol = spec.protocol;
    let rulesets = if args.rulesets.is_empty() {
        DEFAULT_RULESETS.iter().map(|s| s.to_string()).collect()
    } else {
        args.rulesets.clone()
    };
    let (transcript, stderr_log) = match &args.transcript {
        Some(path) => {
            let folder = path.parent().filter(|p| !p.as_os_str().is_empty());
            if let Some(folder) = folder {
                if !folder.is_dir() {
                    eprintln!(
                        "error: --transcript {}: the folder {} does not exist",
                        path.display(),
                        folder.display()
                    );
                    return Ok(ExitCode::from(2));
                }
            }
            (path.clone(), path.with_extension("stderr.log"))
        }
        None => new_transcript_files()?,
    };
    let config_log = stderr_log.clone();
    let config = CheckConfig {
        spec,
        explicit_rulesets: !args.rulesets.is_empty(),
        rulesets,
        timeout: Duration::from_millis(args.timeout_ms),
        margin: Duration::from_millis(args.margin_ms),
        seed: args.seed,
        transcript,
        stderr_log,
    };
    mancala_arena::engine::become_subreaper();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let checked = match protocol {
        Protocol::Mancala => runtime.block_on(check_bot(&config)),
        _ => runtime.block_on(check_driver(&config)),
    };
    let report = match checked {
        Ok(report) => report,
        Err(fault) => {
            eprintln!("error: {fault}");
            print_stderr_tail(&config_log);
            return Ok(ExitCode::from(2));
        }
    };
    for check in &report.checks {
        let first = check.notes.first().map(String::as_str).unwrap_or("");
        println!("{} {:<16} {first}", check.status.as_str(), check.name);
        for note in check.notes.iter().skip(1) {
            println!("     {:<16} {note}", "");
        }
    }
    println!(
        "{} checks: {} passed, {} warning(s), {} failed",
        report.checks.len(),
        report.checks.len() - report.failed() - report.warned(),
        report.warned(),
        report.failed()
    );
    if protocol.is_native() {
        println!(
            "bot stderr: {} bytes in {}; transcript: {}",
            report.stderr_bytes,
            config_log.display(),
            report.transcript.display()
        );
    } else {
        let _ = std::fs::remove_file(&report.transcript);
        println!(
            "bot stderr and stdout: {} bytes in {}",
            report.stderr_bytes,
            config_log.display()
        );
    }
    if let Some(error) = &report.transcript_error {
        eprintln!(
            "error: cannot write the transcript to {}: {error} (give --transcript a file you \
             can write)",
            report.transcript.display()
        );
        return Ok(ExitCode::from(2));
    }
    if report.failed() == 0 {
        return Ok(ExitCode::SUCCESS);
    }
    print_stderr_tail(&config_log);
    Ok(ExitCode::from(1))
}

/// How much of a failed bot's stderr the report shows.
const TAIL_LINES: usize = 15;

/// Prints the last lines of the bot's stderr log, if it wrote any: why a bot died (a traceback,
/// a missing library) belongs on the screen beside the failure it caused.
fn print_stderr_tail(log: &std::path::Path) {
    let lines = last_lines(log, TAIL_LINES);
    if lines.is_empty() {
        return;
    }
    println!("its stderr ends with ({}):", log.display());
    for line in lines {
        println!("  | {line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_planted_file_or_symlink_is_never_followed_or_overwritten() {
        let dir =
            std::env::temp_dir().join(format!("arena-check-bot-plant-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let victim = dir.join("victim");
        std::fs::write(&victim, "precious").unwrap();
        // A symlink where the transcript would go, one where its log would go (the transcript
        // just created is removed again), a dangling one, and a plain file.
        symlink(&victim, dir.join("a.txt")).unwrap();
        symlink(&victim, dir.join("b.stderr.log")).unwrap();
        symlink(dir.join("absent"), dir.join("c.txt")).unwrap();
        std::fs::write(dir.join("d.txt"), "mine").unwrap();
        for stem in ["a", "b", "c", "d"] {
            assert_eq!(create_new_pair(&dir, stem), None, "{stem}");
        }
        assert!(!dir.join("b.txt").exists());
        assert!(!dir.join("absent").exists());
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        assert_eq!(std::fs::read_to_string(dir.join("d.txt")).unwrap(), "mine");
        // A free name: two new, empty regular files.
        let (transcript, log) = create_new_pair(&dir, "e").unwrap();
        for path in [transcript, log] {
            let meta = std::fs::symlink_metadata(&path).unwrap();
            assert!(
                meta.file_type().is_file() && meta.len() == 0,
                "{}",
                path.display()
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
