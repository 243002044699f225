//! The engine's structure as a test: its modules depend on one another one way only (no cycle,
//! so each can be read, tested and changed from the bottom up).
//! - Between top-level modules, a module's dependencies are the `crate::<module>` paths in its
//!   source; a folder module (`import/`, `runs/`, `transcript/`) counts all of its files.
//! - Inside a folder, a child's dependencies are its `super::<sibling>` paths, and `super::<item>`
//!   makes it depend on the parent. The parent is the bottom: it names its children only in `mod`
//!   declarations and `pub use` re-exports, so a child may use the parent's shared items.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The lowercase names that follow each `prefix` in `text` (`crate::files::x` → `files`).
fn refs(text: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(i) = rest.find(prefix) {
        rest = &rest[i + prefix.len()..];
        let name: String =
            rest.chars().take_while(|c| c.is_ascii_lowercase() || *c == '_').collect();
        if !name.is_empty() {
            out.insert(name);
        }
    }
    out
}

fn stem(path: &Path) -> String {
    path.file_stem().and_then(|n| n.to_str()).unwrap_or_default().to_owned()
}

/// The top-level graph, and one inner graph per folder module.
fn modules() -> (Graph, BTreeMap<String, Graph>) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut top = Graph::new();
    let mut inner = BTreeMap::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let name = stem(&path);
        if path.is_dir() {
            let (deps, graph) = folder_module(&path, &name);
            top.insert(name.clone(), deps);
            inner.insert(name, graph);
        } else if path.extension().is_some_and(|e| e == "rs") && name != "lib" {
            let mut deps = refs(&std::fs::read_to_string(&path).unwrap(), "crate::");
            deps.remove(&name);
            top.insert(name, deps);
        }
    }
    (top, inner)
}

