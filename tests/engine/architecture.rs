//! The engine's structure as a test: its modules depend on one another one way only (no cycle,
//! so each can be read, tested and changed from the bottom up). A module's dependencies are the
//! `crate::<module>` paths in its source (and, inside `transcript/`, the `super::<sibling>`
//! paths); the parent `transcript` module may not use its children's items, only declare them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

fn modules() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let refs = |text: &str, prefix: &str| -> BTreeSet<String> {
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
    };
    let mut graph = BTreeMap::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let Some(name) = path.file_stem().and_then(|n| n.to_str()).map(str::to_owned) else {
            continue;
        };
        if path.extension().is_some_and(|e| e == "rs") && name != "lib" {
            let deps = refs(&std::fs::read_to_string(&path).unwrap(), "crate::");
            graph.insert(name, deps);
        }
    }
    let dir = src.join("transcript");
    let children: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.unwrap().path().file_stem()?.to_str().map(str::to_owned))
        .filter(|n| n != "mod")
        .collect();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_str().unwrap().to_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let mut deps = refs(&text, "crate::");
        let name = if stem == "mod" {
            // The parent may name its children in `pub mod` lines only.
            for child in &children {
                for used in [format!("{child}::"), format!("self::{child}")] {
                    assert!(
                        !text.contains(&used),
                        "transcript/mod.rs uses its child `{child}`: the parent is the bottom"
                    );
                }
            }
            "transcript".to_owned()
        } else {
            for sibling in refs(&text, "super::") {
                deps.insert(if children.contains(&sibling) {
                    format!("transcript::{sibling}")
                } else {
                    "transcript".to_owned()
                });
            }
            format!("transcript::{stem}")
        };
        graph.entry(name).or_insert_with(BTreeSet::new).extend(deps);
    }
    graph
}

#[test]
fn engine_modules_depend_on_each_other_one_way() {
    let graph = modules();
    assert!(graph.len() > 20, "{graph:?}");
    // Depth-first search for a back edge; report the first cycle found.
    fn visit(
        n: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) {
        if done.contains(n) {
            return;
        }
        if let Some(at) = stack.iter().position(|s| s == n) {
            let mut cycle = stack[at..].to_vec();
            cycle.push(n.to_owned());
            panic!("engine modules form a cycle: {}", cycle.join(" -> "));
        }
        stack.push(n.to_owned());
        for d in graph.get(n).into_iter().flatten() {
            if d != n && graph.contains_key(d) {
                visit(d, graph, stack, done);
            }
        }
        stack.pop();
        done.insert(n.to_owned());
    }
    let mut done = BTreeSet::new();
    for n in graph.keys() {
        visit(n, &graph, &mut Vec::new(), &mut done);
    }
    // The steps named in the README: plan/apply → journal → placement → files.
    let deps = |m: &str| graph.get(m).cloned().unwrap_or_default();
    assert!(!deps("placement").contains("runs") && !deps("placement").contains("import"));
    assert!(!deps("runs").contains("import"), "the journal must not reach into the plan");
    assert!(!deps("transcript::subagents").contains("transcript::messages"));
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
