//! `damasi play` driven through a pipe, one line at a time, as a script would.

use std::io::{Read, Write};
use std::process::{Command, Stdio};

fn play(args: &[&str], input: &str) -> String {
    play_bytes(args, input.as_bytes())
}

/// Runs `damasi play ARGS` with `input` on stdin; checks it exits cleanly, returns stdout.
fn play_bytes(args: &[&str], input: &[u8]) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_damasi"))
        .arg("play")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start damasi play");
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn two_people_play_capture_undo_save_and_load() {
    let dir = std::env::temp_dir().join(format!("damasi-play-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("game.pdn");
    let script = format!(
        "d3-d4\ne6-e5\nd4-d5\nd5-d6\nmoves\nz9-z8\nd6xd4\nfen\nundo\nfen\nredo\nsave {f}\nnew\nfen\nload {f}\nfen\nboard\nquit\nd2-d3\n",
        f = file.display()
    );
    let out = play(&["--vs", "human"], &script);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "White plays d3-d4");
    assert_eq!(lines[1], "Black plays e6-e5");
    assert_eq!(lines[2], "White plays d4-d5");
    // Black must capture d5 (e5xc5 or d6xd4): the quiet move is refused with the legal ones.
    assert!(
        lines[3].starts_with("error: 'd5-d6' is not legal"),
        "{}",
        lines[3]
    );
    assert!(
        lines[3].contains("d6xd4") && lines[3].contains("e5xc5"),
        "{}",
        lines[3]
    );
    assert_eq!(
        lines[4].split(' ').collect::<Vec<_>>().len(),
        2,
        "two captures: {}",
        lines[4]
    );
    assert!(
        lines[5].starts_with("error: 'z9-z8' is not a move"),
        "{}",
        lines[5]
    );
    assert_eq!(lines[6], "Black plays d6xd4");
    let after = "W:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,e3,f3,g3,h3:Bd4,e5,a6,b6,c6,f6,g6,h6,a7,b7,c7,d7,e7,f7,g7,h7";
    assert_eq!(lines[7], after);
    assert_eq!(lines[8], "undone");
    assert!(lines[9].starts_with("B:"), "{}", lines[9]);
    assert_eq!(lines[10], "redo d6xd4");
    assert!(lines[11].starts_with("saved "));
    assert_eq!(lines[12], "new game");
    assert!(
        lines[13].starts_with("W:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,c3,d3"),
        "{}",
        lines[13]
    );
    assert!(lines[14].ends_with(": 4 plies"), "{}", lines[14]);
    assert_eq!(lines[15], after);
    assert!(lines[16].contains("a b c d e f g h"));
    // Nothing after `quit` is read.
    assert!(!out.contains("d2-d3"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_engine_answers_with_a_legal_move() {
    let out = play(&["--level", "2", "--time", "0.05"], "c3-c4\nfen\nquit\n");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "White plays c3-c4");
    let reply = lines[1]
        .strip_prefix("Black (engine) plays ")
        .expect(lines[1]);
    let after_c4 =
        damasi::Position::start().play(&damasi::Position::start().parse_move("c3-c4").unwrap());
    assert!(after_c4.parse_move(reply).is_ok(), "{reply}");
    assert!(lines[2].starts_with("W:"), "{}", lines[2]);
}

#[test]
fn the_engine_moves_first_when_playing_white() {
    let out = play(
        &["--color", "black", "--level", "1", "--time", "0.05"],
        "resign\nquit\n",
    );
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("White (engine) plays "), "{out}");
    assert_eq!(
        lines[1], "game over: Black resigns: White wins (1-0)",
        "{out}"
    );
}

#[test]
fn a_time_that_is_not_a_number_is_refused_without_a_panic() {
    let out = Command::new(env!("CARGO_BIN_EXE_damasi"))
        .args(["play", "--time", "NaN"])
        .stdin(Stdio::null())
        .output()
        .expect("run damasi play");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("--time") && !err.contains("panicked"), "{err}");
}

#[test]
fn a_line_that_is_not_utf8_is_refused_and_the_session_goes_on() {
    // "d3-d4" typed in a Latin-1 terminal with a stray 0xE9 ('é') in front.
    let out = play_bytes(&["--vs", "human"], b"\xe9d3-d4\nd3-d4\nquit\n");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("error: "), "{out}");
    assert!(lines[0].contains("is not a move"), "{out}");
    assert_eq!(lines.get(1), Some(&"White plays d3-d4"), "{out}");
}

