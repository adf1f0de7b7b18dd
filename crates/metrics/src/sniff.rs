//! What the first bytes of an input look like, for the error that says it
//! is none of the formats we read.

/// A short, printable description of the first bytes of an unknown file.
pub(crate) fn describe_start(head: &[u8]) -> String {
    if head.is_empty() {
        return "nothing: the input is empty".to_string();
    }
    if head.starts_with(&[0x1f, 0x8b]) {
        return "1f 8b: gzip-compressed data; decompress it first".to_string();
    }
    let n = head.len().min(24);
    let printable = head[..n]
        .iter()
        .all(|&b| b.is_ascii_graphic() || b == b' ' || b == b'\t' || b == b'\n' || b == b'\r');
    if printable {
        let s = String::from_utf8_lossy(&head[..n]);
        let more = if head.len() > n { "..." } else { "" };
        format!("\"{}{more}\"", s.escape_debug())
    } else {
        let hex: Vec<String> = head[..n.min(12)]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        format!("bytes {}", hex.join(" "))
    }
}
