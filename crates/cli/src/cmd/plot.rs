//! `loadlab plot [-title=T] [-threshold=N] [-output=F] FILES...`: vegeta's
//! `plot`: a self-contained HTML page of latency over time (see docs/faces.md).

use std::io::Write;
use std::path::PathBuf;

use loadlab_faces::plot::{self, DEFAULT_THRESHOLD, DEFAULT_TITLE, Input, PlotError};

use crate::exit::{self, CliError};

#[derive(Debug, clap::Args)]
pub struct PlotArgs {
    /// Title of the page.
    #[arg(long, default_value = DEFAULT_TITLE)]
    title: String,
    /// Points per series after downsampling (LTTB).
    #[arg(long, default_value_t = DEFAULT_THRESHOLD)]
    threshold: usize,
    /// Where to write the page ("stdout" or a file).
    #[arg(long, default_value = "stdout")]
    output: String,
    /// Results files (loadlab binary, vegeta JSON or CSV); stdin when none or "-".
    files: Vec<PathBuf>,
}

pub fn run(a: PlotArgs) -> Result<(), CliError> {
    let mut inputs = Vec::new();
    let files = if a.files.is_empty() {
        vec![PathBuf::from("-")]
    } else {
        a.files
    };
    for f in files {
        if f.as_os_str() == "-" {
            inputs.push(Input {
                name: "stdin".into(),
                reader: Box::new(std::io::stdin()),
            });
        } else {
            let file = std::fs::File::open(&f)
                .map_err(|e| CliError::io(format!("plot: cannot open {}: {e}", f.display())))?;
            inputs.push(Input {
                name: f.display().to_string(),
                reader: Box::new(file),
            });
        }
    }
    let html = plot::plot(inputs, &a.title, a.threshold).map_err(|e| match e {
        PlotError::Threshold(_) => CliError::usage(format!("plot: {e}")),
        PlotError::Read(_) => CliError::new(exit::BAD_INPUT, format!("plot: {e}")),
    })?;
    let written = if a.output == "stdout" {
        std::io::stdout().lock().write_all(html.as_bytes())
    } else {
        std::fs::write(&a.output, html.as_bytes())
    };
    written.map_err(|e| CliError::io(format!("plot: cannot write {}: {e}", a.output)))
}