/// Every `.rs` file under `dir`, at any depth.
fn rust_files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for path in std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()) {
        if path.is_dir() {
            out.extend(rust_files_under(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// A folder module: what all its files use outside it, and the graph of its files. A child's
/// own folder (`transcript/facts/` beside `facts.rs`) holds its private parts: they count as
/// the child.
fn folder_module(dir: &Path, name: &str) -> (BTreeSet<String>, Graph) {
    let (nested, files): (Vec<_>, Vec<_>) =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).partition(|p| p.is_dir());
    let children: BTreeSet<String> = files.iter().map(|p| stem(p)).filter(|n| n != "mod").collect();
    let mut outside = BTreeSet::new();
    let mut graph = Graph::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        outside.extend(refs(&text, "crate::").into_iter().filter(|d| d != name));
        let file = stem(path);
        if file == "mod" {
            for line in text.lines().map(str::trim) {
                let declares = line.starts_with("mod ")
                    || line.starts_with("pub mod ")
                    || line.starts_with("pub use ")
                    || line.starts_with("pub(crate) use ");
                for child in &children {
                    assert!(
                        declares || !line.contains(&format!("{child}::")),
                        "{name}/mod.rs uses its child `{child}` ({line}): the parent is the bottom"
                    );
                }
            }
            graph.insert(name.to_owned(), BTreeSet::new());
            continue;
        }
        let mut deps = BTreeSet::new();
        for used in refs(&text, "super::") {
            deps.insert(if children.contains(&used) { used } else { name.to_owned() });
        }
        for used in refs(&text, &format!("crate::{name}::")) {
            deps.insert(if children.contains(&used) { used } else { name.to_owned() });
        }
        deps.remove(&file);
        graph.insert(file, deps);
    }
    for folder in nested {
        let child = stem(&folder);
        assert!(children.contains(&child), "{name}/{child}/ has no {child}.rs beside it");
        let mut deps = BTreeSet::new();
        for path in rust_files_under(&folder) {
            let text = std::fs::read_to_string(&path).unwrap();
            outside.extend(refs(&text, "crate::").into_iter().filter(|d| d != name));
            for used in refs(&text, &format!("crate::{name}::")) {
                deps.insert(if children.contains(&used) { used } else { name.to_owned() });
            }
        }
        deps.remove(&child);
        graph.entry(child).or_default().extend(deps);
    }
    (outside, graph)
}

/// Depth-first search for a back edge; panics with the first cycle found.
fn assert_acyclic(graph: &Graph, what: &str) {
    fn visit(
        n: &str,
        graph: &Graph,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
        what: &str,
    ) {
        if done.contains(n) {
            return;
        }
        if let Some(at) = stack.iter().position(|s| s == n) {
            let mut cycle = stack[at..].to_vec();
            cycle.push(n.to_owned());
            panic!("{what} form a cycle: {}", cycle.join(" -> "));
        }
        stack.push(n.to_owned());
        for d in graph.get(n).into_iter().flatten() {
            if graph.contains_key(d) {
                visit(d, graph, stack, done, what);
            }
        }
        stack.pop();
        done.insert(n.to_owned());
    }
    let mut done = BTreeSet::new();
    for n in graph.keys() {
        visit(n, graph, &mut Vec::new(), &mut done, what);
    }
}

#[test]
fn engine_modules_depend_on_each_other_one_way() {
    let (top, inner) = modules();
    assert!(top.len() > 20, "{top:?}");
    assert_acyclic(&top, "engine modules");
    for (folder, graph) in &inner {
        assert_acyclic(graph, &format!("the files of {folder}/"));
    }
    let deps = |m: &str| top.get(m).cloned().unwrap_or_else(|| panic!("no module {m}"));
    let inner_deps = |folder: &str, file: &str| {
        inner
            .get(folder)
            .and_then(|g| g.get(file))
            .cloned()
            .unwrap_or_else(|| panic!("no file {folder}/{file}.rs"))
    };
    // The steps named in the README: plan/apply → journal → placement → files.
    assert!(deps("import").contains("runs") && deps("runs").contains("placement"));
    assert!(!deps("placement").contains("runs") && !deps("placement").contains("import"));
    assert!(!deps("runs").contains("import"), "the journal must not reach into the plan");
    assert!(deps("desktop").contains("runs"), "a sidebar restore is a run");
    assert!(!deps("runs").contains("desktop"), "undo trusts the store, not the desktop module");
    assert!(!inner_deps("desktop", "restore").contains("run"), "planning writes nothing");
    assert!(!inner_deps("import", "plan").contains("apply"), "planning writes nothing");
    assert!(inner_deps("runs", "undo").contains("journal"));
    assert!(!inner_deps("runs", "journal").contains("undo"));
    assert!(!inner_deps("runs", "journal").contains("list"));
    assert!(!inner_deps("transcript", "subagents").contains("messages"));
}

/// `cargo tree` of the engine (what the app links from it) has no Tauri crate and no clap.
#[test]
fn engine_has_no_tauri_or_clap_dependency() {
    let out = Command::new(env!("CARGO"))
        .args(["tree", "-p", "corral-engine", "--edges", "normal,build", "--prefix", "none"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let tree = String::from_utf8_lossy(&out.stdout);
    // One package per line: `name vX.Y.Z (source)`; the path of this repo contains "src-tauri",
    // so only the package names are checked.
    let names: Vec<&str> = tree.lines().filter_map(|l| l.split_whitespace().next()).collect();
    assert!(names.contains(&"corral-engine"));
    assert!(names.len() > 10, "{tree}");
    let tauri: Vec<&&str> = names.iter().filter(|n| n.to_lowercase().contains("tauri")).collect();
    assert!(tauri.is_empty(), "corral-engine depends on {tauri:?}");
    // The command line's parser stays in corral-cli, out of the app.
    assert!(!names.iter().any(|n| n.starts_with("clap")), "corral-engine depends on clap");
}

/// Removal has one rule (`owned`: an exact name and a proof inside the folder): no engine code
/// outside its tests removes a folder recursively, except a run discarding the backup folder it
/// just created inside the run folder it created exclusively. A new `remove_dir_all` is a
/// decision to make in `owned`, not beside the code that wants a folder gone.
#[test]
fn folders_are_removed_recursively_only_where_corral_made_them_this_moment() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            // What a file's tests do is theirs (temp folders).
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            for (i, line) in code.lines().enumerate() {
                if line.contains("remove_dir_all") && !line.trim_start().starts_with("//") {
                    let rel = path.strip_prefix(&src).unwrap().display().to_string();
                    found.push(format!("{rel}:{}", i + 1));
                }
            }
        }
    }
    let allowed = |f: &String| f.starts_with("runs/journal.rs:");
    assert_eq!(found.iter().filter(|f| allowed(f)).count(), 1, "{found:?}");
    let others: Vec<&String> = found.iter().filter(|f| !allowed(f)).collect();
    assert!(others.is_empty(), "recursive removal outside `owned`'s rule: {others:?}");
}

/// No Rust source file of Corral runs over 800 lines before its tests (`#[cfg(test)]`): a file
/// that grows past that is split along its seams, as `catalog/` and `runs/undo/` were.
#[test]
fn source_files_stay_under_800_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut long = Vec::new();
    for dir in ["engine/src", "cli/src", "synthetic/src", "src"] {
        for file in rust_files_under(&root.join(dir)) {
            if file.components().any(|c| c.as_os_str() == "tests") {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap();
            let lines = text.lines().take_while(|l| !l.starts_with("#[cfg(test)]")).count();
            if lines > 800 {
                long.push(format!("{} ({lines} lines)", file.display()));
            }
        }
    }
    assert!(long.is_empty(), "split these along their seams: {long:?}");
}
