//! Header names whose values are credentials, and what a shown one is
//! replaced with: reports, stores and log lines keep no secret (a study's
//! plan, `loadlab k6 --http-debug`).

/// Headers whose values are credentials, lower case.
pub const CREDENTIAL_HEADERS: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
    "x-api-key",
    "api-key",
    "x-auth-token",
    "x-amz-security-token",
];

/// What a redacted header value (or the secret part of it) is replaced with.
pub const REDACTED: &str = "REDACTED";
