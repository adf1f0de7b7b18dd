//! Private networks for tests: network namespaces joined by a bridge, all
//! made by the test and removed when it ends (also when it fails: the
//! [`Lab`]'s `Drop` deletes every namespace it made, and with them their
//! interfaces).
//!
//! ```text
//!   ns <prefix>h (hub): bridge br0
//!      ├─ veth ── ns <prefix>n0: eth0 198.18.0.1/15   (e.g. the origin)
//!      ├─ veth ── ns <prefix>n1: eth0 198.18.0.10/15  (a worker)
//!      └─ …
//! ```
//!
//! The bridge lives in a namespace of its own, so nothing is attached to
//! the host's network: traffic between the nodes never leaves the
//! namespaces the lab made. Addresses come from 198.18.0.0/15, the range
//! RFC 2544 sets aside for benchmarks. Names are unique per process (the
//! prefix holds the pid and a counter), so tests may run side by side.
//!
//! Needs root and `ip` (iproute2): call [`skip_reason`] first and skip the
//! test, saying why, when it returns `Some`.

use crate::proc::BoundedOutput;
use std::net::Ipv4Addr;
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

/// Why namespace tests cannot run here (not root, no `ip netns`), or `None`.
pub fn skip_reason() -> Option<String> {
    let uid = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(str::to_string))
        })
        .unwrap_or_default();
    if uid != "0" {
        return Some(format!(
            "network namespace test skipped: it needs root (effective uid is {uid:?})"
        ));
    }
    let name = format!("llprobe{}", std::process::id());
    match ip(&["netns", "add", &name]) {
        Ok(_) => {
            let _ = ip(&["netns", "del", &name]);
            None
        }
        Err(e) => Some(format!(
            "network namespace test skipped: `ip netns add` is unavailable here: {e}"
        )),
    }
}

/// Runs `ip ARGS…`; an error carries its stderr.
pub fn ip(args: &[&str]) -> Result<Output, String> {
    let out = Command::new("ip")
        .args(args)
        .output_bounded()
        .map_err(|e| format!("cannot run ip: {e}"))?;
    if out.status.success() {
        Ok(out)
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// A node of the lab: a namespace with one address on the bridge.
#[derive(Debug, Clone)]
pub struct Node {
    pub ns: String,
    pub addr: Ipv4Addr,
}

impl Node {
    /// A command that runs `program` inside this node's namespace.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", &self.ns]).arg(program);
        c
    }
}

/// The namespaces of one test; all deleted on drop.
pub struct Lab {
    prefix: String,
    hub: String,
    made: Vec<String>,
    nodes: u32,
}

static LABS: AtomicU32 = AtomicU32::new(0);

impl Lab {
    /// Makes the hub namespace and its bridge. First removes the namespaces
    /// of labs whose test process is gone (killed before its `Drop` ran).
    pub fn new() -> Result<Lab, String> {
        remove_stale();
        let prefix = format!(
            "ll{}x{}",
            std::process::id(),
            LABS.fetch_add(1, Ordering::Relaxed)
        );
        let hub = format!("{prefix}h");
        let mut lab = Lab {
            prefix,
            hub: hub.clone(),
            made: Vec::new(),
            nodes: 0,
        };
        ip(&["netns", "add", &hub])?;
        lab.made.push(hub.clone());
        ip(&["-n", &hub, "link", "set", "lo", "up"])?;
        ip(&["-n", &hub, "link", "add", "br0", "type", "bridge"])?;
        ip(&["-n", &hub, "link", "set", "br0", "up"])?;
        Ok(lab)
    }

    /// Adds a namespace with `addr`/15 on the bridge (and its loopback up).
    pub fn node(&mut self, addr: Ipv4Addr) -> Result<Node, String> {
        let i = self.nodes;
        self.nodes += 1;
        let ns = format!("{}n{i}", self.prefix);
        ip(&["netns", "add", &ns])?;
        self.made.push(ns.clone());
        ip(&["-n", &ns, "link", "set", "lo", "up"])?;
        // Made inside the hub, so no interface name ever exists in the
        // host's namespace.
        let port = format!("p{i}");
        ip(&[
            "-n", &self.hub, "link", "add", &port, "type", "veth", "peer", "name", "eth0", "netns",
            &ns,
        ])?;
        ip(&["-n", &self.hub, "link", "set", &port, "master", "br0"])?;
        ip(&["-n", &self.hub, "link", "set", &port, "up"])?;
        ip(&[
            "-n",
            &ns,
            "addr",
            "add",
            &format!("{addr}/15"),
            "dev",
            "eth0",
        ])?;
        ip(&["-n", &ns, "link", "set", "eth0", "up"])?;
        Ok(Node { ns, addr })
    }

    /// The namespaces made so far (hub first).
    pub fn namespaces(&self) -> &[String] {
        &self.made
    }
}

/// Deletes `ll<pid>x…` namespaces whose process no longer exists.
fn remove_stale() {
    let Ok(out) = ip(&["netns", "list"]) else {
        return;
    };
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let Some(name) = line.split_whitespace().next() else {
            continue;
        };
        let Some(pid) = name
            .strip_prefix("ll")
            .and_then(|r| r.split_once('x'))
            .map(|(p, _)| p)
            .filter(|p| !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()))
        else {
            continue;
        };
        if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            let _ = ip(&["netns", "del", name]);
        }
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        // Deleting a namespace deletes its interfaces (and the veth peers).
        // Processes still inside would keep it alive: the tests kill theirs
        // first (their guards are dropped before the lab).
        for ns in self.made.iter().rev() {
            let _ = ip(&["netns", "del", ns]);
        }
    }
}
