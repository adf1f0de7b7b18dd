//! `loadlab plot [-title=T] [-threshold=N] [-output=F] FILES...`: vegeta's
//! `plot`: a self-contained HTML page of latency over time (see docs/faces.md).

use std::io::{IsTerminal, Write};
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
    let reads_stdin = a.files.is_empty() || a.files.iter().any(|f| f.as_os_str() == "-");
    if reads_stdin && std::io::stdin().is_terminal() {
        return Err(CliError::usage(
            "plot reads results from stdin, a terminal here: give results files, or pipe them in: loadlab attack … | loadlab plot > plot.html",
        ));
    }
    if a.output == "stdout" && std::io::stdout().is_terminal() {
        return Err(CliError::usage(
            "plot writes an HTML page: redirect it (loadlab plot results.bin > plot.html) or give -output=plot.html",
        ));
    }
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
    let series = plot::build_series(inputs, a.threshold).map_err(|e| match e {
        PlotError::Threshold(_) => CliError::usage(format!("plot: {e}")),
        PlotError::Read(_) => CliError::new(exit::BAD_INPUT, format!("plot: {e}")),
    })?;
    if series.iter().all(|s| s.total == 0) {
        eprintln!("loadlab: plot: warning: the input holds no results; the page is empty");
    }
    let html = plot::render_html(&a.title, &series);
    let written = if a.output == "stdout" {
        std::io::stdout().lock().write_all(html.as_bytes())
    } else {
        std::fs::write(&a.output, html.as_bytes())
    };
    written.map_err(|e| CliError::io(format!("plot: cannot write {}: {e}", a.output)))
}
