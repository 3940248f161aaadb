//! `damasi match` for real: tiny matches between `damasi hub` configurations that must finish
//! with every game adjudicated by the rules and written as readable PDN, and a broken engine
//! that loses every game by its illegal moves without stopping the match.

use std::path::PathBuf;
use std::process::Command;

fn temp_file(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("damasi-{}-{name}", std::process::id()))
}

#[test]
fn a_tiny_match_finishes_with_legal_games() {
    let pdn = temp_file("tiny.pdn");
    let out = Command::new(env!("CARGO_BIN_EXE_damasi"))
        .args([
            "match",
            "--engine1",
            "damasi hub --hash 2",
            "--engine2",
            "damasi hub --hash 2 --level 5",
            "--depth",
            "2",
            "--games",
            "4",
            "--max-plies",
            "200",
            "--sprt",
            "0,5",
            "--rules",
            "turkish; no-capture-limit 60",
            "--pdn",
        ])
        .arg(&pdn)
        .output()
        .expect("run damasi match");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let games: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("game ") && l.contains("/4: "))
        .collect();
    assert_eq!(games.len(), 4, "{stdout}");
    assert!(!stdout.contains("illegal"), "{stdout}");
    assert!(!stdout.contains("lost on time"), "{stdout}");
    assert!(stdout.contains("4 games"), "{stdout}");
    assert!(stdout.contains("Elo difference"), "{stdout}");
    assert!(stdout.contains("SPRT elo0=0 elo1=5"), "{stdout}");

    // The record reads back: every move legal, every game finished.
    let text = std::fs::read_to_string(&pdn).unwrap();
    let _ = std::fs::remove_file(&pdn);
    let records: Vec<_> = damasi::pdn::read_games(text.as_bytes()).collect();
    assert_eq!(records.len(), 4);
    for r in records {
        let r = r.expect("a readable game");
        assert!(r.game.outcome().is_some(), "unfinished game");
        assert!(r.tag("Termination").is_some());
    }
}

#[test]
fn an_engine_sending_illegal_moves_loses_each_game() {
    // A minimal Hub "engine" in POSIX sh that answers every search with an impossible move.
    let script = "while read -r line; do case \"$line\" in \
        hub) echo 'id name=broken'; echo wait;; \
        init) echo ready;; \
        go*) echo 'done move=1-2';; \
        quit) exit 0;; \
        esac; done";
    let openings = temp_file("openings.txt");
    std::fs::write(&openings, "# two openings\nd3-d4 d6-d5\nc3-c4 f6-f5\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_damasi"))
        .args(["match", "--engine1", "damasi hub --hash 2", "--engine2"])
        .arg(format!("sh -c \"{}\"", script.replace('"', "\\\"")))
        .args(["--name2", "broken", "--depth", "1", "--openings"])
        .arg(&openings)
        .output()
        .expect("run damasi match");
    let _ = std::fs::remove_file(&openings);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Two openings, both colours: four games, all won by damasi.
    assert!(
        stdout.contains("4 games, 4 wins, 0 draws, 0 losses"),
        "{stdout}"
    );
    assert!(
        stdout.contains("broken sent an illegal move '1-2'"),
        "{stdout}"
    );
    assert!(stdout.contains("broken lost 4 game(s)"), "{stdout}");
}

#[cfg(target_os = "linux")]
#[test]
fn an_endless_opening_file_is_refused_in_bounded_memory() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_damasi"))
        .args([
            "match",
            "--engine1",
            "damasi hub",
            "--engine2",
            "damasi hub",
        ])
        .args(["--depth", "1", "--openings", "/dev/zero"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run damasi match");
    // A watchdog, so that the test fails instead of taking the machine's memory.
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        let status = std::fs::read_to_string(format!("/proc/{}/status", child.id()));
        let kib: u64 = status
            .ok()
            .and_then(|s| {
                let line = s.lines().find(|l| l.starts_with("VmHWM:"))?.to_string();
                line.split_whitespace().nth(1)?.parse().ok()
            })
            .unwrap_or(0);
        if kib > 512 << 10 || start.elapsed() > std::time::Duration::from_secs(60) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("damasi match read /dev/zero on: {} MiB", kib >> 10);
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.contains("/dev/zero is larger than 16 MiB: not an opening set"),
        "{err}"
    );
}
