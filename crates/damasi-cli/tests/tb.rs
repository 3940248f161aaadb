//! `damasi tb build|probe|stats|verify` on the three-piece tables.

use std::io::Write;
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

    let o = damasi(&["tb", "build", "--pieces", "3", "--dir", d], "");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout(&o).contains("left"), "progress with an estimate");

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

    let o = damasi(&["tb", "verify", "--dir", d], "");
    assert!(o.status.success());
    assert_eq!(stdout(&o).lines().last(), Some("all tables verified"));

    // A damaged table is an error, not a panic.
    let file = dir.join("w0m2k-b0m1k.dtb");
    let len = std::fs::metadata(&file).unwrap().len();
    std::fs::write(&file, &std::fs::read(&file).unwrap()[..(len / 2) as usize]).unwrap();
    let o = damasi(&["tb", "probe", "--fen", "W:WKa1,Kb2:BKh8", "--dir", d], "");
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a valid table file"));
    std::fs::remove_dir_all(&dir).unwrap();
}
