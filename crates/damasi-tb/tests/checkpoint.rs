//! Checkpoints: a build interrupted inside a pair goes on from its last checkpoint and writes
//! the same files as a build that never stopped; a checkpoint it cannot use is refused with a
//! reason and the pair starts over.

// Only the tables of the common module are used here, not its helpers.
#[allow(dead_code)]
mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::Duration;

use damasi_tb::checkpoint_path;
use damasi_tb::{
    build_all_with, signature_stats, BuildEvent, BuildOptions, CheckpointEvent, Signature,
};

/// A pair with men on both sides of the flip, so several units and two tables: a man and a
/// king against two kings, in the order the build takes them.
fn pair() -> Vec<Signature> {
    let s = Signature::new(1, 1, 0, 2);
    Signature::build_order(4)
        .into_iter()
        .find(|p| p.contains(&s))
        .unwrap()
}

/// A checkpoint after every unit.
fn every_unit() -> BuildOptions {
    BuildOptions {
        checkpoint_every: Some(Duration::ZERO),
    }
}

/// A directory with every table up to four pieces except those of [`pair`] (copied from the
/// tables the common module built, which are the reference).
fn all_but_the_pair(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("damasi-tb-cp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    common::tables();
    for s in Signature::all_with(3)
        .into_iter()
        .chain(Signature::all_with(4))
        .filter(|s| !pair().contains(s))
    {
        for name in [s.file_name(), s.dtc_file_name()] {
            std::fs::copy(common::dir().join(&name), d.join(&name)).unwrap();
        }
    }
    d
}

/// The pair's table and distance files in `dir` are those of the reference build.
fn assert_same_files(dir: &Path) {
    for s in pair() {
        for name in [s.file_name(), s.dtc_file_name()] {
            let got = std::fs::read(dir.join(&name)).unwrap();
            let want = std::fs::read(common::dir().join(&name)).unwrap();
            assert!(got == want, "{name} differs from the reference build");
        }
    }
}

/// Builds `dir` up to four pieces, checkpointing after every unit, and returns what was
/// reported about the pair.
fn build(dir: &Path) -> Vec<BuildEvent> {
    let mut events = Vec::new();
    build_all_with(dir, 4, &every_unit(), |e| match e {
        BuildEvent::Progress { pair: p, .. }
        | BuildEvent::Checkpoint { pair: p, .. }
        | BuildEvent::Built { pair: p, .. }
            if *p == pair() =>
        {
            events.push(e.clone())
        }
        _ => {}
    })
    .unwrap();
    events
}

/// Starts building `dir` and stops it (by a panic in the report, as a kill would, only
/// sooner) once the pair's checkpoint after `units` units is saved. Returns the pair's units.
fn interrupt_after(dir: &Path, units: usize) -> usize {
    let mut total = 0;
    let stopped = catch_unwind(AssertUnwindSafe(|| {
        build_all_with(dir, 4, &every_unit(), |e| {
            if let BuildEvent::Checkpoint {
                event:
                    CheckpointEvent::Saved {
                        units_done,
                        units: n,
                        ..
                    },
                ..
            } = e
            {
                total = *n;
                if *units_done == units {
                    panic!("interrupted");
                }
            }
        })
    }));
    assert!(stopped.is_err(), "the build was interrupted");
    assert!(checkpoint_path(dir, &pair()).exists());
    assert!(!dir.join(pair()[0].file_name()).exists());
    total
}

#[test]
fn an_interrupted_build_goes_on_from_its_checkpoint_and_writes_the_same_tables() {
    let dir = all_but_the_pair("resume");
    let units = interrupt_after(&dir, 3);
    assert!(units > 4, "the pair has several units ({units})");
    let saved = std::fs::read(checkpoint_path(&dir, &pair())).unwrap();

    let events = build(&dir);
    // It says it resumes, then solves only the units the checkpoint did not have.
    match &events[0] {
        BuildEvent::Checkpoint {
            event:
                CheckpointEvent::Resumed {
                    units_done,
                    units: n,
                },
            ..
        } => assert_eq!((*units_done, *n), (3, units)),
        e => panic!("expected the build to resume, got {e:?}"),
    }
    let solved: Vec<usize> = events
        .iter()
        .filter_map(|e| match e {
            BuildEvent::Progress { step, .. } if step.wave == Some(0) => Some(step.unit),
            _ => None,
        })
        .collect();
    assert_eq!(solved, (4..=units).collect::<Vec<_>>());
    assert_same_files(&dir);
    // The statistics counted before the interruption came back with the checkpoint.
    match events.last() {
        Some(BuildEvent::Built { stats, .. }) => {
            for (s, got) in pair().into_iter().zip(stats) {
                assert_eq!(*got, signature_stats(common::tables(), s).unwrap(), "{s}");
            }
        }
        e => panic!("expected the pair built, got {e:?}"),
    }
    assert!(
        !checkpoint_path(&dir, &pair()).exists(),
        "the checkpoint goes once the tables are written"
    );
    // Left behind by a build stopped between writing the tables and removing it: the tables
    // are kept and the checkpoint goes.
    std::fs::write(checkpoint_path(&dir, &pair()), saved).unwrap();
    assert!(build(&dir).is_empty(), "nothing solved again");
    assert!(!checkpoint_path(&dir, &pair()).exists());
    assert_same_files(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_checkpoint_that_cannot_be_used_is_refused_and_the_pair_starts_over() {
    let dir = all_but_the_pair("refuse");
    interrupt_after(&dir, 2);
    let path = checkpoint_path(&dir, &pair());
    let good = std::fs::read(&path).unwrap();
    // The same checkpoint, its signatures rewritten to the pair's other order.
    let other_pair = {
        let mut raw = zstd::stream::decode_all(&good[..]).unwrap();
        // After the magic (8 bytes), the version (4) and the count (1).
        let [a, b] = [pair()[1], pair()[0]];
        raw[13..17].copy_from_slice(&[a.wm, a.wk, a.bm, a.bk]);
        raw[17..21].copy_from_slice(&[b.wm, b.wk, b.bm, b.bk]);
        zstd::stream::encode_all(&raw[..], 1).unwrap()
    };
    // The same checkpoint as a builder that cuts the pair into other units would save it:
    // the units' checksum follows the signatures (8), the distances flag (1) and the units
    // and units solved (4 + 4).
    let other_units = {
        let mut raw = zstd::stream::decode_all(&good[..]).unwrap();
        raw[30] ^= 1;
        zstd::stream::encode_all(&raw[..], 1).unwrap()
    };
    let swapped = format!("belongs to {} {}", pair()[1], pair()[0]);
    let cases: [(&str, Vec<u8>, &str); 6] = [
        (
            "garbage",
            b"not a checkpoint at all".to_vec(),
            "cannot be read",
        ),
        (
            "truncated",
            good[..good.len() / 2].to_vec(),
            "cannot be read",
        ),
        ("another pair", other_pair, &swapped),
        (
            "a flipped byte",
            {
                let mut b = good.clone();
                let k = b.len() * 2 / 3;
                b[k] ^= 0x10;
                b
            },
            "cannot be read",
        ),
        ("empty", Vec::new(), "cannot be read"),
        (
            "other units",
            other_units,
            "its units are not this builder's",
        ),
    ];
    for (what, bytes, reason_has) in cases {
        std::fs::write(&path, &bytes).unwrap();
        let events = build(&dir);
        match &events[0] {
            BuildEvent::Checkpoint {
                event: CheckpointEvent::Refused { reason },
                ..
            } => {
                assert!(reason.contains(reason_has), "{what}: {reason}");
                assert!(
                    reason.contains(".checkpoint"),
                    "{what}: names the file: {reason}"
                );
            }
            e => panic!("{what}: expected the checkpoint to be refused, got {e:?}"),
        }
        assert!(
            events.iter().any(|e| matches!(
                e,
                BuildEvent::Progress { step, .. } if step.unit == 1 && step.wave == Some(0)
            )),
            "{what}: the pair starts over"
        );
        assert_same_files(&dir);
        assert!(!path.exists());
        for s in pair() {
            std::fs::remove_file(dir.join(s.file_name())).unwrap();
            std::fs::remove_file(dir.join(s.dtc_file_name())).unwrap();
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
