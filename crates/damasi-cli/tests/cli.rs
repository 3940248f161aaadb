//! The rules commands as later issues and checks call them: `perft`, `moves`, `show`.

use std::process::{Command, Output};

fn damasi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_damasi"))
        .args(args)
        .output()
        .expect("run damasi")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).expect("utf-8")
}

#[test]
fn perft_last_line_is_the_node_count() {
    let o = damasi(&["perft", "--depth", "4"]);
    assert!(o.status.success());
    assert_eq!(stdout(&o).lines().last(), Some("7538"));
    let o = damasi(&[
        "perft",
        "--fen",
        "startpos",
        "--depth",
        "5",
        "--threads",
        "2",
    ]);
    assert_eq!(stdout(&o).lines().last(), Some("85090"));
}

#[test]
fn perft_divide_lists_root_moves_then_total() {
    let o = damasi(&["perft", "--depth", "3", "--divide"]);
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 9, "{out}");
    assert_eq!(lines[8], "708");
    let sum: u64 = lines[..8]
        .iter()
        .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, 708);
    assert!(lines.iter().any(|l| l.starts_with("d3-d4 ")), "{out}");
}

#[test]
fn perft_paths_counts_routes() {
    // docs/rules.md: depth 7, 10,782,308 moves but 10,782,382 routes.
    let o = damasi(&["perft", "--depth", "7", "--paths"]);
    assert_eq!(stdout(&o).lines().last(), Some("10782382"));
}

#[test]
fn moves_prints_one_legal_move_per_line() {
    let o = damasi(&["moves"]);
    let out = stdout(&o);
    let mut moves: Vec<&str> = out.lines().collect();
    moves.sort();
    assert_eq!(
        moves,
        ["a3-a4", "b3-b4", "c3-c4", "d3-d4", "e3-e4", "f3-f4", "g3-g4", "h3-h4"]
    );
    // A forced capture: only the capture is listed.
    let o = damasi(&["moves", "--fen", "W:Wd4,a3:Bd5"]);
    assert_eq!(stdout(&o).trim(), "d4xd6");
}

#[test]
fn show_prints_board_and_side() {
    let o = damasi(&["show", "--fen", "B:WKa1,b3:Bh7"]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.contains("1 W . . . . . . . 1"), "{out}");
    assert!(out.contains("7 . . . . . . . b 7"), "{out}");
    assert!(out.contains("Black to move"), "{out}");
    assert!(out.contains("game state: in progress"), "{out}");
    // One piece each: a draw (docs/rules.md, End of the game).
    let o = damasi(&["show", "--fen", "W:WKa1:Bh7"]);
    assert!(
        stdout(&o).contains("game state: over, draw: one piece each"),
        "{}",
        stdout(&o)
    );
    // White to move and blocked: a4 cannot step to a5 or b4, nor jump a5 or b4 (a6 and c4 are taken).
    let o = damasi(&["show", "--fen", "W:Wa4:Ba5,a6,b4,c4,h7"]);
    let out = stdout(&o);
    assert!(out.contains("0 legal moves"), "{out}");
    assert!(out.contains("White is blocked"), "{out}");
}

#[test]
fn bad_fen_is_an_error_on_stderr_with_nonzero_status() {
    for args in [
        &["perft", "--fen", "W:Wz9:Bd6", "--depth", "1"][..],
        &["moves", "--fen", "nonsense"],
        &["show", "--fen", "W:Wa1:Bd6"],
    ] {
        let o = damasi(args);
        assert!(!o.status.success(), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains("error"), "{args:?}: {err}");
    }
}

