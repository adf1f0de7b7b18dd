//! The crate's integration tests, one binary: each file of the old
//! `tests/` folder is a module here (one link instead of one per file).
//!
//! The modules that run the faces behind cargo features (`k6`,
//! `sysbench`, `cluster`) need them: the README's test command builds
//! with `--all-features`. Without them, the test below says so.

/// Fails in a build without every face, so that a test run without
/// `--all-features` cannot pass for the whole suite.
#[cfg(not(feature = "full"))]
#[test]
fn every_face_is_built() {
    panic!(
        "the loadlab crate's tests of the k6, sysbench and cluster faces need them built: run `cargo test --workspace --all-features --locked` (the README's)"
    );
}

#[cfg(feature = "full")]
mod attack_cli;
mod attack_selfcheck;
#[cfg(feature = "full")]
mod dashboard;
#[cfg(feature = "full")]
mod dashboard_kit;
#[cfg(feature = "full")]
mod dashboard_runs;
mod distributed;
mod http_client;
#[cfg(feature = "full")]
mod import_har;
#[cfg(feature = "full")]
mod import_more;
mod import_openapi;
#[cfg(feature = "k6")]
mod k6;
#[cfg(feature = "k6")]
mod k6_auth_kit;
#[cfg(feature = "k6")]
mod k6_config;
#[cfg(feature = "k6")]
mod k6_digest;
#[cfg(feature = "k6")]
mod k6_exit;
#[cfg(feature = "k6")]
mod k6_files;
#[cfg(feature = "k6")]
mod k6_grpc;
#[cfg(feature = "k6")]
mod k6_httpx;
#[cfg(feature = "k6")]
mod k6_legacy_summary;
#[cfg(feature = "k6")]
mod k6_ntlm;
#[cfg(feature = "k6")]
mod k6_redis;
#[cfg(feature = "k6")]
mod k6_runaway;
#[cfg(feature = "k6")]
mod k6_secrets;
#[cfg(feature = "k6")]
mod k6_threshold_rows;
#[cfg(feature = "k6")]
mod k6_typescript;
#[cfg(feature = "k6")]
mod k6_webcrypto;
#[cfg(feature = "k6")]
mod k6_webcrypto_pk;
#[cfg(feature = "k6")]
mod k6_wire_bytes;
#[cfg(feature = "k6")]
mod k6_x509;
#[cfg(feature = "cluster")]
mod k8s;
#[cfg(feature = "cluster")]
mod k8s_inputs;
#[cfg(feature = "cluster")]
mod k8s_plan;
#[cfg(feature = "full")]
mod local_examples;
mod reference_studies;
mod replay;
#[cfg(feature = "cluster")]
mod s3;
#[cfg(feature = "full")]
mod side_by_side;
mod study;
mod study_command;
#[cfg(feature = "full")]
mod study_groups;
mod study_history;
#[cfg(feature = "full")]
mod study_inputs;
mod study_progress;
mod study_regression;
mod study_replay;
#[cfg(feature = "full")]
mod study_runs;
mod study_secrets;
#[cfg(feature = "full")]
mod study_split;
#[cfg(feature = "full")]
mod study_workloads;
#[cfg(feature = "sysbench")]
mod sysbench_cli;
#[cfg(feature = "sysbench")]
mod sysbench_lua;
