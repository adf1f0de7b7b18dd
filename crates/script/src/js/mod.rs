//! The QuickJS glue: the run's context and module loader, exceptions as
//! text, TypeScript and source maps, the bytecode cache, the VUs' coroutines and the stack bookkeeping
//! QuickJS needs when the stack it runs on changes.

pub(crate) mod class;
pub(crate) mod error;
pub(crate) mod exec;
pub(crate) mod loader;
pub(crate) mod runtime;
pub(crate) mod source;
pub(crate) mod source_map;
pub(crate) mod throw_sites;
pub(crate) mod typescript;
pub mod vu;
