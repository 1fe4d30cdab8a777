//! The layering of the library, checked from its source: `src/lib.rs` lists the top-level
//! modules lowest layer first, and a module may name only itself and the modules listed before
//! it (no upward import, hence no cycle); clap lives in the binary alone.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The source with comments and string literals blanked out, so that only code is scanned
/// (a doc link or a message may name any module).
fn code_only(text: &str) -> String {
    scan(text).0
}

/// The string literals of a source text, each with its line (comments skipped; `#[cfg(test)]`
/// modules are kept, so a test's own strings must pass too).
fn literals(text: &str) -> Vec<(usize, String)> {
    scan(text).1
}

/// One pass over a source text: its code with comments and string literals blanked out (line
/// breaks kept), and its string literals with their lines (an escape kept as the character
/// after the backslash).
fn scan(text: &str) -> (String, Vec<(usize, String)>) {
    let mut out = String::with_capacity(text.len());
    let (mut found, mut line) = (Vec::new(), 1);
    let mut chars = text.chars().peekable();
    let (mut literal, mut in_line_comment, mut block_depth) = (None::<String>, false, 0);
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        if c == '\n' {
            line += 1;
        }
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
        } else if let Some(s) = &mut literal {
            if c == '\\' {
                if let Some(escaped) = chars.next() {
                    line += usize::from(escaped == '\n');
                    s.push(escaped);
                }
            } else if c == '"' {
                found.push((line, literal.take().expect("in a literal")));
            } else {
                s.push(c);
                if c == '\n' {
                    out.push('\n');
                }
            }
        } else if c == '/' && next == Some('/') {
            in_line_comment = true;
        } else if c == '/' && next == Some('*') {
            chars.next();
            block_depth = 1;
        } else if c == '"' {
            literal = Some(String::new());
        } else if c == '\'' && {
            // A char literal such as '"' or '\"' is skipped whole; a lifetime is kept.
            let mut ahead = chars.clone();
            if ahead.next() == Some('\\') {
                ahead.next();
            }
            ahead.next() == Some('\'')
        } {
            let escaped = next == Some('\\');
            chars.next();
            chars.next();
            if escaped {
                chars.next();
            }
        } else {
            out.push(c);
        }
    }
    (out, found)
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

/// The text of ARCHITECTURE.md.
fn architecture() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md")).unwrap()
}

/// The bullet of ARCHITECTURE.md's cross-cutting concerns that starts with `head`, to the next.
fn paragraph<'a>(doc: &'a str, head: &str) -> &'a str {
    let text = &doc[doc.find(head).unwrap_or_else(|| panic!("ARCHITECTURE.md has no '{head}'"))..];
    &text[..text[3..].find("\n- **").or_else(|| text[3..].find("\n#")).map_or(text.len(), |e| e + 3)]
}

/// Every `.rs` file of the library (the binary's `src/cli/` and `src/main.rs` left out).
fn library_files(src: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = layers(src).iter().flat_map(|m| files_of(src, m)).collect();
    files.push(src.join("lib.rs"));
    files
}

/// Files whose strings are command lines for other programs (the scripts a cluster engine
/// runs, which call `dab job --plan ...`; chromium's, timing the page), not messages.
const SCRIPT_WRITERS: [&str; 3] = ["cluster/slurm.rs", "cluster/condor.rs", "bench/serve.rs"];

/// Flags of other programs that a library message may name (which `sacct` columns to ask for).
const OTHER_PROGRAMS_FLAGS: [&str; 2] = ["--parsable2", "--format"];

#[test]
fn library_messages_name_no_command_line_flag() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    for file in library_files(&src) {
        let rel = file.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        if SCRIPT_WRITERS.contains(&rel.as_str()) {
            continue;
        }
        for (n, text) in literals(&std::fs::read_to_string(&file).unwrap()) {
            let flags = text.match_indices("--").filter(|(at, _)| {
                let after = &text[at + 2..];
                let word: String = after.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
                after.starts_with(|c: char| c.is_ascii_lowercase())
                    && !OTHER_PROGRAMS_FLAGS.contains(&format!("--{word}").as_str())
            });
            if flags.count() > 0 {
                found.push(format!("{rel}:{n}: {text}"));
            }
        }
    }
    assert!(found.is_empty(), "the library names flags (the binary adds them):\n{}", found.join("\n"));
}

#[test]
fn the_literal_scanner_finds_strings_and_skips_comments() {
    let text = "let a = \"x --y\"; // \"--z\"\nlet c = '\"'; f(\"two\\\"q\");";
    let found = literals(text);
    assert_eq!(found, vec![(1, "x --y".to_string()), (2, "two\"q".to_string())]);
}

