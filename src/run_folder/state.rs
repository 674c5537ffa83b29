//! `state.json`: where the run stands, as the arena process that writes the folder records it, so
//! that the dashboard and scripts read the state instead of guessing it from file times.
//!
//! # Format
//! `state` (`running`, `finished`, `interrupted`, `stopped` or `failed`), `reason` (what stopped
//! it: the signal, the SPRT's or the gate's decision, the error; absent while running and when
//! every game was played), `pid` (the writer's process, while running) and `at` (RFC 3339, when
//! the state was recorded). Written when play starts and again when it ends, by replacing the
//! file whole (a reader never sees half of it).
//!
//! A folder whose state is still `running` while no process holds it was killed (SIGKILL, a
//! crash, a lost machine): [`RecordedState::effective`] says `interrupted` then.

use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

pub const STATE_JSON: &str = "state.json";

/// The states a run folder records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// A process is playing the run's games.
    Running,
    /// Every game of the plan was played (or skipped: a dropped or retired player's).
    Finished,
    /// A signal stopped it, or its process died: `--resume` plays the rest.
    Interrupted,
    /// An observer ended it on purpose: the SPRT or the gate reached its decision.
    Stopped,
    /// The arena could not go on (a results file that could not be written, a game slot lost).
    Failed,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Running => "running",
            State::Finished => "finished",
            State::Interrupted => "interrupted",
            State::Stopped => "stopped",
            State::Failed => "failed",
        }
    }
}

/// What `state.json` holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedState {
    pub state: State,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    pub at: String,
}

impl RecordedState {
    /// `state` as of now, by this process (its pid is recorded while it runs).
    pub fn now(state: State, reason: Option<String>) -> RecordedState {
        RecordedState {
            state,
            reason,
            pid: (state == State::Running).then(std::process::id),
            at: chrono::Local::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, false),
        }
    }

    /// The folder's `state.json`, `None` if it has none (a folder of an older arena, a merge).
    pub fn read(dir: &Path) -> Result<Option<RecordedState>> {
        super::read_json(dir, STATE_JSON)
    }

    /// Replaces the folder's `state.json` (written beside it, then renamed over it).
    pub fn write(&self, dir: &Path) -> Result<()> {
        let path = dir.join(STATE_JSON);
        let partial = dir.join(format!("{STATE_JSON}.partial"));
        super::files::write(&partial, serde_json::to_string_pretty(self)? + "\n")?;
        std::fs::rename(&partial, &path).with_context(|| format!("cannot write {}", path.display()))
    }

    /// The state as it stands: a `running` whose process is gone is `interrupted` (it was
    /// killed before it could say so), with that as its reason.
    pub fn effective(&self, alive: impl Fn(u32) -> bool) -> (State, Option<String>) {
        match (self.state, self.pid) {
            (State::Running, Some(pid)) if !alive(pid) => (
                State::Interrupted,
                Some(format!(
                    "the arena process {pid} ended without saying why (killed?)"
                )),
            ),
            (state, _) => (state, self.reason.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_running_state_whose_process_is_gone_reads_as_interrupted() {
        let running = RecordedState::now(State::Running, None);
        assert_eq!(running.pid, Some(std::process::id()));
        assert_eq!(running.effective(|_| true), (State::Running, None));
        let (state, reason) = running.effective(|_| false);
        assert_eq!(state, State::Interrupted);
        assert!(reason.unwrap().contains("killed"));
        let stopped = RecordedState::now(State::Stopped, Some("SPRT: H1 accepted".into()));
        assert_eq!(stopped.pid, None);
        assert_eq!(
            stopped.effective(|_| false),
            (State::Stopped, Some("SPRT: H1 accepted".into()))
        );
    }

    #[test]
    fn written_whole_and_read_back() {
        let dir = std::env::temp_dir().join(format!("arena-state-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(RecordedState::read(&dir).unwrap(), None);
        let state = RecordedState::now(State::Interrupted, Some("SIGINT".into()));
        state.write(&dir).unwrap();
        assert_eq!(RecordedState::read(&dir).unwrap(), Some(state));
        assert!(!dir.join("state.json.partial").exists());
        let text = std::fs::read_to_string(dir.join(STATE_JSON)).unwrap();
        assert!(text.contains("\"state\": \"interrupted\""), "{text}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
