//! `k6/websockets`: k6's browser-style WebSocket client, `new
//! WebSocket(url, [protocols], [params])`, and its `Blob`.
//!
//! Unlike `k6/ws`, the constructor returns at once: the socket dials, and
//! its events (`open`, `message`, `ping`, `pong`, `error`, `close`) fire,
//! when the VU's event loop turns (after the iteration's code returns or
//! awaits), among the VU's timers and async requests (timers/global.fn.js,
//! `timerStep`). The iteration ends when every socket it opened is
//! closed, as in k6. A VU waits on all its open sockets at once
//! (`wsNextAny`), suspended on the scheduler, never on a thread.
//!
//! The natives are `k6/ws`'s (modules/ws): the same dial (`hosts`, `dns`, block
//! lists, TLS options), frames and samples (`ws_sessions`,
//! `ws_connecting`, `ws_session_duration`, `ws_msgs_sent`,
//! `ws_msgs_received`, `ws_ping`, `data_sent`, `data_received`).

pub(crate) const NAME: &str = "k6/websockets";

/// The module.
pub(crate) const WEBSOCKETS_JS: &str = include_str!("websockets.js");

/// The names `k6/websockets` exports (checked at init, as the other
/// modules').
pub(crate) const EXPORTS: &[&str] = &["WebSocket", "Blob"];

/// The module as the loader and the import checker see it.
pub(crate) const MODULE: super::Module = super::Module {
    name: NAME,
    js: WEBSOCKETS_JS,
    exports: Some(EXPORTS),
};

/// The module's name before k6 v1 (`k6/experimental/websockets`): the
/// same module, with k6's deprecation warning, once.
pub(crate) const EXPERIMENTAL: super::Module = super::Module {
    name: "k6/experimental/websockets",
    js: "globalThis.__k6.warnOnce('k6/experimental/websockets is deprecated and will be removed in a future release. Please use k6/websockets instead.');\n\
         export * from 'k6/websockets';\nexport { default } from 'k6/websockets';\n",
    exports: Some(EXPORTS),
};
