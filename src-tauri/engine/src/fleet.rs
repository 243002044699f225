//! Loading a herdctl fleet (`herdctl.yaml`) as herdctl does: agents referenced by path,
//! sub-fleets, dot-qualified names, `working_directory` as a string or `{root}`, `docker.enabled`.
//!
//! CONTRACT (owned by the fleet/attribution developer).
//!
//! What is read, and how it differs from herdctl's loader (`packages/core/src/config/loader.ts`):
//! - `agents: [{path, overrides?}]` (a bare string path is accepted too). A relative path resolves
//!   against the folder of the fleet file that lists it.
//! - `fleets: [{path, name?, overrides?}]`, recursively. A sub-fleet is named by the parent's
//!   `fleets[].name`, else its own `fleet.name`, else its folder name; the name must match
//!   `^[a-zA-Z0-9][a-zA-Z0-9_-]*$`. A `path` naming a folder means `<folder>/herdctl.yaml`.
//! - Qualified name: `fleetPath.join(".") + "." + name`; a root agent's is its bare name.
//! - `defaults` (cascading into sub-fleets), then `overrides`, are merged into each agent for the
//!   two fields Corral uses: `working_directory` and `docker`.
//! - `working_directory` is a string or `{root, ...}`; relative paths resolve against the agent
//!   file's folder (a `defaults.working_directory` against the declaring fleet file's folder);
//!   missing means the agent file's folder; `workspace` is the deprecated alias.
//!   `~` is **not** expanded, exactly like herdctl (`~/x` is a folder named `~` next to the agent).
//! - `${VAR}` / `${VAR:-default}` are interpolated in every string, like herdctl. An undefined
//!   variable without a default is left as written (herdctl refuses the whole fleet). herdctl's
//!   `.env` file next to the fleet file is not read.
//! - Unknown keys are ignored everywhere (herdctl's schema is strict).
//! - Cycles are refused by following the chain of fleet files being loaded; a sub-fleet included
//!   twice from different parents (a diamond) is allowed, bounded by [`MAX_FLEET_FILES`].
//! - Two agents with the same qualified name are refused: attribution could not tell them apart.
//!

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::error::{Error, Result};

pub use crate::files::{MAX_YAML_BYTES, parse_yaml, read_yaml_file};

/// Most fleet files (root + sub-fleets, counting repeats) one load may read.
pub const MAX_FLEET_FILES: usize = 256;

/// Deepest sub-fleet nesting one load follows.
pub const MAX_FLEET_DEPTH: usize = 32;

/// Most agent references one load follows (counting a sub-fleet included twice, twice): a fleet
/// file of hostile size, or a diamond of sub-fleets around one, stops here instead of multiplying.
pub const MAX_AGENT_REFERENCES: usize = 10_000;

/// One agent of a fleet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Agent {
    /// `fleetPath.join(".") + "." + name`; a root agent's qualified name is its bare name.
    pub qualified_name: String,
    /// Its own name (`gamma`).
    pub name: String,
    /// The sub-fleets it is in, outermost first (`["team"]`).
    pub fleet_path: Vec<String>,
    /// Absolute working directory (default: the agent file's folder).
    pub working_directory: Option<PathBuf>,
    /// It runs its sessions in Docker.
    pub docker: bool,
    /// The agent file that defines it.
    pub config_file: PathBuf,
}

/// A loaded fleet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fleet {
    /// The root fleet file.
    pub file: PathBuf,
    /// The fleet name the root file gives, if any.
    pub name: Option<String>,
    /// Every agent, sub-fleets included.
    pub agents: Vec<Agent>,
}

impl Fleet {
    /// Loads a fleet file and everything it references. Malformed files are a
    /// [`crate::Error::FleetConfig`] naming the file. `${VAR}` is interpolated from the process
    /// environment; use [`Fleet::load_with_env`] to pass the environment explicitly.
    pub fn load(file: &Path) -> Result<Fleet> {
        let env = |key: &str| std::env::var(key).ok();
        Self::load_with_env(file, &env)
    }

