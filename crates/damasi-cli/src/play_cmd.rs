//! `damasi play`: play in the terminal. (Being built: the web issue.)

use anyhow::{bail, Result};
use clap::Args;

/// Arguments of `damasi play`.
#[derive(Args)]
pub struct PlayArgs {}

/// `damasi play`.
pub fn play(_: PlayArgs) -> Result<()> {
    bail!("terminal play is not built yet")
}
