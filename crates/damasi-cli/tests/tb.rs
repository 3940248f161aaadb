//! `damasi tb build|probe|stats|verify` on the three-piece tables.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Output, Stdio};

fn damasi(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_damasi"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run damasi");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().expect("damasi ends")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8")
}

#[test]
fn build_probe_stats_and_verify_three_pieces() {
    let dir = std::env::temp_dir().join(format!("damasi-cli-tb-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();

    // A checkpoint after every unit (the pairs with a man have several).
    let args = [
        "tb",
        "build",
        "--pieces",
        "3",
        "--dir",
        d,
        "--checkpoint-minutes",
        "0",
    ];
    let o = damasi(&args, "");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let built = stdout(&o);
    assert!(built.contains("left"), "progress with an estimate");
    assert!(built.contains("checkpoint saved"), "{built}");

    let o = damasi(&["tb", "probe", "--fen", "W:WKd4,Ka1:BKd6", "--dir", d], "");
    assert_eq!(stdout(&o).lines().last(), Some("win"));
    let o = damasi(&["tb", "probe", "--fen", "B:WKd4,Ka1:BKd6", "--dir", d], "");
    assert_eq!(
        stdout(&o).lines().last(),
        Some("draw"),
        "d6 takes d4: one piece each"
    );

    // Standard input: one answer per line; a bad line is reported and the rest go on.
    let o = damasi(
        &["tb", "probe", "--dir", d],
        "W:WKa1,Kb2:BKh8\nnot a fen\nW:Wd4:Bd5\n",
    );
    assert_eq!(
        stdout(&o),
        "W:WKa1,Kb2:BKh8 draw\nW:Wd4:Bd5 draw\n",
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("line 2"));
    assert!(!o.status.success());

    // `damasi tb probe < many.txt | head -1`: once the reader has gone, the output ends
    // quietly (no panic, no error). 210 kB of answers cannot all fit in the pipe first.
    let mut child = Command::new(env!("CARGO_BIN_EXE_damasi"))
        .args(["tb", "probe", "--dir", d])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run damasi");
    let mut input = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        // Fails with a broken pipe once damasi has stopped reading: that is expected.
        let _ = input.write_all("W:WKa1,Kb2:BKh8\n".repeat(10_000).as_bytes());
    });
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert_eq!(first, "W:WKa1,Kb2:BKh8 draw\n");
    let o = child.wait_with_output().expect("damasi ends");
    feeder.join().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        o.status.success() && err.is_empty(),
        "{:?}: {err}",
        o.status
    );

    let o = damasi(&["tb", "stats", "--dir", d], "");
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "wm bm wk bk positions win draw loss");
    // Every three-piece signature: sides of 1 and 2 pieces, 2 * 3 each way.
    assert_eq!(lines.len(), 1 + 12, "{out}");
    // Two kings against one king: wm bm wk bk = 0 0 2 1, C(64,2) * 62 placements.
    let kk_k = lines.iter().find(|l| l.starts_with("0 0 2 1 ")).unwrap();
    let f: Vec<u64> = kk_k.split(' ').map(|x| x.parse().unwrap()).collect();
    assert_eq!(f[4], 124_992);
    assert_eq!(f[5] + f[6] + f[7], f[4]);
    // The build printed the same statistics, counted while solving.
    let mut counted: Vec<&str> = built
        .lines()
        .filter_map(|l| l.strip_prefix("stats "))
        .collect();
    let mut recounted = lines[1..].to_vec();
    counted.sort_unstable();
    recounted.sort_unstable();
    assert_eq!(counted, recounted);

    // One piece count: the same lines; a count with no tables is an error that says so.
    let o = damasi(&["tb", "stats", "--pieces", "3", "--dir", d], "");
    assert_eq!(stdout(&o), out);
    // Chosen tables: their lines only; a table that is not there is an error naming it.
    let two = ["--signature", "w0m2k-b0m1k", "--signature", "w0m1k-b0m2k"];
    let o = damasi(&[&["tb", "stats", "--dir", d][..], &two].concat(), "");
    let chosen: Vec<String> = stdout(&o).lines().skip(1).map(String::from).collect();
    let want: Vec<String> = lines[1..]
        .iter()
        .filter(|l| l.starts_with("0 0 2 1 ") || l.starts_with("0 0 1 2 "))
        .map(|l| l.to_string())
        .collect();
    assert_eq!((chosen.len(), &chosen), (2, &want));
    let o = damasi(
        &["tb", "verify", "--signature", "w2m0k-b0m2k", "--dir", d],
        "",
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no table w2m0k-b0m2k in"));
    let o = damasi(&["tb", "stats", "--signature", "w9m9k", "--dir", d], "");
    assert_eq!(o.status.code(), Some(2), "a bad signature is a usage error");
    let o = damasi(&["tb", "stats", "--pieces", "4", "--dir", d], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no tables with 4 pieces"));

    let o = damasi(&["tb", "verify", "--dir", d], "");
    assert!(o.status.success());
    assert_eq!(stdout(&o).lines().last(), Some("all tables verified"));

    // A damaged table is an error, not a panic.
    let file = dir.join("w0m2k-b0m1k.dtb");
    let len = std::fs::metadata(&file).unwrap().len();
    std::fs::write(&file, &std::fs::read(&file).unwrap()[..(len / 2) as usize]).unwrap();
    let o = damasi(&["tb", "probe", "--fen", "W:WKa1,Kb2:BKh8", "--dir", d], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a valid tablebase file"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The line of `damasi analyze`'s output that starts with `prefix`.
fn line_with<'a>(text: &'a str, prefix: &str) -> &'a str {
    text.lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no '{prefix}' line in {text}"))
}

#[test]
fn analyze_and_hub_use_the_tables() {
    let dir = std::env::temp_dir().join(format!("damasi-cli-tb-use-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let o = damasi(&["tb", "build", "--pieces", "3", "--dir", d], "");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    // Two kings against one: the search alone sees White winning, the tables a draw.
    let kk_k = ["analyze", "--fen", "W:WKa1,Kb2:BKh8", "--depth", "8"];
    let o = damasi(&[&kk_k[..], &["--tb-dir", "none"]].concat(), "");
    let score: f64 = line_with(&stdout(&o), "score ")
        .split(['(', ' '])
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    assert!(score >= 1.0, "{}", stdout(&o));
    let o = damasi(&[&kk_k[..], &["--tb-dir", d]].concat(), "");
    let out = stdout(&o);
    assert!(
        out.starts_with("using endgame tables up to 3 pieces in "),
        "{out}"
    );
    assert_eq!(line_with(&out, "score "), "score +0.00 (+0.00 men)");
    // A directory without tables, named explicitly, is an error.
    let empty = dir.join("empty");
    let o = damasi(
        &[&kk_k[..], &["--tb-dir", empty.to_str().unwrap()]].concat(),
        "",
    );
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("no endgame tables in"));

    // The hub: the parameter names the directory, and the search scores the draw.
    let pos =
        damasi::hub::write_hub_position(&damasi::Position::from_fen("W:WKa1,Kb2:BKh8").unwrap());
    let script = format!("hub\ninit\npos pos={pos}\nlevel depth=8\ngo think\n");
    let o = damasi(&["hub", "--tb-dir", d], &script);
    let out = stdout(&o);
    assert!(
        out.contains(&format!("param name=tablebases value={d} type=string")),
        "{out}"
    );
    let last_info = out.lines().rfind(|l| l.starts_with("info depth=")).unwrap();
    assert!(last_info.contains(" score=0.00 "), "{out}");
    assert!(
        out.lines().last().unwrap().starts_with("done move="),
        "{out}"
    );
    let o = damasi(&["hub", "--tb-dir", "none"], &script);
    let out = stdout(&o);
    assert!(
        out.contains("param name=tablebases value=none type=string"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn play_hint_keeps_the_value_the_tables_know() {
    let dir = std::env::temp_dir().join(format!("damasi-cli-tb-hint-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.to_str().unwrap();
    let o = damasi(&["tb", "build", "--pieces", "3", "--dir", d], "");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    // A lone king against two draws, unless it steps next to c3 with the square behind free.
    let fen = "W:WKb1:BKc3,Kh8";
    let args = [
        "play", "--vs", "human", "--fen", fen, "--time", "0.2", "--tb-dir", d,
    ];
    let out = stdout(&damasi(&args, "hint\nquit\n"));
    let hint = line_with(&out, "hint: ");
    assert!(
        hint.ends_with(" (endgame tables: a draw with best play)"),
        "{out}"
    );
    let word = hint.split_whitespace().nth(1).unwrap();
    let pos = damasi::Position::from_fen(fen).unwrap();
    let m = pos.parse_move(word).unwrap();
    let after = pos.play(&m).to_fen();
    let o = damasi(&["tb", "probe", "--dir", d, "--fen", &after], "");
    assert_eq!(stdout(&o).lines().last(), Some("draw"), "{hint}");

    // Without tables the hint says nothing about them.
    let args = [
        "play", "--vs", "human", "--fen", fen, "--time", "0.2", "--tb-dir", "none",
    ];
    let out = stdout(&damasi(&args, "hint\nquit\n"));
    assert!(!line_with(&out, "hint: ").contains("tables"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
