//! Engine commands: `hub`, `analyze`, `bench`, `match`. (Being built: the engine issue.)

use anyhow::{bail, Result};
use clap::Args;

/// Arguments of `damasi hub`.
#[derive(Args)]
pub struct HubArgs {}

/// Arguments of `damasi analyze`.
#[derive(Args)]
pub struct AnalyzeArgs {}

/// Arguments of `damasi bench`.
#[derive(Args)]
pub struct BenchArgs {}

/// Arguments of `damasi match`.
#[derive(Args)]
pub struct MatchArgs {}

/// `damasi hub`.
pub fn hub(_: HubArgs) -> Result<()> {
    bail!("the engine is not built yet")
}

/// `damasi analyze`.
pub fn analyze(_: AnalyzeArgs) -> Result<()> {
    bail!("the engine is not built yet")
}

/// `damasi bench`.
pub fn bench(_: BenchArgs) -> Result<()> {
    bail!("the engine is not built yet")
}

/// `damasi match`.
pub fn run_match(_: MatchArgs) -> Result<()> {
    bail!("the engine is not built yet")
}
