//! Resumable data runs (`damasi train data --dir DIR`): the games of [`crate::train::generate`]
//! written in chunks of a fixed number of games, each chunk a whole data file written under a
//! temporary name and renamed when complete. A run killed at any moment (even `kill -9`)
//! leaves only whole chunks; started again with the same settings it skips the chunks there
//! and plays the others. Game `i` is the same game whichever session plays it (its opening
//! and random plies depend on the seed and `i` only).
//!
//! The directory holds `run.txt` (the settings that decide the games; a later session must
//! give the same ones) and `chunk-NNNNNN.dmtd`, chunk `k` holding the records of games
//! `k * chunk_games .. (k + 1) * chunk_games` in the data file format of `docs/training.md`.

use std::collections::BTreeSet;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};

use damasi_engine::eval::Weights;
use damasi_engine::oracle::EndgameOracle;

use crate::openings::Opening;
use crate::train::{self, DataConfig, Record};

/// The settings file of a run directory.
pub const SETTINGS: &str = "run.txt";
const PREFIX: &str = "chunk-";
const EXT: &str = ".dmtd";

/// The path of chunk `k` in `dir`.
pub fn chunk_path(dir: &Path, k: usize) -> PathBuf {
    dir.join(format!("{PREFIX}{k:06}{EXT}"))
}

/// The chunk numbers present in `dir` (complete chunks: a partial one never has the name).
pub fn chunks_done(dir: &Path) -> io::Result<BTreeSet<usize>> {
    let mut done = BTreeSet::new();
    if !dir.exists() {
        return Ok(done);
    }
    for entry in fs::read_dir(dir)? {
        let name = entry?.file_name();
        let name = name.to_string_lossy();
        if let Some(k) = name
            .strip_prefix(PREFIX)
            .and_then(|n| n.strip_suffix(EXT))
            .and_then(|n| n.parse::<usize>().ok())
        {
            done.insert(k);
        }
    }
    Ok(done)
}

/// The data files to read for training from `path`: the file itself, or a run directory's
/// chunks in order.
pub fn data_files(path: &Path) -> io::Result<Vec<PathBuf>> {
    if !path.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    Ok(chunks_done(path)?
        .into_iter()
        .map(|k| chunk_path(path, k))
        .collect())
}

/// What a run (or a part of one) did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunSummary {
    /// Chunks already there when it started.
    pub skipped: usize,
    /// Chunks written by it.
    pub written: usize,
    /// Records in the chunks it wrote.
    pub records: usize,
}

/// Where and how a run writes: its directory, the text of its settings, games per chunk.
#[derive(Clone, Copy, Debug)]
pub struct RunDir<'a> {
    /// The run directory.
    pub path: &'a Path,
    /// Everything that decides the games, one setting a line (`run.txt`).
    pub settings: &'a str,
    /// Games per chunk.
    pub chunk_games: usize,
}

