//! Splitting one schedule across many workers (`-segment=i/n`).
//!
//! The schedule of a test is one sequence of requests numbered `k = 0, 1, 2,
//! …`, each due at `pacer.send_at(k)`. Worker `i` of `n` sends exactly the
//! requests with `k mod n == i`, at their global intended times: its `j`-th
//! request is global request `k = j·n + i`. The shares interleave, so each is
//! itself smooth (a ramp stays a ramp, a sine a sine, at 1/n of the rate), and
//! their union is the single-machine schedule: the same intended times, no
//! duplicates, no gaps. Sequence numbers in results stay global.
//!
//! Limits that describe the whole test are split the same way: a count of
//! requests `N` gives worker `i` the `k < N` with `k mod n == i`
//! ([`ScheduleSegment::share`]), and so does a number of workers or
//! connections (at least one each).

use std::fmt;
use std::time::Duration;

use crate::pacer::Pacer;

/// Worker `index` of `count` (0-based, like Kubernetes' `JOB_COMPLETION_INDEX`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ScheduleSegment {
    pub index: u64,
    pub count: u64,
}

/// Why a `-segment` value was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SegmentError {
    #[error(
        "invalid -segment {0:?}: expected i/n with 0 <= i < n, e.g. 0/4 (i is 0-based, like JOB_COMPLETION_INDEX)"
    )]
    Syntax(String),
    #[error("invalid -segment {input:?}: index {index} is not below the number of segments {count} (i is 0-based: 0/{count} … {}/{count})", count - 1)]
    IndexTooLarge {
        input: String,
        index: u64,
        count: u64,
    },
    #[error("invalid -segment {0:?}: the number of segments must be at least 1")]
    ZeroCount(String),
    #[error(
        "invalid -segment {0:?}: at most {MAX_SEGMENTS} segments (a Kubernetes Indexed Job's most completions)"
    )]
    TooMany(String),
}

/// The most segments a schedule is split into: as many as a Kubernetes
/// Indexed Job may have completions. More is a typo; refusing it keeps
/// every count that follows a segment count bounded.
pub const MAX_SEGMENTS: u64 = 100_000;

impl ScheduleSegment {
    /// The whole schedule (one worker).
    pub const WHOLE: ScheduleSegment = ScheduleSegment { index: 0, count: 1 };

    pub fn new(index: u64, count: u64) -> Result<Self, SegmentError> {
        let input = format!("{index}/{count}");
        if count == 0 {
            return Err(SegmentError::ZeroCount(input));
        }
        if index >= count {
            return Err(SegmentError::IndexTooLarge {
                input,
                index,
                count,
            });
        }
        Ok(ScheduleSegment { index, count })
    }

    /// Parses `i/n`.
    pub fn parse(s: &str) -> Result<Self, SegmentError> {
        let syntax = || SegmentError::Syntax(s.to_string());
        let (i, n) = s.trim().split_once('/').ok_or_else(syntax)?;
        let num = |t: &str| -> Result<u64, SegmentError> {
            let t = t.trim();
            if t.is_empty() || !t.bytes().all(|c| c.is_ascii_digit()) {
                return Err(syntax());
            }
            t.parse().map_err(|_| syntax())
        };
        let (index, count) = (num(i)?, num(n)?);
        if count > MAX_SEGMENTS {
            return Err(SegmentError::TooMany(s.to_string()));
        }
        ScheduleSegment::new(index, count).map_err(|e| match e {
            SegmentError::IndexTooLarge { index, count, .. } => SegmentError::IndexTooLarge {
                input: s.to_string(),
                index,
                count,
            },
            SegmentError::ZeroCount(_) => SegmentError::ZeroCount(s.to_string()),
            e => e,
        })
    }

    pub fn is_whole(&self) -> bool {
        self.count == 1
    }

    /// The global sequence number of this segment's `j`-th request.
    pub fn global(&self, j: u64) -> Option<u64> {
        j.checked_mul(self.count)?.checked_add(self.index)
    }

    /// True when global request `k` belongs to this segment.
    pub fn contains(&self, k: u64) -> bool {
        k % self.count == self.index
    }

    /// This segment's `j`-th request: its global sequence number and its
    /// intended offset from the (common) start, or `None` past the end of
    /// the pacer's plan. The one place the engine turns a local count into
    /// the global schedule.
    pub fn send_at(&self, pacer: &dyn Pacer, j: u64) -> Option<(u64, Duration)> {
        let k = self.global(j)?;
        Some((k, pacer.send_at(k)?))
    }

