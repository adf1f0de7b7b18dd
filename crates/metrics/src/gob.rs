//! Reader for vegeta's default results encoding: a Go `encoding/gob` stream
//! of its `Result` struct (`vegeta attack > results.gob`).
//!
//! Only what that stream needs is implemented, from the gob wire format:
//!
//! * The stream is a sequence of messages, each `length (uint) | type id
//!   (int) | payload`. A negative id defines type `-id` (payload: a
//!   `wireType`); a positive id is a value of that type.
//! * Unsigned integers below 128 are one byte; others are the negated byte
//!   count followed by the big-endian bytes. Signed integers are unsigned
//!   ones with the sign in bit 0 (complemented when set).
//! * A struct is a list of `(field number delta, value)` pairs ending with a
//!   delta of 0; fields with zero values are left out. Strings and byte
//!   slices are a length and the bytes; slices and maps a count and their
//!   elements; a type with its own binary encoding (`time.Time`) a byte
//!   slice.
//!
//! Values are decoded against the types the stream defines, by field name,
//! so field order and unknown extra fields do not matter; `Body` and
//! `Headers` are skipped. A stream cut off mid-message yields the results
//! before the cut and a warning, like the other readers.

use std::collections::HashMap;
use std::io::Read;

use crate::error::ReadError;
use crate::record::Record;
use crate::vegeta::{Interner, Raw};

/// Built-in gob type ids.
const T_BOOL: i64 = 1;
const T_INT: i64 = 2;
const T_UINT: i64 = 3;
const T_FLOAT: i64 = 4;
const T_BYTES: i64 = 5;
const T_STRING: i64 = 6;
const T_COMPLEX: i64 = 7;
const T_INTERFACE: i64 = 8;
/// The first id a stream may define for its own types.
const FIRST_USER_ID: i64 = 64;

/// Messages above this are corruption, not results (vegeta stores whole
/// response bodies, so results of several MiB are possible).
const MAX_MESSAGE: u64 = 1 << 30;

/// Nesting deeper than this is corruption (a type that contains itself).
const MAX_DEPTH: u32 = 64;

/// A type the stream defined.
#[derive(Debug, Clone)]
enum WireType {
    Struct(Vec<(String, i64)>),
    Slice(i64),
    Array(i64),
    Map(i64, i64),
    /// `GobEncoder`, `BinaryMarshaler` or `TextMarshaler`: a byte slice.
    Opaque,
}

/// A cursor over one message's payload.
struct Cur<'a> {
    buf: &'a [u8],
    pos: usize,
}

/// Why a payload could not be decoded (the caller adds file and offset).
type Bad = String;

impl<'a> Cur<'a> {
    fn byte(&mut self) -> Result<u8, Bad> {
        let b = *self
            .buf
            .get(self.pos)
            .ok_or_else(|| "value runs past the end of its message".to_string())?;
        self.pos += 1;
        Ok(b)
    }

    fn uint(&mut self) -> Result<u64, Bad> {
        let b = self.byte()?;
        if b < 0x80 {
            return Ok(u64::from(b));
        }
        let n = (b as i8).unsigned_abs() as usize;
        if n > 8 {
            return Err(format!("bad unsigned integer (byte count {n})"));
        }
        let mut v = 0u64;
        for _ in 0..n {
            v = (v << 8) | u64::from(self.byte()?);
        }
        Ok(v)
    }

    fn int(&mut self) -> Result<i64, Bad> {
        let u = self.uint()?;
        Ok(if u & 1 == 1 {
            !((u >> 1) as i64)
        } else {
            (u >> 1) as i64
        })
    }

