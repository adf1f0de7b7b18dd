//! A concurrent group's step, its workloads side by side: one table per
//! repetition with vegeta's lines for each member and for the combined
//! run, so a reader compares the routes attacked together at a glance
//! (the members' own vegeta blocks stay folded below, one each).

use std::time::Duration;

use loadlab_core::format_go_duration;

use super::doc::Block;
use crate::collect::RunSummary;
use crate::plan::Plan;
use crate::store::RunRow;

fn d(ns: u64) -> String {
    format_go_duration(Duration::from_nanos(ns))
}

/// The rows of vegeta's text report, one cell per run.
fn rows(cols: &[&RunSummary]) -> Vec<Vec<String>> {
    let row = |name: &str, f: &dyn Fn(&RunSummary) -> String| {
        let mut r = vec![name.to_string()];
        r.extend(cols.iter().map(|s| f(s)));
        r
    };
    vec![
        row("Requests [total]", &|s| s.requests.to_string()),
        row("Rate [/s]", &|s| format!("{:.2}", s.rate)),
        row("Throughput [/s]", &|s| format!("{:.2}", s.throughput)),
        row("Latency min", &|s| d(s.min_ns)),
        row("Latency mean", &|s| d(s.mean_ns as u64)),
        row("Latency 50", &|s| d(s.p50_ns)),
        row("Latency 90", &|s| d(s.p90_ns)),
        row("Latency 95", &|s| d(s.p95_ns)),
        row("Latency 99", &|s| d(s.p99_ns)),
        row("Latency max", &|s| d(s.max_ns)),
        row("Bytes In [mean]", &|s| {
            format!("{:.2}", s.bytes_in as f64 / s.requests.max(1) as f64)
        }),
        row("Success [ratio]", &|s| format!("{:.2}%", s.success * 100.0)),
        row("Status Codes", &|s| {
            s.status_codes
                .iter()
                .map(|(c, n)| format!("{c}:{n}"))
                .collect::<Vec<_>>()
                .join(" ")
        }),
        row("Unsent", &|s| s.unsent.to_string()),
    ]
}

/// For each concurrent group of `plan` run at (`phase`, `rate`), one
/// table per repetition: its members' vegeta lines side by side, then the
/// combined run's.
pub(crate) fn side_by_side(
    b: &mut Vec<Block>,
    plan: &Plan,
    runs: &[RunRow],
    phase: &str,
    rate: u64,
) {
    for g in plan.targets.iter().filter(|t| !t.members.is_empty()) {
        let of = |target: &str, rep: u32| {
            runs.iter().find(|r| {
                r.phase == phase && r.rate == rate && r.target == target && r.repetition == rep
            })
        };
        let mut reps: Vec<u32> = runs
            .iter()
            .filter(|r| r.phase == phase && r.rate == rate && r.target == g.name)
            .map(|r| r.repetition)
            .collect();
        reps.sort_unstable();
        reps.dedup();
        for rep in reps {
            let Some(combined) = of(&g.name, rep) else {
                continue;
            };
            let mut header = vec![format!("{} — repetition {rep}", g.name)];
            let mut cols = Vec::new();
            for m in &g.members {
                if let Some(r) = of(m, rep) {
                    header.push(m.clone());
                    cols.push(&r.summary);
                }
            }
            header.push("combined".into());
            cols.push(&combined.summary);
            b.push(Block::Table {
                header,
                rows: rows(&cols),
            });
        }
    }
}

/// The same lines as text for a terminal (`loadlab runs run N` on a
/// group's combined run): a column per member, then `combined`.
pub fn side_by_side_text(combined: &RunRow, members: &[&RunRow]) -> String {
    let mut header = vec![String::new()];
    header.extend(members.iter().map(|r| r.target.clone()));
    header.push("combined".into());
    let mut cols: Vec<&RunSummary> = members.iter().map(|r| &r.summary).collect();
    cols.push(&combined.summary);
    let mut table = vec![header];
    table.extend(rows(&cols));
    let widths: Vec<usize> = (0..table[0].len())
        .map(|c| {
            table
                .iter()
                .map(|r| r[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in &table {
        let cells: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_run_is_a_column_of_vegeta_lines() {
        let mut a = RunSummary {
            requests: 1000,
            rate: 200.0,
            throughput: 199.9,
            p99_ns: 3_500_000,
            success: 1.0,
            bytes_in: 10_000,
            ..Default::default()
        };
        a.status_codes.insert(200, 1000);
        let mut b = a.clone();
        b.requests = 2000;
        b.success = 0.5;
        b.status_codes.insert(500, 1000);
        let t = rows(&[&a, &b]);
        assert_eq!(t[0], vec!["Requests [total]", "1000", "2000"]);
        assert_eq!(t[8], vec!["Latency 99", "3.5ms", "3.5ms"]);
        assert_eq!(t[10], vec!["Bytes In [mean]", "10.00", "5.00"]);
        assert_eq!(t[11], vec!["Success [ratio]", "100.00%", "50.00%"]);
        assert_eq!(t[12], vec!["Status Codes", "200:1000", "200:1000 500:1000"]);
    }

    #[test]
    fn the_text_table_has_a_column_per_member_then_the_combined_run() {
        let run = |target: &str, requests: u64| RunRow {
            id: 1,
            study_id: 1,
            phase: "sweep".into(),
            rate: 50,
            target: target.into(),
            repetition: 1,
            started_at: String::new(),
            summary: RunSummary {
                requests,
                ..Default::default()
            },
            latency: hdrhistogram::Histogram::new(3).unwrap(),
            service: hdrhistogram::Histogram::new(3).unwrap(),
            series: Vec::new(),
            monitor: Vec::new(),
            slo_pass: None,
        };
        let (a, b, g) = (run("g/a", 40), run("g/b", 20), run("g", 60));
        let text = side_by_side_text(&g, &[&a, &b]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0].split_whitespace().collect::<Vec<_>>(),
            ["g/a", "g/b", "combined"]
        );
        assert!(lines[1].starts_with("Requests [total]"), "{text}");
        // Each figure sits under its run's name.
        for (name, n) in [("g/a", "40"), ("g/b", "20"), ("combined", "60")] {
            let col = lines[0].find(name).unwrap();
            assert_eq!(&lines[1][col..col + 2], n, "{text}");
        }
    }
}
