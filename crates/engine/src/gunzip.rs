//! Counting a response body, and decoding a gzip body the engine asked for.
//!
//! Go's client, so vegeta, asks for gzip itself (`Accept-Encoding: gzip`
//! when the request names no encoding) and then hands the caller the
//! decompressed body: vegeta's `bytes_in` is its decoded length. The engine
//! does the same where it added the field and the response says
//! `Content-Encoding: gzip`: the body goes through a streaming decoder whose
//! output is only counted (and kept only where the caller keeps bodies),
//! and its bytes as they came are counted apart (the report's `Wire In`).
//!
//! A decoder is about 50 KiB (the inflater's 32 KiB window and its tables,
//! an 8 KiB scratch buffer), so connections do not own one: a body takes
//! one from the transport's [`GunzipPool`] when its head says gzip and
//! gives it back when it is counted. Requests that get no gzip body pay
//! nothing but a look at the `Content-Encoding` field.
//!
//! The decoder follows Go's `compress/gzip` reader: any number of members,
//! each with its header checked (magic, method, a name or comment of at
//! most 511 bytes, the header CRC when there is one) and its trailer (CRC-32
//! and length of the decoded bytes); an empty body is an empty body; any
//! other byte after a member must start another. A body that breaks any of
//! these fails the request as vegeta's does (Go returns an error from the
//! body read): see [`Body::end`].

use std::sync::{Mutex, PoisonError};

use flate2::{Crc, Decompress, FlushDecompress, Status};
use loadlab_core::ErrorKind;

/// Output buffer of the inflater: decoded bytes are counted here and
/// dropped (or appended to a kept body).
const SCRATCH: usize = 8 * 1024;
/// Idle decoders a pool keeps (about 50 KiB each); more are freed when
/// they come back.
const MAX_IDLE: usize = 256;
/// Go's gzip reader reads a member's file name and comment into a 512-byte
/// buffer, terminator included: a longer one is an invalid header.
const MAX_STRING: u32 = 511;

const FHCRC: u8 = 0x02;
const FEXTRA: u8 = 0x04;
const FNAME: u8 = 0x08;
const FCOMMENT: u8 = 0x10;

/// Where the decoder is in the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum St {
    /// A member's first 10 bytes (magic, method, flags, time, extra flags,
    /// OS); with none read yet, the body may end here.
    Fixed,
    /// The length of the extra field (2 bytes).
    ExtraLen,
    /// The extra field's bytes (`left` to go).
    Extra,
    /// The zero-terminated file name (`left` counts its bytes).
    Name,
    /// The zero-terminated comment.
    Comment,
    /// The header's CRC-16 (2 bytes).
    HeaderCrc,
    /// The deflate stream.
    Data,
    /// CRC-32 and length of the decoded member (8 bytes).
    Trailer,
    /// The body is not valid gzip: the rest is only counted.
    Failed,
}

/// A streaming gzip decoder that counts what it decodes.
pub(crate) struct Gunzip {
    inflate: Decompress,
    /// Of the current member's decoded bytes.
    crc: Crc,
    /// Of the current member's header, when it carries a CRC of it.
    hcrc: Crc,
    scratch: Box<[u8]>,
    st: St,
    flags: u8,
    /// The fixed-size field being read, and how much of it is here.
    field: [u8; 10],
    got: usize,
    /// Extra-field bytes still to skip, or the name or comment's length so far.
    left: u32,
    /// Bytes the current member decoded to.
    member_out: u64,
    /// Bytes the whole body decoded to.
    decoded: u64,
}

impl Gunzip {
    fn new() -> Box<Gunzip> {
        Box::new(Gunzip {
            inflate: Decompress::new(false),
            crc: Crc::new(),
            hcrc: Crc::new(),
            scratch: vec![0; SCRATCH].into_boxed_slice(),
            st: St::Fixed,
            flags: 0,
            field: [0; 10],
            got: 0,
            left: 0,
            member_out: 0,
            decoded: 0,
        })
    }

    /// Ready for a new body (the inflater is reset when a member's data
    /// begins).
    fn restart(&mut self) {
        self.st = St::Fixed;
        self.got = 0;
        self.decoded = 0;
    }

    /// Bytes decoded so far.
    pub fn decoded(&self) -> u64 {
        self.decoded
    }

    /// True once the body turned out not to be valid gzip.
    pub fn failed(&self) -> bool {
        self.st == St::Failed
    }

    /// The body ended: true when it ended between members (or was empty),
    /// as a valid gzip body does.
    pub fn finish(&mut self) -> bool {
        match self.st {
            St::Fixed if self.got == 0 => true,
            _ => {
                self.st = St::Failed;
                false
            }
        }
    }

