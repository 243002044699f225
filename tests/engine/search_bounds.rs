//! Search counts: exact up to a bound of matching messages, lower bounds past it, and the same
//! sessions ranked first either way (past the bound the best come from a top-k search).

use std::io::Write;

use corral_engine::Catalog;
use corral_engine::search::{
    EXACT_UP_TO, SearchIndex, SearchOptions, SearchResults, UpdateOptions,
};

use crate::home::{Home, sid};
use crate::search::user;

/// The fixture home with `orbital` in many messages of three sessions, and once — with nothing
/// else around it, so it scores best — in a fourth (e1). 21 matching messages in all.
fn orbital_home() -> Home {
    let home = Home::new();
    let filler = "orbital insertion planning notes with many other words around it to dilute the \
                  score of the one word that matters for this query in a long message";
    for (folder, short, cwd, n) in [
        ("-home-u-scratch", "d1", "/home/u/scratch", 8),
        ("-home-u-proj-other", "b1", "/home/u/proj-other", 7),
        ("-home-u-projects-alpha", "a3", "/home/u/projects/alpha", 5),
        ("-home-u-a-b-c", "e1", "/home/u/a-b/c", 1),
    ] {
        let id = sid(short);
        let mut f =
            std::fs::OpenOptions::new().append(true).open(home.transcript(folder, short)).unwrap();
        for i in 0..n {
            let text = if short == "e1" { "orbital" } else { filler };
            writeln!(f, "{}", user(&id, cwd, &format!("u-{short}-orbital-{i}"), text)).unwrap();
        }
    }
    home
}

/// The home's search index, brought up to date.
fn indexed(home: &Home) -> (Catalog, SearchIndex) {
    let catalog = home.catalog();
    let index = SearchIndex::open(&home.data).unwrap();
    index.update(&catalog, UpdateOptions::default(), &mut |_| {}).unwrap();
    (catalog, index)
}

/// `q` with its counts exact up to `exact_up_to` matches.
fn search(index: &SearchIndex, catalog: &Catalog, q: &str, exact_up_to: u64) -> SearchResults {
    let opts = SearchOptions { exact_up_to, ..SearchOptions::default() };
    index.search(catalog, q, opts).unwrap_or_else(|e| panic!("{q}: {e}"))
}

#[test]
fn counts_are_exact_up_to_the_bound_and_lower_bounds_past_it() {
    let home = orbital_home();
    let (catalog, index) = indexed(&home);
    assert_eq!(SearchOptions::default().exact_up_to, EXACT_UP_TO);
    assert_eq!(EXACT_UP_TO, 10_000);

    let exact = search(&index, &catalog, "orbital", EXACT_UP_TO);
    assert!(exact.totals_exact, "{exact:?}");
    assert_eq!((exact.total_matches, exact.total_sessions), (21, 4));
    let counts: Vec<(String, u64)> =
        exact.sessions.iter().map(|s| (s.session_id.clone(), s.matches)).collect();
    for (short, n) in [("d1", 8), ("b1", 7), ("a3", 5), ("e1", 1)] {
        assert!(counts.contains(&(sid(short), n)), "{short}: {counts:?}");
    }
    // Exactly at the bound is still exact.
    assert!(search(&index, &catalog, "orbital", 21).totals_exact);

    let bounded = search(&index, &catalog, "orbital", 4);
    assert!(!bounded.totals_exact, "{bounded:?}");
    assert!(bounded.total_matches >= 4 && bounded.total_matches <= 21, "{bounded:?}");
    assert!(bounded.total_sessions <= 4, "{bounded:?}");
    for s in &bounded.sessions {
        let real = counts.iter().find(|(id, _)| *id == s.session_id).unwrap().1;
        assert!(s.matches >= 1 && s.matches <= real, "{}: {} of {real}", s.session_id, s.matches);
        assert!(!s.hits.is_empty() && s.hits.len() <= 3, "{s:?}");
    }
    // The best-scoring message is found however far into the index it is: the session ranked
    // first is the same with or without the bound.
    assert_eq!(exact.sessions[0].session_id, sid("e1"), "the lone word scores best");
    assert_eq!(bounded.sessions[0].session_id, exact.sessions[0].session_id);

    // A bound of one walks one match: the rest come from the top-k search, which reaches
    // every session here, ranked as without the bound.
    let one = search(&index, &catalog, "orbital", 1);
    assert!(!one.totals_exact);
    let order =
        |r: &SearchResults| r.sessions.iter().map(|s| s.session_id.clone()).collect::<Vec<_>>();
    assert_eq!(order(&one), order(&exact));
}

/// A phrase, a filter, an excluded word and a prefix past the bound: their best messages are
/// found among the best of their plain words and checked against the whole query, so the
/// ranking is the one without the bound, and nothing the query excludes is shown.
#[test]
fn phrases_and_filters_past_the_bound_rank_as_without_it() {
    let home = orbital_home();
    let (catalog, index) = indexed(&home);
    let order = |r: &SearchResults| {
        r.sessions.iter().map(|s| (s.session_id.clone(), s.hits.len())).collect::<Vec<_>>()
    };
    for q in [
        "\"orbital insertion\"",
        "orbital role:user",
        "orbital insert*",
        "orbital -zzzz",
        "orbital dir:scratch",
    ] {
        let at = |bound: u64| search(&index, &catalog, q, bound);
        let (exact, one) = (at(EXACT_UP_TO), at(1));
        assert!(exact.totals_exact && !exact.sessions.is_empty(), "{q}: {exact:?}");
        assert!(!one.totals_exact, "{q}");
        assert_eq!(order(&one), order(&exact), "{q}");
    }
    let excluded = |q: &str| {
        let r = search(&index, &catalog, q, 1);
        r.sessions.iter().map(|s| s.session_id.clone()).collect::<Vec<_>>()
    };
    // One match is within a bound of one: exact.
    assert_eq!(excluded("orbital -insertion"), vec![sid("e1")]);
    assert_eq!(excluded("-insertion orbital"), vec![sid("e1")]);
    assert_eq!(excluded("orbital dir:scratch"), vec![sid("d1")]);
}

/// Past the bound a session's name still weighs in its ranking, as without the bound.
#[test]
fn names_still_weigh_past_the_bound() {
    let home = orbital_home();
    corral_engine::renames::rename(&home.catalog(), &sid("a3"), Some("Orbital review")).unwrap();
    let (catalog, index) = indexed(&home);
    let at = |bound: u64| search(&index, &catalog, "orbital", bound);
    let (exact, one) = (at(EXACT_UP_TO), at(1));
    let named = |r: &SearchResults| {
        r.sessions.iter().map(|s| (s.session_id.clone(), s.name_match)).collect::<Vec<_>>()
    };
    assert!(named(&exact).contains(&(sid("a3"), true)), "{:?}", named(&exact));
    assert!(!one.totals_exact);
    assert_eq!(named(&one), named(&exact));
}
