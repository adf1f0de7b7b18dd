//! Server reflection (`connect(addr, { reflect: true })`): the server's
//! services listed and their files (with the files they import) fetched
//! through `grpc.reflection.v1.ServerReflection` (or `v1alpha`, for a
//! server without v1), as k6 resolves them. Each request is one call of
//! `ServerReflectionInfo` with one message; the messages of the few
//! fields used are written and read here.

use prost::Message as _;
use prost_reflect::DescriptorPool;
use prost_types::FileDescriptorProto;

use super::call::{self, Conn};

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn varint(buf: &[u8], i: &mut usize) -> Option<u64> {
    let (mut v, mut shift) = (0u64, 0);
    loop {
        let b = *buf.get(*i)?;
        *i += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(v);
        }
        shift += 7;
    }
}

/// The length-delimited fields of a message, by number.
fn fields(buf: &[u8]) -> Vec<(u64, &[u8])> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < buf.len() {
        let Some(key) = varint(buf, &mut i) else {
            break;
        };
        match key & 7 {
            0 => {
                if varint(buf, &mut i).is_none() {
                    break;
                }
            }
            2 => {
                let Some(n) = varint(buf, &mut i) else { break };
                let end = i + n as usize;
                if end > buf.len() {
                    break;
                }
                out.push((key >> 3, &buf[i..end]));
                i = end;
            }
            1 => i += 8,
            5 => i += 4,
            _ => break,
        }
    }
    out
}

/// A request with one string field set.
fn request(field: u64, value: &str) -> Vec<u8> {
    let mut out = Vec::new();
    put_varint(&mut out, field << 3 | 2);
    put_varint(&mut out, value.len() as u64);
    out.extend_from_slice(value.as_bytes());
    out
}

struct Session {
    conn: Conn,
    path: &'static str,
    meta: Vec<(String, String)>,
}

impl Session {
    /// One request's answer (a `ServerReflectionResponse`), or the call's
    /// status and message.
    async fn ask(&mut self, req: Vec<u8>) -> Result<Vec<u8>, (u32, String)> {
        let (a, _) = call::unary(
            self.conn.clone(),
            self.path.into(),
            req,
            self.meta.clone(),
            "loadlab-k6".into(),
            None,
        )
        .await;
        if a.status != 0 {
            return Err((a.status, a.message));
        }
        let body = a.body.unwrap_or_default();
        // error_response (7): its message.
        if let Some((_, e)) = fields(&body).into_iter().find(|(f, _)| *f == 7) {
            let msg = fields(e)
                .into_iter()
                .find(|(f, _)| *f == 2)
                .map(|(_, m)| String::from_utf8_lossy(m).into_owned());
            return Err((5, msg.unwrap_or_default()));
        }
        Ok(body)
    }

    /// The files a `file_descriptor_response` (4) carries.
    async fn files(&mut self, field: u64, name: &str) -> Result<Vec<FileDescriptorProto>, String> {
        let body = self
            .ask(request(field, name))
            .await
            .map_err(|(_, m)| format!("can't get method on service {name:?}: {m}"))?;
        let mut out = Vec::new();
        for (_, fdr) in fields(&body).into_iter().filter(|(f, _)| *f == 4) {
            for (_, file) in fields(fdr).into_iter().filter(|(f, _)| *f == 1) {
                out.push(FileDescriptorProto::decode(file).map_err(|e| e.to_string())?);
            }
        }
        Ok(out)
    }
}

/// The server's services' definitions (k6 samples no reflection call,
/// nor does loadlab).
pub async fn resolve(conn: Conn, meta: Vec<(String, String)>) -> Result<DescriptorPool, String> {
    let mut s = Session {
        conn,
        path: "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        meta,
    };
    async {
        let listed = match s.ask(request(7, "*")).await {
            Err((12, _)) => {
                s.path = "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo";
                s.ask(request(7, "*")).await
            }
            r => r,
        };
        let listed = listed.map_err(|(_, m)| format!("can't list services: {m}"))?;
        let mut services = Vec::new();
        for (_, list) in fields(&listed).into_iter().filter(|(f, _)| *f == 6) {
            for (_, svc) in fields(list).into_iter().filter(|(f, _)| *f == 1) {
                if let Some((_, name)) = fields(svc).into_iter().find(|(f, _)| *f == 1) {
                    services.push(String::from_utf8_lossy(name).into_owned());
                }
            }
        }
        let mut files: Vec<FileDescriptorProto> = Vec::new();
        for svc in &services {
            let mut todo = s.files(4, svc).await?;
            while let Some(f) = todo.pop() {
                if files.iter().any(|g| g.name == f.name) {
                    continue;
                }
                for dep in &f.dependency {
                    if !files
                        .iter()
                        .chain(&todo)
                        .any(|g| g.name.as_deref() == Some(dep))
                    {
                        todo.extend(s.files(3, dep).await?);
                    }
                }
                files.push(f);
            }
        }
        let mut pool = DescriptorPool::new();
        pool.add_file_descriptor_protos(files)
            .map_err(|e| e.to_string())?;
        Ok(pool)
    }
    .await
}