    /// Decodes the next bytes of the body, counting the output and
    /// appending it to `keep` when there is one.
    pub fn feed(&mut self, mut data: &[u8], mut keep: Option<&mut Vec<u8>>) {
        while !data.is_empty() {
            match self.st {
                St::Data => self.inflate_some(&mut data, &mut keep),
                St::Failed => return,
                St::Fixed | St::ExtraLen | St::HeaderCrc | St::Trailer => {
                    let need = match self.st {
                        St::Fixed => 10,
                        St::Trailer => 8,
                        _ => 2,
                    };
                    let take = (need - self.got).min(data.len());
                    self.field[self.got..self.got + take].copy_from_slice(&data[..take]);
                    self.got += take;
                    data = &data[take..];
                    if self.got == need {
                        self.got = 0;
                        self.field_done();
                    }
                }
                St::Extra => {
                    let take = data.len().min(self.left as usize);
                    self.header_bytes(&data[..take]);
                    self.left -= take as u32;
                    data = &data[take..];
                    if self.left == 0 {
                        self.st = self.after(St::Extra);
                    }
                }
                St::Name | St::Comment => {
                    let (take, ended) = match data.iter().position(|&b| b == 0) {
                        Some(i) => (i + 1, true),
                        None => (data.len(), false),
                    };
                    self.header_bytes(&data[..take]);
                    data = &data[take..];
                    let len = u32::try_from(take - usize::from(ended)).unwrap_or(u32::MAX);
                    self.left = self.left.saturating_add(len);
                    if self.left > MAX_STRING {
                        self.st = St::Failed;
                    } else if ended {
                        self.st = self.after(self.st);
                    }
                }
            }
        }
    }

    /// A fixed-size field is complete in `field`.
    fn field_done(&mut self) {
        let f = self.field;
        match self.st {
            St::Fixed => {
                if f[..3] != [0x1f, 0x8b, 8] {
                    self.st = St::Failed;
                    return;
                }
                self.flags = f[3];
                self.hcrc.reset();
                self.header_bytes(&f);
                self.st = self.after(St::Fixed);
            }
            St::ExtraLen => {
                self.header_bytes(&f[..2]);
                self.left = u32::from(u16::from_le_bytes([f[0], f[1]]));
                self.st = if self.left > 0 {
                    St::Extra
                } else {
                    self.after(St::Extra)
                };
            }
            St::HeaderCrc => {
                if u16::from_le_bytes([f[0], f[1]]) != self.hcrc.sum() as u16 {
                    self.st = St::Failed;
                } else {
                    self.begin_data();
                }
            }
            St::Trailer => {
                let crc = u32::from_le_bytes([f[0], f[1], f[2], f[3]]);
                let size = u32::from_le_bytes([f[4], f[5], f[6], f[7]]);
                // The length is kept modulo 2^32, as RFC 1952 says.
                self.st = if crc == self.crc.sum() && size == self.member_out as u32 {
                    St::Fixed
                } else {
                    St::Failed
                };
            }
            _ => {}
        }
    }

    /// The header part that follows `done`, by the member's flags.
    fn after(&mut self, done: St) -> St {
        let order = [
            (St::ExtraLen, FEXTRA),
            (St::Name, FNAME),
            (St::Comment, FCOMMENT),
            (St::HeaderCrc, FHCRC),
        ];
        let from = match done {
            St::Fixed => 0,
            St::Extra => 1,
            St::Name => 2,
            St::Comment => 3,
            _ => 4,
        };
        for &(st, flag) in &order[from..] {
            if self.flags & flag != 0 {
                self.left = 0;
                return st;
            }
        }
        self.begin_data();
        self.st
    }

    /// Header bytes go into the header CRC when the member has one.
    fn header_bytes(&mut self, b: &[u8]) {
        if self.flags & FHCRC != 0 {
            self.hcrc.update(b);
        }
    }

    fn begin_data(&mut self) {
        self.inflate.reset(false);
        self.crc.reset();
        self.member_out = 0;
        self.st = St::Data;
    }

