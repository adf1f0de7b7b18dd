//! The process's open-file limit: every connection is a file descriptor.
//!
//! Linux starts processes with a *soft* limit of 1,024 open files (a login
//! session, systemd services and most container runtimes), while the *hard*
//! limit is far higher. A load generator or server that keeps the soft limit
//! fails at its 1,021st connection: `connect` fails with `EMFILE`, and a
//! server's `accept` fails, so the connections the kernel has already
//! completed wait in its accept queue, requests written and unanswered,
//! until their client times out. Go raises the soft limit to the hard one
//! when any program starts (since Go 1.19), so vegeta, k6 and hey never
//! meet it; [`raise`] does the same for loadlab, once, at start-up.

/// The soft and hard limits on open files, or `None` where they cannot be
/// read.
pub fn get() -> Option<(u64, u64)> {
    limits().map(|l| (l.rlim_cur, l.rlim_max))
}

/// Raises the soft limit on open files to the hard limit. Returns the soft
/// limit before and after (equal when there was nothing to raise or the
/// kernel refused); `None` where the limits cannot be read.
pub fn raise() -> Option<(u64, u64)> {
    let l = limits()?;
    if l.rlim_cur >= l.rlim_max {
        return Some((l.rlim_cur, l.rlim_cur));
    }
    let want = libc::rlimit {
        rlim_cur: l.rlim_max,
        rlim_max: l.rlim_max,
    };
    let now = if set(&want) { l.rlim_max } else { l.rlim_cur };
    Some((l.rlim_cur, now))
}

// getrlimit and setrlimit on a plain struct that lives on the stack for the
// call: the workspace denies unsafe code, these are allowed by name.
#[allow(unsafe_code)]
fn limits() -> Option<libc::rlimit> {
    let mut l = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `l` is a valid, writable rlimit for the duration of the call.
    let rc = unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut l) };
    (rc == 0).then_some(l)
}

#[allow(unsafe_code)]
fn set(l: &libc::rlimit) -> bool {
    // SAFETY: `l` points to a valid rlimit for the duration of the call.
    unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, l) == 0 }
}

#[cfg(test)]
mod tests {
    #[test]
    fn raising_leaves_the_soft_limit_at_the_hard_one() {
        let (_, hard) = super::get().expect("getrlimit answers on Linux");
        let (before, after) = super::raise().unwrap();
        assert!(after >= before);
        assert_eq!(super::get().unwrap(), (after, hard));
        assert_eq!(
            after, hard,
            "an unprivileged process may raise its soft limit to the hard one"
        );
    }
}