    fn bytes(&mut self) -> Result<&'a [u8], Bad> {
        let n = self.uint()?;
        let end = usize::try_from(n)
            .ok()
            .and_then(|n| self.pos.checked_add(n))
            .filter(|&e| e <= self.buf.len())
            .ok_or_else(|| format!("a length of {n} runs past the end of its message"))?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn string(&mut self) -> Result<&'a str, Bad> {
        std::str::from_utf8(self.bytes()?).map_err(|_| "a string is not UTF-8".to_string())
    }

    /// Walks a struct's fields: `f(cursor, field number)` must consume each
    /// field's value.
    fn fields(&mut self, mut f: impl FnMut(&mut Self, u64) -> Result<(), Bad>) -> Result<(), Bad> {
        let mut field: i64 = -1;
        loop {
            let delta = self.uint()?;
            if delta == 0 {
                return Ok(());
            }
            field = i64::try_from(delta)
                .ok()
                .and_then(|d| field.checked_add(d))
                .ok_or_else(|| "bad field number".to_string())?;
            f(self, field as u64)?;
        }
    }
}

/// `CommonType { Name string; Id int }`: the id.
fn common_type(c: &mut Cur<'_>) -> Result<i64, Bad> {
    let mut id = 0;
    c.fields(|c, f| {
        match f {
            0 => {
                c.string()?;
            }
            1 => id = c.int()?,
            _ => return Err(format!("unknown field {f} in a type definition")),
        }
        Ok(())
    })?;
    Ok(id)
}

/// Decodes a `wireType` (a type definition's payload).
fn wire_type(c: &mut Cur<'_>) -> Result<WireType, Bad> {
    let mut out = None;
    c.fields(|c, f| {
        let t = match f {
            // arrayType { CommonType; Elem typeId; Len int }
            0 => {
                let mut elem = 0;
                c.fields(|c, g| {
                    match g {
                        0 => {
                            common_type(c)?;
                        }
                        1 => elem = c.int()?,
                        2 => {
                            c.int()?;
                        }
                        _ => return Err(format!("unknown field {g} in an array type")),
                    }
                    Ok(())
                })?;
                WireType::Array(elem)
            }
            // sliceType { CommonType; Elem typeId }
            1 => {
                let mut elem = 0;
                c.fields(|c, g| {
                    match g {
                        0 => {
                            common_type(c)?;
                        }
                        1 => elem = c.int()?,
                        _ => return Err(format!("unknown field {g} in a slice type")),
                    }
                    Ok(())
                })?;
                WireType::Slice(elem)
            }
            // structType { CommonType; Field []fieldType{Name string; Id typeId} }
            2 => {
                let mut fields = Vec::new();
                c.fields(|c, g| {
                    match g {
                        0 => {
                            common_type(c)?;
                        }
                        1 => {
                            let n = c.uint()?;
                            for _ in 0..n {
                                let (mut name, mut id) = (String::new(), 0);
                                c.fields(|c, h| {
                                    match h {
                                        0 => name = c.string()?.to_string(),
                                        1 => id = c.int()?,
                                        _ => {
                                            return Err(format!(
                                                "unknown field {h} in a struct field"
                                            ));
                                        }
                                    }
                                    Ok(())
                                })?;
                                fields.push((name, id));
                            }
                        }
                        _ => return Err(format!("unknown field {g} in a struct type")),
                    }
                    Ok(())
                })?;
                WireType::Struct(fields)
            }
            // mapType { CommonType; Key typeId; Elem typeId }
            3 => {
                let (mut key, mut elem) = (0, 0);
                c.fields(|c, g| {
                    match g {
                        0 => {
                            common_type(c)?;
                        }
                        1 => key = c.int()?,
                        2 => elem = c.int()?,
                        _ => return Err(format!("unknown field {g} in a map type")),
                    }
                    Ok(())
                })?;
                WireType::Map(key, elem)
            }
            // gobEncoderType { CommonType }, for the three marshaler kinds.
            4..=6 => {
                c.fields(|c, g| match g {
                    0 => common_type(c).map(|_| ()),
                    _ => Err(format!("unknown field {g} in an encoder type")),
                })?;
                WireType::Opaque
            }
            _ => return Err(format!("unknown kind {f} of type definition")),
        };
        out = Some(t);
        Ok(())
    })?;
    out.ok_or_else(|| "empty type definition".to_string())
}