    /// [`Fleet::load`] with an explicit environment for `${VAR}` interpolation.
    pub fn load_with_env(file: &Path, env: &dyn Fn(&str) -> Option<String>) -> Result<Fleet> {
        let root = resolve_fleet_file(&crate::paths::absolute(file))?;
        let mut doc = read_config_mapping(&root)?;
        interpolate(&mut doc, env);
        let name = doc.get("fleet").and_then(|f| f.get("name")).and_then(non_empty_str);
        let mut loader = Loader {
            agents: Vec::new(),
            names: HashSet::new(),
            chain: Vec::new(),
            files_read: 1,
            references: 0,
            docs: HashMap::new(),
            root: root.clone(),
            env,
        };
        let defaults = effective_defaults(None, &doc, parent_dir(&root));
        loader.load_fleet(&root, &doc, &[], defaults.as_ref())?;
        Ok(Fleet { file: root, name, agents: loader.agents })
    }

    /// `<fleet dir>/.herdctl`.
    pub fn state_dir(&self) -> PathBuf {
        self.file.parent().unwrap_or_else(|| Path::new(".")).join(".herdctl")
    }

    /// The agent of this qualified name.
    pub fn agent(&self, qualified_name: &str) -> Option<&Agent> {
        self.agents.iter().find(|a| a.qualified_name == qualified_name)
    }
}

/// herdctl's `AGENT_NAME_PATTERN`: `^[a-zA-Z0-9][a-zA-Z0-9_-]*$` (also used for sub-fleet names).
pub fn is_valid_agent_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    match bytes.next() {
        Some(first) if first.is_ascii_alphanumeric() => {
            bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        }
        _ => false,
    }
}

struct Loader<'e> {
    agents: Vec<Agent>,
    /// Qualified names so far: a second agent of the same name is refused the moment it appears.
    names: HashSet<String>,
    /// Fleet files being loaded, root first (for cycle detection).
    chain: Vec<PathBuf>,
    files_read: usize,
    /// Agent references followed so far (bounded by [`MAX_AGENT_REFERENCES`]).
    references: usize,
    /// Every file read once, by identity, as parsed (before interpolation): a sub-fleet or agent
    /// file named from several places is read and parsed once.
    docs: HashMap<PathBuf, Value>,
    root: PathBuf,
    env: &'e dyn Fn(&str) -> Option<String>,
}

/// The fleet file being loaded: where it is, its place in the fleet, and the defaults it passes on.
#[derive(Clone, Copy)]
struct FleetFile<'a> {
    file: &'a Path,
    dir: &'a Path,
    fleet_path: &'a [String],
    defaults: Option<&'a Value>,
}

