//! `k6/experimental/streams`: the Streams API's `ReadableStream`, its
//! default reader and `CountQueuingStrategy`, as k6 v1.8.1 has them,
//! written in JavaScript from the WHATWG Streams standard (`streams.js`;
//! no natives).

/// What the module exports.
pub(crate) const EXPORTS: &[&str] = &[
    "CountQueuingStrategy",
    "ReadableStream",
    "ReadableStreamDefaultReader",
];

pub(crate) const MODULE: super::Module = super::Module {
    name: "k6/experimental/streams",
    js: include_str!("streams.js"),
    exports: Some(EXPORTS),
};
