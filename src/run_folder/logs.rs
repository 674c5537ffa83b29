//! `logs/`: one file per player with what its bot wrote to stderr, across restarts and resumes,
//! capped per run (`--log-cap`; see `engine::log` for the head and tail it keeps).

use std::path::{Path, PathBuf};

pub const LOGS_DIR: &str = "logs";

/// The folder of a run's bot logs.
pub fn logs_dir(run_dir: &Path) -> PathBuf {
    run_dir.join(LOGS_DIR)
}

/// Where a player's stderr log goes inside a logs folder: `NAME.stderr.log` for a name of
/// letters, digits, `-`, `_` and `.`; otherwise the name with every other character replaced by
/// `_` and a hash of the real name appended (`a_b-1b0f8a2e.stderr.log`), so that `a/b`, `a b` and
/// `a_b`, or two names in another script, never share a file.
pub fn stderr_log_path(logs_dir: &Path, bot: &str) -> PathBuf {
    let plain = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.';
    let mut safe: String = bot
        .chars()
        .map(|c| if plain(c) { c } else { '_' })
        .collect();
    if safe.starts_with('.') {
        safe.replace_range(..1, "_");
    }
    if bot.chars().all(plain) && !bot.starts_with('.') {
        logs_dir.join(format!("{safe}.stderr.log"))
    } else {
        logs_dir.join(format!("{safe}-{:08x}.stderr.log", fnv1a(bot) as u32))
    }
}

/// FNV-1a: a hash that stays the same from run to run (a resumed run finds its logs).
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The last `max` bytes of a log file (lossily decoded: a bot may write anything), and whether
/// the start was cut off.
pub fn read_log_tail(path: &Path, max: u64) -> std::io::Result<(String, bool)> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = super::files::open_read(path).map_err(std::io::Error::other)?;
    let len = file.metadata()?.len();
    let from = len.saturating_sub(max);
    file.seek(SeekFrom::Start(from))?;
    let mut bytes = Vec::with_capacity((len - from) as usize);
    file.take(max).read_to_end(&mut bytes)?;
    Ok((String::from_utf8_lossy(&bytes).into_owned(), from > 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_look_alike_get_their_own_logs() {
        let dir = Path::new("logs");
        let names = ["a/b", "a b", "a_b", "a.b", "ä", "ö", ".hidden", "é/é"];
        let paths: std::collections::HashSet<PathBuf> =
            names.iter().map(|n| stderr_log_path(dir, n)).collect();
        assert_eq!(paths.len(), names.len(), "{paths:?}");
        assert_eq!(
            stderr_log_path(dir, "hard-2.1"),
            dir.join("hard-2.1.stderr.log")
        );
        for p in &paths {
            let file = p.file_name().unwrap().to_str().unwrap();
            assert!(!file.contains('/') && !file.starts_with('.'), "{file}");
        }
    }
}
