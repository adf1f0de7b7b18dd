//! `crypto.subtle`'s natives beyond digests and HMACs: key derivation
//! (`kdf.rs`) and AES encryption (`aes.rs`).

pub mod aes;
pub mod kdf;
