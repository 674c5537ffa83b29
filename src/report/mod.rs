//! Documents for people: the terminal tables and the rating run of a results folder ([`rate`],
//! [`tables`]), its figures ([`plots`]), and the two documents made from them, `report.html`
//! ([`html`]) and `summary.md` ([`markdown`]), written together by
//! [`documents::write_report`]. The game viewer's data is [`viewer`]'s (shared with
//! `arena serve`). The files of the folder are read and written through
//! [`crate::run_folder`]; the maths is [`crate::rating`]. Formatting only.
//!
//! The modules import one another in one direction only (a test checks it): [`text`] (escaping)
//! and [`input`] (what the documents are made of) import no renderer, the renderers import
//! them, and only [`documents`] calls the renderers.

pub mod calibration;
pub mod documents;
pub mod html;
pub mod input;
pub mod markdown;
pub mod plots;
pub mod rate;
pub mod tables;
pub mod text;
pub mod viewer;

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};
    use std::path::Path;

    /// The sibling modules a file names through `super::NAME` or `crate::report::NAME`
    /// (in `use` lines and in paths), outside comments and its `#[cfg(test)]` part. A
    /// `super::{a, b::C}` group names `a` and `b`.
    fn imports(text: &str, modules: &BTreeSet<String>, own: &str) -> BTreeSet<String> {
        let code: String = text
            .split("#[cfg(test)]")
            .next()
            .unwrap_or("")
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let mut found = BTreeSet::new();
        for prefix in ["super::", "crate::report::"] {
            for (at, _) in code.match_indices(prefix) {
                let rest = &code[at + prefix.len()..];
                let names: Vec<&str> = match rest.strip_prefix('{') {
                    Some(group) => group[..group.find('}').unwrap_or(group.len())]
                        .split(',')
                        .map(|item| item.trim().split("::").next().unwrap_or(""))
                        .collect(),
                    None => vec![rest],
                };
                for name in names {
                    let end = name
                        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .unwrap_or(name.len());
                    let name = &name[..end];
                    if name != own && modules.contains(name) {
                        found.insert(name.to_string());
                    }
                }
            }
        }
        found
    }

    /// `src/report/`'s import graph: one node per `*.rs` file and per folder (`plots/`, whose
    /// files' `super::` is the folder itself and so only `crate::report::` counts).
    fn graph() -> BTreeMap<String, BTreeSet<String>> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/report");
        let mut files: BTreeMap<String, Vec<(String, bool)>> = BTreeMap::new();
        for entry in std::fs::read_dir(&root).unwrap() {
            let path = entry.unwrap().path();
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                let mut texts = Vec::new();
                let mut stack = vec![path];
                while let Some(dir) = stack.pop() {
                    for e in std::fs::read_dir(dir).unwrap() {
                        let p = e.unwrap().path();
                        if p.is_dir() {
                            stack.push(p);
                        } else if p.extension().is_some_and(|x| x == "rs") {
                            texts.push((std::fs::read_to_string(p).unwrap(), true));
                        }
                    }
                }
                files.entry(stem).or_default().extend(texts);
            } else if path.extension().is_some_and(|x| x == "rs") && stem != "mod" {
                let text = std::fs::read_to_string(&path).unwrap();
                files.entry(stem).or_default().push((text, false));
            }
        }
        let modules: BTreeSet<String> = files.keys().cloned().collect();
        files
            .iter()
            .map(|(name, texts)| {
                let mut edges = BTreeSet::new();
                for (text, in_folder) in texts {
                    let text = if *in_folder {
                        text.replace("super::", "self::")
                    } else {
                        text.clone()
                    };
                    edges.extend(imports(&text, &modules, name));
                }
                (name.clone(), edges)
            })
            .collect()
    }

    /// A circle through `from`, as the modules along it, if there is one.
    fn circle(
        graph: &BTreeMap<String, BTreeSet<String>>,
        from: &str,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        for next in &graph[path.last().unwrap().as_str()] {
            if next == from {
                let mut found = path.clone();
                found.push(next.clone());
                return Some(found);
            }
            if !path.contains(next) {
                path.push(next.clone());
                if let Some(found) = circle(graph, from, path) {
                    return Some(found);
                }
                path.pop();
            }
        }
        None
    }

    #[test]
    fn the_report_modules_import_each_other_without_a_circle() {
        let graph = graph();
        // The scan sees the imports that are known to be there.
        assert!(graph["tables"].contains("text"), "{graph:?}");
        assert!(graph["documents"].contains("html"), "{graph:?}");
        assert!(graph["plots"].contains("rate"), "{graph:?}");
        for name in graph.keys() {
            if let Some(found) = circle(&graph, name, &mut vec![name.clone()]) {
                panic!("import circle in src/report/: {}", found.join(" -> "));
            }
        }
    }

    #[test]
    fn the_scan_finds_a_circle_when_there_is_one() {
        let modules: BTreeSet<String> = ["a", "b"].iter().map(|s| s.to_string()).collect();
        let a = imports("use super::b::X;\n// super::a in a comment", &modules, "a");
        let b = imports(
            "use super::{a::Y, c};\n#[cfg(test)]\nuse super::b;",
            &modules,
            "b",
        );
        let graph = BTreeMap::from([("a".to_string(), a), ("b".to_string(), b)]);
        assert_eq!(
            circle(&graph, "a", &mut vec!["a".to_string()]),
            Some(vec!["a".to_string(), "b".to_string(), "a".to_string()])
        );
    }
}