/// Peak resident memory of process `pid` in KiB (`VmHWM`), on Linux.
fn peak_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Runs `damasi play --vs human`, writes `input` (from another thread, so a child that
/// answers early cannot block it), and reads its output until a FEN line comes. A watchdog
/// kills the child if its memory passes `kill_at_mib` or 60 s pass (the test then fails
/// instead of taking the machine's memory). Returns the output up to and including the FEN
/// line and the child's peak memory in MiB, read while it still runs; then ends it with
/// `quit` and checks that it exits cleanly.
fn play_until_fen(input: Vec<u8>, kill_at_mib: u64) -> (String, u64) {
    use std::io::BufRead;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    let mut child = Command::new(env!("CARGO_BIN_EXE_damasi"))
        .args(["play", "--vs", "human"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start damasi play");
    let pid = child.id();
    let done = Arc::new(AtomicBool::new(false));
    let killed = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let (done, killed) = (done.clone(), killed.clone());
        std::thread::spawn(move || {
            let start = std::time::Instant::now();
            while !done.load(Ordering::SeqCst) {
                let big = peak_kib(pid).is_some_and(|k| k > kill_at_mib << 10);
                if big || start.elapsed() > std::time::Duration::from_secs(60) {
                    killed.store(true, Ordering::SeqCst);
                    let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        })
    };
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
        stdin
    });
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut out = String::new();
    let mut line = Vec::new();
    // Lines are read in bounded pieces: the test must not take the memory it checks for.
    loop {
        line.clear();
        let n = (&mut stdout)
            .take(1 << 20)
            .read_until(b'\n', &mut line)
            .unwrap();
        if n == 0 {
            break;
        }
        let text = String::from_utf8_lossy(&line);
        out.push_str(&text);
        if text.starts_with("W:") || text.starts_with("B:") {
            break;
        }
    }
    let peak = peak_kib(pid).unwrap_or(0) >> 10;
    done.store(true, Ordering::SeqCst);
    watchdog.join().unwrap();
    assert!(
        !killed.load(Ordering::SeqCst),
        "damasi play took more than {kill_at_mib} MiB or 60 s; output so far: {} bytes",
        out.len()
    );
    let mut stdin = writer.join().unwrap();
    stdin.write_all(b"quit\n").unwrap();
    drop(stdin);
    std::io::copy(&mut stdout, &mut std::io::sink()).unwrap();
    assert!(child.wait().unwrap().success());
    (out, peak)
}

#[cfg(target_os = "linux")]
#[test]
fn a_huge_line_is_refused_unechoed_in_bounded_memory_and_the_session_goes_on() {
    let mut input = b"d3-d4\n".to_vec();
    input.extend(std::iter::repeat_n(b'x', 64 << 20));
    input.extend_from_slice(b"\nd6-d5\nfen\n");
    let (out, peak_mib) = play_until_fen(input, 1024);
    let lines: Vec<&str> = out.lines().collect();
    assert!(out.len() < 1000, "{} bytes of output", out.len());
    assert_eq!(lines[0], "White plays d3-d4", "{out}");
    assert_eq!(
        lines[1], "error: line too long (more than 4096 bytes), ignored",
        "{out}"
    );
    assert_eq!(lines[2], "Black plays d6-d5", "{out}");
    assert!(lines[3].starts_with("W:"), "{out}");
    assert!(peak_mib < 48, "damasi play peaked at {peak_mib} MiB");
}

#[cfg(target_os = "linux")]
#[test]
fn loading_an_endless_file_stops_with_a_clear_error_and_the_session_goes_on() {
    let (out, peak_mib) = play_until_fen(b"load /dev/zero\nd3-d4\nfen\n".to_vec(), 1024);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0], "error: /dev/zero: no whole game in its first 64 MiB; load reads no further",
        "{out}"
    );
    assert_eq!(lines[1], "White plays d3-d4", "{out}");
    assert!(lines[2].starts_with("B:"), "{out}");
    assert!(peak_mib < 48, "damasi play peaked at {peak_mib} MiB");
}

#[test]
fn a_large_file_whose_first_game_comes_early_loads() {
    let dir = std::env::temp_dir().join(format!("damasi-play-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("big.pdn");
    let mut text = b"[Event \"one\"]\n1. d3-d4 e6-e5 *\n\n".to_vec();
    // More than `load` reads: another game whose movetext is one endless line.
    text.extend_from_slice(b"[Event \"two\"]\n1. ");
    text.extend(std::iter::repeat_n(b'x', 80 << 20));
    std::fs::write(&file, &text).unwrap();
    let out = play(
        &["--vs", "human"],
        &format!("load {}\nfen\n", file.display()),
    );
    std::fs::remove_dir_all(&dir).ok();
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].ends_with("big.pdn: 2 plies"), "{out}");
    assert!(lines[1].starts_with("W:"), "{out}");
}
