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

/// The moment `days` whole days before `now` (the epoch when that is earlier): the line a file must
/// be untouched since to count as that old.
pub fn days_before(now: SystemTime, days: u32) -> SystemTime {
    now.checked_sub(std::time::Duration::from_secs(u64::from(days) * 86_400))
        .unwrap_or(SystemTime::UNIX_EPOCH)
}

/// Milliseconds since the epoch of a system time, as [`millis`] reads its [`iso_system`] form.
pub fn system_millis(t: SystemTime) -> Option<i64> {
    Some(DateTime::<Utc>::from(t).timestamp_millis())
}

/// Milliseconds since the epoch of an RFC 3339 timestamp (`None` when it does not parse).
pub fn millis(ts: &str) -> Option<i64> {
    iso_millis(ts).or_else(|| DateTime::parse_from_rfc3339(ts).ok().map(|t| t.timestamp_millis()))
}

/// [`iso`]'s own form (Claude Code's too) read without chrono's general parser, which is several
/// times slower (every pass reads each session's activity time): the fields are cut at their
/// fixed places, and chrono checks and converts them. Anything else is `None`.
fn iso_millis(ts: &str) -> Option<i64> {
    let b = ts.as_bytes();
    let shape = b"dddd-dd-ddTdd:dd:dd.dddZ";
    if b.len() != shape.len()
        || !b.iter().zip(shape).all(|(c, s)| if *s == b'd' { c.is_ascii_digit() } else { c == s })
    {
        return None;
    }
    let digits = |from: usize, to: usize| b.get(from..to).unwrap_or_default();
    let num = |from: usize, to: usize| {
        digits(from, to).iter().fold(0u32, |n, c| n * 10 + u32::from(c - b'0'))
    };
    let year = i32::try_from(num(0, 4)).ok()?;
    let date = chrono::NaiveDate::from_ymd_opt(year, num(5, 7), num(8, 10))?;
    let at = date.and_hms_milli_opt(num(11, 13), num(14, 16), num(17, 19), num(20, 23))?;
    Some(at.and_utc().timestamp_millis())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milliseconds_and_z_like_to_iso_string() {
        let t = DateTime::<Utc>::from_timestamp_millis(1_764_444_684_056).unwrap_or_default();
        assert_eq!(iso(t), "2025-11-29T19:31:24.056Z");
        assert_eq!(iso_system(SystemTime::UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = SystemTime::UNIX_EPOCH + std::time::Duration::from_nanos(1_764_444_684_056_999_999);
        assert_eq!(system_millis(t), millis(&iso_system(t)));
        for ts in [
            "2025-11-29T19:31:24.056Z",
            "1970-01-01T00:00:00.000Z",
            "2024-02-29T23:59:59.999Z",
            "0001-01-01T00:00:00.000Z",
        ] {
            let chrono = DateTime::parse_from_rfc3339(ts).ok().map(|t| t.timestamp_millis());
            assert_eq!(iso_millis(ts), chrono, "{ts}");
        }
        for k in 0..5_000_i64 {
            let ms = k * 987_654_321_987 % 4_102_444_800_000 - 2_208_988_800_000;
            let t = DateTime::<Utc>::from_timestamp_millis(ms).unwrap_or_default();
            assert_eq!(iso_millis(&iso(t)), Some(ms), "{}", iso(t));
        }
        // Not the form, or not a time: chrono's parser decides.
        assert_eq!(millis("2025-11-29T20:31:24.056+01:00"), millis("2025-11-29T19:31:24.056Z"));
        assert_eq!(millis("2025-11-29T19:31:24Z"), Some(1_764_444_684_000));
        for bad in
            ["2025-02-30T00:00:00.000Z", "2025-11-29T24:00:00.000Z", "2025-11-29T19:31:60.000Z"]
        {
            assert_eq!(iso_millis(bad), None, "{bad}");
        }
        assert_eq!(millis("2025-13-01T00:00:00.000Z"), None);
        assert_eq!(millis("２０２５-11-29T19:31:24.056Z"), None);
        let before = SystemTime::UNIX_EPOCH - std::time::Duration::from_nanos(1_500_000);
        assert_eq!(system_millis(before), millis(&iso_system(before)));
    }
}