/// Plays the chunks of `cfg.games` games (rounded up to whole chunks) that the directory of
/// `target` does not have yet on `cfg.threads` threads, writing each as it completes.
/// `settings` describes everything that decides the games; it is written to `run.txt` in a
/// new directory and must equal what is there in an old one (else an error, so that one run
/// never mixes two kinds of data). `progress(summary)` is called after every chunk.
pub fn run(
    target: &RunDir,
    cfg: &DataConfig,
    weights: &Weights,
    openings: &[Opening],
    oracle: Option<Arc<dyn EndgameOracle>>,
    mut progress: impl FnMut(&RunSummary),
) -> io::Result<RunSummary> {
    let (dir, settings) = (target.path, target.settings);
    let chunk_games = target.chunk_games.max(1);
    fs::create_dir_all(dir)?;
    let settings_path = dir.join(SETTINGS);
    match fs::read_to_string(&settings_path) {
        Ok(old) if old != settings => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "{} holds a run with other settings:\n{old}this one has:\n{settings}\
                     use the same settings to resume it, or another directory",
                    settings_path.display()
                ),
            ))
        }
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            write_atomically(&settings_path, settings.as_bytes())?
        }
        Err(e) => return Err(e),
    }
    // Leftovers of a session killed while writing.
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "tmp") {
            fs::remove_file(&path)?;
        }
    }
    let done = chunks_done(dir)?;
    let total = cfg.games.div_ceil(chunk_games);
    let todo: Vec<usize> = (0..total).filter(|k| !done.contains(k)).collect();
    let mut summary = RunSummary {
        skipped: total - todo.len(),
        ..RunSummary::default()
    };
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel::<io::Result<usize>>();
    std::thread::scope(|s| {
        for _ in 0..cfg.threads.max(1) {
            let (tx, next, todo, oracle) = (tx.clone(), &next, &todo, oracle.clone());
            s.spawn(move || {
                let mut engine = train::data_engine(weights, oracle.clone());
                while let Some(&k) = todo.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let mut bytes = Vec::new();
                    let mut n = 0;
                    for g in k * chunk_games..(k + 1) * chunk_games {
                        let records: Vec<Record> =
                            train::play_one(&mut engine, openings, cfg, oracle.as_deref(), g);
                        for r in &records {
                            bytes.extend_from_slice(&r.to_bytes());
                        }
                        n += records.len();
                    }
                    let mut file = Vec::with_capacity(bytes.len() + train::DATA_HEADER);
                    let written = train::write_header(&mut file)
                        .and_then(|_| file.write_all(&bytes))
                        .and_then(|_| write_atomically(&chunk_path(dir, k), &file))
                        .map(|_| n);
                    let failed = written.is_err();
                    if tx.send(written).is_err() || failed {
                        break;
                    }
                }
            });
        }
        drop(tx);
        for written in rx {
            summary.records += written?;
            summary.written += 1;
            progress(&summary);
        }
        Ok::<(), io::Error>(())
    })?;
    Ok(summary)
}

/// Writes `bytes` to `path` whole or not at all: to `path.tmp`, synced, then renamed.
fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let mut f = fs::File::create(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    drop(f);
    fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut v: Vec<_> = fs::read_dir(dir)
            .unwrap()
            .map(|e| {
                let p = e.unwrap().path();
                (
                    p.file_name().unwrap().to_string_lossy().into_owned(),
                    fs::read(&p).unwrap(),
                )
            })
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_run_resumes_where_it_stopped_and_equals_one_made_at_once() {
        let base = std::env::temp_dir().join(format!("damasi-data-run-{}", std::process::id()));
        let (whole, parts) = (base.join("whole"), base.join("parts"));
        let _ = fs::remove_dir_all(&base);
        let openings = crate::openings::parse_openings(crate::openings::DEFAULT_OPENINGS).unwrap();
        let cfg = DataConfig {
            random_plies: 2,
            max_plies: 60,
            threads: 2,
            ..DataConfig::new(6, 2)
        };
        let w = Weights::default();
        let go = |dir: &Path, games: usize, settings: &str| {
            let cfg = DataConfig {
                games,
                ..cfg.clone()
            };
            let target = RunDir {
                path: dir,
                settings,
                chunk_games: 2,
            };
            run(&target, &cfg, &w, &openings, None, |_| {})
        };
        let all = go(&whole, 6, "s\n").unwrap();
        assert_eq!((all.skipped, all.written), (0, 3));
        // In two sessions, the first killed while writing chunk 1: a partial file is left.
        let first = go(&parts, 2, "s\n").unwrap();
        assert_eq!((first.skipped, first.written), (0, 1));
        fs::write(
            parts.join("chunk-000001.dmtd.tmp"),
            b"DMTD\x01\0\0\0partial",
        )
        .unwrap();
        let second = go(&parts, 6, "s\n").unwrap();
        assert_eq!((second.skipped, second.written), (1, 2));
        assert_eq!(first.records + second.records, all.records);
        assert_eq!(
            files(&whole),
            files(&parts),
            "the same chunks, byte for byte"
        );
        // Every chunk is a data file; together they hold every record.
        let read: usize = data_files(&parts)
            .unwrap()
            .iter()
            .map(|p| {
                train::read_records(&mut fs::File::open(p).unwrap())
                    .unwrap()
                    .len()
            })
            .sum();
        assert_eq!(read, all.records);
        // Other settings are refused, and nothing is played.
        let e = go(&parts, 8, "other\n").unwrap_err();
        assert!(e.to_string().contains("other settings"), "{e}");
        assert_eq!(chunks_done(&parts).unwrap().len(), 3);
        let _ = fs::remove_dir_all(&base);
    }
}