/// Skips one value of type `id`.
fn skip(c: &mut Cur<'_>, types: &HashMap<i64, WireType>, id: i64, depth: u32) -> Result<(), Bad> {
    if depth > MAX_DEPTH {
        return Err("values nested too deeply".to_string());
    }
    match id {
        T_BOOL | T_INT | T_UINT | T_FLOAT => {
            c.uint()?;
        }
        T_COMPLEX => {
            c.uint()?;
            c.uint()?;
        }
        T_BYTES | T_STRING => {
            c.bytes()?;
        }
        T_INTERFACE => {
            // Concrete type name; empty for a nil interface, else the
            // type id and the value's length-prefixed bytes.
            if !c.bytes()?.is_empty() {
                c.int()?;
                c.bytes()?;
            }
        }
        _ => match types.get(&id) {
            None => return Err(format!("a value of undefined type {id}")),
            Some(WireType::Opaque) => {
                c.bytes()?;
            }
            Some(WireType::Slice(e)) | Some(WireType::Array(e)) => {
                let e = *e;
                for _ in 0..c.uint()? {
                    skip(c, types, e, depth + 1)?;
                }
            }
            Some(WireType::Map(k, v)) => {
                let (k, v) = (*k, *v);
                for _ in 0..c.uint()? {
                    skip(c, types, k, depth + 1)?;
                    skip(c, types, v, depth + 1)?;
                }
            }
            Some(WireType::Struct(fields)) => {
                let fields = fields.clone();
                c.fields(|c, f| {
                    let t = fields
                        .get(f as usize)
                        .map(|x| x.1)
                        .ok_or_else(|| format!("field {f} of a struct with {}", fields.len()))?;
                    skip(c, types, t, depth + 1)
                })?;
            }
        },
    }
    Ok(())
}

/// Go's `time.Time` binary form: version 1 or 2, seconds since January 1
/// of year 1 (int64 BE), nanoseconds (int32 BE), zone offset in minutes
/// (int16; version 2 adds a byte of seconds). Returns ns since the Unix epoch.
fn go_time(b: &[u8]) -> Result<i128, Bad> {
    const UNIX_FROM_YEAR_1: i128 = 62_135_596_800;
    match b.first() {
        Some(1) if b.len() == 15 => {}
        Some(2) if b.len() == 16 => {}
        _ => {
            return Err(format!(
                "a Timestamp of {} bytes is not a Go time.Time",
                b.len()
            ));
        }
    }
    let sec = i64::from_be_bytes(b[1..9].try_into().expect("8 bytes"));
    let nsec = i32::from_be_bytes(b[9..13].try_into().expect("4 bytes"));
    Ok((i128::from(sec) - UNIX_FROM_YEAR_1) * 1_000_000_000 + i128::from(nsec))
}

/// The fields of one vegeta `Result`, borrowed from its message.
#[derive(Default)]
struct Fields<'a> {
    attack: &'a str,
    seq: u64,
    code: u64,
    ts_ns: Option<i128>,
    latency: i64,
    bytes_out: u64,
    bytes_in: u64,
    error: &'a str,
    method: &'a str,
    url: &'a str,
}

/// Decodes vegeta gob results.
pub struct GobDecoder<R: Read> {
    src: R,
    name: String,
    msg: Vec<u8>,
    /// Stream offset of the next message, for messages.
    offset: u64,
    types: HashMap<i64, WireType>,
    interner: Interner,
    results: u64,
    warnings: Vec<String>,
    done: bool,
}

impl<R: Read> GobDecoder<R> {
    pub fn new(src: R, name: &str) -> Self {
        GobDecoder {
            src,
            name: name.to_string(),
            msg: Vec::with_capacity(1024),
            offset: 0,
            types: HashMap::new(),
            interner: Interner::default(),
            results: 0,
            warnings: Vec::new(),
            done: false,
        }
    }

