//! A lean HTTP/1.1 client exchange: write pre-built request bytes, parse the
//! response head with `httparse`, then read and count (never keep) the body,
//! whether delimited by `Content-Length`, chunked, or the end of the stream
//! (a gzip body the engine asked for is counted decoded: `gunzip.rs`).
//! One read buffer per connection is reused for every request.

use std::mem::MaybeUninit;

use loadlab_core::ErrorKind;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::OwnedSemaphorePermit;
use tokio::time::Instant;

use crate::gunzip::{Body, GunzipPool};
use crate::stream::{Stream, classify};

/// Initial (and idle) read buffer: small, because 10,000 idle keep-alive
/// connections must stay cheap; it grows to `BODY_BUF` while a large body is
/// read and shrinks back before the next request.
const BUF: usize = 4 * 1024;
const BODY_BUF: usize = 64 * 1024;
/// Header fields parsed in the first attempt (on the stack, uninitialised):
/// enough for nearly every response. A head with more is parsed again with
/// as many slots as it has lines.
const MAX_HEADERS: usize = 96;
/// Body bytes a request reads before it lets the other tasks run. A fast
/// sender keeps a socket always readable, and tokio's cooperative budget
/// (128 reads of up to 64 KiB) would let one task read 8 MiB in a turn: with
/// a few hundred such responses the send clock's task waits whole seconds
/// for its turn and the schedule falls behind.
const YIELD_EVERY: usize = 256 * 1024;

/// One HTTP/1.1 connection and its read buffer.
pub(crate) struct H1Conn {
    /// What its exchange waits for, as its pool sees it (first: dropped
    /// before the socket closes).
    pub watch: std::sync::Arc<crate::behind::Watch>,
    stream: Stream,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// When the data of the last read arrived (the kernel's stamp where
    /// there is one, else when the read returned).
    last_rx: Instant,
    /// Bytes read since this task last yielded (see [`YIELD_EVERY`]).
    unyielded: usize,
    /// True once the current response's head was parsed (a timeout from
    /// then on is the body's).
    in_body: bool,
    /// The current response's body as counted so far (even when the
    /// exchange fails): its bytes, and its decoder when it is gzip the
    /// engine asked for.
    body: Body,
    /// Bytes read off the stream by the current exchange (head, framing
    /// and body: what was on the wire).
    wire_read: u64,
    /// `-max-headers-size`: the largest response head accepted.
    max_head: usize,
    /// Holds a `-max-connections` slot for as long as the connection lives.
    _permit: Option<OwnedSemaphorePermit>,
    /// Its peer and TLS parameters.
    pub info: crate::stream::ConnInfo,
    /// Who may reuse it (see [`crate::stream::Owner`]; 0: anyone).
    pub owner: u32,
}

/// What came back (its body is counted in the connection:
/// [`H1Conn::body_counts`]).
pub(crate) struct H1Response {
    pub status: u16,
    /// True when the connection may carry another request.
    pub reusable: bool,
    /// `Location` header of a redirect (only kept for 3xx).
    pub location: Option<String>,
    /// When the last byte of the response arrived.
    pub done: Instant,
}

/// A failed exchange. `fresh` means nothing of a response arrived, so a
/// request on a reused connection the server had already closed may be retried.
pub(crate) struct H1Error {
    pub kind: ErrorKind,
    pub fresh: bool,
}

fn err(kind: ErrorKind, fresh: bool) -> H1Error {
    H1Error { kind, fresh }
}

impl H1Conn {
    pub fn new(
        stream: Stream,
        permit: Option<OwnedSemaphorePermit>,
        max_head: usize,
        info: crate::stream::ConnInfo,
        owner: u32,
        watch: std::sync::Arc<crate::behind::Watch>,
    ) -> Self {
        H1Conn {
            watch,
            info,
            stream,
            buf: vec![0; BUF],
            start: 0,
            end: 0,
            last_rx: Instant::now(),
            unyielded: 0,
            in_body: false,
            body: Body::default(),
            wire_read: 0,
            max_head,
            _permit: permit,
            owner,
        }
    }

