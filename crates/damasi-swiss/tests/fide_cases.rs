//! Reference cases: tournaments in TRF before round R and the pairing of round R made by
//! bbpPairings v6 (`--dutch`, FIDE Dutch rules 2025). See `tests/cases/README.md`.

use damasi_swiss::{pair_next_round, Pairing, Tournament};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases")
}

/// All case names (`tS-rR`), sorted.
fn case_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(cases_dir())
        .expect("tests/cases")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".trf").map(str::to_string)
        })
        .collect();
    names.sort();
    names
}

/// Runs one case: `Ok(())` when the pairing matches, else a description of the difference.
fn run_case(name: &str) -> Result<(), String> {
    let dir = cases_dir();
    let trf =
        std::fs::read_to_string(dir.join(format!("{name}.trf"))).map_err(|e| e.to_string())?;
    let expected_text =
        std::fs::read_to_string(dir.join(format!("{name}.pairs"))).map_err(|e| e.to_string())?;
    let expected = Pairing::from_pairs_format(&expected_text).map_err(|e| e.to_string())?;
    let t = Tournament::from_trf(&trf).map_err(|e| e.to_string())?;
    let got = pair_next_round(&t).map_err(|e| e.to_string())?;
    let a: BTreeSet<_> = got.pairs.iter().copied().collect();
    let b: BTreeSet<_> = expected.pairs.iter().copied().collect();
    if a == b && got.bye == expected.bye {
        Ok(())
    } else {
        let extra: Vec<_> = a.difference(&b).collect();
        let missing: Vec<_> = b.difference(&a).collect();
        Err(format!(
            "ours not theirs {extra:?}, theirs not ours {missing:?}, bye {:?} vs {:?}",
            got.bye, expected.bye
        ))
    }
}

fn run_all() -> (Vec<String>, Vec<(String, String)>) {
    let mut ok = Vec::new();
    let mut bad = Vec::new();
    for name in case_names() {
        match run_case(&name) {
            Ok(()) => ok.push(name),
            Err(e) => bad.push((name, e)),
        }
    }
    (ok, bad)
}

#[test]
fn every_reference_case_matches() {
    let (ok, bad) = run_all();
    let total = ok.len() + bad.len();
    println!("{} of {} reference pairings match", ok.len(), total);
    for (name, e) in &bad {
        println!("  {name}: {e}");
    }
    assert_eq!(total, 295, "expected 295 cases");
    assert!(
        bad.is_empty(),
        "{} cases differ: {:?}",
        bad.len(),
        bad.iter().map(|b| &b.0).collect::<Vec<_>>()
    );
}
