//! loadlab on many machines.
//!
//! One attack's schedule is split into segments (`loadlab attack
//! -segment=i/n -start-at=T`, in the engine); this crate runs the segments
//! where the users' machines are — a Kubernetes Indexed Job — and brings
//! their results back:
//!
//! * [`error`]: [`RenderError`], what preparing or rendering can fail on,
//!   and [`ClusterError`], what talking to the cluster can;
//! * [`flags`]: the attack's command line as a worker runs it: files it
//!   names (targets, `@body` files, `-body`, `-root-certs`) become entries
//!   of a ConfigMap and the flags point at the mounted copies;
//! * [`script`]: a k6 script's command line as a worker runs it: the
//!   script, its local modules and the files it opens become entries of the
//!   ConfigMap;
//! * [`render`]: the ConfigMap and the Indexed Job as typed k8s-openapi
//!   objects, serialized to YAML (never hand-written YAML);
//! * [`store`]: results in S3-compatible object storage (`s3://bucket/key`):
//!   upload a results file, list and download a prefix;
//! * [`run`]: apply the objects through the Kubernetes API and follow the
//!   Job until its pods are done.
//!
//! Nothing here measures or merges: the workers' files are merged by
//! `loadlab-metrics`, as any other results files.

pub mod error;
pub mod flags;
pub mod plan;
pub mod render;
pub mod run;
pub mod script;
pub mod store;

pub use error::{ClusterError, RenderError};
pub use flags::{PreparedFlags, prepare_attack_flags};
pub use render::{Manifests, RenderSpec, Results};
pub use script::prepare_script_flags;
