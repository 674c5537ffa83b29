//! The players' language, one parser for every command (docs/players.md): the values of a
//! player flag (`run --bot`, `sprt --base/--test`, `gate --bot`, `calibrate --bot` and
//! `--reference-bot`, `tune --bot`, `check-bot`) and a `[[bot]]` table of a tournament or bands
//! file are both read into a [`FileBot`] (the player's words as a table), which
//! [`FileBot::spec`] alone turns into the [`BotSpec`] the engine starts.
//!
//! A flag's values are one of:
//! - the player words, `KEY=VALUE` each ([`PLAYER_KEYS`]): `name=hard bundled=alphabeta
//!   option.Level=hard`, `cmd="python3 bot.py" protocol=kgp sandbox=true`, as separate values or
//!   as one string split like a shell (`--reference-bot "name=x cmd='./bot --fast'"`);
//! - a bundled name alone ([`bundled_names`]: `random`, `hard`, `alphabeta`...), which may be
//!   followed by more words (`hard option.Noise=1`);
//! - the shorthand: a bare command line, as one string (`--base "./bot --fast"`) or as the
//!   program and its arguments (`check-bot -- ./bot --fast`).
//!
//! A value that starts as the player words but holds a word that is neither is refused with the
//! list of keys.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::vocab::{BotSpec, FileBot, Program};

/// A bundled player: name, bundled bot binary, options.
type Bundled = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

/// The bundled bots as players: the default field of `arena run`, each a name alone names.
pub const DEFAULT_FIELD: [Bundled; 6] = [
    ("random", "random", &[]),
    ("greedy", "greedy", &[]),
    ("easy", "alphabeta", &[("Level", "easy")]),
    ("normal", "alphabeta", &[("Level", "normal")]),
    ("hard", "alphabeta", &[("Level", "hard")]),
    ("mcts", "mcts", &[]),
];

/// The bundled bots' binaries: `bundled=NAME` is the binary `mancala-NAME` (the `mancala-bots`
/// crate's binaries) with no options.
pub const BUNDLED_BOTS: [&str; 5] = ["random", "greedy", "alphabeta", "mcts", "solver"];

/// The keys of the player words, for messages.
pub const PLAYER_KEYS: &str =
    "name, bundled, cmd, shell, protocol, option.NAME, sandbox, memory, dir, time_by, kgp_missing_move";

/// Every name a bundled player goes by: the default field's players, then the binaries.
pub fn bundled_names() -> Vec<&'static str> {
    let field: Vec<&str> = DEFAULT_FIELD.iter().map(|f| f.0).collect();
    let binaries = BUNDLED_BOTS.iter().filter(|b| !field.contains(b));
    field.iter().copied().chain(binaries.copied()).collect()
}

/// The binary and options a bundled name stands for.
fn bundled(name: &str) -> Option<(&'static str, &'static [(&'static str, &'static str)])> {
    DEFAULT_FIELD
        .iter()
        .find(|f| f.0 == name)
        .map(|&(_, bot, options)| (bot, options))
        .or_else(|| {
            BUNDLED_BOTS
                .iter()
                .find(|b| **b == name)
                .map(|&b| (b, &[][..]))
        })
}

/// The message for a bundled name that is none.
fn no_such_bundled(name: &str) -> String {
    let levels: Vec<&str> = DEFAULT_FIELD
        .iter()
        .filter(|f| !BUNDLED_BOTS.contains(&f.0))
        .map(|f| f.0)
        .collect();
    format!(
        "there is no bundled bot `{name}`: the bundled bots are {} (and the players {}: alphabeta \
         at each level); or give cmd=\"PROGRAM ARGS\" for your own",
        BUNDLED_BOTS.join(", "),
        levels.join(", ")
    )
}

