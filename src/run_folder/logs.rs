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