impl Loader<'_> {
    fn load_fleet(
        &mut self,
        file: &Path,
        doc: &Value,
        fleet_path: &[String],
        defaults: Option<&Value>,
    ) -> Result<()> {
        self.chain.push(identity(file));
        let at = FleetFile { file, dir: parent_dir(file), fleet_path, defaults };
        for (i, entry) in list(doc, "agents", file)?.iter().enumerate() {
            self.add_agent(&at, i, entry)?;
        }
        for (i, entry) in list(doc, "fleets", file)?.iter().enumerate() {
            self.add_sub_fleet(&at, i, entry)?;
        }
        self.chain.pop();
        Ok(())
    }

    /// `agents[i]` of a fleet file.
    fn add_agent(&mut self, at: &FleetFile, i: usize, entry: &Value) -> Result<()> {
        let FleetFile { file, dir, fleet_path, defaults } = *at;
        let (path, overrides) = reference(entry)
            .ok_or_else(|| config_error(file, format!("agents[{i}] has no path")))?;
        self.references += 1;
        if self.references > MAX_AGENT_REFERENCES {
            return Err(config_error(
                file,
                format!("the fleet references more than {MAX_AGENT_REFERENCES} agents"),
            ));
        }
        let agent_file = resolve_reference(dir, &path);
        let agent = self.load_agent(&agent_file, file, overrides, defaults, fleet_path)?;
        if !self.names.insert(agent.qualified_name.clone()) {
            return Err(config_error(
                &self.root,
                format!(
                    "two agents share the qualified name {:?} (the second is in {})",
                    agent.qualified_name,
                    agent.config_file.display()
                ),
            ));
        }
        self.agents.push(agent);
        Ok(())
    }

    /// `fleets[i]` of a fleet file: its file read once, named, merged
    /// with the entry's overrides, and loaded under its own fleet path.
    fn add_sub_fleet(&mut self, at: &FleetFile, i: usize, entry: &Value) -> Result<()> {
        let FleetFile { file, dir, fleet_path, defaults } = *at;
        let (path, overrides) = reference(entry)
            .ok_or_else(|| config_error(file, format!("fleets[{i}] has no path")))?;
        let sub_file = resolve_fleet_file(&resolve_reference(dir, &path)).map_err(|e| {
            config_error(file, format!("sub-fleet fleets[{i}] ({path}) cannot be used: {e}"))
        })?;
        self.check_sub_fleet_limits(file, &sub_file, fleet_path.len() + 1)?;
        let mut sub = match self.read_mapping(&sub_file) {
            Ok(v) => v,
            Err(Error::FleetConfig { path, reason }) if path == sub_file => {
                return Err(config_error(
                    &sub_file,
                    format!("{reason} (the sub-fleet is listed in {})", file.display()),
                ));
            }
            Err(e) => return Err(e),
        };
        interpolate(&mut sub, self.env);
        let sub_name = sub_fleet_name(entry, &sub, &sub_file)?;
        if let Some(overrides) = overrides {
            sub = deep_merge(sub, overrides);
        }
        let sub_defaults = effective_defaults(defaults, &sub, parent_dir(&sub_file));
        let mut sub_path = fleet_path.to_vec();
        sub_path.push(sub_name);
        self.load_fleet(&sub_file, &sub, &sub_path, sub_defaults.as_ref())
    }

    /// Refuses a sub-fleet that closes a cycle, nests too deep, or is one fleet file too many.
    fn check_sub_fleet_limits(&mut self, file: &Path, sub_file: &Path, depth: usize) -> Result<()> {
        if self.chain.contains(&identity(sub_file)) {
            let mut names: Vec<String> =
                self.chain.iter().map(|p| p.display().to_string()).collect();
            names.push(sub_file.display().to_string());
            return Err(config_error(
                file,
                format!("the sub-fleets form a cycle: {}", names.join(" -> ")),
            ));
        }
        if depth > MAX_FLEET_DEPTH {
            return Err(config_error(
                file,
                format!("sub-fleets are nested more than {MAX_FLEET_DEPTH} levels deep"),
            ));
        }
        self.files_read += 1;
        if self.files_read > MAX_FLEET_FILES {
            return Err(config_error(
                file,
                format!("the fleet includes more than {MAX_FLEET_FILES} fleet files"),
            ));
        }
        Ok(())
    }

    /// [`read_config_mapping`] once per file (by identity); later calls get the parsed copy.
    fn read_mapping(&mut self, path: &Path) -> Result<Value> {
        let id = identity(path);
        if let Some(doc) = self.docs.get(&id) {
            return Ok(doc.clone());
        }
        let doc = read_config_mapping(path)?;
        self.docs.insert(id, doc.clone());
        Ok(doc)
    }

    fn load_agent(
        &mut self,
        agent_file: &Path,
        listed_in: &Path,
        overrides: Option<Value>,
        defaults: Option<&Value>,
        fleet_path: &[String],
    ) -> Result<Agent> {
        let mut config = match self.read_mapping(agent_file) {
            Ok(v) => v,
            Err(Error::FleetConfig { path, reason }) if path == agent_file => {
                return Err(config_error(
                    agent_file,
                    format!("{reason} (the agent is listed in {})", listed_in.display()),
                ));
            }
            Err(e) => return Err(e),
        };
        interpolate(&mut config, self.env);
        rename_workspace(&mut config);
        // herdctl's schema gives an explicit `docker:` block `enabled: false`, which then wins
        // over `defaults.docker.enabled`.
        if let Some(Value::Object(docker)) = config.get_mut("docker") {
            docker.entry("enabled").or_insert(Value::Bool(false));
        }
        if let Some(defaults) = defaults {
            merge_defaults(&mut config, defaults);
        }
        if let Some(overrides) = overrides {
            let mut overrides = overrides;
            rename_workspace(&mut overrides);
            config = deep_merge(config, overrides);
        }

        let name = match config.get("name") {
            Some(Value::String(s)) => s.clone(),
            Some(_) => {
                return Err(config_error(agent_file, "the agent's `name` is not a string"));
            }
            None => return Err(config_error(agent_file, "the agent has no `name`")),
        };
        if !is_valid_agent_name(&name) {
            return Err(config_error(
                agent_file,
                format!(
                    "the agent name {name:?} is not allowed: it must start with a letter or digit \
                     and contain only letters, digits, '_' and '-'"
                ),
            ));
        }

        let agent_dir = parent_dir(agent_file);
        let wd = match config.get("working_directory") {
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            Some(Value::Object(o)) => o.get("root").and_then(non_empty_str),
            _ => None,
        };
        let working_directory = match wd {
            Some(wd) => resolve_reference(agent_dir, &wd),
            None => agent_dir.to_path_buf(),
        };
        let docker =
            matches!(config.get("docker").and_then(|d| d.get("enabled")), Some(Value::Bool(true)));
        let qualified_name = if fleet_path.is_empty() {
            name.clone()
        } else {
            format!("{}.{name}", fleet_path.join("."))
        };
        Ok(Agent {
            qualified_name,
            name,
            fleet_path: fleet_path.to_vec(),
            working_directory: Some(working_directory),
            docker,
            config_file: agent_file.to_path_buf(),
        })
    }
}

