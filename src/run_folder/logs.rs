//! `logs/`: one file per player with everything its bot wrote to stderr, appended across
//! restarts (see `engine::process` for the per-process cap).

use std::path::{Path, PathBuf};

pub const LOGS_DIR: &str = "logs";

/// The folder of a run's bot logs.
pub fn logs_dir(run_dir: &Path) -> PathBuf {
    run_dir.join(LOGS_DIR)
}

/// Where a bot's stderr log goes inside a logs folder.
pub fn stderr_log_path(logs_dir: &Path, bot: &str) -> PathBuf {
    let safe: String = bot
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    logs_dir.join(format!("{safe}.stderr.log"))
}

/// The last `max` bytes of a log file (lossily decoded: a bot may write anything), and whether
/// the start was cut off.
pub fn read_log_tail(path: &Path, max: u64) -> std::io::Result<(String, bool)> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = std::fs::File::open(path)?;
    let len = file.metadata()?.len();
    let from = len.saturating_sub(max);
    file.seek(SeekFrom::Start(from))?;
    let mut bytes = Vec::with_capacity((len - from) as usize);
    file.take(max).read_to_end(&mut bytes)?;
    Ok((String::from_utf8_lossy(&bytes).into_owned(), from > 0))
}
