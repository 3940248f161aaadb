//! The static site: `damasi export-site DIR` writes these files with the wasm build
//! (`scripts/build-wasm`'s `damasi_wasm.js` and `damasi_wasm_bg.wasm`) around the web app's own
//! page (written by the caller into `app/`), and any static file server (or an installed PWA)
//! then runs the game with no damasi server: the rules and the engine in WebAssembly (the
//! engine in a Web Worker speaking Hub lines), the files cached by a service worker.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The site's own files: name and contents (from `crates/damasi-wasm/site/`). `index.html`
/// leads to the page in `app/`; `sw.js` is written with the page's files (see [`export`]).
pub const FILES: &[(&str, &str)] = &[
    ("index.html", include_str!("../site/index.html")),
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

/// Writes the site into `dir` (created if needed), copying the wasm build from `wasm_dir`;
/// `page_files` are the page's files already written there (paths relative to `dir`, with
/// `/`), which the service worker caches too. Returns the paths written. A missing wasm
/// build is an error that says how to make it.
pub fn export(dir: &Path, wasm_dir: &Path, page_files: &[String]) -> io::Result<Vec<PathBuf>> {
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
        if *name != "sw.js" {
            let path = dir.join(name);
            fs::write(&path, body)?;
            written.push(path);
        }
    }
    for name in WASM_FILES {
        let path = dir.join(name);
        fs::copy(wasm_dir.join(name), &path)?;
        written.push(path);
    }
    let path = dir.join("sw.js");
    fs::write(&path, service_worker(dir, &written, page_files)?)?;
    written.push(path);
    Ok(written)
}

/// `sw.js` with the page's files and a version from the contents of every file it caches
/// (FNV-1a), so that a browser replaces its cache when an export changed any of them.
fn service_worker(dir: &Path, written: &[PathBuf], page_files: &[String]) -> io::Result<String> {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let paths = written
        .iter()
        .cloned()
        // A directory's address (`app/`) is its index.html, hashed as a file of its own.
        .chain(
            page_files
                .iter()
                .filter(|f| !f.ends_with('/'))
                .map(|f| dir.join(f)),
        );
    for path in paths {
        for byte in fs::read(&path)? {
            hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    let sw = FILES
        .iter()
        .find(|(n, _)| *n == "sw.js")
        .map_or("", |f| f.1);
    let list = page_files
        .iter()
        .map(|f| format!("{f:?}"))
        .collect::<Vec<_>>()
        .join(", ");
    Ok(sw
        .replacen(
            "const VERSION = \"dev\";",
            &format!("const VERSION = \"{hash:016x}\";"),
            1,
        )
        .replacen(
            "const PAGE_FILES = [];",
            &format!("const PAGE_FILES = [{list}];"),
            1,
        ))
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
        let err = export(&out, &wasm, &[]).unwrap_err();
        assert!(err.to_string().contains("scripts/build-wasm"));
        fs::create_dir_all(&wasm).unwrap();
        for name in WASM_FILES {
            fs::write(wasm.join(name), "x").unwrap();
        }
        fs::create_dir_all(out.join("app")).unwrap();
        fs::write(out.join("app/index.html"), "page").unwrap();
        let page = ["app/".to_string(), "app/index.html".to_string()];
        let written = export(&out, &wasm, &page).unwrap();
        assert_eq!(written.len(), FILES.len() + WASM_FILES.len());
        assert!(out.join("index.html").is_file() && out.join("damasi_wasm_bg.wasm").is_file());
        // The service worker caches the page's files too, under a version of their contents.
        let sw = fs::read_to_string(out.join("sw.js")).unwrap();
        assert!(
            sw.contains(r#"const PAGE_FILES = ["app/", "app/index.html"];"#),
            "{sw}"
        );
        assert!(!sw.contains("\"dev\""), "{sw}");
        fs::write(out.join("app/index.html"), "another page").unwrap();
        export(&out, &wasm, &page).unwrap();
        assert_ne!(
            fs::read_to_string(out.join("sw.js")).unwrap(),
            sw,
            "a new version"
        );
        fs::remove_dir_all(&tmp).unwrap();
    }
}
