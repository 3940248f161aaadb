//! Ways to play: `serve` (the web app) and `play` (the terminal). (Being built: the web issue.)

use anyhow::{bail, Result};
use clap::Args;

/// Arguments of `damasi serve`.
#[derive(Args, Default)]
pub struct ServeArgs {}

/// Arguments of `damasi play`.
#[derive(Args)]
pub struct PlayArgs {}

/// `damasi serve`.
pub fn serve(_: ServeArgs) -> Result<()> {
    bail!("the web app is not built yet")
}

/// `damasi play`.
pub fn play(_: PlayArgs) -> Result<()> {
    bail!("terminal play is not built yet")
}