#[test]
fn an_unreadable_move_is_reported_once() {
    let o = damasi(&["analyze", "--moves", "zz", "--depth", "1"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with("damasi: error: cannot play 'zz': 'zz' is not a move"),
        "{err}"
    );
    assert_eq!(err.matches("is not a move").count(), 1, "{err}");
}

#[test]
fn a_won_position_is_a_distance_not_men() {
    // White takes Black's last piece at once (#33 item 9: this printed `#1 (+299.99 men)`).
    let o = damasi(&["analyze", "--fen", "W:Wd4,a2:Bd5", "--depth", "3"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = stdout(&o);
    assert!(out.contains("best d4xd6"), "{out}");
    assert!(out.contains("score #1 (a win in 1 ply)"), "{out}");
    assert!(!out.contains(" men)"), "{out}");
}

#[test]
fn export_site_writes_the_main_page_for_no_server() {
    let base = std::env::temp_dir().join(format!("damasi-export-{}", std::process::id()));
    let wasm = base.join("wasm");
    std::fs::create_dir_all(&wasm).unwrap();
    // Stand-ins for the wasm build: the export copies them, it does not read them.
    std::fs::write(wasm.join("damasi_wasm.js"), "// js").unwrap();
    std::fs::write(wasm.join("damasi_wasm_bg.wasm"), b"\0asm").unwrap();
    let site = base.join("site");
    let o = damasi(&[
        "export-site",
        site.to_str().unwrap(),
        "--wasm-dir",
        wasm.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for name in [
        "index.html",
        "engine.js",
        "worker.js",
        "app/js/main.js",
        "app/js/local.js",
        "app/js/views/play.js",
    ] {
        assert!(site.join(name).is_file(), "{name}");
    }
    let html = std::fs::read_to_string(site.join("app/index.html")).unwrap();
    // Links relative to the page (any directory of a static host), the wasm build one up, and
    // the mark that no server is behind it.
    assert!(
        html.contains(r#"<script type="module" src="js/main.js">"#),
        "{html}"
    );
    assert!(
        !html.contains(r#"src="/"#) && !html.contains(r#"href="/"#),
        "{html}"
    );
    assert!(
        html.contains(r#"<meta name="damasi-wasm" content="../" data-no-server="1">"#),
        "{html}"
    );
    // The site's own address leads to this page (#33 item 14: one page, one board), which is
    // the installable app, cached whole by the service worker for offline use.
    let root = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(root.contains(r#"url=app/"#), "{root}");
    assert!(!site.join("offline.js").exists());
    assert!(html.contains(r#"href="../manifest.webmanifest""#), "{html}");
    let sw = std::fs::read_to_string(site.join("sw.js")).unwrap();
    for name in [
        "\"app/\"",
        "\"app/index.html\"",
        "\"app/js/board/input.js\"",
        "\"app/learn/course.json\"",
    ] {
        assert!(sw.contains(name), "sw.js caches {name}: {sw}");
    }
    // Learn's course ships as static data (#33 item 13); online play is left out.
    let course: serde_json::Value =
        serde_json::from_slice(&std::fs::read(site.join("app/learn/course.json")).unwrap())
            .unwrap();
    assert!(
        !course["lessons"].as_array().unwrap().is_empty(),
        "{course}"
    );
    assert!(site.join("app/learn/examples.json").is_file());
    assert!(!site.join("app/js/online/main.js").exists() && !site.join("app/online.css").exists());
    std::fs::remove_dir_all(&base).unwrap();
}

/// A failed export (#44: it left half a site behind) changes nothing: no new directory, an
/// old site as it was, and no staging directory left beside it; a good export then replaces
/// the old site whole.
#[test]
fn a_failed_export_site_leaves_the_directory_as_it_was() {
    let base = std::env::temp_dir().join(format!("damasi-export-fail-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let empty = base.join("no-wasm");
    std::fs::create_dir_all(&empty).unwrap();
    let export = |site: &std::path::Path, wasm: &std::path::Path| {
        damasi(&[
            "export-site",
            site.to_str().unwrap(),
            "--wasm-dir",
            wasm.to_str().unwrap(),
        ])
    };
    let leftovers = || {
        std::fs::read_dir(&base)
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with(".damasi-site-"))
            .collect::<Vec<_>>()
    };

    // A new directory: not made at all.
    let fresh = base.join("fresh");
    let o = export(&fresh, &empty);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot export the site"));
    assert!(
        !fresh.exists(),
        "half a site was left at {}",
        fresh.display()
    );
    assert!(leftovers().is_empty(), "{:?}", leftovers());

    // An old site: kept as it was.
    let old = base.join("old");
    std::fs::create_dir_all(&old).unwrap();
    std::fs::write(old.join("index.html"), "the old site").unwrap();
    let o = export(&old, &empty);
    assert!(!o.status.success());
    let kept: Vec<_> = std::fs::read_dir(&old).unwrap().collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(
        std::fs::read_to_string(old.join("index.html")).unwrap(),
        "the old site"
    );
    assert!(leftovers().is_empty(), "{:?}", leftovers());

    // With the WebAssembly build, the old site is replaced whole.
    let wasm = base.join("wasm");
    std::fs::create_dir_all(&wasm).unwrap();
    std::fs::write(wasm.join("damasi_wasm.js"), "// js").unwrap();
    std::fs::write(wasm.join("damasi_wasm_bg.wasm"), b"\0asm").unwrap();
    let o = export(&old, &wasm);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_ne!(
        std::fs::read_to_string(old.join("index.html")).unwrap(),
        "the old site"
    );
    assert!(old.join("app/js/main.js").is_file());
    let listed = stdout(&o);
    assert!(
        listed
            .lines()
            .any(|l| l == old.join("app/index.html").to_str().unwrap()),
        "the files are listed where they are now: {listed}"
    );
    assert!(leftovers().is_empty(), "{:?}", leftovers());
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn serve_options_work_without_the_word_serve() {
    // `damasi --port N` is `damasi serve --port N`: a bad value is refused by `serve`'s own
    // option parser (before anything starts), naming the option.
    let o = damasi(&["--port", "notaport"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--port"), "{err}");
    assert!(!err.contains("unexpected argument"), "{err}");
    // Subcommands keep their own options.
    let o = damasi(&["perft", "--depth", "2"]);
    assert_eq!(stdout(&o).lines().last(), Some("64")); // the rules file: depth 2
}
