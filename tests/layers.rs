//! The layering of the library, checked from its source: `src/lib.rs` lists the top-level
//! modules lowest layer first, and a module may name only itself and the modules listed before
//! it (no upward import, hence no cycle); clap lives in the binary alone.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The source with comments and string literals blanked out, so that only code is scanned
/// (a doc link or a message may name any module).
fn code_only(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let (mut in_str, mut in_line_comment, mut block_depth) = (false, false, 0);
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        if in_line_comment {
            if c == '\n' {
                in_line_comment = false;
                out.push('\n');
            }
        } else if block_depth > 0 {
            if c == '*' && next == Some('/') {
                chars.next();
                block_depth -= 1;
            } else if c == '/' && next == Some('*') {
                chars.next();
                block_depth += 1;
            } else if c == '\n' {
                out.push('\n');
            }
        } else if in_str {
            if c == '\\' {
                chars.next();
            } else if c == '"' {
                in_str = false;
            } else if c == '\n' {
                out.push('\n');
            }
        } else if c == '/' && next == Some('/') {
            in_line_comment = true;
        } else if c == '/' && next == Some('*') {
            chars.next();
            block_depth = 1;
        } else if c == '"' {
            in_str = true;
        } else if c == '\'' && next.is_some_and(|n| n != '\\') && {
            // A char literal such as '"' is skipped whole; a lifetime is kept.
            let mut ahead = chars.clone();
            ahead.next();
            ahead.next() == Some('\'')
        } {
            chars.next();
            chars.next();
        } else {
            out.push(c);
        }
    }
    out
}

/// The top-level modules of the library in the order `src/lib.rs` declares them.
fn layers(src: &Path) -> Vec<String> {
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("src/lib.rs");
    code_only(&lib)
        .lines()
        .filter_map(|l| {
            let l = l.trim();
            let rest = l.strip_prefix("pub mod ").or_else(|| l.strip_prefix("mod "))?;
            Some(rest.trim_end_matches(';').trim().to_string())
        })
        .collect()
}

/// Every `.rs` file of a top-level module: `src/<m>.rs` or everything under `src/<m>/`.
fn files_of(src: &Path, module: &str) -> Vec<PathBuf> {
    let single = src.join(format!("{module}.rs"));
    if single.exists() {
        return vec![single];
    }
    let mut out = Vec::new();
    let mut stack = vec![src.join(module)];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The top-level modules a file names, with the line of each mention: `crate::m`, and the
/// `super::` paths that climb out of the file's own module to the crate root.
fn mentions(src: &Path, file: &Path, modules: &[String]) -> Vec<(String, usize)> {
    let text = code_only(&std::fs::read_to_string(file).unwrap());
    // The file's module path is as long as its path below src/ (a `mod.rs` is its folder's
    // module), and that many `super::` reach the crate root.
    let rel = file.strip_prefix(src).unwrap();
    let depth = rel.components().count() - usize::from(rel.file_name().is_some_and(|n| n == "mod.rs"));
    let prefixes = ["crate::".to_string(), "super::".repeat(depth)];
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for prefix in &prefixes {
            for (at, _) in line.match_indices(prefix.as_str()) {
                // Only where the path starts: `super::` inside `super::super::` is not the root.
                if at > 0 && line[..at].ends_with("::") {
                    continue;
                }
                let name: String =
                    line[at + prefix.len()..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if modules.contains(&name) {
                    out.push((name, n + 1));
                }
            }
        }
    }
    out
}

#[test]
fn no_module_names_a_module_above_it_so_there_is_no_cycle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let modules = layers(&src);
    assert!(modules.len() >= 10, "src/lib.rs should list the layers, found {modules:?}");
    let rank: BTreeMap<&str, usize> = modules.iter().enumerate().map(|(i, m)| (m.as_str(), i)).collect();
    let mut upward = Vec::new();
    let mut edges: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for m in &modules {
        for file in files_of(&src, m) {
            for (used, line) in mentions(&src, &file, &modules) {
                if used == *m {
                    continue;
                }
                let used = modules.iter().find(|x| **x == used).unwrap().as_str();
                edges.entry(m.as_str()).or_default().push(used);
                if rank[used] > rank[m.as_str()] {
                    upward.push(format!(
                        "{}:{line}: {m} (layer {}) names {used} (layer {})",
                        file.display(),
                        rank[m.as_str()],
                        rank[used]
                    ));
                }
            }
        }
    }
    // A cycle, found by depth-first search over the module graph (reported even though an
    // upward import always comes with one, so that the message shows the circle).
    fn visit<'a>(
        m: &'a str,
        edges: &BTreeMap<&'a str, Vec<&'a str>>,
        path: &mut Vec<&'a str>,
        done: &mut Vec<&'a str>,
    ) -> Option<Vec<&'a str>> {
        if let Some(i) = path.iter().position(|p| *p == m) {
            let mut circle = path[i..].to_vec();
            circle.push(m);
            return Some(circle);
        }
        if done.contains(&m) {
            return None;
        }
        path.push(m);
        for &next in edges.get(m).into_iter().flatten() {
            if let Some(c) = visit(next, edges, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.push(m);
        None
    }
    let mut done = Vec::new();
    let cycle = modules.iter().find_map(|m| visit(m, &edges, &mut Vec::new(), &mut done));
    assert!(cycle.is_none(), "import cycle between top-level modules: {}", cycle.unwrap().join(" -> "));
    assert!(
        upward.is_empty(),
        "upward imports (a layer names one listed after it in src/lib.rs):\n{}",
        upward.join("\n")
    );
}

#[test]
fn clap_lives_in_the_binary_alone() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for m in layers(&src) {
        for file in files_of(&src, &m) {
            let text = code_only(&std::fs::read_to_string(&file).unwrap());
            for (n, line) in text.lines().enumerate() {
                if line.split(|c: char| !c.is_alphanumeric() && c != '_').any(|w| w == "clap") {
                    found.push(format!("{}:{}", file.display(), n + 1));
                }
            }
        }
    }
    assert!(found.is_empty(), "clap named in the library: {found:?}");
}

#[test]
fn the_scanner_sees_code_and_skips_comments_and_strings() {
    let text = "use crate::a; // crate::b\nlet s = \"crate::c\"; /* crate::d */ let c = '\"'; crate::e::f();";
    let code = code_only(text);
    assert!(code.contains("crate::a") && code.contains("crate::e"));
    assert!(!code.contains("crate::b") && !code.contains("crate::c") && !code.contains("crate::d"));
}
