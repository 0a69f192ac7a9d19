//! No import circles inside a crate: the modules of each crate, read from their source, must form a graph
//! without cycles between siblings (as `layering.rs` keeps the graph between crates), and no module grows past
//! 500 lines without a reason written at its top.
//!
//! A path a module names (`crate::a::b`, `super::c`, `self::d`, in `use` trees and in code) is an edge from the
//! module to the longest known module it reaches. Two modules under one parent depend on each other when one's
//! subtree names the other's: `extract/layout/rows.rs` naming `crate::worker` is the edge `extract → worker`.
//! A parent naming its child, or a child its parent, is no edge. Test modules (`tests`, inline or a file) may
//! name anything: what they name is no edge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type ModPath = Vec<String>;

/// The workspace's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The crates' source roots: every `crates/*/src`, the app and xtask.
fn source_roots() -> Vec<(String, PathBuf)> {
    let mut roots: Vec<(String, PathBuf)> = std::fs::read_dir(root().join("crates"))
        .unwrap()
        .filter_map(|e| {
            let dir = e.ok()?.path();
            let src = dir.join("src");
            src.is_dir()
                .then(|| (dir.file_name().unwrap().to_string_lossy().into_owned(), src))
        })
        .collect();
    for extra in ["src-tauri", "xtask"] {
        let src = root().join(extra).join("src");
        if src.is_dir() {
            roots.push((extra.to_string(), src));
        }
    }
    roots.sort();
    roots
}

/// Every `.rs` file under `dir` (binaries under `src/bin` are crate roots of their own and left out).
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == "bin") && path.parent().is_some_and(|p| p.ends_with("src")) {
                continue;
            }
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module a file holds: `lib.rs` and `main.rs` the crate, `a/mod.rs` and `a.rs` the module `a`.
fn module_of(src: &Path, file: &Path) -> ModPath {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib" | "main") || !parts.is_empty() && stem != "mod" {
        parts.push(stem.to_string());
    }
    parts
}

