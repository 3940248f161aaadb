//! `damasi swiss pair --trf FILE` as an arbiter runs it: the pairing of a reference case (made
//! by bbpPairings, a FIDE-endorsed engine) printed in the same format, and a clear error for a
//! broken file.

use std::path::PathBuf;
use std::process::Command;

fn cases() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../damasi-swiss/tests/cases")
}

#[test]
fn pair_prints_the_reference_pairing_of_a_tournament_file() {
    for case in ["t5001-r3", "t5001-r1"] {
        let trf = cases().join(format!("{case}.trf"));
        let o = Command::new(env!("CARGO_BIN_EXE_damasi"))
            .args(["swiss", "pair", "--trf"])
            .arg(&trf)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let expected = std::fs::read_to_string(cases().join(format!("{case}.pairs"))).unwrap();
        let lines = |t: &str| {
            let mut v: Vec<String> = t.lines().map(|l| l.trim().to_string()).collect();
            v[1..].sort();
            v
        };
        assert_eq!(
            lines(&String::from_utf8(o.stdout).unwrap()),
            lines(&expected),
            "{case}"
        );
    }
}

#[test]
fn a_broken_file_is_a_clear_error() {
    let dir = std::env::temp_dir().join(format!("damasi-swiss-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.trf");
    std::fs::write(
        &bad,
        "012 A tournament\n001    1      Someone   notarating  x\n",
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_damasi"))
        .args(["swiss", "pair", "--trf"])
        .arg(&bad)
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("bad.trf") && err.contains("line 2"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}
