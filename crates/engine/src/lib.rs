//! The load engine (placeholder until the engine lands).
