//! The one time format Corral writes: ISO-8601 UTC with milliseconds and a `Z`
//! (`2026-11-29T19:31:24.056Z`), which is JavaScript's `Date.prototype.toISOString()` and so what
//! herdctl writes (`adoptedAt`) and reads. Listings, journals and records all use it.

use std::time::SystemTime;

use chrono::{DateTime, SecondsFormat, Utc};

/// `t` as `2026-11-29T19:31:24.056Z`.
pub fn iso(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// A file time as [`iso`].
pub fn iso_system(t: SystemTime) -> String {
    iso(DateTime::<Utc>::from(t))
}

/// Milliseconds since the epoch of an RFC 3339 timestamp (`None` when it does not parse).
pub fn millis(ts: &str) -> Option<i64> {
    chrono::DateTime::parse_from_rfc3339(ts).ok().map(|t| t.timestamp_millis())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milliseconds_and_z_like_to_iso_string() {
        let t = DateTime::<Utc>::from_timestamp_millis(1_764_444_684_056).unwrap_or_default();
        assert_eq!(iso(t), "2025-11-29T19:31:24.056Z");
        assert_eq!(iso_system(SystemTime::UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
    }
}