/// Source without comments, string and character literals (their contents blanked), so that only code is read.
fn code_only(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !prev_is_ident(&b, i) {
            // A raw string: r"…", r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            'raw: while j < b.len() {
                if b[j] == '"' && (0..hashes).all(|h| b.get(j + 1 + h) == Some(&'#')) {
                    j += 1 + hashes;
                    break 'raw;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && is_char_literal(&b, i) {
            i += 1;
            while i < b.len() && b[i] != '\'' {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn prev_is_ident(b: &[char], i: usize) -> bool {
    i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_')
}

/// A `'` opens a character literal (not a lifetime) when it closes within a few characters.
fn is_char_literal(b: &[char], i: usize) -> bool {
    matches!((b.get(i + 1), b.get(i + 2)), (Some('\\'), _) | (Some(_), Some('\'')))
}

/// Splits code into identifiers, `::` and single punctuation characters.
fn tokens(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b: Vec<char> = code.chars().collect();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            out.push(b[start..i].iter().collect());
        } else if c == ':' && b.get(i + 1) == Some(&':') {
            out.push("::".into());
            i += 2;
        } else if c.is_whitespace() {
            i += 1;
        } else {
            out.push(c.to_string());
            i += 1;
        }
    }
    out
}

/// Expands a `use` tree (the tokens between `use` and `;`) into its full paths.
fn expand_use(toks: &[String]) -> Vec<Vec<String>> {
    fn tree(toks: &[String], pos: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
        let mut path = prefix.to_vec();
        while *pos < toks.len() {
            let t = &toks[*pos];
            match t.as_str() {
                "::" => *pos += 1,
                "{" => {
                    *pos += 1;
                    loop {
                        tree(toks, pos, &path, out);
                        match toks.get(*pos).map(String::as_str) {
                            Some(",") => *pos += 1,
                            Some("}") => {
                                *pos += 1;
                                return;
                            }
                            _ => return,
                        }
                        if toks.get(*pos).map(String::as_str) == Some("}") {
                            *pos += 1;
                            return;
                        }
                    }
                }
                "," | "}" => break,
                "as" => {
                    *pos += 2;
                    break;
                }
                "*" => {
                    *pos += 1;
                    break;
                }
                _ => {
                    path.push(t.clone());
                    *pos += 1;
                }
            }
        }
        if path.len() > prefix.len() || !path.is_empty() {
            out.push(path);
        }
    }
    let mut out = Vec::new();
    let mut pos = 0;
    tree(toks, &mut pos, &[], &mut out);
    out
}

/// The paths a file names, each with the module (file module plus inline modules) it is named in.
fn named_paths(file_module: &ModPath, code: &str) -> Vec<(ModPath, Vec<String>)> {
    let toks = tokens(code);
    let mut out = Vec::new();
    // Inline modules: (name, brace depth at which they close).
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let here = |inline: &[(String, usize)]| -> ModPath {
        let mut m = file_module.clone();
        m.extend(inline.iter().map(|(n, _)| n.clone()));
        m
    };
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i].as_str();
        match t {
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
            }
            "mod" if toks.get(i + 2).map(String::as_str) == Some("{") => {
                inline.push((toks[i + 1].clone(), depth));
                depth += 1;
                i += 3;
                continue;
            }
            "use" => {
                let end = (i..toks.len()).find(|&j| toks[j] == ";").unwrap_or(toks.len());
                for p in expand_use(&toks[i + 1..end]) {
                    out.push((here(&inline), p));
                }
                i = end + 1;
                continue;
            }
            "crate" | "super" | "self" if toks.get(i + 1).map(String::as_str) == Some("::") => {
                let prev = i.checked_sub(1).map(|p| toks[p].as_str());
                if prev != Some("::") {
                    let mut p = vec![toks[i].clone()];
                    let mut j = i + 1;
                    while toks.get(j).map(String::as_str) == Some("::")
                        && toks
                            .get(j + 1)
                            .is_some_and(|n| n.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_'))
                    {
                        p.push(toks[j + 1].clone());
                        j += 2;
                    }
                    out.push((here(&inline), p));
                    i = j;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
    out
}

/// Resolves a named path to module components (`None`: another crate, or a name not resolvable here).
fn resolve(at: &ModPath, path: &[String], modules: &BTreeSet<ModPath>) -> Option<ModPath> {
    let mut base: ModPath;
    let mut rest = path;
    match path.first()?.as_str() {
        "crate" => {
            base = Vec::new();
            rest = &path[1..];
        }
        "self" => {
            base = at.clone();
            rest = &path[1..];
        }
        "super" => {
            base = at.clone();
            while rest.first().map(String::as_str) == Some("super") {
                base.pop()?;
                rest = &rest[1..];
            }
        }
        first => {
            // Edition 2018 paths: a child module of the current module.
            let mut child = at.clone();
            child.push(first.to_string());
            if !modules.contains(&child) {
                return None;
            }
            base = at.clone();
        }
    }
    // The longest known module the path reaches.
    let mut reached = base.clone();
    for seg in rest {
        base.push(seg.clone());
        if modules.contains(&base) {
            reached = base.clone();
        } else {
            break;
        }
    }
    Some(reached)
}

/// The sibling edge a reference from `from` to `to` makes: their first differing components under the common
/// parent (none when one contains the other).
fn sibling_edge(from: &ModPath, to: &ModPath) -> Option<(ModPath, ModPath)> {
    let k = from.iter().zip(to).take_while(|(a, b)| a == b).count();
    (k < from.len() && k < to.len()).then(|| (from[..=k].to_vec(), to[..=k].to_vec()))
}

/// The strongly connected components with more than one module (Tarjan's algorithm).
fn circles(edges: &BTreeMap<ModPath, BTreeSet<ModPath>>) -> Vec<Vec<ModPath>> {
    struct State<'a> {
        edges: &'a BTreeMap<ModPath, BTreeSet<ModPath>>,
        index: BTreeMap<&'a ModPath, usize>,
        low: BTreeMap<&'a ModPath, usize>,
        stack: Vec<&'a ModPath>,
        on_stack: BTreeSet<&'a ModPath>,
        out: Vec<Vec<ModPath>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a ModPath) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        s.on_stack.insert(v);
        if let Some(next) = s.edges.get(v) {
            for w in next {
                let w = s.edges.get_key_value(w).map(|(k, _)| k).unwrap_or(w);
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let lw = s.low[w];
                    let lv = s.low.get_mut(v).unwrap();
                    *lv = (*lv).min(lw);
                } else if s.on_stack.contains(w) {
                    let iw = s.index[w];
                    let lv = s.low.get_mut(v).unwrap();
                    *lv = (*lv).min(iw);
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                comp.push(w.clone());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !s.index.contains_key(v) {
            visit(&mut s, v);
        }
    }
    s.out
}

/// A crate's module graph: each file's module, and the sibling edges its paths make.
fn module_graph(src: &Path) -> (Graph, Vec<(PathBuf, String)>) {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.sort();
    let sources: Vec<(PathBuf, ModPath, String)> = files
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(&f).unwrap();
            let m = module_of(src, &f);
            (f, m, text)
        })
        .collect();
    let mut modules: BTreeSet<ModPath> = BTreeSet::new();
    let mut read = Vec::new();
    for (f, m, text) in &sources {
        for k in 0..=m.len() {
            modules.insert(m[..k].to_vec());
        }
        let code = code_only(text);
        // Inline modules are modules too.
        let toks = tokens(&code);
        for w in toks.windows(3) {
            if w[0] == "mod" && w[2] == "{" {
                let mut inner = m.clone();
                inner.push(w[1].clone());
                modules.insert(inner);
            }
        }
        read.push((f.clone(), m.clone(), code));
    }
    let mut graph = Graph::default();
    for (file, m, code) in &read {
        for (at, path) in named_paths(m, code) {
            if at.iter().any(|c| c == "tests") {
                continue;
            }
            let Some(to) = resolve(&at, &path, &modules) else {
                continue;
            };
            if let Some((a, b)) = sibling_edge(&at, &to) {
                let why = format!(
                    "{} names {}",
                    file.strip_prefix(src).unwrap().display(),
                    path.join("::")
                );
                graph.why.entry((a.clone(), b.clone())).or_insert(why);
                graph.edges.entry(a).or_default().insert(b);
            }
        }
    }
    let texts = sources.into_iter().map(|(f, _, t)| (f, t)).collect();
    (graph, texts)
}

/// A crate's module graph, with the first named path that makes each edge.
#[derive(Default)]
struct Graph {
    edges: BTreeMap<ModPath, BTreeSet<ModPath>>,
    why: BTreeMap<(ModPath, ModPath), String>,
}

fn show(m: &ModPath) -> String {
    if m.is_empty() {
        "crate".into()
    } else {
        m.join("::")
    }
}

#[test]
fn no_module_of_any_crate_imports_in_a_circle() {
    let mut found = Vec::new();
    for (name, src) in source_roots() {
        let (graph, _) = module_graph(&src);
        for c in circles(&graph.edges) {
            let names: Vec<String> = c.iter().map(show).collect();
            found.push(format!("{name}: {}", names.join(" ↔ ")));
            for ((a, b), why) in &graph.why {
                if c.contains(a) && c.contains(b) {
                    found.push(format!("    {} → {}: {why}", show(a), show(b)));
                }
            }
        }
    }
    assert!(found.is_empty(), "import circles inside crates:\n{}", found.join("\n"));
}

/// What a module over 500 lines must say in its opening `//!` lines to be that long.
const LONG_REASON: &str = "Long because";

#[test]
fn no_module_passes_500_lines_without_a_reason_at_its_top() {
    let mut long = Vec::new();
    for (name, src) in source_roots() {
        let (_, texts) = module_graph(&src);
        for (file, text) in texts {
            let lines = text.lines().count();
            let head: String = text
                .lines()
                .take_while(|l| l.starts_with("//!"))
                .collect::<Vec<_>>()
                .join(" ");
            if lines > 500 && !head.contains(LONG_REASON) {
                long.push(format!(
                    "{name}: {} ({lines} lines)",
                    file.strip_prefix(&src).unwrap().display()
                ));
            }
        }
    }
    assert!(
        long.is_empty(),
        "modules over 500 lines without \"{LONG_REASON} …\" in their opening //! lines:\n{}",
        long.join("\n")
    );
}

/// The scanner itself finds the circles it is meant to find.
#[test]
fn the_scanner_reads_use_trees_inline_modules_and_relative_paths() {
    let uses = expand_use(&tokens("crate::{a::{B, c::D}, e as f, g::*}"));
    let want: Vec<Vec<String>> = [
        vec!["crate", "a", "B"],
        vec!["crate", "a", "c", "D"],
        vec!["crate", "e"],
        vec!["crate", "g"],
    ]
    .iter()
    .map(|p| p.iter().map(|s| s.to_string()).collect())
    .collect();
    assert_eq!(uses, want);

    let modules: BTreeSet<ModPath> = [vec![], vec!["a"], vec!["a", "x"], vec!["a", "y"], vec!["b"]]
        .iter()
        .map(|m| m.iter().map(|s| s.to_string()).collect())
        .collect();
    let s = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        resolve(&s(&["a", "x"]), &s(&["super", "y", "f"]), &modules),
        Some(s(&["a", "y"]))
    );
    assert_eq!(
        resolve(&s(&["a", "x"]), &s(&["crate", "b", "T"]), &modules),
        Some(s(&["b"]))
    );
    assert_eq!(resolve(&s(&["a"]), &s(&["x", "T"]), &modules), Some(s(&["a", "x"])));
    assert_eq!(resolve(&s(&["a"]), &s(&["serde", "Serialize"]), &modules), None);
    assert_eq!(sibling_edge(&s(&["a", "x"]), &s(&["b"])), Some((s(&["a"]), s(&["b"]))));
    assert_eq!(sibling_edge(&s(&["a", "x"]), &s(&["a"])), None);

    let code = code_only(
        "use crate::b::T; // crate::c::U\nmod tests { use super::*; fn f() { let s = \"crate::d\"; super::g(); } }",
    );
    let named: Vec<(ModPath, Vec<String>)> = named_paths(&s(&["a"]), &code);
    assert_eq!(
        named,
        vec![
            (s(&["a"]), s(&["crate", "b", "T"])),
            (s(&["a", "tests"]), s(&["super"])),
            (s(&["a", "tests"]), s(&["super", "g"])),
        ]
    );

    let mut edges: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
    edges.entry(s(&["a"])).or_default().insert(s(&["b"]));
    edges.entry(s(&["b"])).or_default().insert(s(&["c"]));
    edges.entry(s(&["c"])).or_default().insert(s(&["a"]));
    edges.entry(s(&["d"])).or_default().insert(s(&["a"]));
    assert_eq!(circles(&edges), vec![vec![s(&["a"]), s(&["b"]), s(&["c"])]]);
}
