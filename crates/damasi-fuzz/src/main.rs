//! `damasi-fuzz`: runs the fuzz targets of `damasi_fuzz` on stable Rust.
//!
//! ```text
//! damasi-fuzz smoke [--seconds N] [--jobs J] [--seed S] [TARGET...]   seeds, then mutations
//! damasi-fuzz run TARGET FILE...                                        replay inputs
//! damasi-fuzz list                                                      the targets
//! ```

use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use damasi_fuzz::{smoke, target, Target, TARGETS};

const USAGE: &str = "usage: damasi-fuzz smoke [--seconds N] [--jobs J] [--seed S] [TARGET...]
       damasi-fuzz run TARGET FILE...
       damasi-fuzz list";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("list") => {
            for t in TARGETS {
                println!("{:<13} {}", t.name, t.about);
            }
            ExitCode::SUCCESS
        }
        Some("run") if args.len() >= 3 => replay(&args[1], &args[2..]),
        Some("smoke") => match smoke_args(&args[1..]) {
            Ok((seconds, jobs, seed, targets)) => smoke_all(seconds, jobs, seed, &targets),
            Err(e) => {
                eprintln!("damasi-fuzz: {e}\n{USAGE}");
                ExitCode::from(2)
            }
        },
        _ => {
            eprintln!("{USAGE}");
            ExitCode::from(2)
        }
    }
}

type SmokeArgs = (f64, usize, u64, Vec<&'static Target>);

fn smoke_args(args: &[String]) -> Result<SmokeArgs, String> {
    let mut seconds = 30.0;
    let mut jobs = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64);
    let mut targets = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .ok_or_else(|| format!("{name} needs a value"))
                .cloned()
        };
        match a.as_str() {
            "--seconds" => {
                seconds = value("--seconds")?
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s >= 0.0)
                    .ok_or("--seconds needs a number of seconds")?;
            }
            "--jobs" => {
                jobs = value("--jobs")?
                    .parse()
                    .ok()
                    .filter(|&j| j > 0)
                    .ok_or("--jobs needs a whole number above 0")?;
            }
            "--seed" => {
                seed = value("--seed")?
                    .parse()
                    .map_err(|_| "--seed needs a whole number")?;
            }
            name => targets.push(target(name).ok_or_else(|| format!("no target '{name}'"))?),
        }
    }
    if targets.is_empty() {
        targets = TARGETS.iter().collect();
    }
    Ok((seconds, jobs, seed, targets))
}

/// Runs every target for `seconds`, `jobs` at a time; fails if any input failed.
fn smoke_all(seconds: f64, jobs: usize, seed: u64, targets: &[&'static Target]) -> ExitCode {
    let time = Duration::from_secs_f64(seconds);
    println!(
        "fuzz-smoke: {} targets, {seconds} s each, {jobs} at a time, seed {seed}",
        targets.len()
    );
    let start = Instant::now();
    let next = AtomicUsize::new(0);
    let failed = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.min(targets.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(t) = targets.get(i) else { return };
                let seeds = smoke::load_seeds(&smoke::seed_dir(t.name));
                let began = Instant::now();
                let report = smoke::run(t, &seeds, time, seed.wrapping_add(i as u64));
                let took = began.elapsed().as_secs_f64();
                match report.failure {
                    None => println!(
                        "fuzz-smoke: {:<13} ok: {} inputs ({} seeds) in {took:.1} s",
                        t.name,
                        report.runs,
                        seeds.len()
                    ),
                    Some((input, message)) => {
                        let path = smoke::save_artifact(t.name, "crash", &input);
                        let shown = String::from_utf8_lossy(&input[..input.len().min(300)])
                            .into_owned();
                        println!(
                            "fuzz-smoke: {} FAILED after {} inputs: {message}\n  input ({} bytes, saved as {}): {shown:?}\n  replay: cargo run --release -p damasi-fuzz -- run {} {}",
                            t.name,
                            report.runs,
                            input.len(),
                            path.display(),
                            t.name,
                            path.display()
                        );
                        if let Ok(mut f) = failed.lock() {
                            f.push(t.name);
                        }
                    }
                }
            });
        }
    });
    let failed = failed.into_inner().unwrap_or_default();
    println!(
        "fuzz-smoke: {} in {:.1} s",
        if failed.is_empty() {
            "all targets passed".to_string()
        } else {
            format!("FAILED: {}", failed.join(", "))
        },
        start.elapsed().as_secs_f64()
    );
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Runs `target` on each file (a crash or hang input); a panic shows as usual.
fn replay(name: &str, files: &[String]) -> ExitCode {
    let Some(t) = target(name) else {
        eprintln!("damasi-fuzz: no target '{name}'");
        return ExitCode::from(2);
    };
    for f in files {
        match std::fs::read(f) {
            Ok(input) => {
                (t.run)(&input);
                println!("{f}: ok");
            }
            Err(e) => {
                eprintln!("damasi-fuzz: {f}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
