//! Tests of `hub`.

use super::*;

/// A writer whose contents the test can read afterwards.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn session(script: &str) -> Vec<String> {
    session_bytes(script.as_bytes())
}

fn session_bytes(script: &[u8]) -> Vec<String> {
    let out = Shared::default();
    let config = HubConfig {
        hash_mb: 1,
        ..HubConfig::default()
    };
    run(script, out.clone(), config).unwrap();
    let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
    text.lines().map(str::to_string).collect()
}

const START: &str = "Weeeeeeeebbbbbbbbbbbbbbbbeeeeeeeeeeeeeeeewwwwwwwwwwwwwwwweeeeeeee";

/// Knows, as hand analysis does, that two kings against one are a draw once no capture
/// is pending (and that a side without pieces has lost); nothing else.
struct TwoKingsOracle;

impl EndgameOracle for TwoKingsOracle {
    fn max_pieces(&self) -> u32 {
        3
    }

    fn probe_wdl(&self, pos: &Position) -> Option<damasi::Wdl> {
        use damasi::Wdl;
        let us = pos.side_to_move();
        if pos.count(us) == 0 {
            return Some(Wdl::Loss);
        }
        if pos.count(!us) == 0 {
            return Some(Wdl::Win);
        }
        let kings_only = pos.men_of(us) | pos.men_of(!us) == 0;
        let n = pos.count(us) + pos.count(!us);
        (kings_only && n <= 3 && !pos.has_capture()).then_some(Wdl::Draw)
    }
}

/// A session whose loader finds the oracle above in a directory named `tables`.
fn session_with_tables(dir: Option<&str>, script: &str) -> Vec<String> {
    let out = Shared::default();
    let config = HubConfig {
        hash_mb: 1,
        ..HubConfig::default()
    };
    let loader: TablebaseLoader = Arc::new(|dir: &Path| {
        if dir == Path::new("tables") {
            Ok(Some(LoadedTables {
                oracle: Arc::new(TwoKingsOracle),
                description: "endgame tables up to 3 pieces".to_string(),
            }))
        } else if dir == Path::new("broken") {
            Err("broken: not a valid table file".to_string())
        } else {
            Ok(None)
        }
    });
    let tablebases = HubTablebases {
        dir: dir.map(PathBuf::from),
        loader: Some(loader),
    };
    run_with_tablebases(script.as_bytes(), out.clone(), config, tablebases).unwrap();
    let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
    text.lines().map(str::to_string).collect()
}

/// The `nodes` of the last `info` line and the move of the `done` line.
fn nodes_and_move(lines: &[String]) -> (u64, String) {
    let info = lines.iter().rev().find(|l| l.starts_with("info depth="));
    let info = Line::parse(info.expect("an info line")).unwrap();
    let done = lines.iter().find(|l| l.starts_with("done")).expect("done");
    let done = Line::parse(done).unwrap();
    (
        info.get("nodes").unwrap().parse().unwrap(),
        done.get("move").expect("a move").to_string(),
    )
}

#[test]
fn go_think_at_full_strength_with_the_book_on_plays_a_book_move_without_searching() {
    let book: Vec<String> = crate::book::Book::builtin()
        .get(&Position::start())
        .expect("the start is in the shipped book")
        .moves
        .iter()
        .map(|m| write_hub_move(&m.mv))
        .collect();
    // A depth no test reaches: only the book answers before the end-of-input grace.
    let go = format!("pos pos={START}\nlevel depth=60\ngo think\n");
    let on = "set-param name=book value=true\n";
    let (nodes, mv) = nodes_and_move(&session(&format!("{on}{go}")));
    assert_eq!(nodes, 0, "a book move costs no search");
    assert!(book.contains(&mv), "{mv} is not among the book's {book:?}");
    // On by default (crate::book::USE_BY_DEFAULT).
    let (nodes, mv) = nodes_and_move(&session(&go));
    assert_eq!(nodes, 0, "the book is on by default");
    assert!(book.contains(&mv), "{mv} is not among the book's {book:?}");
    // Turned off, or below full strength: a search.
    for setup in [
        format!("{on}set-param name=book value=false\n"),
        format!("{on}set-param name=level value=9\n"),
    ] {
        let (nodes, _) = nodes_and_move(&session(&format!("{setup}{go}")));
        assert!(nodes > 0, "{setup}");
    }
    let far = Position::from_fen("W:Wa3,d4,Kh1:Bc6,f7").unwrap();
    let far = damasi::hub::write_hub_position(&far);
    let (nodes, _) = nodes_and_move(&session(&format!(
        "{on}pos pos={far}\nlevel depth=3\ngo think\n"
    )));
    assert!(nodes > 0, "a position out of the book is searched");
}