    /// Non-fatal problems (a stream cut off mid-message).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    fn bad(&self, at: u64, msg: impl Into<String>) -> ReadError {
        ReadError::malformed(&self.name, format!("byte {at}"), msg)
    }

    fn truncated(&mut self, at: u64) {
        self.warnings.push(format!(
            "{}: truncated gob message at byte {at}; read {} whole results",
            self.name, self.results
        ));
    }

    /// Reads up to `buf.len()` bytes; the count read (short only at the end).
    fn read_full(&mut self, buf: &mut [u8]) -> Result<usize, ReadError> {
        let mut got = 0;
        while got < buf.len() {
            match self.src.read(&mut buf[got..]) {
                Ok(0) => break,
                Ok(k) => got += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(ReadError::io(&self.name, e)),
            }
        }
        Ok(got)
    }

    /// The next message into `self.msg`; `false` at the end of the stream.
    fn next_message(&mut self) -> Result<bool, ReadError> {
        let at = self.offset;
        let mut first = [0u8; 1];
        if self.read_full(&mut first)? == 0 {
            return Ok(false);
        }
        let len = if first[0] < 0x80 {
            u64::from(first[0])
        } else {
            let n = (first[0] as i8).unsigned_abs() as usize;
            if n > 8 {
                return Err(self.bad(at, "not a gob message length"));
            }
            let mut b = [0u8; 8];
            if self.read_full(&mut b[..n])? < n {
                self.truncated(at);
                return Ok(false);
            }
            b[..n].iter().fold(0u64, |v, &x| (v << 8) | u64::from(x))
        };
        if len > MAX_MESSAGE {
            return Err(self.bad(at, format!("a gob message of {len} bytes is corrupt")));
        }
        let head = if first[0] < 0x80 {
            1
        } else {
            1 + (first[0] as i8).unsigned_abs() as u64
        };
        self.msg.clear();
        let got = (&mut self.src)
            .take(len)
            .read_to_end(&mut self.msg)
            .map_err(|e| ReadError::io(&self.name, e))?;
        if (got as u64) < len {
            self.truncated(at);
            return Ok(false);
        }
        self.offset = at + head + len;
        Ok(true)
    }

    fn next_record(&mut self) -> Result<Option<Record>, ReadError> {
        loop {
            let at = self.offset;
            if !self.next_message()? {
                return Ok(None);
            }
            let msg = std::mem::take(&mut self.msg);
            let r = self.message(&msg);
            self.msg = msg;
            match r {
                Ok(Some(rec)) => {
                    self.results += 1;
                    return Ok(Some(rec));
                }
                Ok(None) => {}
                Err(e) => return Err(self.bad(at, e)),
            }
        }
    }

    /// A type definition (`None`) or a result.
    fn message(&mut self, msg: &[u8]) -> Result<Option<Record>, Bad> {
        let mut c = Cur { buf: msg, pos: 0 };
        let id = c.int()?;
        if id < 0 {
            let id = -id;
            if id < FIRST_USER_ID {
                return Err(format!("redefines built-in type {id}"));
            }
            let t = wire_type(&mut c)?;
            self.types.insert(id, t);
            return Ok(None);
        }
        let Some(WireType::Struct(fields)) = self.types.get(&id).cloned() else {
            return Err(format!(
                "a value of type {id}, not a vegeta Result (is this a vegeta results file?)"
            ));
        };
        let mut r = Fields::default();
        let types = &self.types;
        c.fields(|c, f| {
            let (name, t) = fields
                .get(f as usize)
                .ok_or_else(|| format!("field {f} of a Result with {} fields", fields.len()))?;
            let want = |ok: bool| {
                if ok {
                    Ok(())
                } else {
                    Err(format!("Result field {name} has an unexpected type {t}"))
                }
            };
            match name.as_str() {
                "Attack" | "Error" | "Method" | "URL" => {
                    want(*t == T_STRING)?;
                    let s = c.string()?;
                    match name.as_str() {
                        "Attack" => r.attack = s,
                        "Error" => r.error = s,
                        "Method" => r.method = s,
                        _ => r.url = s,
                    }
                }
                "Seq" | "Code" | "BytesOut" | "BytesIn" => {
                    want(*t == T_UINT)?;
                    let v = c.uint()?;
                    match name.as_str() {
                        "Seq" => r.seq = v,
                        "Code" => r.code = v,
                        "BytesOut" => r.bytes_out = v,
                        _ => r.bytes_in = v,
                    }
                }
                "Latency" => {
                    want(*t == T_INT)?;
                    r.latency = c.int()?;
                }
                "Timestamp" => {
                    want(matches!(types.get(t), Some(WireType::Opaque)))?;
                    r.ts_ns = Some(go_time(c.bytes()?)?);
                }
                _ => skip(c, types, *t, 0)?,
            }
            Ok(())
        })?;
        let code =
            u16::try_from(r.code).map_err(|_| format!("status code {} is out of range", r.code))?;
        let raw = Raw {
            attack: r.attack,
            seq: r.seq,
            code,
            // A zero Go time is left out of the struct: year 1.
            ts_ns: r.ts_ns.unwrap_or(-62_135_596_800_000_000_000),
            latency_ns: r.latency,
            bytes_out: r.bytes_out,
            bytes_in: r.bytes_in,
            error: r.error,
            method: r.method,
            url: r.url,
        };
        self.interner
            .record(raw, &self.name, self.results + 1)
            .map(Some)
            .map_err(|e| match e {
                ReadError::Malformed { message, .. } => message,
                other => other.to_string(),
            })
    }
}

