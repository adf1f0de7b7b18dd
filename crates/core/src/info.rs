//! Facts about an attack, its targets and its workers that every sink is
//! told before the first sample.

/// What a sink needs to know about a target to label its samples.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetInfo {
    pub method: String,
    pub url: String,
}

/// Facts about an attack that a sink needs before the first sample.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AttackInfo {
    /// The attack's name (`-name`), may be empty.
    pub name: String,
    /// Wall-clock time of the attack's start (offset 0 of every sample), in
    /// nanoseconds since the Unix epoch.
    pub start_unix_ns: u64,
    /// The request timeout (`-timeout`) in nanoseconds; 0 when unknown.
    /// Error texts of timeouts say it.
    pub timeout_ns: u64,
    /// `-connect-to` overrides, `host:port` → `host:port`, and the
    /// `-unix-socket` path: error texts of failed connections name the
    /// address that was actually dialled.
    pub connect_to: Vec<(String, String)>,
    pub unix_socket: Option<String>,
    /// `-max-headers-size` in bytes; 0 when unknown. Named by the error
    /// text of a response head over it.
    pub max_headers_size: u64,
    /// For one worker of a split run (`-segment`, `-start-at`): which share
    /// of the schedule it ran and when it started; `None` for a plain attack.
    pub worker: Option<WorkerInfo>,
}

/// What one worker of a distributed run records about itself in its results
/// header, so that a report over the workers' files can check the start and
/// say what is missing.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WorkerInfo {
    /// `-segment=i/n`: this worker's share of the schedule (`0/1` for all of it).
    pub index: u64,
    pub count: u64,
    /// The `-start-at` instant (ns since the Unix epoch), 0 when the worker
    /// started as soon as it was launched.
    pub start_at_unix_ns: u64,
    /// The worker's wall clock when it actually began (after waiting for
    /// `start_at`): its clock reading, to compare across workers.
    pub began_unix_ns: u64,
    /// The send clock's resolution (`-resolution`) in ns.
    pub resolution_ns: u64,
    /// Requests of the *whole* schedule (all segments), when known in
    /// advance (`-duration`, `-max-requests` or a `-pace` plan); this
    /// segment's share follows from it (`ScheduleSegment::share`).
    pub scheduled_total: Option<u64>,
    /// The kernel's estimate of the clock's maximum error (NTP discipline,
    /// `adjtimex`), when the clock is synchronised.
    pub clock_max_error_ns: Option<u64>,
    /// The worker's host name (a pod's name on Kubernetes).
    pub host: String,
}

impl WorkerInfo {
    /// The segment this worker ran.
    pub fn segment(&self) -> Option<crate::segment::ScheduleSegment> {
        crate::segment::ScheduleSegment::new(self.index, self.count).ok()
    }

    /// Requests this worker's segment was scheduled to send, when known.
    pub fn scheduled(&self) -> Option<u64> {
        Some(self.segment()?.share(self.scheduled_total?))
    }
}
