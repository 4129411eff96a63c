//! The README and the reference pages under docs/ (issue 26, item 7):
//! every relative link leads to a file that exists, and to a heading that
//! exists when it names one; every TOML example that is a harness file
//! loads (through the real binary, as `cargo golden list --config` does).

use std::path::{Path, PathBuf};
use std::process::Command;

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every page of docs/.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![repo().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// GitHub's anchor of a heading: lower case, punctuation dropped, spaces
/// turned into hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of the headings of `page`.
fn anchors(page: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(page).unwrap();
    let mut out = Vec::new();
    let mut heading: Option<String> = None;
    for event in Parser::new(&text) {
        match event {
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => out.extend(heading.take().map(|h| slug(&h))),
            _ => {}
        }
    }
    out
}

#[test]
fn every_relative_link_resolves() {
    let mut broken = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for event in Parser::new(&text) {
            let Event::Start(Tag::Link { dest_url, .. }) = event else {
                continue;
            };
            let dest = dest_url.to_string();
            if dest.contains("://") || dest.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = dest.split_once('#').unwrap_or((&dest, ""));
            let target = if file.is_empty() {
                page.clone()
            } else {
                page.parent().unwrap().join(file)
            };
            let name = page.strip_prefix(repo()).unwrap().display().to_string();
            if !target.exists() {
                broken.push(format!("{name}: ({dest}): no such file"));
            } else if !anchor.is_empty()
                && target.extension().is_some_and(|e| e == "md")
                && !anchors(&target).iter().any(|a| a == anchor)
            {
                broken.push(format!("{name}: ({dest}): no such heading"));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_readme_is_short_and_links_every_reference_page() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    assert!(
        readme.lines().count() < 200,
        "the README is a pitch and a first hour; the reference lives in docs/"
    );
    for page in pages().iter().skip(1) {
        let name = page.file_name().unwrap().to_string_lossy();
        if name == "README.md" {
            continue;
        }
        assert!(
            readme.contains(&format!("(docs/{name})")),
            "README.md does not link docs/{name}"
        );
    }
    // The crate is not published yet: the install never says otherwise.
    assert!(!readme.contains("cargo install cargo-golden"), "{readme}");
}

/// The ```toml blocks of `page` that are harness files (they declare
/// `[harness]`, `[[golden]]` or `[[verify]]`).
fn harness_examples(page: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(page).unwrap();
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for event in Parser::new(&text) {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(lang))) if &*lang == "toml" => {
                current = Some(String::new());
            }
            Event::Text(t) => {
                if let Some(c) = current.as_mut() {
                    c.push_str(&t);
                }
            }
            Event::End(TagEnd::CodeBlock) => blocks.extend(current.take()),
            _ => {}
        }
    }
    blocks
        .into_iter()
        .filter(|b| {
            b.lines().any(|l| {
                let l = l.trim_start();
                l.starts_with("[harness]")
                    || l.starts_with("[[golden]]")
                    || l.starts_with("[[verify]]")
            })
        })
        .collect()
}

#[test]
fn every_harness_example_in_the_docs_loads() {
    let mut failed = Vec::new();
    let mut checked = 0;
    for page in pages() {
        for (n, example) in harness_examples(&page).into_iter().enumerate() {
            checked += 1;
            let dir = tempfile::tempdir().unwrap();
            let file = dir.path().join("harness.toml");
            std::fs::write(&file, &example).unwrap();
            let o = Command::new(env!("CARGO_BIN_EXE_cargo-golden"))
                .current_dir(dir.path())
                .args(["golden", "list", "--config"])
                .arg(&file)
                .env("NO_COLOR", "1")
                .output()
                .unwrap();
            if !o.status.success() {
                failed.push(format!(
                    "{} example {}:\n{example}\n{}",
                    page.strip_prefix(repo()).unwrap().display(),
                    n + 1,
                    String::from_utf8_lossy(&o.stderr)
                ));
            }
        }
    }
    assert!(checked >= 2, "only {checked} harness examples found");
    assert!(failed.is_empty(), "{}", failed.join("\n---\n"));
}
