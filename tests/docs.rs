//! The documents against what they describe: every worked example of docs/rules.md is replayed
//! by the arena and must print exactly what the page shows (so the rules page cannot drift from
//! the engine); the documents point to nothing outside the repository; the levels' names are
//! spelled one way wherever a user types them.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    let path = root().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One `$ arena ...` line of a `console` block and the lines it prints, with its line number.
struct Example {
    line: usize,
    command: String,
    expected: Vec<String>,
}

/// The examples of the ```` ```console ```` blocks of `text`: each `$ arena ...` line with the
/// lines after it up to the next `$` line or the block's end.
fn console_examples(text: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut in_block = false;
    for (i, line) in text.lines().enumerate() {
        if !in_block {
            in_block = line.trim_end() == "```console";
            continue;
        }
        if line.starts_with("```") {
            in_block = false;
        } else if let Some(command) = line.strip_prefix("$ ") {
            out.push(Example {
                line: i + 1,
                command: command.to_string(),
                expected: Vec::new(),
            });
        } else {
            let example = out
                .last_mut()
                .unwrap_or_else(|| panic!("line {}: output before any `$` line", i + 1));
            example.expected.push(line.trim_end().to_string());
        }
    }
    assert!(!in_block, "a console block is not closed");
    out
}

/// docs/rules.md's worked examples, each an `arena replay` (or `arena perft`) run here: the
/// output must be the page's, line for line (trailing spaces aside). An example that shows an
/// `error:` must fail with exit code 1; any other must succeed.
#[test]
fn every_worked_example_of_the_rules_page_replays_as_shown() {
    let page = read("docs/rules.md");
    let examples = console_examples(&page);
    let mut rulesets = std::collections::BTreeSet::new();
    for ex in &examples {
        let words: Vec<&str> = ex.command.split_whitespace().collect();
        assert_eq!(
            words[0], "arena",
            "docs/rules.md:{}: {}",
            ex.line, ex.command
        );
        assert!(
            !ex.command.contains(['"', '\'', '\\']),
            "docs/rules.md:{}: keep the examples free of quoting",
            ex.line
        );
        if let Some(at) = words.iter().position(|w| *w == "--rules") {
            rulesets.insert(words[at + 1].split(':').next().unwrap().to_string());
        } else {
            rulesets.insert("kalah".to_string());
        }
        let out = Command::new(env!("CARGO_BIN_EXE_arena"))
            .args(&words[1..])
            .output()
            .unwrap();
        let printed = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        let printed: Vec<String> = printed.lines().map(|l| l.trim_end().to_string()).collect();
        assert_eq!(
            printed, ex.expected,
            "docs/rules.md:{}: `{}` prints otherwise than the page shows",
            ex.line, ex.command
        );
        let error = ex.expected.iter().any(|l| l.starts_with("error:"));
        assert_eq!(
            out.status.code(),
            Some(if error { 1 } else { 0 }),
            "docs/rules.md:{}: {}",
            ex.line,
            ex.command
        );
    }
    // Each game's rules come with examples; each numbered rule is stated.
    assert!(examples.len() >= 35, "only {} examples", examples.len());
    for game in ["kalah", "oware", "congkak"] {
        assert!(rulesets.contains(game), "no {game} example");
    }
    for rule in [
        "C1", "C2", "C3", "C4", "C5", "K1", "K2", "K3", "K4", "K5", "K6", "K7", "K8", "O1", "O2",
        "O3", "O4", "O5", "O6", "O7", "O8", "G1", "G2", "G3", "G4", "G5", "G6", "G7",
    ] {
        assert!(
            page.contains(&format!("**{rule} ")),
            "rule {rule} is not stated"
        );
    }
    for variant in [
        "empty_capture=true",
        "sweep=none",
        "end_on_no_move=true",
        "pie=true",
        "first_extra_turn=false",
        "lap_cap=1",
        "sow_cap=3",
    ] {
        assert!(
            examples.iter().any(|e| e.command.contains(variant)),
            "no example with {variant}"
        );
    }
    // Whether a bot must handle the sow cap is answered.
    assert!(page.contains("**The sow cap: no, not to play legally.**"));
}