/// The path of a bundled bot's binary: beside the `arena` executable (`target/release/`).
pub fn bundled_program(bot: &str) -> Result<PathBuf> {
    if !BUNDLED_BOTS.contains(&bot) {
        bail!("{}", no_such_bundled(bot));
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
        .map(|(name, _, _)| FileBot::bundled(name).spec(Path::new("")))
        .collect()
}

/// One player as a flag's values give it: its words as a table (the name may be empty: the
/// command's role names it) and the words of the extra keys the command allowed
/// (`--reference-bot`'s `elo=`), in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlayerWords {
    pub table: FileBot,
    pub extra: Vec<(String, String)>,
}

impl PlayerWords {
    /// The player named `role` when the command names it (`base`, `candidate`, a gate level),
    /// else by its `name=` or its bundled name.
    pub fn spec(&self, role: Option<&str>) -> Result<BotSpec> {
        let mut table = self.table.clone();
        if let Some(role) = role {
            table.name = role.to_string();
        }
        table.spec(Path::new(""))
    }

    /// Adds the shorthand `--X-option NAME=VALUE` flags (`flag` names them in messages): each
    /// replaces an option of the same name.
    pub fn with_options(mut self, flag: &str, options: &[String]) -> Result<PlayerWords> {
        for o in options {
            let (k, v) = split_option(o).with_context(|| format!("{flag} `{o}`"))?;
            self.table
                .options
                .insert(k.to_string(), toml::Value::String(v.to_string()));
        }
        Ok(self)
    }
}

/// `NAME=VALUE` with a name.
pub fn split_option(text: &str) -> Result<(&str, &str)> {
    match text.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k, v)),
        _ => bail!("expected NAME=VALUE"),
    }
}

/// Whether `word` is one of the player words (a known key, or an allowed extra one).
fn is_player_word(word: &str, extra: &[&str]) -> bool {
    word.split_once('=').is_some_and(|(key, _)| {
        matches!(
            key,
            "name"
                | "bundled"
                | "cmd"
                | "shell"
                | "protocol"
                | "sandbox"
                | "memory"
                | "dir"
                | "time_by"
                | "kgp_missing_move"
        ) || key.strip_prefix("option.").is_some_and(|o| !o.is_empty())
            || extra.contains(&key)
    })
}