impl<R: Read> Iterator for GobDecoder<R> {
    type Item = Result<Record, ReadError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let r = self.next_record().transpose();
        if !matches!(r, Some(Ok(_))) {
            self.done = true;
        }
        r
    }
}

/// Whether `head` starts like a gob stream: a message length, then the
/// definition of a user type (a negative id from 64 down). `None` when more
/// bytes are needed to tell.
pub(crate) fn looks_like_gob(head: &[u8]) -> Option<bool> {
    let mut c = Cur { buf: head, pos: 0 };
    let too_short = |c: &Cur<'_>| c.pos >= c.buf.len();
    let len = match c.uint() {
        Ok(l) => l,
        Err(_) if too_short(&c) => return None,
        Err(_) => return Some(false),
    };
    if !(2..=MAX_MESSAGE).contains(&len) {
        return Some(false);
    }
    match c.int() {
        Ok(id) => Some(id <= -FIRST_USER_ID),
        Err(_) if too_short(&c) => None,
        Err(_) => Some(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_as_go_encodes_them() {
        let mut c = Cur {
            buf: &[
                0x07, 0xff, 0x96, 0xfe, 0x01, 0x00, 0x7f, 0xff, 0x80, 0x04, 0x03,
            ],
            pos: 0,
        };
        assert_eq!(c.uint(), Ok(7));
        assert_eq!(c.uint(), Ok(150));
        assert_eq!(c.uint(), Ok(256));
        assert_eq!(c.int(), Ok(-64));
        assert_eq!(c.int(), Ok(64));
        assert_eq!(c.int(), Ok(2));
        assert_eq!(c.int(), Ok(-2));
        assert!(c.uint().is_err());
    }

    #[test]
    fn go_times() {
        // 2026-11-22T12:24:42.955738125Z, as vegeta wrote it.
        let b = [
            1, 0, 0, 0, 0x0e, 0xe2, 0x94, 0xd6, 0x0a, 0x38, 0xf7, 0x68, 0x0d, 0, 0,
        ];
        assert_eq!(go_time(&b), Ok(1_795_350_282_955_738_125));
        assert!(go_time(&b[..14]).is_err());
    }

    #[test]
    fn recognises_a_gob_stream_start() {
        assert_eq!(looks_like_gob(&[0xff, 0x96, 0x7f, 0x03]), Some(true));
        assert_eq!(looks_like_gob(&[0xff]), None);
        assert_eq!(looks_like_gob(b"{\"attack\""), Some(false));
        assert_eq!(looks_like_gob(b"1581088819782123456,200"), Some(false));
    }
}
