//! `damasi hub` driven by pydraughts 0.6.7 (`draughts.engine.HubEngine`), the one existing
//! client for Turkish Hub engines: two whole games, every engine move checked legal.
//!
//! Needs `python3` with pydraughts. Without it the test prints why and passes, unless
//! `DAMASI_REQUIRE_PYDRAUGHTS=1` is set (as `scripts/test` does, after installing it).

use std::path::Path;
use std::process::Command;

fn pydraughts_missing() -> Option<String> {
    match Command::new("python3")
        .args(["-c", "import draughts"])
        .output()
    {
        Err(e) => Some(format!("cannot run python3: {e}")),
        Ok(o) if !o.status.success() => Some(format!(
            "python3 cannot import draughts: {}",
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Ok(_) => None,
    }
}

#[test]
fn pydraughts_plays_whole_games_against_the_hub_engine() {
    if let Some(why) = pydraughts_missing() {
        if std::env::var("DAMASI_REQUIRE_PYDRAUGHTS").as_deref() == Ok("1") {
            panic!("DAMASI_REQUIRE_PYDRAUGHTS=1 but {why}");
        }
        eprintln!("skipped: {why} (install with: python3 -m pip install pydraughts==0.6.7)");
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../damasi-engine/tests/hub/pydraughts_games.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_damasi"))
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.lines().last() == Some("ok"),
        "pydraughts games failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    println!("{stdout}");
}
