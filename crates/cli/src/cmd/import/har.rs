//! A HAR 1.2 document as `loadlab import har` reads it (the engine's HAR
//! reader, in `startedDateTime` order): its pages and its entries'
//! requests and responses, which entries are static assets, and the think
//! times between them.

pub use loadlab_engine::replay::har::HarEntry as Entry;

/// A HAR read: its pages (id, title) and entries in `startedDateTime` order.
#[derive(Debug, Default)]
pub struct Har {
    pub pages: Vec<(String, String)>,
    pub entries: Vec<Entry>,
}

/// Reads a HAR document (with the engine's reader, the one `attack
/// -replay` uses); an entry that cannot be read refuses the document. The
/// error says what is wrong, without the path.
pub fn parse(doc: &[u8]) -> Result<Har, String> {
    let doc = loadlab_engine::replay::har::read(doc)?;
    let mut entries = doc
        .entries
        .into_iter()
        .map(|e| e.map_err(|(i, r)| format!("log.entries[{i}]: {r}")))
        .collect::<Result<Vec<Entry>, String>>()?;
    entries.sort_by_key(|e| (e.started, e.index));
    Ok(Har {
        pages: doc.pages,
        entries,
    })
}

/// Extensions of static assets (the path's, before any query).
const STATIC_EXT: [&str; 17] = [
    "css", "js", "mjs", "map", "png", "jpg", "jpeg", "gif", "webp", "avif", "svg", "ico", "bmp",
    "woff", "woff2", "ttf", "otf",
];

/// Whether an entry fetched a static asset: an image, style sheet, script
/// or font, by its response's MIME type or its URL's extension.
pub fn is_static(e: &Entry) -> bool {
    let m = e.mime.split(';').next().unwrap_or("").trim();
    if m.starts_with("image/")
        || m.starts_with("font/")
        || m == "text/css"
        || m.contains("javascript")
        || m.contains("ecmascript")
        || m == "application/font-woff"
        || m == "application/vnd.ms-fontobject"
    {
        return true;
    }
    let path = e.url.split(['?', '#']).next().unwrap_or("");
    let last = path.rsplit('/').next().unwrap_or("");
    last.rsplit_once('.').is_some_and(|(_, ext)| {
        STATIC_EXT.contains(&ext.to_ascii_lowercase().as_str()) || ext.eq_ignore_ascii_case("eot")
    })
}

/// Think time before entry `i`: the gap from the end of the latest
/// exchange before it to its start, in seconds. Gaps under 0.1 s are a
/// browser loading in parallel (none); long ones are capped at 10 s.
pub fn think_times(entries: &[Entry]) -> Vec<f64> {
    let mut end = i128::MIN;
    entries
        .iter()
        .map(|e| {
            let gap = if end == i128::MIN {
                0.0
            } else {
                (e.started - end) as f64 / 1e9
            };
            end = end.max(e.started + (e.time_ms * 1e6) as i128);
            if gap < 0.1 {
                0.0
            } else {
                (gap.min(10.0) * 10.0).round() / 10.0
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(url: &str, mime: &str) -> Entry {
        Entry {
            url: url.into(),
            mime: mime.into(),
            ..Entry::default()
        }
    }

    #[test]
    fn static_assets_by_mime_type_or_extension() {
        for (url, mime) in [
            ("http://h/app.css", "text/css"),
            ("http://h/app.js?v=3", ""),
            ("http://h/x", "application/javascript; charset=utf-8"),
            ("http://h/logo", "image/png"),
            ("http://h/f.woff2", "application/octet-stream"),
            ("http://h/favicon.ico", "text/html"),
        ] {
            assert!(is_static(&at(url, mime)), "{url} {mime}");
        }
        for (url, mime) in [
            ("http://h/", "text/html"),
            ("http://h/api/items.json", "application/json"),
            ("http://h/login", ""),
            ("http://h/a.css/edit", "text/html"),
        ] {
            assert!(!is_static(&at(url, mime)), "{url} {mime}");
        }
    }

    #[test]
    fn think_times_are_the_idle_gaps_capped() {
        let e = |ms: i128, time_ms: f64| Entry {
            started: ms * 1_000_000,
            time_ms,
            ..Entry::default()
        };
        // Parallel loads (no gap), 1.5 s of reading, then 60 s of idling.
        let es = [e(0, 50.0), e(20, 30.0), e(1550, 10.0), e(61_560, 5.0)];
        assert_eq!(think_times(&es), vec![0.0, 0.0, 1.5, 10.0]);
    }

    #[test]
    fn a_har_without_entries_or_not_json_is_refused_with_the_reason() {
        assert_eq!(
            parse(br#"{"log":{"entries":[]}}"#).unwrap_err(),
            "the HAR has no entries (log.entries is empty)"
        );
        assert!(
            parse(b"nope")
                .unwrap_err()
                .starts_with("not a HAR document: ")
        );
        assert_eq!(
            parse(br#"{"log":{"entries":[{"startedDateTime":"x"}]}}"#).unwrap_err(),
            "log.entries[0]: bad startedDateTime \"x\""
        );
    }
}
