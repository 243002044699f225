//! The listing while a full pass reads many transcripts: what the folder walk found is listed
//! before the files are read (id, folder, size, time, marked `pending`), the newest files are
//! read first and each session's facts replace its stand-in in place, the order settles when the
//! pass ends, and a pass with little to read publishes nothing.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use corral_engine::model::SessionSummary;
use corral_engine::{Catalog, ListOptions, ListingSoFar, ScanProgress};

use crate::home::Home;
use crate::search::user;

const MANY: usize = 60;
const ALL: ListOptions = ListOptions { limit: None, include_temp: true };

fn many_id(i: usize) -> String {
    format!("5eed{i:04x}-0000-4000-8000-{i:012x}")
}

/// The fixture home with `MANY` more sessions in `/home/u/many`, newer than the fixture's
/// files: `many_id(i)`'s one message is written at 2027-01-01 00:00 + i minutes, and so is its
/// file. The oldest file holds the newest message of all (2099), so the listing's order changes
/// once it is read.
fn home_with_many() -> Home {
    let home = Home::new();
    let dir = home.claude().join("projects").join("-home-u-many");
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..MANY {
        let id = many_id(i);
        let at = if i == 0 {
            "2099-01-01T00:00:00.000Z".to_owned()
        } else {
            format!("2027-01-01T00:{i:02}:00.000Z")
        };
        let text = user(&id, "/home/u/many", &format!("u-{i}"), &format!("task {i}"))
            .replace("2026-11-30T09:00:00.000Z", &at);
        let path = dir.join(format!("{id}.jsonl"));
        std::fs::write(&path, format!("{text}\n")).unwrap();
        let mtime = SystemTime::UNIX_EPOCH + Duration::from_secs(1_798_761_600 + 60 * i as u64);
        std::fs::File::options().write(true).open(&path).unwrap().set_modified(mtime).unwrap();
    }
    home
}

fn sessions(l: &ListingSoFar) -> Vec<&SessionSummary> {
    l.listing.groups.iter().flat_map(|g| &g.sessions).collect()
}

/// A cold pass over `home` on one thread, with the listing so far taken each time the observer
/// is told how far it has read (one thread: nothing is read while the observer looks).
fn cold_pass(home: &Home) -> (Arc<Catalog>, Vec<ListingSoFar>, Vec<SessionSummary>) {
    let catalog = Arc::new(home.catalog());
    let seen: Arc<Mutex<Vec<ListingSoFar>>> = Arc::default();
    let (weak, record) = (Arc::downgrade(&catalog), Arc::clone(&seen));
    catalog.set_scan_observer(Some(Arc::new(move |p: &ScanProgress| {
        assert!(p.read >= 1 && p.read <= p.to_read, "{p:?}");
        let so_far = weak.upgrade().and_then(|c| c.listing_so_far(ALL));
        record.lock().unwrap().extend(so_far);
    })));
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let listing = one.install(|| catalog.all_sessions(ALL)).unwrap();
    let done = listing.groups.into_iter().flat_map(|g| g.sessions).collect();
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    (catalog, seen, done)
}