    /// Inflates from `data` until it is used up or the member's deflate
    /// stream ends.
    fn inflate_some(&mut self, data: &mut &[u8], keep: &mut Option<&mut Vec<u8>>) {
        loop {
            let (in0, out0) = (self.inflate.total_in(), self.inflate.total_out());
            let r = self
                .inflate
                .decompress(data, &mut self.scratch, FlushDecompress::None);
            let used = (self.inflate.total_in() - in0) as usize;
            let made = (self.inflate.total_out() - out0) as usize;
            *data = &data[used..];
            if made > 0 {
                let out = &self.scratch[..made];
                self.crc.update(out);
                if let Some(k) = keep.as_deref_mut() {
                    k.extend_from_slice(out);
                }
                self.member_out += made as u64;
                self.decoded += made as u64;
            }
            match r {
                Ok(Status::StreamEnd) => {
                    self.st = St::Trailer;
                    return;
                }
                Err(_) => {
                    self.st = St::Failed;
                    return;
                }
                // A full buffer: more output may be waiting, input or not.
                Ok(_) if made == self.scratch.len() => {}
                Ok(_) if data.is_empty() => return,
                // Input and room left and nothing done: never expected,
                // but it must not loop.
                Ok(_) if used == 0 && made == 0 => {
                    self.st = St::Failed;
                    return;
                }
                Ok(_) => {}
            }
        }
    }
}

/// Idle decoders shared by the requests of one transport.
#[derive(Default)]
pub(crate) struct GunzipPool {
    // Boxed: a body (and so every connection) holds its decoder in an
    // 8-byte slot, and a decoder moves between pool and body unchanged.
    #[allow(clippy::vec_box)]
    idle: Mutex<Vec<Box<Gunzip>>>,
}

impl GunzipPool {
    fn take(&self) -> Box<Gunzip> {
        let idle = self
            .idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        match idle {
            Some(mut g) => {
                g.restart();
                g
            }
            None => Gunzip::new(),
        }
    }

    fn give(&self, g: Box<Gunzip>) {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        if idle.len() < MAX_IDLE {
            idle.push(g);
        }
    }
}

/// One response body as it is counted: its bytes as they came (after the
/// transfer framing; chunk sizes are not body bytes) and, for a gzip body
/// the engine asked for, the decoder counting what they decode to. It
/// lives outside the exchange's future, so a body cut short by the
/// timeout still counts what came.
#[derive(Default)]
pub(crate) struct Body {
    wire: u64,
    gunzip: Option<Box<Gunzip>>,
}

impl Body {
    /// A new body, decoded when `gzip` gives a pool to take a decoder
    /// from (the previous body's decoder, if any, goes back to it).
    pub fn start(&mut self, gzip: Option<&GunzipPool>) {
        self.wire = 0;
        let held = self.gunzip.take();
        self.gunzip = gzip.map(|pool| match held {
            Some(mut g) => {
                g.restart();
                g
            }
            None => pool.take(),
        });
    }

    /// The next body bytes, as they came; `keep` gets them decoded.
    #[inline]
    pub fn put(&mut self, data: &[u8], keep: Option<&mut Vec<u8>>) {
        self.wire += data.len() as u64;
        match &mut self.gunzip {
            Some(g) => g.feed(data, keep),
            None => {
                if let Some(k) = keep {
                    k.extend_from_slice(data);
                }
            }
        }
    }

    /// The body ended as its framing says. A gzip body that is not valid
    /// gzip, or is cut short of its last member's end, fails the request
    /// as it fails vegeta's (Go's gzip reader returns an error from the
    /// body read, and vegeta records the request as failed).
    pub fn end(&mut self) -> Result<(), ErrorKind> {
        match self.gunzip.as_deref_mut().map(Gunzip::finish) {
            Some(false) => Err(ErrorKind::BadGzip),
            _ => Ok(()),
        }
    }

    /// (vegeta's `bytes_in`, the bytes as they came): for a gzip body,
    /// what it decoded to so far; for one that turned out not to be valid
    /// gzip, or any other body, the bytes as they came.
    pub fn counts(&self) -> (u64, u64) {
        match &self.gunzip {
            Some(g) if !g.failed() => (g.decoded(), self.wire),
            _ => (self.wire, self.wire),
        }
    }