/// The project's documents (README.md, CHANGELOG.md, docs/*.md, the example files) point to no
/// file outside the repository: no `shared/` reference material, no machine path, and every
/// relative link resolves to a file or folder of the checkout.
#[test]
fn the_documents_point_to_nothing_outside_the_repository() {
    let mut files: Vec<PathBuf> = ["README.md", "CHANGELOG.md"]
        .iter()
        .map(|f| root().join(f))
        .collect();
    for dir in ["docs", "."] {
        for entry in std::fs::read_dir(root().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if (dir == "docs" && name.ends_with(".md")) || name.ends_with(".example.toml") {
                files.push(path);
            }
        }
    }
    let mut bad = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let shown = file.strip_prefix(root()).unwrap().display().to_string();
        for (i, line) in text.lines().enumerate() {
            for outside in ["shared/", "/work/", "../shared"] {
                if line.contains(outside) {
                    bad.push(format!("{shown}:{}: names `{outside}`", i + 1));
                }
            }
        }
        if !shown.ends_with(".md") {
            continue;
        }
        // Markdown links `[text](target)` with a relative target.
        let mut rest = text.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let Some(end) = rest.find(')') else { break };
            let target = &rest[..end];
            if target.contains("://") || target.starts_with('#') || target.starts_with("mailto:") {
                continue;
            }
            let path = target.split('#').next().unwrap();
            let resolved = file.parent().unwrap().join(path);
            let inside = resolved
                .canonicalize()
                .is_ok_and(|p| p.starts_with(root().canonicalize().unwrap()));
            if !inside {
                bad.push(format!(
                    "{shown}: link `{target}` leads to no file of the repository"
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The levels are typed one way in every document, example file and script (issue 47): `easy`,
/// `normal`, `hard`, as player names (`--bot hard`) and as values of the `Level` option
/// (`option.Level=hard`, `Level = "hard"`). The bot reads the option in any case; the documents
/// do not make the user wonder.
#[test]
fn the_levels_are_typed_one_way() {
    let mut files: Vec<PathBuf> = vec![root().join("README.md")];
    for dir in ["docs", "scripts", "."] {
        for entry in std::fs::read_dir(root().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let wanted = match dir {
                "docs" => name.ends_with(".md"),
                "scripts" => name.ends_with(".sh"),
                _ => name.ends_with(".example.toml"),
            };
            if wanted {
                files.push(path);
            }
        }
    }
    let mut bad = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let shown = file.strip_prefix(root()).unwrap().display().to_string();
        for (i, line) in text.lines().enumerate() {
            for level in ["Easy", "Normal", "Hard"] {
                for typed in [
                    format!("Level={level}"),
                    format!("Level = \"{level}\""),
                    format!("--bot {level}"),
                    format!("--reference {level}"),
                    format!("name = \"{level}\""),
                    format!("name={level}"),
                ] {
                    if line.contains(&typed) {
                        bad.push(format!("{shown}:{}: `{typed}`", i + 1));
                    }
                }
            }
        }
    }
    assert!(
        bad.is_empty(),
        "type the levels in lower case (`hard`, `option.Level=hard`):\n{}",
        bad.join("\n")
    );
}

/// No document holds a placeholder left for a figure to be measured later (a line that is only an
/// upper-case token such as `EXAMPLE_OUTPUT`): a new user met two on the calibration page
/// (issue 47's second pass), where the page promised the calibration's own output.
#[test]
fn the_documents_hold_no_placeholders() {
    let mut files: Vec<PathBuf> = vec![root().join("README.md"), root().join("CHANGELOG.md")];
    for entry in std::fs::read_dir(root().join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            files.push(path);
        }
    }
    let mut bad = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let shown = file.strip_prefix(root()).unwrap().display().to_string();
        for (i, line) in text.lines().enumerate() {
            let token = line.trim();
            let placeholder = token.len() >= 4
                && token.contains('_')
                && token.chars().all(|c| c.is_ascii_uppercase() || c == '_');
            if placeholder {
                bad.push(format!("{shown}:{}: placeholder `{token}`", i + 1));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
