//! Fault points for the crash-safety tests: numbered places inside an import where a test can
//! kill the process (built only with the `fault-points` feature; otherwise they compile to
//! nothing). Every module that writes user data calls [`fault_point`] and depends on nothing else
//! for it.

/// Kills the process (SIGKILL; abort elsewhere) at numbered points inside `apply` when the crate
/// is built with the `fault-points` feature and `CORRAL_FAULT_AT=<n>` is set: the n-th point
/// reached kills it.
/// Without the feature this compiles to nothing.
#[cfg(feature = "fault-points")]
pub fn fault_point(label: &str) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static REACHED: AtomicU64 = AtomicU64::new(0);
    let n = REACHED.fetch_add(1, Ordering::SeqCst) + 1;
    if let Ok(trace) = std::env::var("CORRAL_FAULT_TRACE") {
        let _ =
            std::fs::OpenOptions::new().create(true).append(true).open(trace).and_then(|mut f| {
                std::io::Write::write_all(&mut f, format!("{n} {label}\n").as_bytes())
            });
    }
    if std::env::var("CORRAL_FAULT_AT").ok().and_then(|v| v.parse::<u64>().ok()) == Some(n) {
        // SIGKILL, like a power cut or an OOM kill: no destructor, no flush, nothing. (Unsafe
        // code is forbidden, so the signal comes from `kill`; abort is the fallback.)
        #[cfg(unix)]
        let _ = std::process::Command::new("kill")
            .args(["-KILL", &std::process::id().to_string()])
            .status();
        std::process::abort();
    }
}

/// Without the `fault-points` feature, fault points do nothing.
#[cfg(not(feature = "fault-points"))]
#[inline(always)]
pub fn fault_point(_label: &str) {}