/// A sub-fleet's name: the entry's `name`, else its file's `fleet.name`, else its folder's name;
/// refused unless it is a valid fleet name (no dots: dots join the qualified names).
fn sub_fleet_name(entry: &Value, sub: &Value, sub_file: &Path) -> Result<String> {
    let explicit = entry.get("name").and_then(non_empty_str);
    let own = sub.get("fleet").and_then(|f| f.get("name")).and_then(non_empty_str);
    let from_dir = parent_dir(sub_file)
        .file_name()
        .map_or_else(|| "unnamed".to_owned(), |n| n.to_string_lossy().into_owned());
    let name = explicit.or(own).unwrap_or(from_dir);
    if !is_valid_agent_name(&name) {
        return Err(config_error(
            sub_file,
            format!(
                "the sub-fleet name {name:?} is not allowed: a fleet name starts with a letter or \
                 digit and contains only letters, digits, '_' and '-' (no dots)"
            ),
        ));
    }
    Ok(name)
}

/// The defaults a fleet's agents see: the parent's, deep-merged with this fleet's own
/// (`defaults.working_directory` resolved against `fleet_dir` first).
fn effective_defaults(parent: Option<&Value>, doc: &Value, fleet_dir: &Path) -> Option<Value> {
    let own = match doc.get("defaults") {
        Some(Value::Object(o)) => {
            let mut own = Value::Object(o.clone());
            rename_workspace(&mut own);
            match own.get_mut("working_directory") {
                Some(Value::String(s)) if !s.is_empty() => {
                    *s = resolve_reference(fleet_dir, s).to_string_lossy().into_owned();
                }
                Some(Value::Object(o)) => {
                    if let Some(Value::String(root)) = o.get_mut("root")
                        && !root.is_empty()
                    {
                        *root = resolve_reference(fleet_dir, root).to_string_lossy().into_owned();
                    }
                }
                _ => {}
            }
            Some(own)
        }
        _ => None,
    };
    match (parent, own) {
        (Some(p), Some(o)) => Some(deep_merge(p.clone(), o)),
        (Some(p), None) => Some(p.clone()),
        (None, own) => own,
    }
}

