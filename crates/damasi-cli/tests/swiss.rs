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

/// A TRF file of `n` players, none paired yet (as the reference cases write them).
fn trf_of(n: usize) -> String {
    let mut t = String::from("012 A big open\nXXC white1\n");
    for i in 1..=n {
        t.push_str(&format!(
            "001 {i:>4}      Test{i:04} Player{i:04}               {:>4}                             0.0 {i:>4}\n",
            2800 - (i % 1500)
        ));
    }
    t.push_str("XXR 9\n");
    t
}

/// More players than a server's Swiss may have (2,000) is refused at once with a clear
/// error, before any pairing: 9,000 players took 9.9 GB and two minutes without an answer.
#[test]
fn a_file_of_too_many_players_is_refused_before_pairing() {
    let dir = std::env::temp_dir().join(format!("damasi-swiss-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big.trf");
    std::fs::write(&big, trf_of(2001)).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_damasi"))
        .args(["swiss", "pair", "--trf"])
        .arg(&big)
        .output()
        .unwrap();
    assert!(!o.status.success(), "paired 2,001 players");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("big.trf") && err.contains("2001 players") && err.contains("at most 2000"),
        "{err}"
    );
    // A small file of the same shape is paired.
    let small = dir.join("small.trf");
    std::fs::write(&small, trf_of(12)).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_damasi"))
        .args(["swiss", "pair", "--trf"])
        .arg(&small)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().next(), Some("6"));
    std::fs::remove_dir_all(&dir).unwrap();
}
