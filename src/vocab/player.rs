//! Who plays: a player's name, how its bot is started, its options and the protocol it speaks.
//! What `run.json` stores of each player; starting the bot is `engine`'s.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::judging::{MissingMove, TimeBy};

/// How to start a bot: a program with arguments, run directly (no shell), or a shell command line
/// when the user asks for one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Program {
    Exec { program: PathBuf, args: Vec<String> },
    Shell { command: String },
}

impl Program {
    /// Splits a command line the way a POSIX shell splits words (quotes respected), without
    /// running a shell.
    pub fn from_command_line(line: &str) -> Result<Program, String> {
        let words =
            shlex::split(line).ok_or_else(|| format!("unbalanced quotes in command `{line}`"))?;
        let mut words = words.into_iter();
        let program = words.next().ok_or_else(|| "empty command".to_string())?;
        Ok(Program::Exec {
            program: PathBuf::from(program),
            args: words.collect(),
        })
    }

    /// A readable form for messages and logs.
    pub fn display(&self) -> String {
        match self {
            Program::Exec { program, args } => {
                let mut parts = vec![program.display().to_string()];
                parts.extend(args.iter().cloned());
                shlex::try_join(parts.iter().map(String::as_str))
                    .unwrap_or_else(|_| parts.join(" "))
            }
            Program::Shell { command } => format!("sh -c {command:?}"),
        }
    }
}

/// A player of the tournament: a name, how to start it, and the options sent after the handshake.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotSpec {
    pub name: String,
    pub program: Program,
    /// Working directory of the bot process (default: the arena's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<PathBuf>,
    /// `setoption` pairs, in order.
    #[serde(default)]
    pub options: Vec<(String, String)>,
    /// The protocol the bot speaks (docs/protocols.md); absent in `run.json` for the arena's own.
    #[serde(default, skip_serializing_if = "Protocol::is_native")]
    pub protocol: Protocol,
    /// Run inside the opt-in sandbox (docs/tournament.md, "Sandbox"); absent when off.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sandbox: bool,
    /// The most memory (bytes of `RLIMIT_DATA`) each of the bot's processes may take (the
    /// `memory` word); absent: no limit, or the sandbox's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<u64>,
    /// The clock this player's time is counted on, in place of the run's (`time_by=`);
    /// absent: the run's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_by: Option<TimeBy>,
    /// What a KGP agent's missing move becomes (`kgp_missing_move=`); absent when random.
    #[serde(default, skip_serializing_if = "MissingMove::is_random")]
    pub kgp_missing_move: MissingMove,
}

impl BotSpec {
    /// The options as `NAME=VALUE` words, in order.
    pub fn option_words(&self) -> Vec<String> {
        self.options
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect()
    }
}

/// A player's words as a table: a `[[bot]]` table of a tournament or bands file as it is read
/// and written, and what a player flag's words are read into (`plan::players`, which alone turns
/// it into a [`BotSpec`]): `cmd` (a command line, or with `shell = true` a shell's) or `bundled`
/// (a bundled player's name), `dir` relative to the file's folder, and `options` in the order
/// given.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileBot {
    /// Empty when not given: a bundled name names the player, or the command's role does.
    #[serde(default)]
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cmd: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bundled: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shell: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dir: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "toml::Table::is_empty")]
    pub options: toml::Table,
    #[serde(default, skip_serializing_if = "Protocol::is_native")]
    pub protocol: Protocol,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sandbox: bool,
    /// The memory limit as written (`"512M"`, `"2G"`, bytes), read by `plan::players`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_by: Option<TimeBy>,
    #[serde(default, skip_serializing_if = "MissingMove::is_random")]
    pub kgp_missing_move: MissingMove,
}

impl FileBot {
    /// The table that starts `spec` (its options as strings, as `setoption` sends them).
    pub fn from_spec(spec: &BotSpec) -> FileBot {
        let (cmd, shell) = match &spec.program {
            Program::Exec { .. } => (spec.program.display(), false),
            Program::Shell { command } => (command.clone(), true),
        };
        FileBot {
            name: spec.name.clone(),
            cmd: Some(cmd),
            bundled: None,
            shell,
            dir: spec.dir.clone(),
            options: spec
                .options
                .iter()
                .map(|(k, v)| (k.clone(), toml::Value::String(v.clone())))
                .collect(),
            protocol: spec.protocol,
            sandbox: spec.sandbox,
            memory: spec.memory.map(|m| m.to_string()),
            time_by: spec.time_by,
            kgp_missing_move: spec.kgp_missing_move,
        }
    }

    /// The options as `setoption` sends them: strings as they are, other values as TOML
    /// writes them.
    pub fn options(&self) -> Vec<(String, String)> {
        self.options
            .iter()
            .map(|(k, v)| match v {
                toml::Value::String(s) => (k.clone(), s.clone()),
                other => (k.clone(), other.to_string()),
            })
            .collect()
    }
}

/// The protocol a bot speaks (the `protocol` key of a player).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// The arena's own line protocol (docs/protocol.md).
    #[default]
    Mancala,
    /// The Manchester ManKalah engine protocol: one agent process per game on stdin/stdout.
    Mankalah,
    /// The Kalah Game Protocol 1.0 (KWARC): the agent is a client of the arena's TCP server.
    Kgp,
    /// kgpc's convention: a program started for each move, the board on stdin, a move out.
    #[serde(rename = "per-move")]
    PerMove,
}

impl Protocol {
    pub const ALL: [Protocol; 4] = [
        Protocol::Mancala,
        Protocol::Mankalah,
        Protocol::Kgp,
        Protocol::PerMove,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Mancala => "mancala",
            Protocol::Mankalah => "mankalah",
            Protocol::Kgp => "kgp",
            Protocol::PerMove => "per-move",
        }
    }

    /// Whether this is the arena's own protocol (the default, left out of `run.json`).
    pub fn is_native(&self) -> bool {
        *self == Protocol::Mancala
    }
}

impl std::str::FromStr for Protocol {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Protocol::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| format!("unknown protocol `{s}` (mancala, mankalah, kgp or per-move)"))
    }
}

impl std::fmt::Display for Protocol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