    /// Reads more bytes after `end`, growing the buffer up to `max_head` for
    /// a long response head. Returns the number of bytes read (0 = EOF).
    async fn fill(&mut self) -> Result<usize, ErrorKind> {
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        } else if self.end == self.buf.len() {
            if self.start > 0 {
                self.buf.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            } else if self.buf.len() < self.max_head {
                // Room for the whole limit and one byte more, to tell a
                // head of exactly the limit from one over it.
                let grown = (self.buf.len() * 2).min(self.max_head + 1);
                self.buf.resize(grown, 0);
            } else {
                // Only a response head fills the whole buffer unconsumed.
                return Err(ErrorKind::HeadersTooLarge);
            }
        }
        let n = self
            .stream
            .read(&mut self.buf[self.end..])
            .await
            .map_err(|e| classify(&e))?;
        self.end += n;
        self.wire_read += n as u64;
        if n > 0 {
            self.last_rx = self.stream.last_rx().unwrap_or_else(Instant::now);
            self.unyielded += n;
            if self.unyielded >= YIELD_EVERY {
                self.unyielded = 0;
                tokio::task::yield_now().await;
            }
        }
        Ok(n)
    }

    /// True when the last exchange got as far as the body (its head was parsed).
    pub fn in_body(&self) -> bool {
        self.in_body
    }

    /// The last exchange's body, whether or not it completed: (vegeta's
    /// `bytes_in`, the bytes as they came; they differ for a gzip body the
    /// engine decoded). A decoder goes back to `gzip`, the pool the
    /// exchange was given.
    pub fn body_counts(&mut self, gzip: Option<&GunzipPool>) -> (u64, u64) {
        self.body.take_counts(gzip)
    }

    /// The bytes on the wire for the last exchange, whose request was
    /// `written` bytes long: on a TCP socket, every byte written and read
    /// since the connection's previous exchange (a new connection's TLS
    /// handshake, TLS records); else the request and every byte the
    /// exchange read off the connection (status line, header fields,
    /// framing, body), whether or not it completed.
    pub fn take_wire(&self, written: u64) -> (u64, u64) {
        match self.stream.counts() {
            Some(c) => c.take(),
            None => (written, self.wire_read),
        }
    }

    /// Sends `request` and reads the whole response. `first_byte` is set when
    /// the first response byte arrives. `gzip` (the engine asked for gzip)
    /// lends the decoder of a body that says `Content-Encoding: gzip`.
    pub async fn exchange(
        &mut self,
        request: &[u8],
        head_only: bool,
        first_byte: &mut Option<Instant>,
        mut capture: Option<&mut crate::stream::Capture>,
        gzip: Option<&GunzipPool>,
    ) -> Result<H1Response, H1Error> {
        // Leftover bytes from a previous response are not ours to interpret.
        self.start = 0;
        self.end = 0;
        self.in_body = false;
        self.body.start(None);
        self.wire_read = 0;
        self.watch.taken();
        if self.buf.len() > BUF {
            self.buf.truncate(BUF);
            self.buf.shrink_to_fit();
        }
        if let Err(e) = self.stream.write_all(request).await {
            return Err(err(classify(&e), true));
        }
        if let Err(e) = self.stream.flush().await {
            return Err(err(classify(&e), true));
        }
        self.watch.written();
        if let Some(c) = capture.as_deref_mut() {
            c.phases.wrote = Some(Instant::now());
        }
        loop {
            // Parse the head from the buffered bytes. The header array is
            // left uninitialised: filling 96 empty headers (3 KiB) before
            // every parse cost more than the parse itself.
            let mut headers = [const { MaybeUninit::<httparse::Header>::uninit() }; MAX_HEADERS];
            // Used only for a head with more fields than `headers` holds.
            let mut more: Vec<MaybeUninit<httparse::Header>> = Vec::new();
            let mut resp = httparse::Response::new(&mut []);
            let data = &self.buf[self.start..self.end];
            let parsed = if data.is_empty() {
                Ok(httparse::Status::Partial)
            } else {
                let config = httparse::ParserConfig::default();
                match config.parse_response_with_uninit_headers(&mut resp, data, &mut headers) {
                    Err(httparse::Error::TooManyHeaders) => match head_lines(data) {
                        Some(lines) => {
                            more.resize_with(lines, MaybeUninit::uninit);
                            resp = httparse::Response::new(&mut []);
                            config.parse_response_with_uninit_headers(&mut resp, data, &mut more)
                        }
                        None => Ok(httparse::Status::Partial),
                    },
                    r => r,
                }
            };
            if self.end - self.start > self.max_head
                && !matches!(parsed, Ok(httparse::Status::Complete(n)) if n <= self.max_head)
            {
                return Err(err(ErrorKind::HeadersTooLarge, false));
            }
            match parsed {
                Ok(httparse::Status::Complete(head_len)) => {
                    let status = resp.code.unwrap_or(0);
                    let http10 = resp.version == Some(0);
                    // Framing per RFC 9112 §6.3: Content-Length values
                    // must agree (`Err` when they do not); Transfer-Encoding
                    // overrides Content-Length, and is chunked only when
                    // chunked is its final coding.
                    let mut content_length: Result<Option<u64>, ()> = Ok(None);
                    let mut transfer_encoding = false;
                    let mut chunked = false;
                    let mut close = http10;
                    let mut location = None;
                    // Go's client decodes when the first Content-Encoding
                    // field is `gzip` (any case), nothing else.
                    let mut encoding: Option<bool> = None;
                    if let Some(c) = capture.as_deref_mut() {
                        c.headers.clear();
                        c.body.clear();
                        c.http10 = http10;
                        let usual = http::StatusCode::from_u16(status)
                            .ok()
                            .and_then(|s| s.canonical_reason());
                        c.reason = match resp.reason {
                            Some(r) if Some(r) != usual => Some(r.to_string()),
                            _ => None,
                        };
                        c.headers.reserve(resp.headers.len(), head_len);
                        for h in resp.headers.iter() {
                            c.headers.push(h.name, &String::from_utf8_lossy(h.value));
                        }
                    }
                    for h in resp.headers.iter() {
                        let name = h.name.as_bytes();
                        if name.eq_ignore_ascii_case(b"content-length") {
                            content_length = merge_content_length(content_length, h.value);
                        } else if name.eq_ignore_ascii_case(b"transfer-encoding") {
                            transfer_encoding = true;
                            // Several fields are one list: the last coding counts.
                            if let Some(last) = h
                                .value
                                .rsplit(|&b| b == b',')
                                .map(<[u8]>::trim_ascii)
                                .find(|t| !t.is_empty())
                            {
                                chunked = last.eq_ignore_ascii_case(b"chunked");
                            }
                        } else if name.eq_ignore_ascii_case(b"connection") {
                            for t in h.value.split(|&b| b == b',') {
                                let t = t.trim_ascii();
                                if t.eq_ignore_ascii_case(b"close") {
                                    close = true;
                                } else if t.eq_ignore_ascii_case(b"keep-alive") && http10 {
                                    close = false;
                                }
                            }
                        } else if name.eq_ignore_ascii_case(b"content-encoding") {
                            encoding = encoding
                                .or(Some(h.value.trim_ascii().eq_ignore_ascii_case(b"gzip")));
                        } else if name.eq_ignore_ascii_case(b"location")
                            && (300..400).contains(&status)
                        {
                            location = std::str::from_utf8(h.value).ok().map(str::to_string);
                        }
                    }
                    self.start += head_len;
                    if (100..200).contains(&status) {
                        if status == 101 {
                            return Err(err(ErrorKind::Protocol, false));
                        }
                        continue; // 100 Continue and friends: the real response follows.
                    }
                    self.in_body = true;
                    self.watch.in_body();
                    let no_body = head_only || status == 204 || status == 304;
                    if transfer_encoding {
                        // With Content-Length too, the response may be an
                        // attempt at response splitting: read it as chunked
                        // but never trust the connection again.
                        close |= content_length != Ok(None);
                    }
                    let body = capture.map(|c| &mut c.body);
                    if !no_body && encoding == Some(true) {
                        self.body.start(gzip);
                    }
                    let delimited = if no_body {
                        true
                    } else if chunked {
                        self.read_chunked(body).await?;
                        true
                    } else if transfer_encoding {
                        self.read_to_eof(body).await?;
                        false
                    } else {
                        match content_length {
                            Ok(Some(n)) => {
                                self.read_exact_body(n, body).await?;
                                true
                            }
                            Ok(None) => {
                                self.read_to_eof(body).await?;
                                false
                            }
                            Err(()) => return Err(err(ErrorKind::InvalidContentLength, false)),
                        }
                    };
                    self.body.end().map_err(|k| err(k, false))?;
                    return Ok(H1Response {
                        status,
                        reusable: delimited && !close,
                        location,
                        done: self.last_rx,
                    });
                }
                Ok(httparse::Status::Partial) => {
                    let got_any = self.end > 0;
                    match self.fill().await {
                        Ok(0) => {
                            let kind = if got_any {
                                ErrorKind::Protocol
                            } else {
                                ErrorKind::ConnectionClosed
                            };
                            return Err(err(kind, !got_any));
                        }
                        Ok(_) => {
                            if first_byte.is_none() {
                                *first_byte = Some(self.last_rx);
                            }
                        }
                        Err(k) => return Err(err(k, !got_any)),
                    }
                }
                Err(_) => return Err(err(ErrorKind::Protocol, false)),
            }
        }
    }

    /// Makes room for reading a large body in fewer system calls.
    fn grow_for_body(&mut self, remaining: u64) {
        if remaining > self.buf.len() as u64 && self.buf.len() < BODY_BUF {
            self.buf.resize(BODY_BUF, 0);
        }
    }

    async fn read_exact_body(
        &mut self,
        n: u64,
        mut keep: Option<&mut Vec<u8>>,
    ) -> Result<(), H1Error> {
        let mut remaining = n;
        self.grow_for_body(n);
        loop {
            let have = (self.end - self.start) as u64;
            let take = have.min(remaining);
            self.body.put(
                &self.buf[self.start..self.start + take as usize],
                keep.as_deref_mut(),
            );
            self.start += take as usize;
            remaining -= take;
            if remaining == 0 {
                return Ok(());
            }
            match self.fill().await {
                Ok(0) => return Err(err(ErrorKind::UnexpectedEof, false)),
                Ok(_) => {}
                Err(k) => return Err(err(k, false)),
            }
        }
    }

    async fn read_to_eof(&mut self, mut keep: Option<&mut Vec<u8>>) -> Result<(), H1Error> {
        self.grow_for_body(u64::MAX);
        loop {
            self.body
                .put(&self.buf[self.start..self.end], keep.as_deref_mut());
            self.start = self.end;
            match self.fill().await {
                Ok(0) => return Ok(()),
                Ok(_) => {}
                Err(k) => return Err(err(k, false)),
            }
        }
    }

    async fn read_chunked(&mut self, mut keep: Option<&mut Vec<u8>>) -> Result<(), H1Error> {
        let mut dec = Chunked::default();
        let mut total = 0u64;
        let mut reads = 0u32;
        loop {
            let body = &mut self.body;
            let used = dec
                .feed_into(&self.buf[self.start..self.end], &mut total, |d| {
                    body.put(d, keep.as_deref_mut())
                })
                .map_err(|_| err(ErrorKind::Protocol, false))?;
            self.start += used;
            if dec.done() {
                return Ok(());
            }
            reads += 1;
            if reads == 4 {
                self.grow_for_body(u64::MAX);
            }
            match self.fill().await {
                Ok(0) => return Err(err(ErrorKind::UnexpectedEof, false)),
                Ok(_) => {}
                Err(k) => return Err(err(k, false)),
            }
        }
    }
}