/// Reads one player from the values of its flag `flag` (in messages): the player words, a
/// bundled name with or without more words, or a bare command line (module docs). `extra` are
/// keys the command takes beside the player's own (returned in [`PlayerWords::extra`]).
pub fn read_player(flag: &str, values: &[String], extra: &[&str]) -> Result<PlayerWords> {
    let words: Vec<String> = match values {
        [] => bail!("{flag} needs a player (docs/players.md)"),
        // One string holding several words: the player words split like a shell
        // (`"name=x cmd='./bot --fast'"`), one player word whose value has spaces (the shell's
        // `cmd="./bot --fast"`), or a command line.
        [one] if one.trim().contains(char::is_whitespace) => {
            let split = shlex::split(one).unwrap_or_default();
            let word = |w: &String| is_player_word(w, extra) || bundled(w).is_some();
            if !split.is_empty() && split.iter().all(word) {
                split
            } else if is_player_word(one, extra) {
                values.to_vec()
            } else {
                return Ok(command_line(one.trim()));
            }
        }
        _ => values.to_vec(),
    };
    let first = words[0].as_str();
    let starts_as_words = is_player_word(first, extra) || bundled(first).is_some();
    if !starts_as_words {
        if first.contains('=') && words.len() == 1 {
            let key = first.split_once('=').map_or(first, |(k, _)| k);
            bail!(
                "{flag}: unknown key `{key}` in `{first}` (keys: {PLAYER_KEYS}; a command line \
                 whose program has `=` in its name goes in cmd=\"...\")"
            );
        }
        // The program and its arguments, as given.
        let line = shlex::try_join(words.iter().map(String::as_str))
            .map_err(|e| anyhow::anyhow!("{flag}: {e}"))?;
        return Ok(command_line(&line));
    }
    let mut out = PlayerWords::default();
    let t = &mut out.table;
    let mut seen = Vec::new();
    for word in &words {
        let Some((key, value)) = word.split_once('=') else {
            if bundled(word).is_some() && t.bundled.is_none() {
                t.bundled = Some(word.clone());
                continue;
            }
            bail!("{flag}: `{word}` is not KEY=VALUE (keys: {PLAYER_KEYS})");
        };
        if !key.starts_with("option.") {
            if seen.contains(&key) {
                bail!("{flag}: `{key}` is given twice");
            }
            seen.push(key);
        }
        let bad = |what: &str| format!("{flag}: {key}=`{value}`: {what}");
        match key {
            "name" => t.name = value.to_string(),
            "cmd" => t.cmd = Some(value.to_string()),
            "bundled" => {
                if t.bundled.is_some() {
                    bail!("{flag}: two bundled bots (`{value}` and a bundled name)");
                }
                t.bundled = Some(value.to_string())
            }
            "dir" => t.dir = Some(PathBuf::from(value)),
            "shell" => {
                t.shell = parse_bool(value).with_context(|| bad("expected true or false"))?
            }
            "protocol" => {
                t.protocol = value
                    .parse()
                    .map_err(|e: String| anyhow::anyhow!(bad(&e)))?
            }
            "sandbox" => {
                t.sandbox = parse_bool(value).with_context(|| bad("expected true or false"))?
            }
            "memory" => {
                parse_memory(value).map_err(|e| anyhow::anyhow!(bad(&e)))?;
                t.memory = Some(value.to_string());
            }
            "time_by" => {
                t.time_by = Some(
                    value
                        .parse()
                        .map_err(|e: String| anyhow::anyhow!(bad(&e)))?,
                )
            }
            "kgp_missing_move" => {
                t.kgp_missing_move = value
                    .parse()
                    .map_err(|e: String| anyhow::anyhow!(bad(&e)))?
            }
            _ => match key.strip_prefix("option.") {
                Some(opt) if !opt.is_empty() => {
                    t.options
                        .insert(opt.to_string(), toml::Value::String(value.to_string()));
                }
                _ if extra.contains(&key) => out.extra.push((key.to_string(), value.to_string())),
                _ => bail!(
                    "{flag}: unknown key `{key}` (keys: {PLAYER_KEYS}{})",
                    extra.iter().map(|e| format!(", {e}")).collect::<String>()
                ),
            },
        }
    }
    Ok(out)
}

/// The shorthand: a player started by a command line.
fn command_line(line: &str) -> PlayerWords {
    PlayerWords {
        table: FileBot {
            cmd: Some(line.to_string()),
            ..FileBot::default()
        },
        extra: Vec::new(),
    }
}

impl FileBot {
    /// The bundled player `name` as a table.
    pub fn bundled(name: &str) -> FileBot {
        FileBot {
            name: name.to_string(),
            bundled: Some(name.to_string()),
            ..FileBot::default()
        }
    }

    /// The player; `dir` is relative to `base`, the file's folder. A bundled name brings its
    /// options (`hard`: `Level=hard`), which the table's own replace, and names the player when
    /// the table does not.
    pub fn spec(&self, base: &Path) -> Result<BotSpec> {
        let who = if self.name.is_empty() {
            self.bundled.clone().unwrap_or_default()
        } else {
            self.name.clone()
        };
        let context = || format!("player `{who}`");
        let (program, defaults) = match (&self.cmd, &self.bundled) {
            (Some(_), Some(_)) => bail!("{}: give either cmd or bundled, not both", context()),
            (None, Some(name)) => {
                let Some((bot, options)) = bundled(name) else {
                    bail!("{}: {}", context(), no_such_bundled(name));
                };
                let program = Program::Exec {
                    program: bundled_program(bot).with_context(context)?,
                    args: Vec::new(),
                };
                (program, options)
            }
            (Some(cmd), None) if self.shell => (
                Program::Shell {
                    command: cmd.clone(),
                },
                &[][..],
            ),
            (Some(cmd), None) => (
                Program::from_command_line(cmd)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", context()))?,
                &[][..],
            ),
            (None, None) => bail!(
                "{}: needs cmd=\"PROGRAM ARGS\", bundled=NAME or a bundled name ({})",
                context(),
                bundled_names().join(", ")
            ),
        };
        if who.is_empty() {
            bail!("a player started by a command needs name=NAME");
        }
        let mut options: Vec<(String, String)> = defaults
            .iter()
            .filter(|(k, _)| !self.options.contains_key(*k))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        options.extend(self.options());
        let memory = match &self.memory {
            Some(text) => Some(
                parse_memory(text).map_err(|e| anyhow::anyhow!("{}: memory: {e}", context()))?,
            ),
            None => None,
        };
        Ok(BotSpec {
            name: who,
            program,
            dir: self.dir.as_ref().map(|d| base.join(d)),
            options,
            protocol: self.protocol,
            sandbox: self.sandbox,
            memory,
            time_by: self.time_by,
            kgp_missing_move: self.kgp_missing_move,
        })
    }

