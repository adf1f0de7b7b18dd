//! Requests to many distinct URLs keep what the run holds in memory
//! bounded by its thresholds and summary rows: `--out json` and `--out
//! csv` stream each point with its `url` and `name` tags, and a threshold
//! filtered on `name` keeps only its own sub-metric.

use crate::common;

const URLS: usize = 2_000;

fn script(addr: std::net::SocketAddr) -> String {
    format!(
        r#"
import http from 'k6/http';
const base = 'http://{addr}';
export const options = {{
  scenarios: {{ s: {{ executor: 'per-vu-iterations', vus: 1, iterations: {URLS} }} }},
  thresholds: {{
    'http_reqs{{name:{base}/item?id=7}}': ['count==1'],
    'http_req_duration{{name:{base}/item?id=7}}': ['max<60000', 'min>0'],
    'http_req_failed{{url:{base}/item?id=1999}}': ['rate==0'],
    'http_reqs{{name:{base}/nowhere}}': ['count>0'],
    'http_reqs': ['count=={URLS}'],
  }},
}};
export default function () {{
  http.get(`${{base}}/item?id=${{__ITER}}`);
}}
"#,
        base = format!("http://{addr}")
    )
}

#[test]
fn distinct_urls_make_no_series_each_with_points_and_name_thresholds() {
    let (addr, _server) = common::echo();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.js");
    std::fs::write(&path, script(addr)).unwrap();
    let points = dir.path().join("points.json");
    let csv = dir.path().join("points.csv");
    let cfg = loadlab_script::RunConfig {
        script: path,
        quiet: true,
        json_out: Some(points.clone()),
        csv_out: Some(loadlab_script::out::CsvOut::parse(csv.to_str().unwrap()).unwrap()),
        ..Default::default()
    };
    let out = loadlab_script::run(cfg, std::future::pending()).unwrap();
    assert_eq!(out.http_reqs, URLS as u64, "{}", out.summary);
    // Only the threshold on a URL never requested fails.
    assert_eq!(
        out.thresholds_crossed,
        vec![format!("http_reqs{{name:http://{addr}/nowhere}}")],
        "{}",
        out.summary
    );
    // A series per metric and tag set (method, status...) and one per
    // tag-filtered threshold: not one per URL.
    assert!(
        out.metric_series < 60,
        "{} series and sub-metrics kept for {URLS} URLs",
        out.metric_series
    );
    // Every point still carries its request's own tags.
    let text = std::fs::read_to_string(&points).unwrap();
    let urls: std::collections::HashSet<String> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["type"] == "Point" && v["metric"] == "http_req_duration")
        .map(|v| {
            let t = &v["data"]["tags"];
            assert_eq!(t["url"], t["name"], "{v}");
            assert_eq!(t["status"], "200", "{v}");
            assert_eq!(t["proto"], "HTTP/1.1", "{v}");
            t["url"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(urls.len(), URLS);
    assert!(urls.contains(&format!("http://{addr}/item?id=1999")));
    let rows = std::fs::read_to_string(&csv).unwrap();
    let url_col = rows
        .lines()
        .next()
        .unwrap()
        .split(',')
        .position(|c| c == "url")
        .unwrap();
    let csv_urls: std::collections::HashSet<&str> = rows
        .lines()
        .skip(1)
        .filter(|l| l.starts_with("http_reqs,"))
        .map(|l| l.split(',').nth(url_col).unwrap())
        .collect();
    assert_eq!(csv_urls.len(), URLS);
}
