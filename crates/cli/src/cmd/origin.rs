//! `loadlab origin` (placeholder until the origin simulator lands).

use crate::exit::CliError;

#[derive(Debug, clap::Args)]
pub struct OriginArgs {}

pub fn run(_args: OriginArgs) -> Result<(), CliError> {
    Err(CliError::internal("origin is not built yet"))
}
