//! [`Buckets`]: exact counts of values between fixed bounds — vegeta's
//! `hist[...]` report and the Prometheus exporter's `le` buckets. The one
//! place a value is put into a fixed bucket; counts merge by adding.

/// Counts of values per bucket. Bucket `i` holds the values in
/// `[bounds[i], bounds[i + 1])`; the last one is open-ended, and a value
/// below the first bound falls into the last bucket, as in vegeta.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Buckets {
    bounds: Vec<u64>,
    counts: Vec<u64>,
}

impl Buckets {
    /// Buckets with these lower bounds (ascending; at least one).
    pub fn with_lower_bounds(bounds: Vec<u64>) -> Self {
        let n = bounds.len().max(1);
        let bounds = if bounds.is_empty() { vec![0] } else { bounds };
        Buckets {
            bounds,
            counts: vec![0; n],
        }
    }

    /// Buckets for Prometheus' `le` semantics: one bucket of values
    /// `≤ upper[0]`, one for each `(upper[i-1], upper[i]]`, and one above
    /// the last upper bound (the `+Inf` bucket's own share).
    pub fn with_upper_bounds(upper: &[u64]) -> Self {
        let mut bounds = Vec::with_capacity(upper.len() + 1);
        bounds.push(0);
        bounds.extend(upper.iter().map(|u| u.saturating_add(1)));
        Self::with_lower_bounds(bounds)
    }

    /// Counts one value.
    #[inline]
    pub fn record(&mut self, v: u64) {
        // The number of bounds ≤ v: bucket i-1, or the last bucket for a
        // value below the first bound (vegeta's fallback).
        let i = self.bounds.partition_point(|&b| b <= v);
        let i = if i == 0 { self.counts.len() - 1 } else { i - 1 };
        self.counts[i] += 1;
    }

    /// Adds `other`'s counts; false (and nothing added) when the bounds differ.
    pub fn merge(&mut self, other: &Buckets) -> bool {
        if self.bounds != other.bounds {
            return false;
        }
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        true
    }

    pub fn lower_bounds(&self) -> &[u64] {
        &self.bounds
    }

    pub fn counts(&self) -> &[u64] {
        &self.counts
    }

    /// `(lower bound, count)` per bucket.
    pub fn pairs(&self) -> Vec<(u64, u64)> {
        self.bounds
            .iter()
            .copied()
            .zip(self.counts.iter().copied())
            .collect()
    }

    /// Running totals: entry `i` counts the values in buckets `0..=i`.
    pub fn cumulative(&self) -> Vec<u64> {
        self.counts
            .iter()
            .scan(0u64, |acc, c| {
                *acc += c;
                Some(*acc)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lower_bounds_follow_vegeta() {
        let mut b = Buckets::with_lower_bounds(vec![10, 20, 30]);
        for v in [5, 10, 19, 20, 29, 30, 1000] {
            b.record(v);
        }
        // 5 is below the first bound: the last bucket, as vegeta does.
        assert_eq!(b.counts(), &[2, 2, 3]);
        assert_eq!(b.pairs(), vec![(10, 2), (20, 2), (30, 3)]);
    }

    #[test]
    fn upper_bounds_are_inclusive_like_prometheus_le() {
        let mut b = Buckets::with_upper_bounds(&[10, 20]);
        for v in [0, 10, 11, 20, 21] {
            b.record(v);
        }
        // ≤10: 0 and 10; (10,20]: 11 and 20; above: 21.
        assert_eq!(b.counts(), &[2, 2, 1]);
        assert_eq!(b.cumulative(), vec![2, 4, 5]);
    }

    #[test]
    fn merge_adds_only_equal_bounds() {
        let mut a = Buckets::with_upper_bounds(&[10]);
        let mut b = a.clone();
        a.record(1);
        b.record(50);
        assert!(a.merge(&b));
        assert_eq!(a.counts(), &[1, 1]);
        assert!(!a.merge(&Buckets::with_upper_bounds(&[11])));
        assert_eq!(a.counts(), &[1, 1]);
    }
}
