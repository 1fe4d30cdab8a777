//! Every relative link of README.md, ARCHITECTURE.md and the pages under docs/ leads to a file
//! or folder of the repository, and every `#anchor` to a heading of the page it names (GitHub's
//! heading ids), so that a page moved or a heading renamed is caught here rather than by a
//! reader. Links are read as a Markdown reader reads them (pulldown-cmark): none inside code.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md, ARCHITECTURE.md and every `.md` under docs/, sorted.
fn pages() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let mut out = vec![root().join("README.md"), root().join("ARCHITECTURE.md")];
    walk(&root().join("docs"), &mut out);
    out.sort();
    out
}

/// A page's link and image targets, and the ids of its headings.
struct Page {
    links: Vec<String>,
    anchors: BTreeSet<String>,
}

/// GitHub's id for a heading: lower case, letters, digits, `-` and `_` kept, spaces made `-`,
/// everything else dropped; a repeated id gets `-1`, `-2`, ...
fn slug(text: &str) -> String {
    text.chars()
        .flat_map(char::to_lowercase)
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn read(path: &Path) -> Page {
    let text = std::fs::read_to_string(path).unwrap();
    let mut page = Page { links: Vec::new(), anchors: BTreeSet::new() };
    let mut heading: Option<String> = None;
    for event in Parser::new_ext(&text, Options::ENABLE_TABLES) {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let base = slug(&heading.take().unwrap());
                let mut id = base.clone();
                for n in 1.. {
                    if !page.anchors.contains(&id) {
                        break;
                    }
                    id = format!("{base}-{n}");
                }
                page.anchors.insert(id);
            }
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                page.links.push(dest_url.to_string())
            }
            _ => {}
        }
    }
    page
}

/// What is wrong with each relative link of `page` (at `path`), if anything.
fn broken(path: &Path, page: &Page) -> Vec<String> {
    let mut out = Vec::new();
    let shown = path.strip_prefix(root()).unwrap_or(path).display();
    for link in &page.links {
        if link.contains("://") || link.starts_with("mailto:") {
            continue;
        }
        let (file, anchor) = link.split_once('#').map_or((link.as_str(), None), |(f, a)| (f, Some(a)));
        let target =
            if file.is_empty() { path.to_path_buf() } else { path.parent().unwrap().join(file.replace("%20", " ")) };
        if !target.exists() {
            out.push(format!("{shown}: `{link}`: no file {}", target.display()));
            continue;
        }
        if let Some(anchor) = anchor
            && target.extension().is_some_and(|e| e == "md")
        {
            let anchors = if file.is_empty() { page.anchors.clone() } else { read(&target).anchors };
            if !anchors.contains(anchor) {
                out.push(format!("{shown}: `{link}`: no heading with the id `{anchor}`"));
            }
        }
    }
    out
}

#[test]
fn every_relative_link_resolves() {
    let pages = pages();
    assert!(pages.iter().any(|p| p.starts_with(root().join("docs/guide"))), "no guide pages under docs/guide");
    let readme = read(&root().join("README.md"));
    assert!(readme.links.len() >= 10, "the README's links were not read: {:?}", readme.links);
    let broken: Vec<String> = pages.iter().flat_map(|p| broken(p, &read(p))).collect();
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn slugs_are_githubs() {
    assert_eq!(slug("The value of a position"), "the-value-of-a-position");
    assert_eq!(slug("dab solve --json"), "dab-solve---json");
    assert_eq!(slug("Stores, books & memory (4x4)"), "stores-books--memory-4x4");
}

#[test]
fn a_missing_target_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("page.md");
    std::fs::write(
        &path,
        "# Top\n\n[here](#top) [gone](nothing.md) [bad](#nowhere)\n\n```\n[in code](skipped.md)\n```\n",
    )
    .unwrap();
    let found = broken(&path, &read(&path));
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].contains("nothing.md") && found[1].contains("nowhere"), "{found:?}");
}