/// The last score an `info` line gave.
fn last_score(lines: &[String]) -> String {
    let info = lines.iter().rev().find(|l| l.starts_with("info depth="));
    let info = Line::parse(info.expect("an info line")).unwrap();
    info.get("score").unwrap().to_string()
}

/// Knows nothing; counts the calls to `prepare`.
struct CountingOracle(Arc<std::sync::atomic::AtomicUsize>);

impl EndgameOracle for CountingOracle {
    fn max_pieces(&self) -> u32 {
        3
    }

    fn probe_wdl(&self, _pos: &Position) -> Option<damasi::Wdl> {
        None
    }

    fn prepare(&self) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

#[test]
fn the_tables_are_read_at_init_and_new_game_not_in_a_search() {
    let prepared = |script: &str| {
        let count = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let seen = count.clone();
        let loader: TablebaseLoader = Arc::new(move |_: &Path| {
            Ok(Some(LoadedTables {
                oracle: Arc::new(CountingOracle(seen.clone())),
                description: "counting".to_string(),
            }))
        });
        let tablebases = HubTablebases {
            dir: Some(PathBuf::from("tables")),
            loader: Some(loader),
        };
        let config = HubConfig {
            hash_mb: 1,
            ..HubConfig::default()
        };
        run_with_tablebases(script.as_bytes(), Shared::default(), config, tablebases).unwrap();
        count.load(std::sync::atomic::Ordering::SeqCst)
    };
    // The handshake's first answer does not wait for the tables.
    assert_eq!(prepared("hub\nquit\n"), 0);
    assert_eq!(prepared("hub\ninit\nquit\n"), 1);
    assert_eq!(prepared("hub\ninit\nnew-game\nnew-game\nquit\n"), 3);
}

#[test]
fn the_tablebases_parameter_reads_tables_and_the_search_uses_them() {
    let kk_k = damasi::hub::write_hub_position(&Position::from_fen("W:WKa1,Kb2:BKh8").unwrap());
    // Analysis, so that a drawn table position scores 0 and not -contempt.
    let search = format!("init\npos pos={kk_k}\nlevel depth=8\ngo analyze\n");
    // Without tables the extra king looks like a winning advantage (how large depends on the
    // network: c1 said over 1.00, c3 0.96), far from the tables' 0.00.
    let without = session(&search);
    assert!(
        last_score(&without).parse::<f64>().unwrap() >= 0.5,
        "{without:?}"
    );
    // Started with them: the parameter shows the directory, and the ending is a draw.
    let with = session_with_tables(Some("tables"), &format!("hub\n{search}"));
    assert!(with
        .iter()
        .any(|l| l == "param name=tablebases value=tables type=string"));
    assert_eq!(last_score(&with), "0.00", "{with:?}");
    // Set by the client, turned off, and refused when unreadable.
    let lines = session_with_tables(
            None,
            &format!(
                "hub\nset-param name=tablebases value=tables\n{search}\
                 set-param name=tablebases value=none\n{search}\
                 set-param name=tablebases value=elsewhere\nset-param name=tablebases value=broken\n"
            ),
        );
    assert!(lines
        .iter()
        .any(|l| l == "param name=tablebases value=none type=string"));
    assert!(lines
        .iter()
        .any(|l| l == "info message=\"endgame tables up to 3 pieces from tables\""));
    assert!(lines
        .iter()
        .any(|l| l == "info message=\"endgame tables off\""));
    assert!(lines
        .iter()
        .any(|l| l == "info message=\"no endgame tables in elsewhere\""));
    assert!(lines
        .iter()
        .any(|l| l == "error message=\"broken: not a valid table file\""));
    let scores: Vec<String> = lines
        .split(|l| l.starts_with("done"))
        .filter(|part| part.iter().any(|l| l.starts_with("info depth=")))
        .map(last_score)
        .collect();
    assert_eq!(scores.len(), 2, "{lines:?}");
    assert_eq!(scores[0], "0.00");
    assert!(scores[1].parse::<f64>().unwrap() >= 0.5, "{lines:?}");
}

#[test]
fn the_eval_file_parameter_loads_weights_and_reports_bad_files() {
    let dir = std::env::temp_dir().join(format!("damasi-hub-eval-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("p.weights");
    crate::patterns::save(&good, &Weights::default()).unwrap();
    let bad = dir.join("bad.weights");
    std::fs::write(&bad, b"DMPW").unwrap();
    let lines = session(&format!(
        "hub\nset-param name=eval-file value={}\nset-param name=eval-file value={}\n\
             init\npos pos={START}\nlevel depth=2\ngo think\n",
        bad.display(),
        good.display()
    ));
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("error") && l.contains("truncated")),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.contains("pattern evaluation from")),
        "{lines:?}"
    );
    assert!(lines.last().unwrap().starts_with("done move="), "{lines:?}");
    let net = dir.join("n.nn");
    std::fs::write(
        &net,
        crate::network::encode(&crate::network::Network::zero()),
    )
    .unwrap();
    let lines = session(&format!(
        "hub\nset-param name=eval-file value={}\ninit\npos pos={START}\nlevel depth=2\n\
             go think\n",
        net.display()
    ));
    assert!(
        lines.iter().any(|l| l.contains("network evaluation from")),
        "{lines:?}"
    );
    assert!(lines.last().unwrap().starts_with("done move="), "{lines:?}");
    let lines = session("set-param name=eval-file value=/nonexistent/x.weights\n");
    assert!(lines[0].contains("cannot read"), "{lines:?}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn without_a_loader_there_is_no_tablebases_parameter() {
    let lines = session("hub\nset-param name=tablebases value=tables\n");
    assert!(!lines.iter().any(|l| l.contains("tablebases value")));
    assert!(lines
        .iter()
        .any(|l| l == "error message=\"unknown parameter 'tablebases'\""));
}

#[test]
fn handshake_lists_id_params_and_wait() {
    let lines = session("hub\ninit\n");
    assert!(lines[0].starts_with("id name=damasi version="), "{lines:?}");
    assert!(lines
        .iter()
        .any(|l| l == "param name=variant value=turkish type=enum values=turkish"));
    let wait = lines.iter().position(|l| l == "wait").unwrap();
    assert_eq!(lines[wait + 1], "ready");
    // pydraughts splits every argument at '=' into exactly two parts.
    for l in &lines[..wait] {
        let args = Line::parse(l).unwrap().args;
        assert!(args
            .iter()
            .all(|a| a.value.as_deref().is_some_and(|v| !v.contains('='))));
    }
}

#[test]
fn searches_to_a_fixed_depth_and_reports_done() {
    let lines = session(&format!(
        "init\npos pos={START} moves=\"20-28 44-36\"\nlevel depth=2\ngo think\n"
    ));
    let done = lines.last().unwrap();
    assert!(done.starts_with("done move="), "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("info depth=")));
    let m = Line::parse(done).unwrap();
    let start = read_hub_position(START).unwrap();
    let pos = start.play(&parse_hub_move(&start, "20-28").unwrap());
    let pos = pos.play(&parse_hub_move(&pos, "44-36").unwrap());
    assert!(parse_hub_move(&pos, m.get("move").unwrap()).is_ok());
}

#[test]
fn bad_input_gets_errors_and_the_session_goes_on() {
    let mut script = format!(
        "pos moves=\"x\nlevel depth=abc\nlevel\npos pos=Wxyz\npos pos={START} moves=\"20-36\"\n\
             go think\nset-param name=hash value=0\nset-param name=nonsense value=1\n\
             set-param name=variant value=russian\nfrobnicate a=b\n"
    )
    .into_bytes();
    script.extend_from_slice(b"\xff\xfe\nping\n");
    let lines = session_bytes(&script);
    let errors = lines
        .iter()
        .filter(|l| l.starts_with("error message="))
        .count();
    // unclosed quote, depth=abc, empty level, bad pos, illegal move, go without a
    // position, hash 0, unknown parameter, variant, the invalid UTF-8 line is an unknown command.
    assert_eq!(errors, 9, "{lines:?}");
    assert!(lines.iter().any(|l| l == "done"));
    assert_eq!(lines.last().unwrap(), "pong");
}

#[test]
fn scores_follow_the_pydraughts_win_convention() {
    assert_eq!(score_text(Score(0)), "0.00");
    assert_eq!(score_text(Score(125)), "1.25");
    assert_eq!(score_text(Score(-5)), "-0.05");
    assert_eq!(score_text(Score::win_in(7)), "99.93");
    assert_eq!(score_text(Score::loss_in(6)), "-99.94");
    assert_eq!(score_text(Score(95_00)), "89.99");
}

#[test]
fn level_lines_become_limits() {
    let l = parse_limits(&Line::parse("level time=9.5 inc=0.5 moves=20").unwrap()).unwrap();
    assert_eq!(
        l.clock,
        Some(Clock {
            time: Duration::from_secs(10),
            inc: Duration::from_millis(500),
            moves_to_go: Some(20),
        })
    );
    let l = parse_limits(&Line::parse("level time=-0.2 inc=1").unwrap()).unwrap();
    assert_eq!(l.clock.unwrap().time, Duration::from_secs(1));
    let l = parse_limits(&Line::parse("level move-time=0.25").unwrap()).unwrap();
    assert_eq!(l.move_time, Some(Duration::from_millis(250)));
    assert!(
        parse_limits(&Line::parse("level infinite").unwrap())
            .unwrap()
            .infinite
    );
    assert_eq!(
        parse_limits(&Line::parse("level nodes=5000").unwrap())
            .unwrap()
            .nodes,
        Some(5000)
    );
    // Clocks too long to add up never bring the engine down.
    let l = parse_limits(&Line::parse("level time=1e19 inc=1e19").unwrap()).unwrap();
    assert!(l.clock.unwrap().time >= Duration::from_secs(10_000_000_000_000_000_000));
    for bad in [
        "level time=NaN",
        "level time=inf",
        "level move-time=1e300",
        "level depth=-1",
    ] {
        assert!(parse_limits(&Line::parse(bad).unwrap()).is_err(), "{bad}");
    }
}

#[test]
fn an_over_long_line_gets_a_short_error_and_the_session_goes_on() {
    let mut script = b"pos pos=".to_vec();
    script.extend(std::iter::repeat_n(b'e', 4 * MAX_LINE));
    script.extend_from_slice(b"\nping\n");
    let lines = session_bytes(&script);
    assert_eq!(lines.len(), 2, "{:?}", lines[0].get(..100));
    assert!(lines[0].starts_with("error message=") && lines[0].contains("too long"));
    assert!(lines[0].len() < 200, "the line is not echoed");
    assert_eq!(lines[1], "pong");
}

#[test]
fn end_of_input_stops_a_long_search() {
    let start = Instant::now();
    let lines = session(&format!("pos pos={START}\nlevel move-time=60\ngo think\n"));
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
    let done = lines.last().unwrap();
    assert!(done.starts_with("done move="), "{lines:?}");
}

#[test]
fn threads_are_capped_at_the_machine_with_a_message() {
    let lines = session("set-param name=threads value=256\nhub\n");
    let n = available_threads();
    if n < 256 {
        assert!(
            lines[0].starts_with("info message=\"threads capped at"),
            "{lines:?}"
        );
    }
    let param = format!("param name=threads value={} type=int", n.min(256));
    assert!(lines.iter().any(|l| l.starts_with(&param)), "{lines:?}");
}

#[test]
fn hash_is_capped_by_the_machine_memory_with_a_message() {
    let lines = session(&format!("set-param name=hash value={MAX_HASH_MB}\nhub\n"));
    let max = max_hash_mb().unwrap_or(MAX_HASH_MB).min(MAX_HASH_MB);
    if max < MAX_HASH_MB {
        assert!(
            lines[0].starts_with("info message=\"hash capped at"),
            "{lines:?}"
        );
    }
    let param = format!("param name=hash value={max} type=int");
    assert!(lines.iter().any(|l| l.starts_with(&param)), "{lines:?}");
}

#[test]
fn contempt_is_a_parameter_for_play_and_never_for_analysis() {
    let last_score = |lines: &[String]| -> String {
        let info = lines.iter().rev().find(|l| l.starts_with("info depth="));
        let info = Line::parse(info.expect("an info line")).unwrap();
        info.get("score").unwrap().to_string()
    };
    // One king each: every move keeps the draw, worth -contempt to the engine in a game.
    let kk = damasi::hub::write_hub_position(&Position::from_fen("W:WKa1:BKh8").unwrap());
    let game = format!("pos pos={kk}\nlevel depth=3\n");
    let lines = session("hub\n");
    let param = format!(
        "param name=contempt value={} type=int min=0 max=300",
        crate::PLAY_CONTEMPT
    );
    assert!(lines.contains(&param), "{lines:?}");
    let think = session(&format!("{game}go think\n"));
    assert_eq!(last_score(&think), "-0.20", "{think:?}");
    let ponder = session(&format!(
        "{game}set-param name=contempt value=55\ngo ponder\n"
    ));
    assert_eq!(last_score(&ponder), "-0.55", "{ponder:?}");
    let analysis = session(&format!(
        "{game}set-param name=contempt value=55\ngo analyze\n"
    ));
    assert_eq!(last_score(&analysis), "0.00", "{analysis:?}");
    let off = session(&format!(
        "{game}set-param name=contempt value=0\ngo think\n"
    ));
    assert_eq!(last_score(&off), "0.00", "{off:?}");
    let bad = session("set-param name=contempt value=301\n");
    assert!(
        bad.iter()
            .any(|l| l.contains("contempt must be a whole number from 0 to 300")),
        "{bad:?}"
    );
}
