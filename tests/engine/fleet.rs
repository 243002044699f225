//! Fleet loading (herdctl `config/loader.ts` behaviour) against fixtures/fleets.

use std::path::{Path, PathBuf};

use corral_engine::Error;
use corral_engine::fleet::{Fleet, is_valid_agent_name};

use crate::support::fixture_copy;

fn load_basic() -> (tempfile::TempDir, PathBuf, Fleet) {
    let (tmp, root) = fixture_copy("fleets/basic");
    let fleet = Fleet::load_with_env(&root.join("herdctl.yaml"), &|_| None).unwrap();
    (tmp, root, fleet)
}

fn wd(fleet: &Fleet, name: &str) -> PathBuf {
    fleet.agent(name).unwrap_or_else(|| panic!("agent {name}")).working_directory.clone().unwrap()
}

#[test]
fn basic_fleet_loads_every_agent_with_qualified_names_in_herdctl_order() {
    let (_tmp, root, fleet) = load_basic();
    let names: Vec<&str> = fleet.agents.iter().map(|a| a.qualified_name.as_str()).collect();
    // Root agents first (in listed order), then each sub-fleet's agents.
    assert_eq!(
        names,
        ["alpha", "beta", "docker-runner", "legacy", "scribe", "team.gamma", "ops.sweeper"]
    );
    assert_eq!(fleet.name.as_deref(), Some("basic-fleet"));
    assert_eq!(fleet.file, root.join("herdctl.yaml"));
    assert_eq!(fleet.state_dir(), root.join(".herdctl"));

    let gamma = fleet.agent("team.gamma").unwrap();
    assert_eq!(gamma.name, "gamma");
    assert_eq!(gamma.fleet_path, vec!["team".to_owned()]);
    assert_eq!(gamma.config_file, root.join("team/agents/gamma.yaml"));
    assert!(
        fleet.agent("gamma").is_none(),
        "a sub-fleet agent is only known by its qualified name"
    );
    assert!(fleet.agent("alpha").unwrap().fleet_path.is_empty());
}

#[test]
fn sub_fleet_name_prefers_parent_name_then_own_name_then_folder() {
    let (_tmp, _root, fleet) = load_basic();
    // team/herdctl.yaml says fleet.name "platform-team" but the parent names it "team".
    assert!(fleet.agent("team.gamma").is_some());
    assert!(fleet.agent("platform-team.gamma").is_none());
    // ops/herdctl.yaml has no name anywhere: the folder name.
    assert_eq!(fleet.agent("ops.sweeper").unwrap().fleet_path, vec!["ops".to_owned()]);

    // Own fleet.name wins when the parent gives none.
    let (_tmp2, root) = fixture_copy("fleets/basic");
    let text = std::fs::read_to_string(root.join("herdctl.yaml")).unwrap();
    let text = text.replace("    name: team                # wins", "    # name removed; was");
    std::fs::write(root.join("herdctl.yaml"), text).unwrap();
    let fleet = Fleet::load_with_env(&root.join("herdctl.yaml"), &|_| None).unwrap();
    assert!(fleet.agent("platform-team.gamma").is_some());
}

#[test]
fn working_directories_resolve_like_herdctl() {
    let (_tmp, root, fleet) = load_basic();
    // A relative string resolves against the agent file's folder.
    assert_eq!(wd(&fleet, "alpha"), root.join("projects/alpha"));
    // {root: ...} form, a hyphenated folder.
    assert_eq!(wd(&fleet, "beta"), root.join("projects/my-app"));
    // `workspace` is the deprecated alias.
    assert_eq!(wd(&fleet, "legacy"), root.join("projects/legacy"));
    // Missing: the agent file's folder.
    assert_eq!(wd(&fleet, "scribe"), root.join("agents"));
    // Sub-fleet agent, `../../` relative to team/agents/.
    assert_eq!(wd(&fleet, "team.gamma"), root.join("projects/gamma"));
    // From the sub-fleet's `defaults`, resolved against that fleet file's folder (ops/).
    assert_eq!(wd(&fleet, "ops.sweeper"), root.join("projects/alpha"));
    for agent in &fleet.agents {
        let wd = agent.working_directory.as_ref().unwrap();
        assert!(wd.is_absolute(), "{wd:?}");
        assert!(!wd.components().any(|c| matches!(c, std::path::Component::ParentDir)), "{wd:?}");
    }
}

#[test]
fn docker_flag_follows_enabled_and_overrides() {
    let (_tmp, _root, fleet) = load_basic();
    assert!(fleet.agent("docker-runner").unwrap().docker);
    assert!(!fleet.agent("alpha").unwrap().docker);
    // scribe.yaml says enabled: true, the fleet's `overrides` turn it off.
    assert!(!fleet.agent("scribe").unwrap().docker);
}