    /// How many of the global requests `0..total` belong to this segment.
    pub fn share(&self, total: u64) -> u64 {
        if total <= self.index {
            0
        } else {
            (total - self.index).div_ceil(self.count)
        }
    }

    /// This segment's share of a whole-test number of workers or connections
    /// (`-workers`, `-max-workers`, `-max-connections`): the same
    /// interleaved split as the requests, but at least 1.
    pub fn share_of_limit(&self, total: u64) -> u64 {
        self.share(total).max(1)
    }
}

impl fmt::Display for ScheduleSegment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The number of requests of the whole schedule (all segments), when it is
/// known in advance: the requests due before `duration` (if any), at most
/// `max_requests` (if any), and only as many as the pacer's own plan has.
/// `None` when nothing bounds it (a constant rate with neither a duration
/// nor a count) or when the rate is unlimited with no count.
pub fn scheduled_total(
    pacer: &dyn Pacer,
    duration: Option<Duration>,
    max_requests: Option<u64>,
) -> Option<u64> {
    if pacer.is_unlimited() {
        return max_requests;
    }
    if duration.is_none() && max_requests.is_none() && pacer.planned_duration().is_none() {
        return None;
    }
    let due = |k: u64| {
        max_requests.is_none_or(|m| k < m)
            && pacer
                .send_at(k)
                .is_some_and(|t| duration.is_none_or(|d| t < d))
    };
    Some(count_due(due))
}

/// The number of `k = 0, 1, …` for which the monotone predicate holds (it
/// holds for a prefix of the numbers): exponential then binary search.
pub fn count_due(due: impl Fn(u64) -> bool) -> u64 {
    if !due(0) {
        return 0;
    }
    let (mut lo, mut step) = (0u64, 1u64);
    while step < (1 << 48) && due(lo.saturating_add(step)) {
        lo += step;
        step *= 2;
    }
    let mut hi = lo.saturating_add(step);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if due(mid) { lo = mid } else { hi = mid }
    }
    lo + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pacer::PacerSpec;
    use crate::rate::Rate;

    #[test]
    fn parses_and_rejects() {
        assert_eq!(
            ScheduleSegment::parse("2/4").unwrap(),
            ScheduleSegment { index: 2, count: 4 }
        );
        assert_eq!(
            ScheduleSegment::parse("0/1").unwrap(),
            ScheduleSegment::WHOLE
        );
        let e = ScheduleSegment::parse("4/4").unwrap_err().to_string();
        assert!(e.contains("not below") && e.contains("0-based"), "{e}");
        for bad in ["", "1", "1/", "/4", "-1/4", "a/4", "1/0", "1/4/5", "1.5/4"] {
            assert!(ScheduleSegment::parse(bad).is_err(), "{bad:?}");
        }
        assert!(ScheduleSegment::parse("0/100000").is_ok());
        let e = ScheduleSegment::parse("0/4294967297")
            .unwrap_err()
            .to_string();
        assert!(e.contains("at most 100000 segments"), "{e}");
    }

    #[test]
    fn shares_partition_any_total() {
        for n in 1..=8u64 {
            for total in 0..40u64 {
                let sum: u64 = (0..n)
                    .map(|i| ScheduleSegment::new(i, n).unwrap().share(total))
                    .sum();
                assert_eq!(sum, total, "n={n} total={total}");
            }
        }
        let s = ScheduleSegment::new(2, 4).unwrap();
        assert_eq!(s.share(10_000), 2_500);
        assert_eq!(s.share(10), 2); // 2, 6
        assert_eq!(s.share(2), 0);
        assert_eq!(s.share_of_limit(2), 1);
    }

    #[test]
    fn scheduled_totals() {
        let p = PacerSpec::Constant(Rate::per_second(100)).build();
        assert_eq!(
            scheduled_total(p.as_ref(), Some(Duration::from_secs(2)), None),
            Some(200)
        );
        assert_eq!(
            scheduled_total(p.as_ref(), Some(Duration::from_secs(2)), Some(50)),
            Some(50)
        );
        assert_eq!(scheduled_total(p.as_ref(), None, None), None);
        let plan = PacerSpec::parse_plan("1s@100,1s@100->0").unwrap().build();
        assert_eq!(scheduled_total(plan.as_ref(), None, None), Some(150));
        let unl = PacerSpec::Constant(Rate::UNLIMITED).build();
        assert_eq!(scheduled_total(unl.as_ref(), None, Some(7)), Some(7));
        assert_eq!(
            scheduled_total(unl.as_ref(), Some(Duration::from_secs(1)), None),
            None
        );
    }
}
