//! `corral-cli`: the engine as a command-line tool (JSON with `--json`, a table without).

fn main() {}
