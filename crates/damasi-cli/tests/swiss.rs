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

fn damasi(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_damasi"))
        .args(args)
        .output()
        .unwrap()
}

/// A reference tournament (before its round 3) imported into a server's store and exported
/// again reads the same, and the exported file's next pairing is the reference one (made by
/// bbpPairings): nothing of the tournament was lost on the way.
#[test]
fn a_tournament_imported_and_exported_pairs_as_the_reference() {
    let dir = std::env::temp_dir().join(format!("damasi-swiss-store-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let data = dir.to_str().unwrap();
    // Account names cannot hold spaces: "Test0001 Player0001" becomes "T0001", padded to the
    // same columns.
    let text = std::fs::read_to_string(cases().join("t5001-r3.trf")).unwrap();
    let mut renamed = String::new();
    let mut names = Vec::new();
    for line in text.lines() {
        if let Some(at) = line.find("Test0") {
            let n = &line[at + 4..at + 8];
            let name = format!("T{n}");
            renamed.push_str(&line[..at]);
            renamed.push_str(&format!("{name:<19}"));
            renamed.push_str(&line[at + 19..]);
            names.push(name);
        } else {
            renamed.push_str(line);
        }
        renamed.push('\n');
    }
    let trf = dir.join("before-r3.trf");
    std::fs::write(&trf, &renamed).unwrap();
    let trf = trf.to_str().unwrap();

    // A player without an account: refused, naming who.
    for name in ["org", &names[0]] {
        assert!(damasi(&["user", "add", name, "--data-dir", data])
            .status
            .success());
    }
    let o = damasi(&[
        "swiss",
        "import",
        "--trf",
        trf,
        "--organiser",
        "org",
        "--data-dir",
        data,
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("no account") && err.contains(&names[1]),
        "{err}"
    );

    for name in &names[1..] {
        assert!(damasi(&["user", "add", name, "--data-dir", data])
            .status
            .success());
    }
    let o = damasi(&[
        "swiss",
        "import",
        "--trf",
        trf,
        "--organiser",
        "org",
        "--minutes",
        "5",
        "--increment",
        "3",
        "--data-dir",
        data,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let id = String::from_utf8(o.stdout).unwrap().trim().to_string();
    let out = dir.join("exported.trf");
    let o = damasi(&[
        "swiss",
        "export",
        &id,
        "--out",
        out.to_str().unwrap(),
        "--data-dir",
        data,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let before = damasi_swiss::Tournament::from_trf(&renamed).unwrap();
    let after =
        damasi_swiss::Tournament::from_trf(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(after.players.len(), before.players.len());
    for (a, b) in after.players.iter().zip(&before.players) {
        assert_eq!((a.number, &a.name, a.rating), (b.number, &b.name, b.rating));
        assert_eq!(a.rounds, b.rounds, "player {}", a.number);
        assert_eq!(a.points_tenths, b.points_tenths, "player {}", a.number);
    }
    let o = damasi(&["swiss", "pair", "--trf", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let expected = std::fs::read_to_string(cases().join("t5001-r3.pairs")).unwrap();
    let sorted = |t: &str| {
        let mut v: Vec<String> = t.lines().map(|l| l.trim().to_string()).collect();
        v[1..].sort();
        v
    };
    assert_eq!(
        sorted(&String::from_utf8(o.stdout).unwrap()),
        sorted(&expected)
    );

    let o = damasi(&["swiss", "export", "nothing", "--data-dir", data]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no tournament nothing"));
    std::fs::remove_dir_all(&dir).unwrap();
}
