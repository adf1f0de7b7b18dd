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

    /// sysbench's default distribution for ids in `a..=b`.
    pub fn default_id(&mut self, a: i64, b: i64) -> i64 {
        match self.kind {
            RandType::Uniform => self.uniform(a, b),
            RandType::Special => {
                if b <= a {
                    return a;
                }
                let n = (b - a + 1) as f64;
                let hot = ((n * self.spec_pct) as i64).max(1);
                let total = b - a + 1;
                if hot >= total {
                    return self.uniform(a, b);
                }
                if self.rng.random::<f64>() < self.spec_res {
                    a + self.rng.random_range(0..hot)
                } else {
                    a + hot + self.rng.random_range(0..total - hot)
                }
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
    fn special_ids_are_hot_on_one_percent() {
        let mut r = Rand::new(7, RandType::Special, 1.0, 75.0);
        let n = 100_000;
        let hot = (0..n).filter(|_| r.default_id(1, 10_000) <= 100).count();
        // 75 % plus the uniform share of the rest that falls there (0).
        assert!((72_000..78_000).contains(&hot), "{hot}");
        let mut u = Rand::new(7, RandType::Uniform, 1.0, 75.0);
        assert!(
            (0..1000)
                .map(|_| u.default_id(5, 9))
                .all(|v| (5..=9).contains(&v))
        );
    }
}
