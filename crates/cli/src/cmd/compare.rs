//! `loadlab compare A B`: two runs (`12 15`) or two targets of studies
//! (`3:c5 3:c6g`), with exact rank tests and the confidence intervals they give.

use std::path::PathBuf;

use loadlab_study::Store;
use loadlab_study::compare::{Side, compare, render};

use crate::exit::CliError;

#[derive(Debug, clap::Args)]
pub struct CompareArgs {
    /// A run id (e.g. 12) or STUDY:TARGET (e.g. 3:c5).
    pub a: String,
    /// A run id or STUDY:TARGET.
    pub b: String,
    /// The SQLite store.
    #[arg(long, default_value = super::study::DEFAULT_DB)]
    pub db: PathBuf,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: CompareArgs) -> Result<(), CliError> {
    let sa = Side::parse(&a.a).map_err(CliError::usage)?;
    let sb = Side::parse(&a.b).map_err(CliError::usage)?;
    if !a.db.exists() {
        return Err(CliError::io(format!(
            "{}: no such store (pass --db)",
            a.db.display()
        )));
    }
    let store = Store::open(&a.db).map_err(CliError::bad_input)?;
    let c = compare(&store, &sa, &sb).map_err(CliError::usage)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&c).unwrap_or_default());
    } else {
        print!("{}", render(&c));
    }
    Ok(())
}
