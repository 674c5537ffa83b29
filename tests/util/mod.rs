//! Shared helpers for the integration tests: temporary folders, the `arena` binary, the bundled
//! bot binaries and the misbehaving test bots.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// A temporary folder removed when dropped.
pub struct Dir(pub PathBuf);

impl Dir {
    pub fn new(name: &str) -> Dir {
        let path = std::env::temp_dir().join(format!("arena-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create temp dir");
        Dir(path)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn join(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The folder holding the workspace's binaries (`target/<profile>/`), with the bots built.
pub fn bin_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let arena = PathBuf::from(env!("CARGO_BIN_EXE_arena"));
        let dir = arena.parent().expect("binary folder").to_path_buf();
        if !dir.join("mancala-random").exists() {
            // `scripts/test.sh` builds every binary first; a plain `cargo test` may not have.
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let status = Command::new(cargo)
                .args(["build", "--workspace", "--bins"])
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .status()
                .expect("run cargo build");
            assert!(status.success(), "building the bots failed");
        }
        dir
    })
}

/// The path of a bundled bot binary, e.g. `bot("random")`.
pub fn bot(name: &str) -> String {
    bin_dir()
        .join(format!("mancala-{name}"))
        .display()
        .to_string()
}

/// The misbehaving bot script (tests/bots/misbehave.py).
pub fn misbehave() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/bots/misbehave.py")
        .display()
        .to_string()
}

/// Runs `arena ARGS...` and returns its output.
pub fn arena(args: &[&str]) -> Output {
    arena_env(args, &[])
}

/// Runs `arena ARGS...` with extra environment variables and returns its output.
pub fn arena_env(args: &[&str], env: &[(&str, &Path)]) -> Output {
    bin_dir();
    Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(args)
        .envs(env.iter().copied())
        .output()
        .expect("run arena")
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs arena and asserts it succeeded, returning stdout.
pub fn arena_ok(args: &[&str]) -> String {
    succeeded(args, arena(args))
}

/// Asserts that `arena ARGS` exited 0 (showing its output if not); returns stdout.
pub fn succeeded(args: &[&str], out: Output) -> String {
    assert!(
        out.status.success(),
        "arena {args:?} failed: {}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// The rows of a run's games.csv as maps column → value.
pub fn games(dir: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(dir.join("games.csv")).expect("games.csv");
    reader.deserialize().map(|r| r.expect("row")).collect()
}