/// The number of lines of the response head at the start of `data` (an
/// upper bound on its header fields), or `None` if the head is not complete.
fn head_lines(data: &[u8]) -> Option<usize> {
    let mut lines = 0;
    let mut prev = 0u8;
    for (i, &b) in data.iter().enumerate() {
        if b == b'\n' {
            lines += 1;
            // "\n\n" or "\n\r\n" ends the head.
            if prev == b'\n' || (prev == b'\r' && i >= 2 && data[i - 2] == b'\n') {
                return Some(lines);
            }
        }
        prev = b;
    }
    None
}

/// Adds one `Content-Length` field (a value, or a comma-separated list of
/// them) to what earlier fields said: identical repeats are one value (RFC
/// 9110 §8.6 allows that); a different value, or one that is not a number,
/// makes it `Err`.
fn merge_content_length(so_far: Result<Option<u64>, ()>, field: &[u8]) -> Result<Option<u64>, ()> {
    let mut cur = so_far?;
    for v in field.split(|&b| b == b',') {
        let v = v.trim_ascii();
        if v.is_empty() || v.len() > 19 || !v.iter().all(u8::is_ascii_digit) {
            return Err(());
        }
        let n = v.iter().fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
        match cur {
            Some(c) if c != n => return Err(()),
            _ => cur = Some(n),
        }
    }
    Ok(cur)
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Ck {
    #[default]
    Size,
    Ext,
    SizeLf,
    Data,
    DataCr,
    DataLf,
    TrailerStart,
    TrailerLine,
    EndLf,
    Done,
}

/// Incremental chunked-encoding decoder that counts payload bytes.
#[derive(Debug, Default)]
pub(crate) struct Chunked {
    st: Ck,
    size: u64,
    digits: u32,
}

impl Chunked {
    pub fn done(&self) -> bool {
        self.st == Ck::Done
    }

    /// Consumes bytes from `data`, adding payload sizes to `total`; returns how
    /// many bytes were used (stops at the end of the message).
    #[cfg(test)]
    pub fn feed(&mut self, data: &[u8], total: &mut u64) -> Result<usize, ()> {
        self.feed_into(data, total, |_| {})
    }

    /// [`Chunked::feed`] that also hands the payload bytes to `payload`.
    pub fn feed_into(
        &mut self,
        data: &[u8],
        total: &mut u64,
        mut payload: impl FnMut(&[u8]),
    ) -> Result<usize, ()> {
        let mut i = 0;
        while i < data.len() && self.st != Ck::Done {
            if self.st == Ck::Data {
                let take = (self.size).min((data.len() - i) as u64);
                payload(&data[i..i + take as usize]);
                *total += take;
                self.size -= take;
                i += take as usize;
                if self.size == 0 {
                    self.st = Ck::DataCr;
                }
                continue;
            }
            let b = data[i];
            i += 1;
            self.st = match (self.st, b) {
                (Ck::Size, b) if b.is_ascii_hexdigit() => {
                    let d = (b as char).to_digit(16).ok_or(())? as u64;
                    self.digits += 1;
                    if self.digits > 15 {
                        return Err(());
                    }
                    self.size = self.size * 16 + d;
                    Ck::Size
                }
                (Ck::Size, b';' | b' ' | b'\t') if self.digits > 0 => Ck::Ext,
                (Ck::Size, b'\r') if self.digits > 0 => Ck::SizeLf,
                (Ck::Size, b'\n') if self.digits > 0 => self.after_size(),
                (Ck::Ext, b'\r') => Ck::SizeLf,
                (Ck::Ext, b'\n') => self.after_size(),
                (Ck::Ext, _) => Ck::Ext,
                (Ck::SizeLf, b'\n') => self.after_size(),
                (Ck::DataCr, b'\r') => Ck::DataLf,
                (Ck::DataCr, b'\n') | (Ck::DataLf, b'\n') => {
                    self.size = 0;
                    self.digits = 0;
                    Ck::Size
                }
                (Ck::TrailerStart, b'\r') => Ck::EndLf,
                (Ck::TrailerStart, b'\n') | (Ck::EndLf, b'\n') => Ck::Done,
                (Ck::TrailerStart, _) => Ck::TrailerLine,
                (Ck::TrailerLine, b'\n') => Ck::TrailerStart,
                (Ck::TrailerLine, _) => Ck::TrailerLine,
                _ => return Err(()),
            };
        }
        Ok(i)
    }

    fn after_size(&mut self) -> Ck {
        if self.size == 0 {
            Ck::TrailerStart
        } else {
            Ck::Data
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_in_pieces(msg: &[u8], piece: usize) -> Result<(u64, usize), ()> {
        let mut d = Chunked::default();
        let mut total = 0;
        let mut used = 0;
        for c in msg.chunks(piece) {
            let u = d.feed(c, &mut total)?;
            used += u;
            if d.done() {
                break;
            }
        }
        assert!(d.done());
        Ok((total, used))
    }

    #[test]
    fn chunked_in_any_split() {
        let msg =
            b"5;ext=1\r\nhello\r\n1A\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nX-T: 1\r\n\r\nNEXT";
        for piece in 1..msg.len() {
            let (total, used) = decode_in_pieces(msg, piece).unwrap();
            assert_eq!(total, 31);
            assert_eq!(used, msg.len() - 4, "piece {piece}");
        }
    }

    #[test]
    fn chunked_rejects_garbage() {
        let mut d = Chunked::default();
        assert!(d.feed(b"zz\r\n", &mut 0).is_err());
        let mut d = Chunked::default();
        assert!(d.feed(b"3\r\nabcX", &mut 0).is_err());
    }
}