/// The rows of ARCHITECTURE.md's table of who uses whom: module, then the modules it uses.
fn uses_table() -> BTreeMap<String, Vec<String>> {
    let doc = architecture();
    let start = doc.find("| module | uses |").expect("ARCHITECTURE.md has the table '| module | uses |'");
    doc[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split('|').map(|c| c.trim().trim_matches('`')).collect();
            let uses = cells[1]
                .split(',')
                .map(|u| u.trim().trim_matches('`').to_string())
                .filter(|u| !u.is_empty() && u != "nothing");
            (cells[0].trim_end_matches('/').to_string(), uses.collect())
        })
        .collect()
}

#[test]
fn the_map_says_which_layers_each_module_uses_and_no_more() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let modules = layers(&src);
    let table = uses_table();
    let mut wrong = Vec::new();
    for m in &modules {
        let mut used: Vec<String> = files_of(&src, m)
            .iter()
            .flat_map(|f| mentions(&src, f, &modules))
            .map(|(name, _)| name)
            .filter(|name| name != m)
            .collect();
        used.sort();
        used.dedup();
        let mut said = table.get(m).cloned().unwrap_or_else(|| vec!["(no row)".into()]);
        said.sort();
        if used != said {
            wrong.push(format!("{m}: uses {used:?}, ARCHITECTURE.md says {said:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_error_enum_of_the_library_is_in_the_map() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let doc = architecture();
    let errors = paragraph(&doc, "- **Errors.**");
    let mut missing = Vec::new();
    for file in library_files(&src) {
        for line in code_only(&std::fs::read_to_string(&file).unwrap()).lines() {
            if let Some(rest) = line.trim_start().strip_prefix("pub enum ") {
                let name: String = rest.chars().take_while(|c| c.is_alphanumeric()).collect();
                if name.ends_with("Error") && !errors.contains(&format!("`{name}`")) {
                    missing.push(format!("{name} ({})", file.display()));
                }
            }
        }
    }
    assert!(missing.is_empty(), "error enums not in ARCHITECTURE.md's Errors paragraph: {missing:?}");
}

#[test]
fn unsafe_lives_only_where_the_map_says_each_block_with_its_safety_note() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let doc = architecture();
    let unsafe_paragraph = paragraph(&doc, "- **Unsafe.**");
    let mut wrong = Vec::new();
    for file in library_files(&src).into_iter().chain(files_of(&src, "cli")) {
        let rel = file.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        let text = std::fs::read_to_string(&file).unwrap();
        let code = code_only(&text);
        let lines: Vec<&str> = text.lines().collect();
        for (n, line) in code.lines().enumerate() {
            if !line.split(|c: char| !c.is_alphanumeric() && c != '_').any(|w| w == "unsafe") {
                continue;
            }
            if !unsafe_paragraph.contains(&format!("`{rel}`")) {
                wrong.push(format!("{rel}:{}: unsafe in a file ARCHITECTURE.md does not name", n + 1));
            }
            let above = &lines[n.saturating_sub(4)..n];
            if !above.iter().any(|l| l.contains("SAFETY:")) {
                wrong.push(format!("{rel}:{}: unsafe without a SAFETY note just above", n + 1));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_map_links_only_inside_the_repository() {
    let doc = architecture();
    let outside: Vec<&str> =
        doc.lines().filter(|l| l.contains("](../") || l.contains("`../") || l.contains("](/")).collect();
    assert!(outside.is_empty(), "ARCHITECTURE.md points outside the repository: {outside:?}");
}

/// What starts a thread, a scoped thread, a pool or a runtime: any of these words in the code.
const THREAD_STARTS: [&str; 6] =
    ["thread::spawn", "thread::scope", "thread::Builder", "ThreadPoolBuilder", "runtime::Builder", "spawn_blocking"];

#[test]
fn threads_start_only_where_the_map_says() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let threads = paragraph(&architecture(), "- **Threads.**").to_string();
    let mut wrong = Vec::new();
    let mut named = 0;
    for file in library_files(&src) {
        let rel = file.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        let code = code_only(&std::fs::read_to_string(&file).unwrap());
        let starts = THREAD_STARTS.iter().any(|w| code.contains(w));
        let said = threads.contains(&format!("`{rel}`"));
        named += usize::from(said);
        if starts != said {
            wrong.push(format!("{rel}: {}", if starts { "starts threads, not named" } else { "named, starts none" }));
        }
    }
    assert!(named > 0, "the Threads paragraph names no file");
    assert!(wrong.is_empty(), "ARCHITECTURE.md's Threads paragraph and the code differ: {wrong:?}");
}

#[test]
fn a_folders_files_are_private_but_for_the_namespaces_the_map_names() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let visibility = paragraph(&architecture(), "- **Visibility.**").to_string();
    let mut wrong = Vec::new();
    for file in library_files(&src) {
        let rel = file.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        let Some(folder) = rel.strip_suffix("/mod.rs") else { continue };
        for line in code_only(&std::fs::read_to_string(&file).unwrap()).lines() {
            let Some(name) = line.trim().strip_prefix("pub mod ") else { continue };
            let path = format!("`{}::{}`", folder.replace('/', "::"), name.trim_end_matches(';').trim());
            if !visibility.contains(&path) {
                wrong.push(format!("{rel}: {}", line.trim()));
            }
        }
    }
    assert!(wrong.is_empty(), "public files the Visibility paragraph does not name: {wrong:?}");
}

#[test]
fn error_types_have_unique_names() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in library_files(&src).into_iter().chain(files_of(&src, "cli")) {
        let rel = file.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/");
        for line in code_only(&std::fs::read_to_string(&file).unwrap()).lines() {
            let line = line.trim_start();
            let rest = ["pub enum ", "enum ", "pub struct ", "struct ", "pub(crate) enum ", "pub(crate) struct "]
                .iter()
                .find_map(|p| line.strip_prefix(p));
            let Some(rest) = rest else { continue };
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if name.ends_with("Error") {
                seen.entry(name).or_default().push(rel.clone());
            }
        }
    }
    let twice: Vec<String> =
        seen.iter().filter(|(_, at)| at.len() > 1).map(|(name, at)| format!("{name}: {at:?}")).collect();
    assert!(twice.is_empty(), "error types named twice: {twice:?}");
}

/// The module path of a library file: `src/a/b.rs` is `a::b`, `src/a/mod.rs` is `a`.
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut path: Vec<String> = rel.iter().map(|c| c.to_string_lossy().into_owned()).collect();
    let last = path.pop().unwrap();
    if last != "mod.rs" && last != "lib.rs" {
        path.push(last.trim_end_matches(".rs").to_string());
    }
    path
}

/// Every module path a source text names from `here` (its own module path): `crate::`,
/// `super::` and `self::` paths, inline or in `use` trees with braces, made absolute. Code
/// under the first `#[cfg(test)]` module is left out: a test may reach across its folder.
fn named_paths(text: &str, here: &[String]) -> Vec<(Vec<String>, usize)> {
    let code = code_only(text);
    let lines: Vec<&str> = code.lines().collect();
    let end = (0..lines.len())
        .find(|&i| {
            lines[i].trim() == "#[cfg(test)]"
                && lines[i + 1..]
                    .iter()
                    .find(|l| !l.trim().is_empty())
                    .is_some_and(|l| l.trim_start().starts_with("mod "))
        })
        .unwrap_or(lines.len());
    let code: Vec<char> = lines[..end].join("\n").chars().collect();
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let line_of = |at: usize| code[..at].iter().filter(|&&c| c == '\n').count() + 1;
    // Reads a path from `at` (segments joined by `::`, then a brace group), pushing every
    // full path it names onto `out` with `base` in front.
    fn read(
        code: &[char],
        mut at: usize,
        base: Vec<String>,
        out: &mut Vec<(Vec<String>, usize)>,
        line: usize,
    ) -> usize {
        let ident = |c: char| c.is_alphanumeric() || c == '_';
        let mut path = base;
        loop {
            while at < code.len() && code[at].is_whitespace() {
                at += 1;
            }
            if at < code.len() && code[at] == '{' {
                at += 1;
                loop {
                    while at < code.len() && (code[at].is_whitespace() || code[at] == ',') {
                        at += 1;
                    }
                    if at >= code.len() || code[at] == '}' {
                        return at + 1;
                    }
                    at = read(code, at, path.clone(), out, line);
                }
            }
            let start = at;
            while at < code.len() && ident(code[at]) {
                at += 1;
            }
            if at == start {
                out.push((path, line));
                return at;
            }
            path.push(code[start..at].iter().collect());
            if code[at..].starts_with(&[':', ':']) {
                at += 2;
            } else {
                out.push((path, line));
                // `as name` and anything else up to the next separator.
                while at < code.len() && !matches!(code[at], ',' | '}' | ';') {
                    at += 1;
                }
                return at;
            }
        }
    }
    let mut out = Vec::new();
    let mut at = 0;
    while at < code.len() {
        let starts = (at == 0 || !(ident(code[at - 1]) || code[at - 1] == ':'))
            && ["crate::", "super::", "self::"].iter().any(|p| code[at..].starts_with(&p.chars().collect::<Vec<_>>()));
        if !starts {
            at += 1;
            continue;
        }
        // The absolute base: `crate` is the root, each `super` one level up, `self` here.
        let mut base: Vec<String> = here.to_vec();
        let mut i = at;
        if code[i..].starts_with(&['c', 'r', 'a', 't', 'e', ':', ':']) {
            base.clear();
            i += 7;
        } else if code[i..].starts_with(&['s', 'e', 'l', 'f', ':', ':']) {
            i += 6;
        } else {
            while code[i..].starts_with(&['s', 'u', 'p', 'e', 'r', ':', ':']) {
                base.pop();
                i += 7;
            }
        }
        let line = line_of(at);
        at = read(&code, i, base, &mut out, line).max(at + 1);
    }
    out
}

/// Folders whose files form circles today, each circle's members sorted: the debt issue 84
/// pays off. The test fails on any circle not listed here and on a listed one that is gone
/// (then strike it off), so the list only shrinks.
const KNOWN_CIRCLES: &[&str] = &[
    "answer: advice, book, play",
    "answer: analysis, estimate, query",
    "answer/search: graph, rules",
    "plan: file, predict, ready, search, task_store, tasks",
    "serve: analyses, api, conn, http",
];

/// The circles of imports between the files (and subfolders) of each folder of the library,
/// each as `folder: a, b, c` (its members sorted).
fn folder_circles(src: &Path) -> Vec<String> {
    let files = library_files(src);
    let folders: Vec<Vec<String>> = files
        .iter()
        .filter(|f| f.file_name().is_some_and(|n| n == "mod.rs"))
        .map(|f| module_path(src, f))
        .filter(|p| !p.is_empty())
        .collect();
    let mut circles = Vec::new();
    for folder in &folders {
        // The folder's children: its files but mod.rs, and its subfolders.
        let dir = folder.iter().fold(src.to_path_buf(), |d, s| d.join(s));
        let children: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir() || (p.extension().is_some_and(|e| e == "rs") && !p.ends_with("mod.rs")))
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
        let mut edges: BTreeMap<String, std::collections::BTreeSet<String>> = BTreeMap::new();
        for file in &files {
            let here = module_path(src, file);
            if here.len() <= folder.len() || !here.starts_with(folder) {
                continue;
            }
            let from = here[folder.len()].clone();
            for (path, _) in named_paths(&std::fs::read_to_string(file).unwrap(), &here) {
                if path.len() > folder.len() && path.starts_with(folder) {
                    let to = &path[folder.len()];
                    if *to != from && children.contains(to) {
                        edges.entry(from.clone()).or_default().insert(to.clone());
                    }
                }
            }
        }
        // Strongly connected components of two or more (Tarjan's, small enough to redo by
        // reachability): a child's circle is every child it reaches that reaches it back.
        let reach = |start: &str| {
            let mut seen = std::collections::BTreeSet::new();
            let mut todo = vec![start.to_string()];
            while let Some(n) = todo.pop() {
                for m in edges.get(&n).into_iter().flatten() {
                    if seen.insert(m.clone()) {
                        todo.push(m.clone());
                    }
                }
            }
            seen
        };
        let mut placed = std::collections::BTreeSet::new();
        for c in edges.keys() {
            if placed.contains(c) {
                continue;
            }
            let from_c = reach(c);
            if !from_c.contains(c) {
                continue;
            }
            let members: Vec<String> = from_c.into_iter().filter(|m| reach(m).contains(c)).collect();
            placed.extend(members.iter().cloned());
            circles.push(format!("{}: {}", folder.join("/"), members.join(", ")));
        }
    }
    circles
}

#[test]
fn no_circle_of_imports_inside_a_folder() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let circles = folder_circles(&src);
    let new: Vec<&String> = circles.iter().filter(|c| !KNOWN_CIRCLES.contains(&c.as_str())).collect();
    let gone: Vec<&&str> = KNOWN_CIRCLES.iter().filter(|k| !circles.iter().any(|c| c == *k)).collect();
    assert!(new.is_empty(), "circles of imports between the files of a folder:\n{}", circles.join("\n"));
    assert!(gone.is_empty(), "circles gone: strike them off KNOWN_CIRCLES: {gone:?}");
}

#[test]
fn the_path_reader_resolves_super_crate_and_brace_trees() {
    let here: Vec<String> = ["answer", "search", "driver"].iter().map(|s| s.to_string()).collect();
    let text = "use super::{rules::Rules, table::{Table, X as Y}};\nlet c = super::super::control::walk(x);\nuse crate::game::Line;\n// super::graph::Arms\n";
    let paths: Vec<String> = named_paths(text, &here).into_iter().map(|(p, _)| p.join("::")).collect();
    assert_eq!(
        paths,
        [
            "answer::search::rules::Rules",
            "answer::search::table::Table",
            "answer::search::table::X",
            "answer::control::walk",
            "game::Line"
        ]
    );
}
