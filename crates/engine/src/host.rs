//! What a split run's worker records about its machine in its `worker`
//! record: the host's name, and what the kernel knows about the wall
//! clock's accuracy, its *maximum error* as NTP (chrony, systemd-timesyncd,
//! ntpd) keeps it up to date, read with `adjtimex(2)` in read-only mode. The
//! merged report can then say when a worker's clock may be off by more than
//! the send clock's resolution (their shares would be shifted against each
//! other by up to that much).

/// The host's name (`/proc/sys/kernel/hostname`, else `$HOSTNAME`; empty
/// when neither is known). In a Kubernetes pod, the pod's name.
pub fn name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_default()
}

/// The kernel's maximum-error estimate of the wall clock, in nanoseconds;
/// `None` when it cannot be read. An unsynchronized clock reports its
/// error as it grows (up to 16 s), which is what it is.
pub fn clock_max_error_ns() -> Option<u64> {
    read().map(|us| us.saturating_mul(1_000))
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
// The one unsafe call of this crate (the workspace denies unsafe code): a
// read-only adjtimex (`modes` = 0 changes nothing and needs no privilege)
// on a zeroed struct the kernel fills in.
#[allow(unsafe_code)]
fn read() -> Option<u64> {
    // SAFETY: `timex` is plain data, valid when zeroed; the pointer is to a
    // live local for the duration of the call.
    let mut t: libc::timex = unsafe { std::mem::zeroed() };
    let state = unsafe { libc::adjtimex(&mut t) };
    if state < 0 {
        return None;
    }
    u64::try_from(t.maxerror).ok()
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn read() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    /// The kernel always keeps an estimate (NTP_PHASE_LIMIT, 16 s, caps
    /// it), so the call answers on Linux, within that bound.
    #[test]
    fn the_kernel_answers_within_its_bound() {
        let e = super::clock_max_error_ns().expect("adjtimex answers on Linux");
        assert!(e <= 16_000_000 * 1_000, "{e}");
    }
}
