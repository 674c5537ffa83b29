//! The harness's layers, as src/lib.rs and docs/design describe them, checked on the source: a
//! module imports only the layers below it, and no folder's files import each other in a circle.
//! The pure crates are crates, so the compiler holds their direction; inside the arena crate this
//! test does (issue 26).
//!
//! Layers, lowest first: `vocab` (the run's vocabulary), `sys` (the system calls), `valuer` →
//! `engine`, `run_folder`, `openings` → `tournament`, `report`, `plan` → `serve`, `session`,
//! `judge`. The CLI lives in the binary and is above them all; within it, a command's file
//! imports no other command's (only the shared helpers), so commands stay flags and printing
//! over the library.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The rank of each top-level module of the arena's library; a module may import a module of a
/// lower rank, or of its own rank only if it is itself.
fn rank(module: &str) -> Option<u32> {
    Some(match module {
        "rules" | "protocol" | "rating" | "solver" | "calibrate" => 0,
        "vocab" | "sys" | "valuer" => 1,
        "engine" | "run_folder" | "openings" => 2,
        "tournament" | "report" | "plan" => 3,
        "serve" | "session" | "judge" => 4,
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

/// The names imported right after each `prefix` in `code` (comments and the `#[cfg(test)]`
/// part left out): `prefix::a::X` names `a`, `prefix::{a, b::C}` names `a` and `b`.
fn names_after(code: &str, prefix: &str) -> BTreeSet<String> {
    let code: String = code
        .split("#[cfg(test)]")
        .next()
        .unwrap_or("")
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let word = |t: &str| -> String {
        t.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut found = BTreeSet::new();
    for (at, _) in code.match_indices(prefix) {
        // `super::super::x` is not `super::x`'s import; a longer prefix is asked for itself.
        let before = &code[..at];
        if before.ends_with("::") || before.ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let rest = &code[at + prefix.len()..];
        if rest.starts_with("super::") {
            continue;
        }
        match rest.strip_prefix('{') {
            Some(group) => {
                // The top-level items of the group, up to its closing brace.
                let (mut depth, mut item_start) = (0, true);
                for (i, c) in group.char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        ',' if depth == 0 => item_start = true,
                        _ if item_start && !c.is_whitespace() => {
                            found.insert(word(&group[i..]));
                            item_start = false;
                        }
                        _ => {}
                    }
                }
            }
            None => {
                found.insert(word(rest));
            }
        }
    }
    found.retain(|w| !w.is_empty());
    found
}

#[test]
fn names_after_reads_paths_and_groups() {
    let code = "use super::{a::Y, c};\nuse crate::report::d::Z;\nuse super::super::e;\n\
                // use super::f;\n#[cfg(test)]\nuse super::b;";
    let names = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(names_after(code, "super::"), names(&["a", "c"]));
    assert_eq!(names_after(code, "super::super::"), names(&["e"]));
    assert_eq!(names_after(code, "crate::report::"), names(&["d"]));
}

/// The command modules of the CLI: those whose `run` or `main` `src/cli/mod.rs` dispatches a
/// subcommand to (the other files there are helpers: flags, output, printing).
fn command_modules(mod_rs: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for pat in ["::run(&args)", "::main(&args)"] {
        for (at, _) in mod_rs.match_indices(pat) {
            let name: String = mod_rs[..at]
                .chars()
                .rev()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            found.insert(name);
        }
    }
    found
}

/// A command's file (`src/cli/analyse.rs`, ...) imports no other command's file: what two
/// commands share lives in the library, or in a CLI helper (flags, printing). Why: a command
/// that imports another grows into a library inside the command layer (as `analyse` and
/// `solve` had).
#[test]
fn no_command_file_imports_another() {
    let cli = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cli");
    let commands = command_modules(&std::fs::read_to_string(cli.join("mod.rs")).unwrap());
    assert!(
        commands.contains("analyse") && commands.contains("solve") && commands.len() > 10,
        "{commands:?}"
    );
    let mut wrong = Vec::new();
    for file in sources(&cli) {
        let me = file.file_stem().unwrap().to_string_lossy().into_owned();
        if !commands.contains(&me) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let imported = names_after(&text, "super::")
            .into_iter()
            .chain(names_after(&text, "crate::cli::"));
        for other in imported.filter(|m| commands.contains(m) && *m != me) {
            wrong.push(format!("src/cli/{me}.rs imports the command `{other}`"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn command_modules_are_read_from_the_dispatch() {
    let mod_rs = "Command::Solve(args) => solve::run(&args).map(|()| x),\n\
                  Command::Run(args) => tournament::main(&args),\n mod flags;";
    let names: BTreeSet<String> = ["solve", "tournament"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(command_modules(mod_rs), names);
}

/// Within one folder, the files and subfolders (each a module) import one another without a
/// circle: a file's `super::x`, `crate::folder::x` and grouped `super::{x, y}` imports are its
/// edges, and a subfolder's are those of every file in it.
#[test]
fn no_folder_has_a_circle_of_imports() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut folders = BTreeSet::new();
    for file in sources(&src) {
        folders.insert(file.parent().unwrap().to_path_buf());
    }
    let mut circles = Vec::new();
    for folder in &folders {
        let module_path: Vec<String> = folder
            .strip_prefix(&src)
            .unwrap()
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let crate_prefix = format!("crate::{}::", module_path.join("::"));
        // Each module of the folder (a file, or a subfolder) and the files that make it up.
        let mut modules: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                modules.insert(name, sources(&path));
            } else if path.extension().is_some_and(|e| e == "rs") && name != "mod" {
                modules.insert(name, vec![path]);
            }
        }
        let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (me, files) in &modules {
            let mut targets = BTreeSet::new();
            for file in files {
                let text = std::fs::read_to_string(file).unwrap();
                // How many `super::` lead from this file's module up to the folder.
                let inner = file.strip_prefix(folder).unwrap().components().count();
                let up = if file.file_stem().is_some_and(|s| s == "mod") {
                    inner - 1
                } else {
                    inner
                };
                targets.extend(names_after(&text, &"super::".repeat(up)));
                targets.extend(names_after(&text, &crate_prefix));
            }
            targets.retain(|t| modules.contains_key(t) && t != me);
            edges.insert(me.clone(), targets);
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
