//! `corral-cli formats`: what the home's transcripts hold, by kind of line and of attachment,
//! with the kinds Corral does not know by name marked (the engine's format survey).

use corral_engine::format_survey::{self, KindCount};
use corral_engine::transcript::vocabulary::Reading;
use corral_engine::{Catalog, Error};

use crate::{print_json, say};

pub fn formats(catalog: &Catalog, json: bool) -> Result<(), Error> {
    let s = format_survey::survey(catalog)?;
    if json {
        return print_json(&s);
    }
    say!(
        "{} files, {} lines ({} unreadable, {} without a type); versions {}",
        s.files,
        s.lines,
        s.unreadable_lines,
        s.untyped_lines,
        match (s.versions.first(), s.versions.last()) {
            (Some(a), Some(b)) if a != b => format!("{a} to {b}"),
            (Some(a), _) => a.clone(),
            _ => "unknown".to_owned(),
        }
    );
    if s.unreadable_files > 0 {
        say!("{} files could not be read", s.unreadable_files);
    }
    table("LINE TYPE", &s.line_types);
    table("ATTACHMENT TYPE", &s.attachment_types);
    let unknown: Vec<&str> = s.unknown().map(|k| k.name.as_str()).collect();
    say!();
    if unknown.is_empty() {
        say!("Corral knows every kind by name.");
    } else {
        say!("{} kinds Corral does not know by name: {}", unknown.len(), unknown.join(", "));
    }
    Ok(())
}

fn table(title: &str, kinds: &[KindCount]) {
    if kinds.is_empty() {
        return;
    }
    say!();
    say!("{title:<28} {:>9}  CORRAL", "LINES");
    for k in kinds {
        let reading = match k.reading {
            Some(Reading::Conversation) => "shown",
            Some(Reading::Name) => "names the session",
            Some(Reading::Chain) => "links the conversation",
            Some(Reading::Cost) => "what it cost",
            Some(Reading::Skipped) => "skipped (bookkeeping)",
            None => "UNKNOWN",
        };
        let at = k.example.as_deref().map(|e| format!("  first at {e}")).unwrap_or_default();
        say!("{:<28} {:>9}  {reading}{at}", k.name, k.count);
    }
}
