//! `damasi berger --players N --round R [--double]`: a round of the Berger tables (FIDE C.05
//! Annex 1) printed as `damasi swiss pair` prints, and clear errors for numbers outside them.

use std::process::Command;

fn damasi(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_damasi"))
        .args(args)
        .output()
        .unwrap()
}

fn prints(args: &[&str], expected: &str) {
    let o = damasi(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(String::from_utf8(o.stdout).unwrap(), expected, "{args:?}");
}

#[test]
fn a_round_of_the_published_tables() {
    // 10 players, round 2 of the table: 10-6, 7-5, 8-4, 9-3, 1-2.
    prints(
        &["berger", "--players", "10", "--round", "2"],
        "5\n10 6\n7 5\n8 4\n9 3\n1 2\n",
    );
    // 8 players, round 7: 4-8, 5-3, 6-2, 7-1.
    prints(
        &["berger", "--players", "8", "--round", "7"],
        "4\n4 8\n5 3\n6 2\n7 1\n",
    );
}

#[test]
fn an_odd_number_of_players_has_a_bye() {
    // 7 players use the table of 8; round 4 is 8-6, 7-5, 1-4, 2-3: player 6 sits out.
    prints(
        &["berger", "--players", "7", "--round", "4"],
        "4\n7 5\n1 4\n2 3\n6 0\n",
    );
}

#[test]
fn a_double_round_robin() {
    // 4 players: the first cycle plays the table's rounds 1, 3, 2; the second cycle the
    // table's rounds 1, 2, 3 with colours reversed.
    prints(
        &["berger", "--players", "4", "--round", "2", "--double"],
        "2\n2 4\n3 1\n",
    );
    prints(
        &["berger", "--players", "4", "--round", "3", "--double"],
        "2\n4 3\n1 2\n",
    );
    prints(
        &["berger", "--players", "4", "--round", "4", "--double"],
        "2\n4 1\n3 2\n",
    );
    prints(
        &["berger", "--players", "4", "--round", "6", "--double"],
        "2\n4 2\n1 3\n",
    );
}

#[test]
fn numbers_outside_the_tables_are_clear_errors() {
    for (args, words) in [
        (&["--players", "25", "--round", "1"][..], "3 to 24 players"),
        (&["--players", "2", "--round", "1"][..], "3 to 24 players"),
        (&["--players", "6", "--round", "6"][..], "rounds 1 to 5"),
        (&["--players", "6", "--round", "0"][..], "rounds 1 to 5"),
        (
            &["--players", "5", "--round", "11", "--double"][..],
            "rounds 1 to 10",
        ),
    ] {
        let mut all = vec!["berger"];
        all.extend_from_slice(args);
        let o = damasi(&all);
        assert_eq!(o.status.code(), Some(1), "{all:?}");
        assert!(o.stdout.is_empty(), "{all:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.starts_with("damasi: error:") && err.contains(words) && !err.contains("panicked"),
            "{all:?}: {err}"
        );
    }
}