#[test]
fn absolute_tilde_and_env_working_directories() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    std::fs::create_dir_all(root.join("agents")).unwrap();
    std::fs::write(
        root.join("herdctl.yaml"),
        "agents:\n  - path: ./agents/a.yaml\n  - path: ./agents/b.yaml\n  - ./agents/c.yaml\n  - path: ./agents/d.yaml\n",
    )
    .unwrap();
    std::fs::write(root.join("agents/a.yaml"), "name: a\nworking_directory: /srv/abs/a\n").unwrap();
    // `~` is not expanded, exactly like herdctl: it is a folder named "~" next to the agent file.
    std::fs::write(root.join("agents/b.yaml"), "name: b\nworking_directory: ~/code/b\n").unwrap();
    std::fs::write(root.join("agents/c.yaml"), "name: c\nworking_directory: ${CODE_ROOT}/c\n")
        .unwrap();
    std::fs::write(
        root.join("agents/d.yaml"),
        "name: d\nworking_directory: ${MISSING_VAR:-/opt/default}/d\n",
    )
    .unwrap();
    let env = |k: &str| (k == "CODE_ROOT").then(|| "/home/u/code".to_owned());
    let fleet = Fleet::load_with_env(&root.join("herdctl.yaml"), &env).unwrap();
    assert_eq!(wd(&fleet, "a"), PathBuf::from("/srv/abs/a"));
    assert_eq!(wd(&fleet, "b"), root.join("agents/~/code/b"));
    assert_eq!(wd(&fleet, "c"), PathBuf::from("/home/u/code/c"));
    assert_eq!(wd(&fleet, "d"), PathBuf::from("/opt/default/d"));
    assert_eq!(fleet.name, None);
}

#[test]
fn a_folder_path_means_its_herdctl_yaml_and_an_empty_fleet_is_fine() {
    let (_tmp, root, fleet) = load_basic();
    let by_dir = Fleet::load_with_env(&root, &|_| None).unwrap();
    assert_eq!(by_dir, fleet);

    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("herdctl.yaml"), "").unwrap();
    let empty = Fleet::load_with_env(&tmp.path().join("herdctl.yaml"), &|_| None).unwrap();
    assert!(empty.agents.is_empty());
}

#[test]
fn agent_name_pattern_is_herdctls() {
    for ok in ["alpha", "my-app", "a_b", "9lives", "A"] {
        assert!(is_valid_agent_name(ok), "{ok}");
    }
    for bad in ["", "-a", "_a", "a.b", "a/b", "a b", "é", ".a"] {
        assert!(!is_valid_agent_name(bad), "{bad}");
    }
}

fn broken(file: &str) -> (tempfile::TempDir, PathBuf, Error) {
    let (tmp, root) = fixture_copy("fleets/broken");
    let err = Fleet::load_with_env(&root.join(file), &|_| None).unwrap_err();
    (tmp, root, err)
}

fn assert_config_error(err: &Error, path: &Path, words: &str) {
    match err {
        Error::FleetConfig { path: p, reason } => {
            assert_eq!(p, path, "error names the wrong file: {err}");
            assert!(reason.contains(words), "reason {reason:?} lacks {words:?}");
            assert!(!reason.contains('\n'), "reason should be one plain line: {reason:?}");
        }
        other => panic!("expected FleetConfig, got {other:?}"),
    }
    assert_eq!(err.kind(), corral_engine::ErrorKind::Config);
}

#[test]
fn missing_fleet_file_is_a_config_error_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("nope.yaml");
    let err = Fleet::load(&file).unwrap_err();
    assert_config_error(&err, &file, "does not exist");
}

#[test]
fn malformed_fleet_yaml_names_the_file() {
    let (_tmp, root, err) = broken("malformed-yaml.yaml");
    assert_config_error(&err, &root.join("malformed-yaml.yaml"), "not valid YAML");
}

#[test]
fn missing_agent_file_names_the_agent_file_and_where_it_is_listed() {
    let (_tmp, root, err) = broken("missing-agent.yaml");
    assert_config_error(&err, &root.join("agents/does-not-exist.yaml"), "does not exist");
    assert!(err.to_string().contains("missing-agent.yaml"), "{err}");
}

#[test]
fn malformed_agent_file_names_it() {
    let (_tmp, root, err) = broken("malformed-agent.yaml");
    assert_config_error(&err, &root.join("agents/malformed.yaml"), "not valid YAML");
}

#[test]
fn dotted_agent_name_is_refused() {
    let (_tmp, root, err) = broken("bad-agent-name.yaml");
    assert_config_error(&err, &root.join("agents/dotted-name.yaml"), "bad.name");
}

#[test]
fn dotted_sub_fleet_name_is_refused() {
    let (_tmp, root, err) = broken("bad-subfleet-name.yaml");
    assert_config_error(&err, &root.join("cycle/child/herdctl.yaml"), "has.dot");
}

