//! `crypto.subtle`'s natives beyond digests and HMACs: key derivation
//! (`kdf.rs`).

pub mod kdf;
