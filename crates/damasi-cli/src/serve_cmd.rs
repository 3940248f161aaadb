//! `damasi serve`: the web app on this machine, by default at http://127.0.0.1:8080/.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::PathBuf;

use anyhow::{anyhow, Context, Result};
use clap::Args;
use damasi_web::AppState;

/// Arguments of `damasi serve`.
#[derive(Args, Default)]
pub struct ServeArgs {
    /// Port to listen on [default: 8080] (0 picks a free one).
    #[arg(long)]
    port: Option<u16>,
    /// Address to listen on. The default, 127.0.0.1, lets only this machine in; use 0.0.0.0
    /// to let other machines on the network play too.
    #[arg(long)]
    host: Option<IpAddr>,
    /// Where the saved games are kept (default: the user's data directory).
    #[arg(long)]
    data_dir: Option<PathBuf>,
}

/// The user's data directory for damasi, e.g. `~/.local/share/damasi` on Linux.
fn default_data_dir() -> Result<PathBuf> {
    directories::ProjectDirs::from("", "", "damasi")
        .map(|d| d.data_dir().to_path_buf())
        .ok_or_else(|| anyhow!("no home directory found: pass --data-dir"))
}

/// `damasi serve`.
pub fn serve(a: ServeArgs) -> Result<()> {
    let port = a.port.unwrap_or(8080);
    let host = a.host.unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
    let data_dir = match a.data_dir {
        Some(d) => d,
        None => default_data_dir()?,
    };
    let state = AppState::open(&data_dir).map_err(|e| anyhow!(e))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime
        .block_on(damasi_web::serve(
            state,
            SocketAddr::new(host, port),
            |addr| {
                let shown = if addr.ip().is_unspecified() {
                    SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), addr.port())
                } else {
                    addr
                };
                println!("damasi: open http://{shown}/ in a browser (Ctrl-C stops the server)");
                println!("damasi: games are saved in {}", data_dir.display());
                if !addr.ip().is_loopback() {
                    println!(
                        "damasi: listening on {addr}: other machines on the network can reach it"
                    );
                }
            },
        ))
        .with_context(|| format!("cannot serve on {host}:{port}"))
}
