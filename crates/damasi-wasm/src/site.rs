//! The offline page as static files: `damasi export-site DIR` writes them with the wasm build
//! (`scripts/build-wasm`'s `damasi_wasm.js` and `damasi_wasm_bg.wasm`), and any static file
//! server (or an installed PWA) then runs the game with no damasi server: the rules and the
//! engine in WebAssembly (the engine in a Web Worker speaking Hub lines), games in IndexedDB,
//! the files cached by a service worker.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The page's own files: name and contents (from `crates/damasi-wasm/site/`).
pub const FILES: &[(&str, &str)] = &[
    ("index.html", include_str!("../site/index.html")),
    ("offline.css", include_str!("../site/offline.css")),
    ("offline.js", include_str!("../site/offline.js")),
    ("worker.js", include_str!("../site/worker.js")),
    ("engine.js", include_str!("../site/engine.js")),
    ("sw.js", include_str!("../site/sw.js")),
    (
        "manifest.webmanifest",
        include_str!("../site/manifest.webmanifest"),
    ),
    ("icon.svg", include_str!("../site/icon.svg")),
];

/// The files of the wasm build the page loads, from `scripts/build-wasm`'s output directory.
pub const WASM_FILES: &[&str] = &["damasi_wasm.js", "damasi_wasm_bg.wasm"];

/// Writes the site into `dir` (created if needed), copying the wasm build from `wasm_dir`.
/// Returns the paths written. A missing wasm build is an error that says how to make it.
pub fn export(dir: &Path, wasm_dir: &Path) -> io::Result<Vec<PathBuf>> {
    for name in WASM_FILES {
        let from = wasm_dir.join(name);
        if !from.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!(
                    "{} not found: build the WebAssembly module first (scripts/build-wasm), or \
                     pass the directory holding it",
                    from.display()
                ),
            ));
        }
    }
    fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for (name, body) in FILES {
        let path = dir.join(name);
        fs::write(&path, body)?;
        written.push(path);
    }
    for name in WASM_FILES {
        let path = dir.join(name);
        fs::copy(wasm_dir.join(name), &path)?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_service_worker_caches_every_file_of_the_site() {
        let sw = FILES.iter().find(|(n, _)| *n == "sw.js").unwrap().1;
        for name in FILES
            .iter()
            .map(|(n, _)| *n)
            .chain(WASM_FILES.iter().copied())
        {
            if name != "sw.js" {
                assert!(
                    sw.contains(&format!("\"{name}\"")),
                    "sw.js does not cache {name}"
                );
            }
        }
    }

    #[test]
    fn export_needs_the_wasm_build_and_writes_every_file() {
        let tmp = std::env::temp_dir().join(format!("damasi-site-test-{}", std::process::id()));
        let wasm = tmp.join("pkg");
        let out = tmp.join("site");
        let err = export(&out, &wasm).unwrap_err();
        assert!(err.to_string().contains("scripts/build-wasm"));
        fs::create_dir_all(&wasm).unwrap();
        for name in WASM_FILES {
            fs::write(wasm.join(name), "x").unwrap();
        }
        let written = export(&out, &wasm).unwrap();
        assert_eq!(written.len(), FILES.len() + WASM_FILES.len());
        assert!(out.join("index.html").is_file() && out.join("damasi_wasm_bg.wasm").is_file());
        fs::remove_dir_all(&tmp).unwrap();
    }
}