/// herdctl's `mergeAgentConfig`, for the fields Corral reads: `docker` is deep-merged (agent
/// wins); `working_directory` comes from the defaults when the agent has none, and two objects
/// are deep-merged.
fn merge_defaults(config: &mut Value, defaults: &Value) {
    let Value::Object(cfg) = config else { return };
    if let Some(d) = defaults.get("docker") {
        let merged = match cfg.remove("docker") {
            Some(agent) => deep_merge(d.clone(), agent),
            None => d.clone(),
        };
        cfg.insert("docker".to_owned(), merged);
    }
    if let Some(d) = defaults.get("working_directory") {
        match cfg.remove("working_directory") {
            None | Some(Value::Null) => {
                cfg.insert("working_directory".to_owned(), d.clone());
            }
            Some(agent @ Value::Object(_)) if d.is_object() => {
                cfg.insert("working_directory".to_owned(), deep_merge(d.clone(), agent));
            }
            Some(agent) => {
                cfg.insert("working_directory".to_owned(), agent);
            }
        }
    }
}

/// `workspace` is herdctl's deprecated alias of `working_directory`.
fn rename_workspace(config: &mut Value) {
    if let Value::Object(o) = config
        && let Some(ws) = o.remove("workspace")
    {
        o.entry("working_directory").or_insert(ws);
    }
}

/// herdctl's `deepMerge`: objects merge recursively, anything else in `over` replaces `base`.
fn deep_merge(base: Value, over: Value) -> Value {
    match (base, over) {
        (Value::Object(mut b), Value::Object(o)) => {
            for (k, v) in o {
                let merged = match b.remove(&k) {
                    Some(bv) => deep_merge(bv, v),
                    None => v,
                };
                b.insert(k, merged);
            }
            Value::Object(b)
        }
        (_, over) => over,
    }
}

/// `${VAR}` and `${VAR:-default}` in every string; undefined variables without a default stay.
fn interpolate(value: &mut Value, env: &dyn Fn(&str) -> Option<String>) {
    match value {
        Value::String(s) if s.contains("${") => *s = interpolate_str(s, env),
        Value::Array(items) => items.iter_mut().for_each(|v| interpolate(v, env)),
        Value::Object(map) => map.values_mut().for_each(|v| interpolate(v, env)),
        _ => {}
    }
}

fn interpolate_str(s: &str, env: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find("${") {
        let (before, after) = rest.split_at(start);
        out.push_str(before);
        let body = after.get(2..).unwrap_or("");
        let Some(end) = body.find('}') else {
            out.push_str(after);
            return out;
        };
        let inner = body.get(..end).unwrap_or("");
        let (var, default) = match inner.split_once(":-") {
            Some((v, d)) => (v, Some(d)),
            None => (inner, None),
        };
        let valid_name = var.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let whole = after.get(..end + 3).unwrap_or(after);
        match (valid_name, valid_name.then(|| env(var)).flatten(), default) {
            (true, Some(v), _) => out.push_str(&v),
            (true, None, Some(d)) => out.push_str(d),
            _ => out.push_str(whole),
        }
        rest = after.get(end + 3..).unwrap_or("");
    }
    out.push_str(rest);
    out
}

/// `doc[key]` as a list (missing or null: empty).
fn list(doc: &Value, key: &str, file: &Path) -> Result<Vec<Value>> {
    match doc.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => Ok(items.clone()),
        Some(_) => Err(config_error(file, format!("`{key}` is not a list"))),
    }
}

