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
    /// The SQLite store [default: loadlab.db; when there is none, the demo's
    /// loadlab-demo/study.db if it exists].
    #[arg(long)]
    pub db: Option<PathBuf>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: CompareArgs) -> Result<(), CliError> {
    let sa = Side::parse(&a.a).map_err(CliError::usage)?;
    let sb = Side::parse(&a.b).map_err(CliError::usage)?;
    let db = super::runs::store_path(a.db);
    if !db.exists() {
        return Err(CliError::io(format!(
            "{}: no such store (pass --db)",
            db.display()
        )));
    }
    let store = Store::open_existing(&db).map_err(CliError::bad_input)?;
    let c = compare(&store, &sa, &sb).map_err(CliError::usage)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&c).unwrap_or_default());
    } else {
        print!("{}", render(&c));
    }
    Ok(())
}
