//! Largest-Triangle-Three-Buckets downsampling (Steinarsson, 2013): keeps the
//! first and last points and, from each of `threshold − 2` equal buckets, the
//! point forming the largest triangle with the previously kept point and the
//! next bucket's average. Spikes survive; flat stretches thin out. Done in Rust
//! before embedding, so a page for millions of requests stays small.

/// Downsamples `data` (sorted by x) to at most `threshold` points. Inputs no
/// larger than `threshold`, or thresholds below 3, are returned unchanged.
pub fn lttb(data: &[(f64, f64)], threshold: usize) -> Vec<(f64, f64)> {
    let n = data.len();
    if threshold >= n || threshold < 3 {
        return data.to_vec();
    }
    let mut out = Vec::with_capacity(threshold);
    let every = (n - 2) as f64 / (threshold - 2) as f64;
    let mut a = 0usize;
    out.push(data[0]);
    for i in 0..threshold - 2 {
        // Average of the next bucket (the third triangle vertex). Since
        // threshold < n, every > 1 and both buckets are non-empty.
        let next_start = ((i + 1) as f64 * every) as usize + 1;
        let next_end = (((i + 2) as f64 * every) as usize + 1).min(n);
        let next = &data[next_start..next_end];
        let ax = next.iter().map(|p| p.0).sum::<f64>() / next.len() as f64;
        let ay = next.iter().map(|p| p.1).sum::<f64>() / next.len() as f64;
        // The current bucket: keep its point with the largest triangle.
        let start = (i as f64 * every) as usize + 1;
        let end = (((i + 1) as f64 * every) as usize + 1).min(n - 1);
        let (px, py) = data[a];
        let mut best = start;
        let mut best_area = -1.0;
        for (j, p) in data.iter().enumerate().take(end).skip(start) {
            let area = ((px - ax) * (p.1 - py) - (px - p.0) * (ay - py)).abs();
            if area > best_area {
                best_area = area;
                best = j;
            }
        }
        out.push(data[best]);
        a = best;
    }
    out.push(data[n - 1]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_ends_and_spikes() {
        let mut data: Vec<(f64, f64)> = (0..10_000)
            .map(|i| (i as f64, 1.0 + (i % 7) as f64 * 0.01))
            .collect();
        data[5_000].1 = 500.0;
        let d = lttb(&data, 100);
        assert_eq!(d.len(), 100);
        assert_eq!(d[0], data[0]);
        assert_eq!(d[99], data[9_999]);
        assert!(d.contains(&(5_000.0, 500.0)), "the spike must survive");
        assert!(d.windows(2).all(|w| w[0].0 < w[1].0), "x stays increasing");
    }

    #[test]
    fn small_inputs_unchanged() {
        let data = vec![(0.0, 1.0), (1.0, 2.0), (2.0, 3.0)];
        assert_eq!(lttb(&data, 4000), data);
        assert_eq!(lttb(&data, 2), data);
        assert!(lttb(&[], 10).is_empty());
        let five: Vec<(f64, f64)> = (0..5).map(|i| (i as f64, i as f64)).collect();
        assert_eq!(lttb(&five, 3).len(), 3);
    }
}
