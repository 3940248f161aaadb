//! `damasi export-site DIR`: the offline page as static files, with the engine in WebAssembly.

use std::io::Write;
use std::path::PathBuf;

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

/// `damasi export-site`.
pub fn export_site(a: ExportSiteArgs) -> Result<()> {
    let wasm_dir = a.wasm_dir.unwrap_or_else(|| {
        PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../target/wasm-pkg"
        ))
    });
    // The page first: the service worker the site's files include caches its files too.
    let mut written = export_main_page(&a.dir)
        .with_context(|| format!("cannot export the main page to {}", a.dir.display()))?;
    let page_files: Vec<String> = std::iter::once("app/".to_string())
        .chain(written.iter().filter_map(|p| {
            let rel = p.strip_prefix(&a.dir).ok()?;
            Some(rel.to_string_lossy().replace('\\', "/"))
        }))
        .collect();
    written.extend(
        damasi_wasm::site::export(&a.dir, &wasm_dir, &page_files)
            .with_context(|| format!("cannot export the site to {}", a.dir.display()))?,
    );
    let mut out = std::io::stdout();
    for path in &written {
        writeln!(out, "{}", path.display())?;
    }
    eprintln!(
        "serve {} with any static file server (the page needs http(s), not file://)",
        a.dir.display()
    );
    Ok(())
}

/// The main page (the web app's own page) into `DIR/app/`: with no server it plays with the
/// engine in the browser, from the site's WebAssembly build one directory up, and is the
/// site's page (`DIR/index.html` leads to it). Its links are made relative, so the site works
/// in any directory of a static host. Learn's course goes with it as static data
/// (`app/learn/*.json`, which the page reads instead of `/api/learn/...`); the online pages
/// are left out (online play needs the server).
fn export_main_page(dir: &std::path::Path) -> Result<Vec<PathBuf>> {
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
