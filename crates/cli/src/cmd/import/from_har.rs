//! `loadlab import har FILE --to targets|plan|k6`: a browser's recording
//! as a vegeta targets file (`attack -targets=FILE` replays it), a study
//! plan of those requests (its targets file beside it), or as an
//! editable k6 script with its think times, page groups and the values
//! one response hands to a later request carried over (see
//! [`super::correlate`]). Static assets (images, style sheets, scripts,
//! fonts) are left out unless `--keep-static`.

use super::ImportArgs;
use super::har::{Entry, is_static, parse, think_times};
use super::k6::{self, Group, Request};
use crate::exit::CliError;

pub fn run(a: &ImportArgs) -> Result<(), CliError> {
    let doc =
        std::fs::read(&a.file).map_err(|e| CliError::io(format!("cannot read {}: {e}", a.file)))?;
    let har = parse(&doc).map_err(|e| CliError::bad_input(format!("{}: {e}", a.file)))?;
    let total = har.entries.len();
    let entries: Vec<Entry> = har
        .entries
        .iter()
        .filter(|e| a.keep_static || !is_static(e))
        .cloned()
        .collect();
    if entries.is_empty() {
        return Err(CliError::bad_input(format!(
            "{}: all {total} entries are static assets (images, CSS, scripts, fonts): give --keep-static to keep them",
            a.file
        )));
    }
    let left_out = total - entries.len();
    let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    let note = format!(
        "{} from {}{}",
        plural(entries.len(), "request"),
        a.file,
        if left_out > 0 {
            format!(
                " ({} left out; --keep-static keeps them)",
                plural(left_out, "static asset")
            )
        } else {
            String::new()
        }
    );
    match a.to.as_str() {
        "targets" => {
            let text = targets_text(&a.output, &entries, &note, false)?;
            super::write(&a.output, &text)
        }
        "plan" => write_plan(a, &entries, &note),
        "k6" => {
            let script = k6::script(&note, &groups(&har.pages, &entries));
            super::write(&a.output, &script)
        }
        other => Err(CliError::usage(format!(
            "--to={other}: a HAR converts to targets, plan or k6"
        ))),
    }
}

/// The k6 requests, grouped by page when the HAR has pages (in the order
/// of their first request), with the correlated values carried over.
fn groups(pages: &[(String, String)], entries: &[Entry]) -> Vec<Group> {
    let think = think_times(entries);
    let requests = super::correlate::requests(entries);
    let mut groups: Vec<Group> = Vec::new();
    for ((e, r), t) in entries.iter().zip(requests).zip(think) {
        let name = e.pageref.as_ref().map(|p| {
            pages
                .iter()
                .find(|(id, _)| id == p)
                .map_or(p.clone(), |(_, title)| title.clone())
        });
        let r = Request { think: t, ..r };
        match groups.last_mut() {
            Some(g) if g.name == name => g.requests.push(r),
            _ => groups.push(Group {
                name,
                requests: vec![r],
            }),
        }
    }
    groups
}

/// A vegeta targets file (http format) written to `output`: each request
/// with its headers, and its body in a file beside the targets file
/// (`@path`: relative to the targets file when `beside`, as a study reads
/// it; else as given, relative to where `attack` runs, like the output
/// path itself).
fn targets_text(
    output: &str,
    entries: &[Entry],
    note: &str,
    beside: bool,
) -> Result<String, CliError> {
    let to_stdout = output == "stdout" || output == "-";
    let out = std::path::Path::new(output);
    let dir_name = format!(
        "{}.bodies",
        out.file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("targets")
    );
    let bodies = out.with_file_name(&dir_name);
    let mut text = format!("# loadlab import har: {note}\n");
    for e in entries {
        text += &format!("{} {}\n", e.method, e.url);
        for (k, v) in &e.headers {
            text += &format!("{k}: {v}\n");
        }
        if let Some(b) = e.body.as_ref().filter(|b| !b.is_empty()) {
            if to_stdout {
                return Err(CliError::usage(
                    "the HAR has request bodies: give -o FILE (the bodies are written beside it)",
                ));
            }
            std::fs::create_dir_all(&bodies).map_err(|err| {
                CliError::io(format!("cannot create {}: {err}", bodies.display()))
            })?;
            let name = format!("{}.body", e.index);
            let path = bodies.join(&name);
            std::fs::write(&path, b)
                .map_err(|err| CliError::io(format!("cannot write {}: {err}", path.display())))?;
            match beside {
                true => text += &format!("@{dir_name}/{name}\n"),
                false => text += &format!("@{}\n", path.display()),
            }
        }
        text.push('\n');
    }
    Ok(text)
}

/// A study plan of the recording's requests, sent in turn (one target,
/// its targets file beside the plan), at two rates.
fn write_plan(a: &ImportArgs, entries: &[Entry], note: &str) -> Result<(), CliError> {
    let (stem, targets_path) = super::plan_name::beside(&a.output, "visit")?;
    let targets_out = targets_path.display().to_string();
    super::write(
        &targets_out,
        &targets_text(&targets_out, entries, note, true)?,
    )?;
    let r = entries.len().max(5) as u64;
    let text = super::plan_name::PlanText {
        comment: &[
            format!("loadlab import har --to plan: {note},"),
            "sent in turn as recorded (values a server hands out anew, such as a".into(),
            "login's token, are sent as recorded: the k6 script carries them over).".into(),
        ],
        stem: &stem,
        question: format!(
            "How does the site hold the requests of {} at {r} and {} requests/s?",
            a.file,
            r * 2
        ),
        target: "visit",
        targets: &targets_path,
        weights: None,
        rates: &[r, r * 2],
        step: "30s",
        warmup: "2s",
        cooldown: None,
        repetitions: 1,
        success: "99%",
    }
    .render();
    super::write(&a.output, &text)
}
