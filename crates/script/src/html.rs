//! `k6/html`'s documents (now in `modules/html/doc.rs`), by their old
//! path.

pub use crate::modules::html::doc::{
    HtmlDoc, Matcher, live_document_bytes, live_documents, peak_documents, reset_peak,
};
