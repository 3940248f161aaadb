//! `damasi export-site DIR`: the offline page as static files, with the engine in WebAssembly.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;

/// Arguments of `damasi export-site`.
#[derive(Args)]
pub struct ExportSiteArgs {
    /// Directory to write the site into (created if needed).
    dir: PathBuf,
    /// Where `scripts/build-wasm` put `damasi_wasm.js` and `damasi_wasm_bg.wasm` [default:
    /// target/wasm-pkg of the source tree this binary was built from].
    #[arg(long)]
    wasm_dir: Option<PathBuf>,
}

/// `damasi export-site`. The site is written into a new directory beside `DIR` and put in
/// its place only when every file is written: a failed export (no WebAssembly build, a full
/// disk) leaves `DIR` as it was, never half a site.
pub fn export_site(a: ExportSiteArgs) -> Result<()> {
    let wasm_dir = a.wasm_dir.unwrap_or_else(|| {
        PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../target/wasm-pkg"
        ))
    });
    let dir = &a.dir;
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent)
        .with_context(|| format!("cannot make {}", parent.display()))?;
    if dir.exists() && !dir.is_dir() {
        anyhow::bail!("{} exists and is not a directory", dir.display());
    }
    // Removed when dropped, so on every error below.
    let staging = tempfile::Builder::new()
        .prefix(".damasi-site-")
        .tempdir_in(&parent)
        .with_context(|| format!("cannot make a directory in {}", parent.display()))?;
    let written = write_site(staging.path(), &wasm_dir)
        .with_context(|| format!("cannot export the site to {}", dir.display()))?;
    replace_dir(staging, dir)?;
    let mut out = std::io::stdout();
    for path in &written {
        let rel = path.strip_prefix(&parent).unwrap_or(path);
        let shown = rel.components().skip(1).fold(dir.clone(), |p, c| p.join(c));
        writeln!(out, "{}", shown.display())?;
    }
    eprintln!(
        "serve {} with any static file server (the page needs http(s), not file://)",
        dir.display()
    );
    Ok(())
}

/// Writes the whole site into `dir`; answers the files written.
fn write_site(dir: &Path, wasm_dir: &Path) -> Result<Vec<PathBuf>> {
    // The page first: the service worker the site's files include caches its files too.
    let mut written = export_main_page(dir).context("the main page")?;
    let page_files: Vec<String> = std::iter::once("app/".to_string())
        .chain(written.iter().filter_map(|p| {
            let rel = p.strip_prefix(dir).ok()?;
            Some(rel.to_string_lossy().replace('\\', "/"))
        }))
        .collect();
    written.extend(damasi_wasm::site::export(dir, wasm_dir, &page_files)?);
    Ok(written)
}

/// Puts the finished `staging` directory at `dir`: renamed there, or, when `dir` exists (an
/// earlier export), swapped with it and the old one removed.
fn replace_dir(staging: tempfile::TempDir, dir: &Path) -> Result<()> {
    let new = staging.keep();
    let put = |from: &Path| {
        std::fs::rename(from, dir)
            .with_context(|| format!("cannot move the site to {}", dir.display()))
    };
    if !dir.exists() {
        if let Err(e) = put(&new) {
            let _ = std::fs::remove_dir_all(&new);
            return Err(e);
        }
        return Ok(());
    }
    let old = new.with_extension("old");
    if let Err(e) = std::fs::rename(dir, &old) {
        let _ = std::fs::remove_dir_all(&new);
        return Err(e).with_context(|| format!("cannot replace {}", dir.display()));
    }
    if let Err(e) = put(&new) {
        // Put the old site back: the export failed, the directory stays as it was.
        let _ = std::fs::rename(&old, dir);
        let _ = std::fs::remove_dir_all(&new);
        return Err(e);
    }
    std::fs::remove_dir_all(&old)
        .with_context(|| format!("cannot remove the old site at {}", old.display()))
}

/// The main page (the web app's own page) into `DIR/app/`: with no server it plays with the
/// engine in the browser, from the site's WebAssembly build one directory up, and is the
/// site's page (`DIR/index.html` leads to it). Its links are made relative, so the site works
/// in any directory of a static host. Learn's course goes with it as static data
/// (`app/learn/*.json`, which the page reads instead of `/api/learn/...`); the online pages
/// are left out (online play needs the server).
fn export_main_page(dir: &Path) -> Result<Vec<PathBuf>> {
    let app = dir.join("app");
    std::fs::create_dir_all(&app)?;
    let mut written = Vec::new();
    let mut write = |name: &str, body: &[u8]| -> Result<()> {
        let out = app.join(name);
        // The page's modules live in subdirectories (js/, js/views/, ...).
        if let Some(parent) = out.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&out, body).with_context(|| format!("cannot write {}", out.display()))?;
        written.push(out);
        Ok(())
    };
    for &(path, _, body) in damasi_web::assets::FILES {
        if path.starts_with("/online") || path.starts_with("/js/online/") {
            continue;
        }
        if path == "/" {
            let html = body
                .replace("src=\"/", "src=\"")
                .replace("href=\"/", "href=\"")
                .replace(
                    "<meta name=\"damasi-wasm\" content=\"/wasm/\">",
                    "<meta name=\"damasi-wasm\" content=\"../\" data-no-server=\"1\">\n\
                     <link rel=\"manifest\" href=\"../manifest.webmanifest\">",
                );
            write("index.html", html.as_bytes())?;
        } else {
            write(path.trim_start_matches('/'), body.as_bytes())?;
        }
    }
    write(
        "learn/course.json",
        &serde_json::to_vec(damasi_web::learn::course())?,
    )?;
    write(
        "learn/examples.json",
        &serde_json::to_vec(damasi_web::learn::examples())?,
    )?;
    Ok(written)
}
