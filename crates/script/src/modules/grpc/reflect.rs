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

/// The length-delimited fields of a message, by number.
fn fields(mut buf: &[u8]) -> Vec<(u64, &[u8])> {
    use prost::encoding::decode_varint;
    let mut out = Vec::new();
    while !buf.is_empty() {
        let Ok(key) = decode_varint(&mut buf) else {
            break;
        };
        let skip = match key & 7 {
            0 => match decode_varint(&mut buf) {
                Ok(_) => 0,
                Err(_) => break,
            },
            2 => {
                let Ok(n) = decode_varint(&mut buf) else {
                    break;
                };
                let n = n as usize;
                if n > buf.len() {
                    break;
                }
                out.push((key >> 3, &buf[..n]));
                n
            }
            1 => 8,
            5 => 4,
            _ => break,
        };
        if skip > buf.len() {
            break;
        }
        buf = &buf[skip..];
    }
    out
}

/// A request with one string field set.
fn request(field: u32, value: &str) -> Vec<u8> {
    let mut out = Vec::new();
    prost::encoding::string::encode(field, &value.to_string(), &mut out);
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
    async fn files(&mut self, field: u32, name: &str) -> Result<Vec<FileDescriptorProto>, String> {
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
