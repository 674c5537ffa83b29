//! The players' language: a `--bot key=value ...` group, a `[[bot]]` table of a tournament or
//! bands file, a command line with `NAME=VALUE` options (`sprt`, `calibrate`), and the bundled
//! bots (binaries beside the `arena` executable), each turned into a [`BotSpec`].

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::vocab::{BotSpec, FileBot, Program, Protocol};

/// A player of the default field: name, bundled bot binary, options.
type Bundled = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

/// The bundled bots, their binaries and options: the default field of `arena run`.
pub const DEFAULT_FIELD: [Bundled; 6] = [
    ("random", "random", &[]),
    ("greedy", "greedy", &[]),
    ("easy", "alphabeta", &[("Level", "easy")]),
    ("normal", "alphabeta", &[("Level", "normal")]),
    ("hard", "alphabeta", &[("Level", "hard")]),
    ("mcts", "mcts", &[]),
];

/// The bundled bots' names: `bundled=NAME` is the binary `mancala-NAME` (the `mancala-bots`
/// crate's binaries).
pub const BUNDLED_BOTS: [&str; 5] = ["random", "greedy", "alphabeta", "mcts", "solver"];

/// The path of a bundled bot's binary: beside the `arena` executable (`target/release/`).
pub fn bundled_program(bot: &str) -> Result<PathBuf> {
    if !BUNDLED_BOTS.contains(&bot) {
        bail!(
            "there is no bundled bot `{bot}`: the bundled bots are {} (or give cmd=\"PROGRAM ARGS\" for your own)",
            BUNDLED_BOTS.join(", ")
        );
    }
    let exe = std::env::current_exe().context("cannot locate the arena executable")?;
    let dir = exe.parent().context("the arena executable has no folder")?;
    let path = dir.join(format!("mancala-{bot}"));
    if !path.exists() {
        bail!(
            "the bundled bot `{bot}` is not built ({} is missing): run `cargo build --release --workspace`",
            path.display()
        );
    }
    Ok(path)
}

/// The six bundled players of [`DEFAULT_FIELD`].
pub fn default_field() -> Result<Vec<BotSpec>> {
    DEFAULT_FIELD
        .iter()
        .map(|(name, bot, options)| bundled_spec(name, bot, options))
        .collect()
}

/// A bundled bot as a player.
pub fn bundled_spec(name: &str, bot: &str, options: &[(&str, &str)]) -> Result<BotSpec> {
    Ok(BotSpec {
        name: name.to_string(),
        program: Program::Exec {
            program: bundled_program(bot)?,
            args: Vec::new(),
        },
        dir: None,
        options: options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        protocol: Default::default(),
        sandbox: false,
    })
}

/// A player started by a command line (split like a shell, run without one), with `NAME=VALUE`
/// options: the `--base`, `--test` and `--bot` flags of `sprt` and `calibrate`.
pub fn command_spec(name: &str, cmd: &str, options: &[String]) -> Result<BotSpec> {
    let options = options
        .iter()
        .map(|o| match o.split_once('=') {
            Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
            _ => bail!("option `{o}` is not NAME=VALUE"),
        })
        .collect::<Result<_>>()?;
    Ok(BotSpec {
        name: name.to_string(),
        program: Program::from_command_line(cmd).map_err(anyhow::Error::msg)?,
        dir: None,
        options,
        protocol: Default::default(),
        sandbox: false,
    })
}

/// Parses one `--bot key=value ...` group.
pub fn parse_bot_arg(words: &[String]) -> Result<BotSpec> {
    let mut name = None;
    let mut cmd = None;
    let mut bundled = None;
    let mut shell = false;
    let mut dir = None;
    let mut options = Vec::new();
    let mut protocol = Protocol::default();
    let mut sandbox = false;
    for word in words {
        let Some((key, value)) = word.split_once('=') else {
            bail!("--bot: `{word}` is not KEY=VALUE (keys: {BOT_KEYS})");
        };
        match key {
            "name" => name = Some(value.to_string()),
            "cmd" => cmd = Some(value.to_string()),
            "bundled" => bundled = Some(value.to_string()),
            "dir" => dir = Some(PathBuf::from(value)),
            "shell" => {
                shell = parse_bool(value).with_context(|| format!("--bot: shell=`{value}`"))?
            }
            "protocol" => protocol = value.parse().map_err(|e| anyhow::anyhow!("--bot: {e}"))?,
            "sandbox" => {
                sandbox = parse_bool(value).with_context(|| format!("--bot: sandbox=`{value}`"))?
            }
            _ => match key.strip_prefix("option.") {
                Some(opt) if !opt.is_empty() => options.push((opt.to_string(), value.to_string())),
                _ => bail!("--bot: unknown key `{key}` (keys: {BOT_KEYS})"),
            },
        }
    }
    let program = program_of(cmd.as_deref(), bundled.as_deref(), shell)?;
    let name = name
        .or_else(|| bundled.clone())
        .context("--bot needs name=NAME")?;
    Ok(BotSpec {
        name,
        program,
        dir,
        options,
        protocol,
        sandbox,
    })
}

/// The keys of a `--bot` group, for messages.
const BOT_KEYS: &str = "name, cmd, bundled, dir, shell, protocol, sandbox, option.NAME";

impl FileBot {
    /// The player; `dir` is relative to `base`, the file's folder.
    pub fn spec(&self, base: &Path) -> Result<BotSpec> {
        let program = program_of(self.cmd.as_deref(), self.bundled.as_deref(), self.shell)
            .with_context(|| format!("bot `{}`", self.name))?;
        Ok(BotSpec {
            name: self.name.clone(),
            program,
            dir: self.dir.as_ref().map(|d| base.join(d)),
            options: self.options(),
            protocol: self.protocol,
            sandbox: self.sandbox,
        })
    }
}

fn program_of(cmd: Option<&str>, bundled: Option<&str>, shell: bool) -> Result<Program> {
    match (cmd, bundled) {
        (Some(_), Some(_)) => bail!("give either cmd or bundled, not both"),
        (None, Some(bot)) => Ok(Program::Exec {
            program: bundled_program(bot)?,
            args: Vec::new(),
        }),
        (Some(cmd), None) if shell => Ok(Program::Shell {
            command: cmd.to_string(),
        }),
        (Some(cmd), None) => Program::from_command_line(cmd).map_err(anyhow::Error::msg),
        (None, None) => bail!("a bot needs cmd=\"PROGRAM ARGS\" or bundled=NAME"),
    }
}

fn parse_bool(v: &str) -> Result<bool> {
    match v {
        "true" | "1" | "yes" => Ok(true),
        "false" | "0" | "no" => Ok(false),
        _ => bail!("expected true or false"),
    }
}
