//! The crate's integration tests, one binary: each file of the old
//! `tests/` folder is a module here (one link instead of one per file).

mod attack_cli;
mod attack_selfcheck;
mod dashboard;
mod dashboard_kit;
mod dashboard_runs;
mod distributed;
mod http_client;
mod import_har;
mod import_openapi;
mod k6;
mod k6_exit;
mod k6_files;
mod k6_runaway;
mod k6_secrets;
mod k6_webcrypto;
mod k8s;
mod k8s_inputs;
mod k8s_plan;
mod local_examples;
mod reference_studies;
mod replay;
mod s3;
mod study;
mod study_command;
mod study_groups;
mod study_history;
mod study_inputs;
mod study_progress;
mod study_regression;
mod study_runs;
mod study_secrets;
mod study_split;
mod study_workloads;
mod sysbench_cli;
mod sysbench_lua;
