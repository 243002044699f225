//! `corral-cli generate`: writes a deterministic synthetic Claude home (and, with
//! `--with-fleet`, a herdctl fleet with its `.herdctl` state) for benchmarks and demos.
//!
//! The Claude home goes to `<out>/claude` and the fleet to `<out>/fleet`; the generator refuses
//! to write into a non-empty `projects/` or `.herdctl/` and never overwrites a file.

use std::path::PathBuf;

use corral_engine::Error;
use corral_synthetic::SyntheticSpec;

/// Arguments of `corral-cli generate`.
#[derive(Debug, Clone, clap::Args)]
pub struct GenerateArgs {
    /// Output folder: the Claude home is written to <DIR>/claude, the fleet to <DIR>/fleet.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Main transcripts to write.
    #[arg(long, default_value_t = 5000)]
    pub sessions: usize,
    /// Project folders (default: one per 25 sessions).
    #[arg(long)]
    pub folders: Option<usize>,
    /// Approximate total transcript bytes (2G, 200M, 512K…).
    #[arg(long, default_value = "2G", value_parser = size_arg)]
    pub size: u64,
    /// Seed: the same seed and options write the same bytes.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Also write a herdctl fleet (herdctl.yaml, agents, .herdctl state with job files).
    #[arg(long)]
    pub with_fleet: bool,
    /// Number of huge transcripts (default: 2 when --size is at least 1G).
    #[arg(long)]
    pub huge_files: Option<usize>,
    /// Size of each huge transcript (default 120M).
    #[arg(long, value_parser = size_arg)]
    pub huge_size: Option<u64>,
    /// Size of the one very long line (default 6M at --size ≥ 100M; 0 for none).
    #[arg(long, value_parser = size_arg)]
    pub long_line: Option<u64>,
    /// Job files to write with --with-fleet (default: half the sessions).
    #[arg(long)]
    pub jobs: Option<usize>,
}

fn size_arg(text: &str) -> Result<u64, String> {
    corral_synthetic::parse_size(text).map_err(|e| e.to_string())
}

/// The spec these arguments describe.
pub fn spec(args: &GenerateArgs) -> SyntheticSpec {
    let mut spec = SyntheticSpec::new(args.seed, args.sessions, args.size);
    if let Some(f) = args.folders {
        spec.folders = f;
    }
    if let Some(n) = args.huge_files {
        spec.huge_files = n;
        if spec.huge_file_bytes == 0 {
            spec.huge_file_bytes = 120 * 1024 * 1024;
        }
    }
    if let Some(b) = args.huge_size {
        spec.huge_file_bytes = b;
    }
    if let Some(b) = args.long_line {
        spec.long_line_bytes = b;
    }
    if let Some(j) = args.jobs {
        spec.jobs = j;
    }
    spec
}

/// Generates and returns the report as JSON (with the paths to pass to other commands).
pub fn run(args: &GenerateArgs) -> Result<serde_json::Value, Error> {
    if args.sessions == 0 {
        return Err(Error::InvalidInput("--sessions must be at least 1".into()));
    }
    let claude_home = args.out.join("claude");
    let fleet_dir = args.out.join("fleet");
    let report = corral_synthetic::generate(
        &spec(args),
        &claude_home,
        args.with_fleet.then_some(fleet_dir.as_path()),
    )?;
    let mut value = serde_json::to_value(&report)
        .map_err(|e| Error::io("cannot encode the report", std::io::Error::other(e)))?;
    let mut hint = format!("corral-cli --claude-home {}", claude_home.display());
    if let Some(f) = &report.fleet_file {
        hint.push_str(&format!(" --fleet {}", f.display()));
    }
    hint.push_str(&format!(" --data-dir {} sessions", args.out.join("corral-data").display()));
    if let Some(obj) = value.as_object_mut() {
        obj.insert("try".into(), serde_json::Value::String(hint));
    }
    Ok(value)
}