#[test]
fn top_level_list_and_non_list_agents_are_refused() {
    let (_tmp, root, err) = broken("not-a-mapping.yaml");
    assert_config_error(&err, &root.join("not-a-mapping.yaml"), "not a mapping");
    let (_tmp, root, err) = broken("agents-not-a-list.yaml");
    assert_config_error(&err, &root.join("agents-not-a-list.yaml"), "`agents` is not a list");
}

#[test]
fn duplicate_qualified_names_are_refused() {
    let (_tmp, root, err) = broken("duplicate-agent.yaml");
    assert_config_error(&err, &root.join("duplicate-agent.yaml"), "\"ok\"");
}

#[test]
fn include_cycles_are_refused_not_followed_forever() {
    let (_tmp, root, err) = broken("cycle/herdctl.yaml");
    assert_config_error(&err, &root.join("cycle/child/herdctl.yaml"), "cycle");
}

#[test]
fn a_diamond_of_sub_fleets_is_allowed_and_fan_out_is_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let r = tmp.path();
    std::fs::create_dir_all(r.join("shared/agents")).unwrap();
    std::fs::write(r.join("shared/agents/w.yaml"), "name: w\n").unwrap();
    std::fs::write(r.join("shared/herdctl.yaml"), "agents:\n  - path: ./agents/w.yaml\n").unwrap();
    std::fs::write(
        r.join("herdctl.yaml"),
        "fleets:\n  - {path: ./shared/herdctl.yaml, name: one}\n  - {path: ./shared/herdctl.yaml, name: two}\n",
    )
    .unwrap();
    let fleet = Fleet::load_with_env(&r.join("herdctl.yaml"), &|_| None).unwrap();
    let names: Vec<&str> = fleet.agents.iter().map(|a| a.qualified_name.as_str()).collect();
    assert_eq!(names, ["one.w", "two.w"]);

    // Exponential fan-out (each level includes the next twice) stops with an error, not a hang.
    let tmp = tempfile::tempdir().unwrap();
    let r = tmp.path();
    for level in 0..20 {
        let next = level + 1;
        std::fs::write(
            r.join(format!("l{level}.yaml")),
            format!("fleets:\n  - {{path: ./l{next}.yaml, name: a}}\n  - {{path: ./l{next}.yaml, name: b}}\n"),
        )
        .unwrap();
    }
    std::fs::write(r.join("l20.yaml"), "agents: []\n").unwrap();
    let err = Fleet::load_with_env(&r.join("l0.yaml"), &|_| None).unwrap_err();
    assert!(err.to_string().contains("more than"), "{err}");
}

#[test]
fn hostile_yaml_is_an_error_not_a_crash_or_a_memory_blowup() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("herdctl.yaml");
    // Billion laughs.
    let mut bomb = String::from(
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    for i in 0..9 {
        let prev = if i == 0 { "a".to_owned() } else { format!("b{}", i - 1) };
        let refs = vec![format!("*{prev}"); 9].join(",");
        bomb.push_str(&format!("b{i}: &b{i} [{refs}]\n"));
    }
    std::fs::write(&file, &bomb).unwrap();
    assert!(matches!(Fleet::load(&file), Err(Error::FleetConfig { .. })));

    // Deep nesting.
    std::fs::write(&file, format!("x: {}{}\n", "[".repeat(5000), "]".repeat(5000))).unwrap();
    assert!(matches!(Fleet::load(&file), Err(Error::FleetConfig { .. })));

    // Too large.
    let big = format!("x: \"{}\"\n", "a".repeat(17 * 1024 * 1024));
    std::fs::write(&file, big).unwrap();
    let err = Fleet::load(&file).unwrap_err();
    assert!(err.to_string().contains("larger than"), "{err}");

    // Not UTF-8, and a folder where the agent file should be.
    std::fs::write(&file, [0xff, 0xfe, 0x00, 0x41]).unwrap();
    assert!(matches!(Fleet::load(&file), Err(Error::FleetConfig { .. })));
    std::fs::write(&file, "agents:\n  - path: ./sub\n").unwrap();
    std::fs::create_dir(tmp.path().join("sub")).unwrap();
    assert!(matches!(Fleet::load(&file), Err(Error::FleetConfig { .. })));
}

#[test]
fn missing_sub_fleet_names_it_and_its_parent() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("herdctl.yaml");
    std::fs::write(&file, "fleets:\n  - path: ./gone/herdctl.yaml\n").unwrap();
    let err = Fleet::load_with_env(&file, &|_| None).unwrap_err();
    assert_config_error(&err, &tmp.path().join("gone/herdctl.yaml"), "does not exist");
    assert!(err.to_string().contains(&file.display().to_string()), "{err}");
}
