//! `crypto.subtle`'s natives beyond digests and HMACs: key derivation
//! (`kdf.rs`), AES encryption (`aes.rs`) and the public-key algorithms
//! (`pk.rs`).

pub mod aes;
pub mod kdf;
pub mod pk;
