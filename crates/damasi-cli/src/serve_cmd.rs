//! `damasi serve`: the web app. (Being built: the web issue.)

use anyhow::{bail, Result};
use clap::Args;

/// Arguments of `damasi serve`.
#[derive(Args, Default)]
pub struct ServeArgs {}

/// `damasi serve`.
pub fn serve(_: ServeArgs) -> Result<()> {
    bail!("the web app is not built yet")
}
