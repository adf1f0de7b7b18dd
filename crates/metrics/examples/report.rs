//! A tiny stand-in for `loadlab report` / `loadlab encode`, for trying the
//! library by hand: `cargo run --release --example report -- [TYPE|encode-json|encode-csv] FILES...`
//! (TYPE: text, json, hist[...], hdrplot; default text).

use std::io::Write;

use loadlab_metrics::{Encoder, Encoding, ReportType, open_results, render};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mode = if args
        .first()
        .is_some_and(|a| !std::path::Path::new(a).exists())
    {
        args.remove(0)
    } else {
        "text".into()
    };
    let encoding = match mode.as_str() {
        "encode-json" => Some(Encoding::Json),
        "encode-csv" => Some(Encoding::Csv),
        _ => None,
    };
    let rt: ReportType = match encoding {
        Some(_) => ReportType::Text,
        None => mode.parse().unwrap_or_else(|e| fail(e)),
    };
    let mut metrics = rt.new_metrics();
    let stdout = std::io::stdout();
    let mut enc = encoding.map(|e| Encoder::new(std::io::BufWriter::new(stdout.lock()), e));
    for path in &args {
        let file = std::fs::File::open(path).unwrap_or_else(|e| fail(format!("{path}: {e}")));
        let mut res = open_results(file, path).unwrap_or_else(|e| fail(e));
        for r in res.by_ref() {
            let r = r.unwrap_or_else(|e| fail(e));
            match &mut enc {
                Some(enc) => enc.encode(&r).unwrap_or_else(|e| fail(e)),
                None => metrics.add(&r),
            }
        }
        for w in res.warnings() {
            eprintln!("warning: {w}");
        }
    }
    match enc {
        Some(enc) => drop(enc.finish()),
        None => {
            let _ = std::io::stdout().write_all(render(&rt, &metrics).as_bytes());
        }
    }
}

fn fail(e: impl std::fmt::Display) -> ! {
    eprintln!("error: {e}");
    std::process::exit(3)
}
