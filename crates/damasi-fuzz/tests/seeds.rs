//! Every fuzz target has seeds, and passes each of them: the seeds are the first inputs of
//! every smoke and libFuzzer run, and a regression caught by fuzzing is kept as a seed.

use damasi_fuzz::{smoke, TARGETS};

#[test]
fn every_target_has_seeds_and_passes_them() {
    for t in TARGETS {
        let dir = smoke::seed_dir(t.name);
        let seeds = smoke::load_seeds(&dir);
        assert!(
            seeds.iter().any(|s| !s.is_empty()),
            "{}: no seeds in {}",
            t.name,
            dir.display()
        );
        for s in &seeds {
            (t.run)(s);
        }
    }
}

#[test]
fn every_target_has_a_libfuzzer_entry() {
    let root = smoke::repository_root().join("fuzz");
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    for t in TARGETS {
        let entry = root.join("fuzz_targets").join(format!("{}.rs", t.name));
        let text =
            std::fs::read_to_string(&entry).unwrap_or_else(|e| panic!("{}: {e}", entry.display()));
        assert!(
            text.contains(&format!("damasi_fuzz::{}(data)", t.name)),
            "{}",
            entry.display()
        );
        assert!(
            manifest.contains(&format!("name = \"{}\"", t.name)),
            "{} missing from fuzz/Cargo.toml",
            t.name
        );
    }
}
