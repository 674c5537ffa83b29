//! The harness's layers, as src/lib.rs and docs/design describe them, checked on the source: a
//! module imports only the layers below it, and no folder's files import each other in a circle.
//! The pure crates are crates, so the compiler holds their direction; inside the arena crate this
//! test does (issue 26).
//!
//! Layers, lowest first: `vocab` (the run's vocabulary), `sys` (the system calls) → `engine`, `run_folder`, `openings` →
//! `tournament`, `report` → `serve`, `session`. The CLI lives in the binary and is above them all.

use std::collections::{BTreeMap, BTreeSet};
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

/// Within one folder, the files' `super::x` and `crate::folder::x` imports form no circle.
#[test]
fn no_folder_has_a_circle_of_imports() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut folders: BTreeMap<PathBuf, Vec<PathBuf>> = BTreeMap::new();
    for file in sources(&src) {
        folders
            .entry(file.parent().unwrap().to_path_buf())
            .or_default()
            .push(file);
    }
    let mut circles = Vec::new();
    for (folder, files) in &folders {
        let name_of = |f: &Path| f.file_stem().unwrap().to_string_lossy().into_owned();
        let names: BTreeSet<String> = files
            .iter()
            .map(|f| name_of(f))
            .filter(|n| n != "mod")
            .collect();
        let module_path: Vec<String> = folder
            .strip_prefix(&src)
            .unwrap()
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for file in files {
            let me = name_of(file);
            if me == "mod" {
                continue;
            }
            let text = std::fs::read_to_string(file).unwrap();
            let mut targets = BTreeSet::new();
            for line in text.lines() {
                let code = line.split("//").next().unwrap_or("");
                for (at, _) in code.match_indices("super::") {
                    let word: String = code[at + 7..]
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    targets.insert(word);
                }
            }
            for path in crate_paths(&text) {
                if path.len() > module_path.len() && path[..module_path.len()] == module_path[..] {
                    targets.insert(path[module_path.len()].clone());
                }
            }
            // `super::` inside a file's own `mod tests` means the file itself.
            targets.retain(|t| names.contains(t) && *t != me);
            edges.insert(me, targets);
        }
        // Depth-first search for a back edge.
        fn visit(
            n: &str,
            edges: &BTreeMap<String, BTreeSet<String>>,
            stack: &mut Vec<String>,
            done: &mut BTreeSet<String>,
            found: &mut Vec<String>,
        ) {
            if let Some(at) = stack.iter().position(|s| s == n) {
                let mut circle = stack[at..].to_vec();
                circle.push(n.to_string());
                found.push(circle.join(" → "));
                return;
            }
            if !done.insert(n.to_string()) {
                return;
            }
            stack.push(n.to_string());
            for m in edges.get(n).into_iter().flatten() {
                visit(m, edges, stack, done, found);
            }
            stack.pop();
        }
        let mut done = BTreeSet::new();
        let mut found = Vec::new();
        for n in edges.keys() {
            visit(n, &edges, &mut Vec::new(), &mut done, &mut found);
        }
        for circle in found {
            circles.push(format!(
                "src/{}: {circle}",
                folder.strip_prefix(&src).unwrap().display()
            ));
        }
    }
    assert!(
        circles.is_empty(),
        "files that import each other in a circle:\n{}",
        circles.join("\n")
    );
}
