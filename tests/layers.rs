//! The harness's layers, as src/lib.rs and docs/design describe them, checked on the source: a
//! module imports only the layers below it.
//! The pure crates are crates, so the compiler holds their direction; inside the arena crate this
//! test does (issue 26).
//!
//! Layers, lowest first: `vocab` (the run's vocabulary), `sys` (the system calls) → `engine`, `run_folder`, `openings` →
//! `tournament`, `report` → `serve`, `session`. The CLI lives in the binary and is above them all.

use std::path::{Path, PathBuf};

/// The rank of each top-level module of the arena's library; a module may import a module of a
/// lower rank, or of its own rank only if it is itself.
fn rank(module: &str) -> Option<u32> {
    Some(match module {
        "rules" | "protocol" | "rating" | "solver" | "calibrate" => 0,
        "vocab" | "sys" => 1,
        "engine" | "run_folder" | "openings" => 2,
        "tournament" | "report" | "plan" => 3,
        "serve" | "session" => 4,
        _ => return None,
    })
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The `crate::a::b` paths a file names, as their segments (comments skipped).
fn crate_paths(text: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(at) = rest.find("crate::") {
            let after = &rest[at + "crate::".len()..];
            // `mancala_arena::crate::` cannot occur; `$crate::` in macros is not ours.
            let before = &rest[..at];
            rest = after;
            if before.ends_with('$') || before.ends_with(|c: char| c.is_alphanumeric() || c == '_')
            {
                continue;
            }
            let segments: Vec<String> = after
                .split("::")
                .map(|s| {
                    s.chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect::<String>()
                })
                .take_while(|s| !s.is_empty())
                .collect();
            if !segments.is_empty() {
                out.push(segments);
            }
        }
    }
    out
}

/// The top-level module a source file belongs to (`src/report/plots/x.rs` → `report`).
fn top_module(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

#[test]
fn no_module_imports_a_layer_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut wrong = Vec::new();
    for file in sources(&src) {
        let module = top_module(&src, &file);
        if matches!(module.as_str(), "cli" | "main" | "lib") {
            continue;
        }
        let own = rank(&module).unwrap_or_else(|| {
            panic!(
                "{}: the module `{module}` has no layer: add it to tests/layers.rs",
                file.display()
            )
        });
        let text = std::fs::read_to_string(&file).unwrap();
        for path in crate_paths(&text) {
            let target = &path[0];
            if *target == module {
                continue;
            }
            match rank(target) {
                Some(r) if r < own => {}
                _ => wrong.push(format!(
                    "{} ({module}) imports crate::{}",
                    file.strip_prefix(&src).unwrap().display(),
                    path.join("::")
                )),
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
}