#[test]
fn rows_are_listed_before_their_files_are_read_and_fill_in_as_read() {
    let home = home_with_many();
    let (catalog, seen, done) = cold_pass(&home);
    assert!(!seen.is_empty(), "a pass reading {MANY}+ files publishes what it found");
    let done_ids: BTreeSet<&str> = done.iter().map(|s| s.session_id.as_str()).collect();
    assert!(done.iter().all(|s| !s.pending), "the pass's own listing has nothing pending");

    let first = &seen[0];
    let listed = sessions(first);
    let listed_ids: BTreeSet<&str> = listed.iter().map(|s| s.session_id.as_str()).collect();
    assert!(
        done_ids.is_subset(&listed_ids),
        "every session is listed from the walk: missing {:?}",
        done_ids.difference(&listed_ids).collect::<Vec<_>>()
    );
    let to_read = first.progress.to_read;
    assert!(to_read >= MANY as u64, "{:?}", first.progress);
    assert!(first.progress.bytes_to_read > 0 && first.progress.bytes_read > 0);

    // A row not read yet: its id, folder, size and time, and nothing its file would tell.
    let last_many = many_id(0);
    let pending = listed.iter().find(|s| s.session_id == last_many).unwrap();
    assert!(pending.pending);
    assert_eq!((pending.preview.as_deref(), pending.message_count), (None, 0));
    assert_eq!(pending.working_directory, "/home/u/many");
    let final_row = done.iter().find(|s| s.session_id == last_many).unwrap();
    assert_eq!(final_row.size_bytes, pending.size_bytes);
    assert_eq!(final_row.working_directory, pending.working_directory, "it stays in its group");
    assert_eq!((final_row.preview.as_deref(), final_row.message_count), (Some("task 0"), 1));

    // As files are read their rows fill in, the newest files first.
    assert_eq!(first.progress.read, 1, "the first file read is told");
    for s in &seen {
        let read: Vec<&SessionSummary> = sessions(s).into_iter().filter(|r| !r.pending).collect();
        assert!(read.iter().all(|r| r.message_count >= 1), "a row read has its facts");
        let newest = usize::try_from(s.progress.read).unwrap().min(MANY);
        let read_many: Vec<_> = read.iter().filter(|r| r.session_id.starts_with("5eed")).collect();
        assert_eq!(read_many.len(), newest, "each file read fills its row in: {:?}", s.progress);
        for r in read_many {
            let i = usize::from_str_radix(&r.session_id[4..8], 16).unwrap();
            assert!(i >= MANY - newest, "{} read before newer files", r.session_id);
            assert_eq!(r.preview.as_deref(), Some(format!("task {i}").as_str()));
        }
    }
    let last = seen.last().unwrap();
    assert_eq!(last.progress.read, last.progress.to_read, "the last file read is told");

    // Sorted on what is known: the oldest file sits last until it is read; its message is the
    // newest of all, so once the pass ends it comes first.
    let group = |s: &[&SessionSummary]| -> Vec<String> {
        s.iter()
            .filter(|r| r.working_directory == "/home/u/many")
            .map(|r| r.session_id.clone())
            .collect()
    };
    assert_eq!(group(&sessions(first)).last(), Some(&last_many));
    assert_eq!(group(&done.iter().collect::<Vec<_>>()).first(), Some(&last_many));

    // The Fleet's agents are counted from the records before their sessions are read: the
    // same agents, each with at least the sessions the complete pass gives it (a file that turns
    // out to hold no session is counted until it is read).
    let agents = catalog.agents().unwrap();
    assert!(agents.iter().any(|a| a.session_count > 0));
    let names = |a: &[corral_engine::model::AgentSummary]| -> Vec<String> {
        a.iter().map(|a| a.name.clone()).collect()
    };
    assert_eq!(names(&first.agents), names(&agents));
    for (so_far, done) in first.agents.iter().zip(&agents) {
        assert!(so_far.session_count >= done.session_count, "{so_far:?} vs {done:?}");
    }

    // The pass is over: nothing is published.
    assert!(catalog.listing_so_far(ALL).is_none());
    assert!(catalog.scan_progress().is_none());
}

#[test]
fn a_pass_with_little_to_read_publishes_nothing() {
    let home = home_with_many();
    cold_pass(&home);
    // A new process on the same data dir: every file is known from the index.
    let (_, warm, done) = cold_pass(&home);
    assert!(warm.is_empty(), "a warm pass reads nothing and publishes nothing");
    assert!(done.len() > MANY);

    // The fixture's own ~20 files: a cold pass this small ends before a window could paint.
    let small = Home::new();
    let (_, seen, done) = cold_pass(&small);
    assert!(seen.is_empty() && !done.is_empty());
}
