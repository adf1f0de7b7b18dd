//! `k6/experimental/fs` and `k6/experimental/csv`: files opened in the
//! init context (each VU reads its copy into memory; a `File` keeps its
//! own offset), and RFC 4180 records of them, written in JavaScript over
//! one native that reads a file.

use std::rc::Rc;

use rquickjs::{Ctx, Function, Object, Value};

use crate::js::runtime::array_buffer_bytes;
use crate::js::vu;
use crate::state::run_state::RunState;

pub(crate) const FS_NAME: &str = "k6/experimental/fs";
pub(crate) const CSV_NAME: &str = "k6/experimental/csv";

pub(crate) const FS_JS: &str = include_str!("fs.js");
pub(crate) const CSV_JS: &str = include_str!("csv.js");

/// What the modules' default exports have.
pub(crate) const FS_EXPORTS: &[&str] = &["open", "SeekMode"];
pub(crate) const CSV_EXPORTS: &[&str] = &["parse", "Parser"];

/// The modules as the loader and the import checker see them.
pub(crate) const FS: super::Module = super::Module {
    name: FS_NAME,
    js: FS_JS,
    exports: Some(FS_EXPORTS),
};
pub(crate) const CSV: super::Module = super::Module {
    name: CSV_NAME,
    js: CSV_JS,
    exports: Some(CSV_EXPORTS),
};

/// `fsOpen(path)`: `{path, name, bytes}` of a file beside the script, or
/// `{error, message}` in k6's words; `inVu()`: whether a VU's code (not
/// the init context) is running.
pub(crate) fn install<'js>(
    ctx: &Ctx<'js>,
    k6: &Object<'js>,
    shared: &Rc<RunState>,
) -> rquickjs::Result<()> {
    let st = shared.clone();
    k6.set(
        "fsOpen",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, path: String| -> rquickjs::Result<Value<'js>> {
                let r = Object::new(ctx.clone())?;
                // Absolute, as k6's `File.path` and error texts show it.
                let full = std::path::absolute(st.script_dir.join(&path))
                    .unwrap_or_else(|_| st.script_dir.join(&path));
                let fail = |name: &str, msg: String| -> rquickjs::Result<Value<'js>> {
                    r.set("error", name)?;
                    r.set("message", msg)?;
                    Ok(r.clone().into_value())
                };
                if vu::in_vu() {
                    return fail(
                        "ForbiddenError",
                        "open() failed; reason: opening a file is allowed only in the Init context"
                            .into(),
                    );
                }
                if full.is_dir() {
                    return fail(
                        "InvalidResourceError",
                        format!("{:?} is a directory", full.display().to_string()),
                    );
                }
                match std::fs::read(&full) {
                    Ok(data) => {
                        r.set("path", full.display().to_string())?;
                        let name = full
                            .file_name()
                            .map(|n| n.to_string_lossy().into_owned())
                            .unwrap_or_default();
                        r.set("name", name)?;
                        r.set("bytes", rquickjs::ArrayBuffer::new(ctx.clone(), data)?)?;
                        Ok(r.into_value())
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => fail(
                        "NotFoundError",
                        format!("no such file or directory {:?}", full.display().to_string()),
                    ),
                    Err(e) => fail(
                        "FsError",
                        format!("open {:?}: {e}", full.display().to_string()),
                    ),
                }
            },
        )?,
    )?;
    k6.set("inVu", Function::new(ctx.clone(), vu::in_vu)?)?;
    // `fsText(buffer)`: an ArrayBuffer's bytes as UTF-8 text (invalid
    // sequences as U+FFFD).
    k6.set(
        "fsText",
        Function::new(
            ctx.clone(),
            |buffer: rquickjs::ArrayBuffer<'js>| -> String {
                String::from_utf8_lossy(&array_buffer_bytes(&buffer).unwrap_or_default())
                    .into_owned()
            },
        )?,
    )?;
    Ok(())
}
