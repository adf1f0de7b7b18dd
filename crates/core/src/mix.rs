//! A weighted mix of targets: which target request *n* of a schedule goes
//! to, so that each target's share holds at every instant, not only on
//! average.
//!
//! [`weighted_order`] lays out one cycle of `W = Σ weights / gcd` requests.
//! Request `k` of the cycle goes to the target furthest behind its quota
//! (`(k + 1) · w_i / W` minus what it already has; the lowest index on a
//! tie), so after any `k` requests every target has `k · w_i / W` of them
//! within one, and any run of consecutive requests (any window of time at
//! a constant rate) within two: 70/20/10 over 1,000 requests is 700, 200
//! and 100, each within ±1. Deterministic: every worker of a split run
//! computes the same order.

/// The longest cycle laid out (weights whose reduced sum is larger are
/// refused): 4 bytes a request.
pub const MAX_CYCLE: u64 = 1_000_000;

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// One cycle of target indices for `weights` (one per target, each ≥ 1).
pub fn weighted_order(weights: &[u32]) -> Result<Vec<u32>, String> {
    if weights.is_empty() {
        return Err("a weighted mix needs at least one target".into());
    }
    if let Some(i) = weights.iter().position(|&w| w == 0) {
        return Err(format!(
            "weight {} is 0: every weight must be at least 1",
            i + 1
        ));
    }
    let g = weights.iter().fold(0u64, |g, &w| gcd(g, u64::from(w)));
    let w: Vec<u64> = weights.iter().map(|&x| u64::from(x) / g).collect();
    let total: u64 = w.iter().sum();
    if total > MAX_CYCLE {
        return Err(format!(
            "the weights' cycle is {total} requests (their sum over their greatest common divisor); at most {MAX_CYCLE}: use smaller weights"
        ));
    }
    let mut have = vec![0u64; w.len()];
    let mut out = Vec::with_capacity(total as usize);
    for k in 1..=total {
        // Deficit of target i after k requests, scaled by `total`:
        // k · w_i − total · have_i (compared exactly, in integers).
        let i = (0..w.len())
            .max_by(|&a, &b| {
                let da = i128::from(k * w[a]) - i128::from(total * have[a]);
                let db = i128::from(k * w[b]) - i128::from(total * have[b]);
                da.cmp(&db).then(b.cmp(&a))
            })
            .expect("at least one target");
        have[i] += 1;
        out.push(i as u32);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts of each target in `order[from..from + len]` (cyclic).
    fn window(order: &[u32], from: usize, len: usize, targets: usize) -> Vec<i64> {
        let mut c = vec![0i64; targets];
        for j in from..from + len {
            c[order[j % order.len()] as usize] += 1;
        }
        c
    }

    #[test]
    fn seventy_twenty_ten_holds_in_every_window_of_a_thousand() {
        let order = weighted_order(&[70, 20, 10]).unwrap();
        assert_eq!(order.len(), 10, "reduced by the common divisor");
        for from in 0..order.len() {
            let c = window(&order, from, 1000, 3);
            assert_eq!(c, [700, 200, 100], "window from {from}");
        }
    }

    #[test]
    fn any_window_is_within_one_of_its_share() {
        for weights in [
            &[3u32, 1][..],
            &[5, 3, 2],
            &[7, 11, 13],
            &[1, 1, 1, 97],
            &[50, 30, 15, 5],
        ] {
            let order = weighted_order(weights).unwrap();
            let total: u32 = weights.iter().sum::<u32>()
                / weights
                    .iter()
                    .fold(0, |g, &w| gcd(g as u64, w as u64) as u32);
            assert_eq!(order.len() as u32, total);
            let sum: u32 = weights.iter().sum();
            for len in [1usize, 7, 100, 999, 1000] {
                for from in 0..order.len() {
                    let c = window(&order, from, len, weights.len());
                    for (i, &w) in weights.iter().enumerate() {
                        let share = len as f64 * f64::from(w) / f64::from(sum);
                        assert!(
                            (c[i] as f64 - share).abs() < 2.0,
                            "{weights:?}: window {from}+{len}: target {i} has {} for a share of {share}",
                            c[i]
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn bad_weights_are_refused() {
        assert!(weighted_order(&[]).is_err());
        assert!(
            weighted_order(&[3, 0])
                .unwrap_err()
                .contains("weight 2 is 0")
        );
        assert!(
            weighted_order(&[999_999, 999_998])
                .unwrap_err()
                .contains("at most")
        );
        assert_eq!(weighted_order(&[4]).unwrap(), [0]);
    }
}
