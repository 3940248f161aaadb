//! `damasi export-site DIR`: the offline page as static files, with the engine in WebAssembly.

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
    let written = damasi_wasm::site::export(&a.dir, &wasm_dir)
        .with_context(|| format!("cannot export the site to {}", a.dir.display()))?;
    for path in &written {
        println!("{}", path.display());
    }
    eprintln!(
        "serve {} with any static file server (the page needs http(s), not file://)",
        a.dir.display()
    );
    Ok(())
}
