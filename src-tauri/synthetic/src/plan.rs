//! Session plans: the project folders and, for each session, its era, size, kind and damage,
//! all drawn from the seed before anything is written.

#[allow(clippy::wildcard_imports, reason = "the crate's shared imports and items")]
use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Era {
    /// 1.0.x: summaries at the top, sidechains inline.
    Old,
    /// 2.0.x: flat `agent-<8hex>.jsonl`, queue-operation with array content.
    V20,
    /// 2.1.17–2.1.42: progress lines, file-history-snapshot first.
    Mid,
    /// 2.1.114+: permission-mode first, attachments, entrypoint, ai-title, last-prompt.
    New,
}

impl Era {
    pub(crate) fn versions(self) -> &'static [&'static str] {
        match self {
            Era::Old => &["1.0.24", "1.0.43", "1.0.98"],
            Era::V20 => &["2.0.42", "2.0.55"],
            Era::Mid => &["2.1.17", "2.1.38", "2.1.39"],
            Era::New => &["2.1.114", "2.1.141"],
        }
    }

    pub(crate) fn models(self) -> &'static [&'static str] {
        match self {
            Era::Old => &["claude-sonnet-4-20250514", "claude-opus-4-20250514"],
            Era::V20 => &["claude-sonnet-4-5-20250929", "claude-opus-4-1-20250805"],
            Era::Mid => &[
                "claude-opus-4-5-20251101",
                "claude-sonnet-4-5-20250929",
                "claude-haiku-4-5-20251001",
            ],
            Era::New => &["claude-opus-4-6", "claude-opus-4-7", "claude-sonnet-4-6"],
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Damage {
    TruncatedTail,
    GarbageLine,
    InvalidUtf8,
    NulRun,
}

impl Damage {
    pub(crate) fn kind(self) -> &'static str {
        match self {
            Damage::TruncatedTail => "damaged-truncated-tail",
            Damage::GarbageLine => "damaged-garbage-line",
            Damage::InvalidUtf8 => "damaged-invalid-utf8",
            Damage::NulRun => "damaged-nul-run",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Normal,
    Empty,
    Damaged(Damage),
    SidechainOnly,
    SummaryOnly,
    Huge,
    LongLine,
}

impl Kind {
    pub(crate) fn special_name(self) -> Option<&'static str> {
        match self {
            Kind::Normal => None,
            Kind::Empty => Some("empty"),
            Kind::Damaged(d) => Some(d.kind()),
            Kind::SidechainOnly => Some("sidechain-only"),
            Kind::SummaryOnly => Some("summary-only"),
            Kind::Huge => Some("huge"),
            Kind::LongLine => Some("long-line"),
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Folder {
    pub(crate) cwds: Vec<String>,
    pub(crate) dir: PathBuf,
}

#[derive(Debug, Clone)]
pub(crate) struct Plan {
    pub(crate) session_id: String,
    pub(crate) folder: usize,
    pub(crate) cwd: String,
    pub(crate) era: Era,
    pub(crate) kind: Kind,
    pub(crate) budget: u64,
    pub(crate) start_ms: i64,
    pub(crate) subagents: bool,
    pub(crate) long_line_bytes: u64,
    pub(crate) seed: u64,
}

pub(crate) const ROOTS: &[&str] =
    &["/home/dev/projects", "/home/dev/work", "/srv/repos", "/home/dev/src/github.com/acme"];
pub(crate) const NAME_A: &[&str] = &[
    "api", "web", "data", "infra", "billing", "search", "auth", "mobile", "docs", "ml", "edge",
    "payments", "notify", "admin", "cli", "sdk", "site", "core", "ops", "etl",
];
pub(crate) const NAME_B: &[&str] = &[
    "gateway",
    "frontend",
    "pipeline",
    "service",
    "worker",
    "tools",
    "app",
    "server",
    "engine",
    "portal",
    "dashboard",
    "scripts",
    "lib",
    "bot",
    "agent",
    "monorepo",
];

pub(crate) fn folder_cwd(rng: &mut Rng, i: usize) -> String {
    let root = rng.pick_str(ROOTS);
    let a = rng.pick_str(NAME_A);
    let b = rng.pick_str(NAME_B);
    match i % 40 {
        7 => format!("{root}/{a}.{b}.example.com"),
        11 => format!("/home/dev/📦-{a}-{b}-{i}"),
        13 => format!("{root}/{a}-{b}-{i}/.claude/worktrees/feature-{}", rng.base36(5)),
        17 => format!("/tmp/claude-scratch-{a}-{i}"),
        19 => format!("{root}/{a}_{b}_{i}"),
        23 => format!("/home/dev/My Projects/{a} {b} {i}"),
        29 => format!("{root}/{a}-{b}-v{}.{}", i % 5, i % 3),
        31 => format!(
            "{root}/{}/{a}-{b}-{i}",
            (0..8).map(|k| format!("very-long-segment-name-{k}")).collect::<Vec<_>>().join("/")
        ),
        _ => format!("{root}/{a}-{b}-{i}"),
    }
}

pub(crate) fn make_folders(rng: &mut Rng, count: usize, projects: &Path) -> Vec<Folder> {
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(count);
    let mut i = 0usize;
    while out.len() < count {
        let cwd = folder_cwd(rng, i);
        i += 1;
        let enc = encode_path(&cwd);
        if !seen.insert(enc.clone()) {
            continue;
        }
        let mut cwds = vec![cwd.clone()];
        // Lossy encoding: `a-b` and `a_b` share a folder.
        if out.len() % 37 == 5 && cwd.contains('-') {
            let twin = cwd.replacen('-', "_", 1);
            if encode_path(&twin) == enc {
                cwds.push(twin);
            }
        }
        out.push(Folder { cwds, dir: projects.join(enc) });
    }
    out
}

pub(crate) fn make_plans(spec: &SyntheticSpec, rng: &mut Rng, folders: &[Folder]) -> Vec<Plan> {
    let n = spec.sessions;
    let kinds = assign_kinds(spec, rng, n);

    // Folder popularity: a few busy folders, a long tail; every folder gets one session.
    let weights: Vec<f64> = (0..folders.len()).map(|i| 1.0 / ((i + 1) as f64).powf(0.8)).collect();
    let total_w: f64 = weights.iter().sum();
    let pick_folder = |rng: &mut Rng| -> usize {
        let mut x = rng.unit() * total_w;
        for (i, w) in weights.iter().enumerate() {
            if x < *w {
                return i;
            }
            x -= w;
        }
        folders.len().saturating_sub(1)
    };
    let (raw, scale) = budgets(spec, rng, &kinds);

    let span_ms = i64::from(spec.span_days.max(1)) * 86_400_000;
    let mut plans = Vec::with_capacity(n);
    for (i, kind) in kinds.iter().enumerate() {
        let folder = if i < folders.len() { i } else { pick_folder(rng) };
        let f = folders.get(folder);
        let cwd = f
            .and_then(|f| {
                if f.cwds.len() > 1 && rng.chance(30) { f.cwds.get(1) } else { f.cwds.first() }
            })
            .cloned()
            .unwrap_or_else(|| "/home/dev".to_owned());
        let era = match rng.below(100) {
            0..8 => Era::Old,
            8..20 => Era::V20,
            20..55 => Era::Mid,
            _ => Era::New,
        };
        let era = match kind {
            Kind::SidechainOnly | Kind::SummaryOnly => Era::Old,
            Kind::Huge | Kind::LongLine => Era::New,
            _ => era,
        };
        let budget = match kind {
            Kind::Huge => spec.huge_file_bytes,
            Kind::Normal | Kind::LongLine => {
                ((raw.get(i).copied().unwrap_or(10_000) as f64 * scale) as u64).max(2_000)
            }
            _ => 20_000,
        };
        // Huge sessions last days; start them earlier so they still end before `newest_ms`.
        let reserve = if matches!(kind, Kind::Huge) { 10 * 86_400_000 } else { 86_400_000 };
        let start_ms = spec.newest_ms - reserve - rng.below(span_ms as u64) as i64;
        plans.push(Plan {
            session_id: rng.uuid_string(),
            folder,
            cwd,
            era,
            kind: *kind,
            budget,
            start_ms,
            subagents: matches!(era, Era::V20 | Era::Mid | Era::New)
                && rng.chance(spec.subagent_percent),
            long_line_bytes: if *kind == Kind::LongLine { spec.long_line_bytes } else { 0 },
            seed: rng.next_u64(),
        });
    }
    plans
}

/// Each session's kind: the special ones go to a deterministic random subset of indices.
fn assign_kinds(spec: &SyntheticSpec, rng: &mut Rng, n: usize) -> Vec<Kind> {
    // Special kinds go to a deterministic random subset of indices.
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..order.len()).rev() {
        let j = rng.below_usize(i + 1);
        order.swap(i, j);
    }
    let mut kinds = vec![Kind::Normal; n];
    let mut cursor = order.iter();
    let mut assign = |count: usize, kind: &dyn Fn(usize) -> Kind| {
        for k in 0..count {
            if let Some(&idx) = cursor.next()
                && let Some(slot) = kinds.get_mut(idx)
            {
                *slot = kind(k);
            }
        }
    };
    assign(spec.huge_files, &|_| Kind::Huge);
    assign(usize::from(spec.long_line_bytes > 0), &|_| Kind::LongLine);
    assign(spec.empty_files, &|_| Kind::Empty);
    assign(spec.damaged_files, &|k| {
        Kind::Damaged(match k % 4 {
            0 => Damage::TruncatedTail,
            1 => Damage::GarbageLine,
            2 => Damage::InvalidUtf8,
            _ => Damage::NulRun,
        })
    });
    assign(spec.sidechain_only_files, &|_| Kind::SidechainOnly);
    assign(spec.summary_only_files, &|_| Kind::SummaryOnly);
    kinds
}

/// Each session's raw byte budget and the scale that makes them add up to the target.
fn budgets(spec: &SyntheticSpec, rng: &mut Rng, kinds: &[Kind]) -> (Vec<u64>, f64) {
    let n = kinds.len();
    // Byte budgets: huge files fixed, the long line on top of its session, the rest log-uniform
    // between 10 KB and 2 MB, scaled to what remains of the target.
    let normal_count = kinds.iter().filter(|k| matches!(k, Kind::Normal | Kind::LongLine)).count();
    let fixed = spec.huge_files as u64 * spec.huge_file_bytes + spec.long_line_bytes;
    let remaining = spec.target_bytes.saturating_sub(fixed);
    let raw: Vec<u64> = (0..n).map(|_| rng.log_uniform(10_000, 2_000_000)).collect();
    let raw_sum: u64 = raw
        .iter()
        .zip(kinds)
        .filter(|(_, k)| matches!(k, Kind::Normal | Kind::LongLine))
        .map(|(r, _)| *r)
        .sum();
    let scale =
        if raw_sum == 0 || normal_count == 0 { 1.0 } else { remaining as f64 / raw_sum as f64 };
    (raw, scale)
}