    /// [`Body::counts`], and the decoder back to `pool` (the one it came
    /// from); the body is empty afterwards.
    pub fn take_counts(&mut self, pool: Option<&GunzipPool>) -> (u64, u64) {
        let counts = self.counts();
        self.wire = 0;
        if let (Some(g), Some(pool)) = (self.gunzip.take(), pool) {
            pool.give(g);
        }
        counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    /// Counts `body` fed in pieces of `piece` bytes: (decoded, wire, ok).
    fn count(pool: &GunzipPool, body: &[u8], piece: usize) -> (u64, u64, bool) {
        let mut b = Body::default();
        b.start(Some(pool));
        for c in body.chunks(piece.max(1)) {
            b.put(c, None);
        }
        let ok = b.end().is_ok();
        let (n, w) = b.take_counts(Some(pool));
        (n, w, ok)
    }

    fn page() -> Vec<u8> {
        (0..60_065u32)
            .map(|i| b"<p>loadlab</p>\n"[(i % 15) as usize] ^ (i / 997) as u8)
            .collect()
    }

    #[test]
    fn counts_the_decoded_length_in_any_split() {
        let pool = GunzipPool::default();
        let page = page();
        let z = gzip(&page);
        for piece in [1, 7, 10, 11, 4096, 8192, z.len()] {
            assert_eq!(
                count(&pool, &z, piece),
                (60_065, z.len() as u64, true),
                "{piece}"
            );
        }
        // Decoders are reused, not made anew.
        assert_eq!(pool.idle.lock().unwrap().len(), 1);
    }

    #[test]
    fn keeps_the_decoded_bytes_only_when_asked() {
        let pool = GunzipPool::default();
        let page = page();
        let z = gzip(&page);
        let mut b = Body::default();
        b.start(Some(&pool));
        let mut kept = Vec::new();
        for c in z.chunks(1000) {
            b.put(c, Some(&mut kept));
        }
        assert!(b.end().is_ok());
        assert_eq!(kept, page);
        // Without a decoder the bytes are kept as they came.
        let mut plain = Body::default();
        plain.start(None);
        let mut raw = Vec::new();
        plain.put(&z, Some(&mut raw));
        assert_eq!(raw, z);
        assert_eq!(plain.counts(), (z.len() as u64, z.len() as u64));
    }

    #[test]
    fn members_headers_and_empty_bodies_as_go_reads_them() {
        let pool = GunzipPool::default();
        // Two members decode to both.
        let mut two = gzip(b"hello ");
        two.extend(gzip(b"world"));
        assert_eq!(count(&pool, &two, 3), (11, two.len() as u64, true));
        // An empty body is no error.
        assert_eq!(count(&pool, b"", 1), (0, 0, true));
        // Every optional header field, with a correct header CRC.
        let mut h = vec![
            0x1f,
            0x8b,
            8,
            FHCRC | FEXTRA | FNAME | FCOMMENT,
            0,
            0,
            0,
            0,
            0,
            3,
        ];
        h.extend([3, 0, b'a', b'b', b'c']);
        h.extend(b"name.html\0a comment\0");
        let mut c = Crc::new();
        c.update(&h);
        h.extend((c.sum() as u16).to_le_bytes());
        let plain = gzip(b"payload");
        h.extend(&plain[10..]);
        assert_eq!(count(&pool, &h, 2), (7, h.len() as u64, true));
        // The same with a wrong header CRC.
        let at = h.len() - (plain.len() - 10) - 2;
        h[at] ^= 1;
        assert!(!count(&pool, &h, 2).2);
    }

    #[test]
    fn invalid_bodies_fail_and_count_as_they_came() {
        let pool = GunzipPool::default();
        let text = b"some text that compresses, some text that compresses";
        let z = gzip(text);
        let n = z.len() as u64;
        let mut bad_crc = z.clone();
        bad_crc[z.len() - 6] ^= 0xff;
        let mut bad_len = z.clone();
        bad_len[z.len() - 1] ^= 1;
        let mut bad_data = z.clone();
        bad_data[12] = 0xff;
        bad_data[13] = 0xff;
        let mut garbage = z.clone();
        garbage.extend(b"\0\0");
        let mut long_name = vec![0x1f, 0x8b, 8, FNAME, 0, 0, 0, 0, 0, 3];
        long_name.extend(std::iter::repeat_n(b'x', 512));
        long_name.push(0);
        for (what, body) in [
            ("not gzip", b"<html>plain</html>".to_vec()),
            ("checksum", bad_crc),
            ("length", bad_len),
            ("deflate data", bad_data),
            ("trailing bytes", garbage),
            ("cut short", z[..z.len() - 3].to_vec()),
            ("cut in the header", z[..5].to_vec()),
            ("a name over 511 bytes", long_name),
        ] {
            let (decoded, wire, ok) = count(&pool, &body, 5);
            assert!(!ok, "{what}");
            assert_eq!(decoded, wire, "{what}: counted as they came");
            assert_eq!(wire, body.len() as u64, "{what}");
        }
        // A name of 511 bytes is fine.
        let mut name = vec![0x1f, 0x8b, 8, FNAME, 0, 0, 0, 0, 0, 3];
        name.extend(std::iter::repeat_n(b'x', 511));
        name.push(0);
        name.extend(&z[10..]);
        assert!(count(&pool, &name, 100).2);
        // The pool is still good for a valid body afterwards.
        assert_eq!(count(&pool, &z, 5), (text.len() as u64, n, true));
    }
}
