//! vegeta's target formats, with line-numbered errors.

use std::io::Cursor;

use bytes::Bytes;
use loadlab_engine::{TargetError, TargetFormat, TargetReader, parse_targets};

fn http(text: &str) -> Result<Vec<loadlab_engine::Target>, TargetError> {
    parse_targets(
        Cursor::new(text.as_bytes().to_vec()),
        TargetFormat::Http,
        "targets.txt",
        None,
        &[],
    )
}

fn json(text: &str) -> Result<Vec<loadlab_engine::Target>, TargetError> {
    parse_targets(
        Cursor::new(text.as_bytes().to_vec()),
        TargetFormat::Json,
        "targets.json",
        None,
        &[],
    )
}

#[test]
fn http_format() {
    let dir = tempfile::tempdir().unwrap();
    let body = dir.path().join("body.json");
    std::fs::write(&body, b"{\"k\":1}").unwrap();
    let text = format!(
        "# a comment\n\nGET http://goku:9090/path/to/dragon?item=ball\nX-Account-ID: 8675309\n# inside\nAccept: */*\n\n\
         POST https://goku:9090/things\nContent-Type: application/json\n@{}\nGET http://goku:9090/a\nGET http://goku:9090/b\n",
        body.display()
    );
    let t = http(&text).unwrap();
    assert_eq!(t.len(), 4);
    assert_eq!(t[0].method, http::Method::GET);
    assert_eq!(t[0].url, "http://goku:9090/path/to/dragon?item=ball");
    assert_eq!(
        t[0].headers,
        vec![
            ("X-Account-ID".into(), "8675309".into()),
            ("Accept".into(), "*/*".into())
        ]
    );
    assert_eq!(t[1].method, http::Method::POST);
    assert_eq!(t[1].body, Bytes::from_static(b"{\"k\":1}"));
    assert_eq!(t[1].headers.len(), 1);
    assert_eq!(
        (t[2].url.as_str(), t[3].url.as_str()),
        ("http://goku:9090/a", "http://goku:9090/b")
    );
}

#[test]
fn defaults_apply() {
    let d = Bytes::from_static(b"dflt");
    let t = parse_targets(
        Cursor::new(b"GET http://h/\nX-A: 1\n".to_vec()),
        TargetFormat::Http,
        "t",
        Some(&d),
        &[("X-D".into(), "d".into())],
    )
    .unwrap();
    assert_eq!(t[0].body, d);
    assert_eq!(
        t[0].headers,
        vec![("X-D".into(), "d".into()), ("X-A".into(), "1".into())]
    );
}

#[test]
fn http_errors_name_file_and_line() {
    let cases = [
        ("GET\n", "targets.txt:1: expected \"METHOD URL\""),
        ("\n\nget http://h/\n", "targets.txt:3: bad method"),
        ("GET not-a-url\n", "targets.txt:1: bad URL"),
        ("GET ftp://h/x\n", "targets.txt:1: bad URL"),
        ("GET http://h/\nX-A 1\n", "targets.txt:2: expected a header"),
        (
            "GET http://h/\n@/nonexistent/body\n",
            "targets.txt:2: cannot read body file",
        ),
    ];
    for (text, want) in cases {
        let e = http(text).unwrap_err().to_string();
        assert!(e.starts_with(want), "{text:?}: {e}");
    }
    assert!(matches!(
        http("# only comments\n\n"),
        Err(TargetError::Empty { .. })
    ));
}

#[test]
fn json_format() {
    let text = "{\"method\":\"POST\",\"url\":\"http://h:1/x\",\"body\":\"aGVsbG8=\",\"header\":{\"X-A\":[\"1\",\"2\"]}}\n\n{\"method\":\"GET\",\"url\":\"https://h/\"}\n";
    let t = json(text).unwrap();
    assert_eq!(t.len(), 2);
    assert_eq!(t[0].body, Bytes::from_static(b"hello"));
    assert_eq!(
        t[0].headers,
        vec![("X-A".into(), "1".into()), ("X-A".into(), "2".into())]
    );
    assert_eq!(t[1].method, http::Method::GET);
    assert!(t[1].body.is_empty());
}

#[test]
fn json_errors_name_file_and_line() {
    let cases = [
        (
            "{\"url\":\"http://h/\"}\n",
            "targets.json:1: required string field \"method\"",
        ),
        (
            "{\"method\":\"GET\",\"url\":\"http://h/\"}\n{\"method\":\"GET\"}\n",
            "targets.json:2: required string field \"url\"",
        ),
        (
            "{\"method\":\"GET\",\"url\":\"http://h/\",\"body\":\"***\"}\n",
            "targets.json:1: field \"body\" is not valid base64",
        ),
        (
            "{\"method\":\"GET\",\"url\":\"http://h/\",\"header\":{\"A\":\"x\"}}\n",
            "targets.json:1: header \"A\" must be an array",
        ),
        (
            "not json\n",
            "targets.json:1: expected a JSON target object",
        ),
        (
            "{\"method\":\"GET\",\"url\":\"http://h/\",\"extra\":1}\n",
            "targets.json:1: unknown field \"extra\"",
        ),
    ];
    for (text, want) in cases {
        let e = json(text).unwrap_err().to_string();
        assert!(e.starts_with(want), "{text:?}: {e}");
    }
}

#[test]
fn templates_with_bodies_beside_their_file() {
    // issue 10 item 4: a study reads its targets files through this reader,
    // with `{origin}` and `${NAME}` in URLs filled in (and checked) later
    // and `@body` paths relative to the targets file.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("b.json"), "{}").unwrap();
    let abs = dir.path().join("abs.txt");
    std::fs::write(&abs, "abs").unwrap();
    let text = format!(
        "GET {{origin}}/a\nAuthorization: Bearer ${{TOKEN}}\n\n# c\nPOST http://${{HOST}}/b\n@b.json\nPUT http://h/c\n@{}\n",
        abs.display()
    );
    let mut r = TargetReader::new(Cursor::new(text.clone()), TargetFormat::Http, "t.txt")
        .body_dir(dir.path())
        .unchecked_urls();
    let a = r.next().unwrap().unwrap();
    assert_eq!((a.url.as_str(), r.line()), ("{origin}/a", 1));
    assert_eq!(
        a.headers,
        vec![("Authorization".into(), "Bearer ${TOKEN}".into())]
    );
    let b = r.next().unwrap().unwrap();
    assert_eq!(
        (b.url.as_str(), &b.body[..], r.line()),
        ("http://${HOST}/b", &b"{}"[..], 5)
    );
    let c = r.next().unwrap().unwrap();
    assert_eq!((&c.body[..], r.line()), (&b"abs"[..], 7));
    assert!(r.next().is_none());
    // By default URLs are checked and bodies are read from the current folder.
    let e = parse_targets(Cursor::new(text), TargetFormat::Http, "t.txt", None, &[]).unwrap_err();
    assert!(e.to_string().starts_with("t.txt:1: bad URL"), "{e}");
    let e = TargetReader::new(
        Cursor::new("GET http://h/\n@b.json\n"),
        TargetFormat::Http,
        "t.txt",
    )
    .next()
    .unwrap()
    .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("t.txt:2: cannot read body file \"b.json\""),
        "{e}"
    );
}
