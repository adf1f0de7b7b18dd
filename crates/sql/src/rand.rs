//! The random values of sysbench's workloads: row ids drawn uniformly or
//! with its "special" distribution (a few hot ids), and the `c` and `pad`
//! strings: 11-digit groups of random digits joined by dashes.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::options::RandType;

/// `c`: 10 groups of 11 digits, 119 characters.
pub const C_TEMPLATE: &str = "###########-###########-###########-###########-###########-###########-###########-###########-###########-###########";
/// `pad`: 5 groups of 11 digits, 59 characters.
pub const PAD_TEMPLATE: &str = "###########-###########-###########-###########-###########";

/// Uniform draws summed for the bell part of `special` (sysbench's
/// `--rand-spec-iter` default).
const SPEC_ITER: u32 = 12;

/// One thread's generator.
pub struct Rand {
    rng: SmallRng,
    kind: RandType,
    /// Share of ids that are hot, 0..1.
    spec_pct: f64,
    /// Share of draws that hit a hot id, 0..1.
    spec_res: f64,
}

impl Rand {
    pub fn new(seed: u64, kind: RandType, spec_pct: f64, spec_res: f64) -> Rand {
        Rand {
            rng: SmallRng::seed_from_u64(seed),
            kind,
            spec_pct: (spec_pct / 100.0).clamp(0.0, 1.0),
            spec_res: (spec_res / 100.0).clamp(0.0, 1.0),
        }
    }

    /// Uniform in `a..=b` (`a` when `b < a`).
    pub fn uniform(&mut self, a: i64, b: i64) -> i64 {
        if b <= a {
            return a;
        }
        self.rng.random_range(a..=b)
    }

    /// sysbench's default distribution for ids in `a..=b`. `special` as
    /// sysbench 1.0 draws it: with probability 1 − spec_res the mean of 12
    /// uniform draws over the range (a bell around the middle), otherwise
    /// a value in the band of spec_pct of the range around its middle,
    /// reusing the same uniform draw for the position in the band.
    pub fn default_id(&mut self, a: i64, b: i64) -> i64 {
        match self.kind {
            RandType::Uniform => self.uniform(a, b),
            RandType::Special => {
                if b <= a {
                    return a;
                }
                let t = (b - a) as f64;
                let rnd: f64 = self.rng.random();
                if rnd < 1.0 - self.spec_res {
                    let sum: f64 = (0..SPEC_ITER).map(|_| self.rng.random::<f64>()).sum();
                    return a + (sum * t / f64::from(SPEC_ITER)) as i64;
                }
                let d = t * self.spec_pct;
                let v = rnd * (d + 1.0) + t / 2.0 - t * self.spec_pct / 2.0;
                (a + v as i64).min(b)
            }
        }
    }

    /// Fills `out` with `template`, each `#` a random digit and each `@` a
    /// random lowercase letter.
    pub fn fill(&mut self, template: &str, out: &mut String) {
        out.clear();
        for b in template.bytes() {
            out.push(match b {
                b'#' => char::from(b'0' + self.rng.random_range(0..10u8)),
                b'@' => char::from(b'a' + self.rng.random_range(0..26u8)),
                other => char::from(other),
            });
        }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.rng.random()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_have_sysbench_shapes() {
        assert_eq!((C_TEMPLATE.len(), PAD_TEMPLATE.len()), (119, 59));
        let mut r = Rand::new(1, RandType::Special, 1.0, 75.0);
        let mut s = String::new();
        r.fill(C_TEMPLATE, &mut s);
        assert_eq!(s.len(), 119);
        assert!(
            s.split('-')
                .all(|g| g.len() == 11 && g.bytes().all(|b| b.is_ascii_digit()))
        );
    }

    #[test]
    fn special_ids_are_hot_on_one_percent_in_the_middle() {
        let mut r = Rand::new(7, RandType::Special, 1.0, 75.0);
        let n = 100_000;
        let draws: Vec<i64> = (0..n).map(|_| r.default_id(1, 10_000)).collect();
        assert!(draws.iter().all(|v| (1..=10_000).contains(v)));
        // 75 % in the middle band of 1 % (ids 4951..=5051), plus the part
        // of the bell that falls there.
        let hot = draws.iter().filter(|v| (4951..=5051).contains(*v)).count();
        assert!((74_000..80_000).contains(&hot), "{hot}");
        // The bell: few draws in the outer fifths.
        let outer = draws.iter().filter(|v| **v < 2000 || **v > 8000).count();
        assert!(outer < n / 100, "{outer}");
        let mut u = Rand::new(7, RandType::Uniform, 1.0, 75.0);
        assert!(
            (0..1000)
                .map(|_| u.default_id(5, 9))
                .all(|v| (5..=9).contains(&v))
        );
    }
}