    /// This table's program, protocol, sandbox and folder (the program of a gate's `--bot`)
    /// with `level`'s name and options under this table's own (a bundled name's options give
    /// way to the level's).
    pub fn in_place_of(&self, level: &FileBot) -> FileBot {
        let mut options = level.options.clone();
        for (k, v) in &self.options {
            options.insert(k.clone(), v.clone());
        }
        FileBot {
            name: level.name.clone(),
            options,
            ..self.clone()
        }
    }
}

/// A memory limit (`memory=`): `512M`, `2G`, `65536K` or bytes, at least 16 MiB (less cannot
/// start a program).
pub fn parse_memory(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (digits, unit) = text.split_at(split);
    let scale: u64 = match unit.to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        _ => return Err(format!("`{text}` is not a size such as 512M or 2G")),
    };
    let bytes = digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(scale))
        .ok_or_else(|| format!("`{text}` is not a size such as 512M or 2G"))?;
    if bytes < 16 << 20 {
        return Err(format!(
            "`{text}` is less than 16M, too little to start a program"
        ));
    }
    Ok(bytes)
}

/// `true`/`false` (also `1`/`0`, `yes`/`no`).
fn parse_bool(v: &str) -> Result<bool> {
    match v {
        "true" | "1" | "yes" => Ok(true),
        "false" | "0" | "no" => Ok(false),
        _ => bail!("expected true or false"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::Protocol;

    fn words(flag_values: &[&str]) -> Result<PlayerWords> {
        let values: Vec<String> = flag_values.iter().map(|s| s.to_string()).collect();
        read_player("--bot", &values, &["elo"])
    }

    fn table(pairs: &[(&str, &str)]) -> toml::Table {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), toml::Value::String(v.to_string())))
            .collect()
    }

    /// One row per way of naming a player: what the words read as.
    #[test]
    fn every_form_reads_into_one_table() {
        let w = words(&[
            "name=ab",
            "bundled=alphabeta",
            "option.Noise=0",
            "option.Depth=3",
        ])
        .unwrap();
        assert_eq!(w.table.name, "ab");
        assert_eq!(w.table.bundled.as_deref(), Some("alphabeta"));
        // The options keep the order they were given in.
        let keys: Vec<&String> = w.table.options.keys().collect();
        assert_eq!(keys, ["Noise", "Depth"]);

        assert_eq!(
            words(&["hard"]).unwrap().table,
            FileBot {
                bundled: Some("hard".into()),
                ..FileBot::default()
            }
        );
        let w = words(&["hard", "option.Noise=1"]).unwrap();
        assert_eq!(w.table.bundled.as_deref(), Some("hard"));
        assert_eq!(w.table.options, table(&[("Noise", "1")]));

        // One string: the player words split like a shell, or a command line.
        let w = words(&["name=x cmd='python3 bot.py --fast' protocol=kgp sandbox=true elo=1300"])
            .unwrap();
        assert_eq!(w.table.cmd.as_deref(), Some("python3 bot.py --fast"));
        assert_eq!(w.table.protocol, Protocol::Kgp);
        assert!(w.table.sandbox);
        assert_eq!(w.extra, vec![("elo".to_string(), "1300".to_string())]);
        assert_eq!(
            words(&["./bot --depth=3"]).unwrap().table.cmd.as_deref(),
            Some("./bot --depth=3")
        );
        assert_eq!(
            words(&["target/release/mancala-random"])
                .unwrap()
                .table
                .cmd
                .as_deref(),
            Some("target/release/mancala-random")
        );
        // The program and its arguments as separate values (check-bot's `-- CMD ARGS`).
        assert_eq!(
            words(&["python3", "my bot.py", "--x=1"])
                .unwrap()
                .table
                .cmd
                .as_deref(),
            Some("python3 'my bot.py' '--x=1'")
        );
        // `./hard` is a program, `hard` the bundled player.
        assert_eq!(
            words(&["./hard"]).unwrap().table.cmd.as_deref(),
            Some("./hard")
        );
    }

    /// The memory limit (#48): a player word and a TOML key, read the same, kept in bytes.
    #[test]
    fn the_memory_limit_is_a_player_word_and_a_key() {
        let w = words(&["name=x", "cmd=./bot", "sandbox=true", "memory=256M"]).unwrap();
        let spec = w.table.spec(Path::new("/")).unwrap();
        assert_eq!(spec.memory, Some(256 << 20));
        let t: FileBot = toml::from_str("name = \"x\"\ncmd = \"./bot\"\nmemory = \"2G\"").unwrap();
        assert_eq!(t.spec(Path::new("/")).unwrap().memory, Some(2 << 30));
        assert_eq!(parse_memory("65536K"), Ok(64 << 20));
        assert!(parse_memory("1M").unwrap_err().contains("less than 16M"));
        assert!(parse_memory("lots").unwrap_err().contains("not a size"));
        let e = format!("{:#}", words(&["name=x", "memory=12X"]).unwrap_err());
        assert!(e.contains("memory=`12X`: `12X` is not a size"), "{e}");
        // Without the word, no limit of the player's own.
        let spec = words(&["name=x", "cmd=./bot"])
            .unwrap()
            .table
            .spec(Path::new("/"));
        assert_eq!(spec.unwrap().memory, None);
    }

    #[test]
    fn a_word_that_is_neither_is_refused_with_the_keys() {
        for bad in [
            &["name=ab", "bundld=alphabeta"][..],
            &["bundld=alphabeta"],
            &["name=ab", "foo"],
            &["hard", "Noise=1"],
            &["option.=1"],
        ] {
            let e = format!("{:#}", words(bad).unwrap_err());
            assert!(e.contains("keys: name, bundled, cmd"), "{bad:?}: {e}");
        }
        // Not extra keys where the command takes none.
        let e = read_player("--base", &["name=x".into(), "elo=1".into()], &[]).unwrap_err();
        assert!(format!("{e}").contains("unknown key `elo`"), "{e}");
        assert!(format!("{}", words(&["name=a", "name=b"]).unwrap_err()).contains("twice"));
        assert!(format!("{}", words(&["sandbox=maybe"]).unwrap_err()).contains("true or false"));
        assert!(format!("{}", words(&["protocol=uci"]).unwrap_err()).contains("unknown protocol"));
        assert!(format!("{}", words(&["time_by=cpus"]).unwrap_err()).contains("expected wall"));
        let e = format!("{}", words(&["kgp_missing_move=lose"]).unwrap_err());
        assert!(
            e.contains("kgp_missing_move=`lose`: `lose`: expected random"),
            "{e}"
        );
    }

    /// How a player's time is counted and what a KGP agent's missing move becomes: words and
    /// `[[bot]]` keys alike, into the spec.
    #[test]
    fn time_by_and_kgp_missing_move_are_player_words_and_keys() {
        use crate::vocab::{MissingMove, TimeBy};
        let w = words(&[
            "name=k",
            "cmd=./agent",
            "protocol=kgp",
            "kgp_missing_move=forfeit",
        ])
        .unwrap();
        let spec = w.spec(None).unwrap();
        assert_eq!(spec.kgp_missing_move, MissingMove::Forfeit);
        assert_eq!(spec.time_by, None);
        let spec = words(&["name=p", "cmd=./p", "time_by=cpu"])
            .unwrap()
            .spec(None)
            .unwrap();
        assert_eq!(spec.time_by, Some(TimeBy::Cpu));
        assert_eq!(spec.kgp_missing_move, MissingMove::Random);
        let table: FileBot = toml::from_str(
            "name = \"k\"\ncmd = \"./agent\"\nprotocol = \"kgp\"\ntime_by = \"cpu\"\nkgp_missing_move = \"forfeit\"",
        )
        .unwrap();
        assert_eq!(table.time_by, Some(TimeBy::Cpu));
        assert_eq!(table.kgp_missing_move, MissingMove::Forfeit);
        // run.json leaves out the defaults.
        let plain = words(&["name=p", "cmd=./p"]).unwrap().spec(None).unwrap();
        let json = serde_json::to_string(&plain).unwrap();
        assert!(
            !json.contains("time_by") && !json.contains("kgp_missing_move"),
            "{json}"
        );
    }

    #[test]
    fn shorthand_options_replace_the_words_own() {
        let w = words(&["hard", "option.Noise=1"])
            .unwrap()
            .with_options("--bot-option", &["Noise=2".into(), "Depth=4".into()])
            .unwrap();
        assert_eq!(w.table.options, table(&[("Noise", "2"), ("Depth", "4")]));
        assert!(words(&["hard"])
            .unwrap()
            .with_options("--bot-option", &["x".into()])
            .is_err());
    }

    #[test]
    fn a_command_player_needs_a_name_unless_a_role_names_it() {
        let w = words(&["cmd=./bot --fast"]).unwrap();
        assert!(format!("{}", w.spec(None).unwrap_err()).contains("needs name=NAME"));
        let spec = w.spec(Some("base")).unwrap();
        assert_eq!(spec.name, "base");
        assert_eq!(spec.program.display(), "./bot --fast");
        let e = words(&["name=x"]).unwrap().spec(None).unwrap_err();
        assert!(format!("{e}").contains("needs cmd="), "{e}");
        let both = words(&["name=x", "cmd=./y", "bundled=random"]).unwrap();
        assert!(format!("{}", both.spec(None).unwrap_err()).contains("either cmd or bundled"));
    }

    /// A `[[bot]]` table reads as the same words: `bundled = "hard"` alone names the player
    /// and brings its level, which an option of the table replaces.
    #[test]
    fn a_toml_table_is_the_same_words() {
        let table: FileBot = toml::from_str("bundled = \"hard\"").unwrap();
        assert_eq!(table, words(&["hard"]).unwrap().table);
        let table: FileBot =
            toml::from_str("bundled = \"hard\"\noptions = { Noise = \"1\", Level = \"easy\" }")
                .unwrap();
        assert_eq!(table.bundled.as_deref(), Some("hard"));
        let keys: Vec<&String> = table.options.keys().collect();
        assert_eq!(keys, ["Noise", "Level"]);
    }

    #[test]
    fn a_gate_bot_takes_the_levels_name_and_options_under_its_own() {
        let level = FileBot {
            name: "easy".into(),
            bundled: Some("alphabeta".into()),
            options: table(&[("Level", "easy"), ("Hash", "1")]),
            ..FileBot::default()
        };
        let flag = words(&["cmd=./new-ab", "protocol=kgp", "option.Hash=8"])
            .unwrap()
            .table;
        let merged = flag.in_place_of(&level);
        assert_eq!(merged.name, "easy");
        assert_eq!(merged.cmd.as_deref(), Some("./new-ab"));
        assert_eq!(merged.bundled, None);
        assert_eq!(merged.protocol, Protocol::Kgp);
        assert_eq!(merged.options, table(&[("Level", "easy"), ("Hash", "8")]));
    }
}