/// `{path, overrides?}` or a bare path string.
fn reference(entry: &Value) -> Option<(String, Option<Value>)> {
    match entry {
        Value::String(s) if !s.is_empty() => Some((s.clone(), None)),
        Value::Object(o) => {
            let path = o.get("path").and_then(non_empty_str)?;
            let overrides = o.get("overrides").filter(|v| v.is_object()).cloned();
            Some((path, overrides))
        }
        _ => None,
    }
}

fn non_empty_str(v: &Value) -> Option<String> {
    v.as_str().filter(|s| !s.is_empty()).map(str::to_owned)
}

/// A fleet path naming a folder means the `herdctl.yaml` (or `.yml`) inside it.
fn resolve_fleet_file(path: &Path) -> Result<PathBuf> {
    if path.is_dir() {
        for name in ["herdctl.yaml", "herdctl.yml"] {
            let candidate = path.join(name);
            if candidate.is_file() {
                return Ok(candidate);
            }
        }
        return Err(config_error(path, "this is a folder with no herdctl.yaml in it"));
    }
    Ok(path.to_path_buf())
}

/// Reads a fleet or agent file as a YAML mapping (an empty file is an empty mapping).
fn read_config_mapping(path: &Path) -> Result<Value> {
    let value: Value =
        read_yaml_file(path).map_err(|reason| config_error(path, reason.to_string()))?;
    match value {
        Value::Null => Ok(Value::Object(Map::new())),
        v @ Value::Object(_) => Ok(v),
        _ => Err(config_error(path, "the file's top level is not a mapping of keys to values")),
    }
}

fn config_error(path: &Path, reason: impl Into<String>) -> Error {
    Error::FleetConfig { path: path.to_path_buf(), reason: reason.into() }
}

fn parent_dir(file: &Path) -> &Path {
    file.parent().unwrap_or_else(|| Path::new("."))
}

/// A relative reference resolves against `dir`; `/x` (or any absolute path) stands alone.
fn resolve_reference(dir: &Path, reference: &str) -> PathBuf {
    let p = Path::new(reference);
    if p.is_absolute() || reference.starts_with('/') {
        crate::paths::normalize(p)
    } else {
        crate::paths::normalize(&dir.join(p))
    }
}

/// The identity of a fleet file for cycle detection (symlinks resolved when possible).
fn identity(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn interpolation_matches_herdctl_syntax() {
        let env = |k: &str| (k == "HOME").then(|| "/home/u".to_owned());
        assert_eq!(interpolate_str("${HOME}/x", &env), "/home/u/x");
        assert_eq!(interpolate_str("${NOPE:-/d}/x", &env), "/d/x");
        assert_eq!(interpolate_str("${NOPE}/x", &env), "${NOPE}/x");
        assert_eq!(interpolate_str("a${HOME", &env), "a${HOME");
        assert_eq!(interpolate_str("${1X}", &env), "${1X}");
        assert_eq!(interpolate_str("é${HOME}é", &env), "é/home/ué");
    }

    #[test]
    fn yaml_budgets_refuse_alias_bombs_without_panicking() {
        let mut bomb = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 0..12 {
            let prev = if i == 0 { "a".to_owned() } else { format!("l{}", i - 1) };
            bomb.push_str(&format!("l{i}: &l{i} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"));
        }
        let r: std::result::Result<Value, crate::files::Unusable> = parse_yaml(&bomb);
        assert!(r.is_err());
    }

    #[test]
    fn yaml_into_json_value_keeps_keys_as_strings() {
        let v: Value = parse_yaml("123: a\ntrue: b\nx: 2026-11-29T19:31:24.056Z\n").unwrap();
        assert_eq!(v["123"], "a");
        assert_eq!(v["x"], "2026-11-29T19:31:24.056Z");
    }

    #[test]
    fn normalize_is_lexical() {
        assert_eq!(crate::paths::normalize(Path::new("/a/b/../c/./d")), PathBuf::from("/a/c/d"));
    }
}
