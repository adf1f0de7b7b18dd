//! Gunther's Universal Scalability Law and its weighted least-squares fit
//! (Levenberg–Marquardt with Marquardt's diagonal scaling, parameters kept
//! in their meaningful ranges: λ > 0, 0 ≤ σ < 1, κ ≥ 0).

/// The three USL parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Usl {
    /// Throughput of one unit of concurrency (per second).
    pub lambda: f64,
    /// Contention: the serial fraction.
    pub sigma: f64,
    /// Coherency: the cost of keeping units in step, growing with N².
    pub kappa: f64,
}

impl Usl {
    /// X(N) = λN / (1 + σ(N−1) + κN(N−1)).
    pub fn throughput(&self, n: f64) -> f64 {
        self.lambda * n / self.denominator(n)
    }

    fn denominator(&self, n: f64) -> f64 {
        1.0 + self.sigma * (n - 1.0) + self.kappa * n * (n - 1.0)
    }

    /// N* = sqrt((1−σ)/κ), where X peaks; infinite when κ = 0.
    pub fn peak_concurrency(&self) -> f64 {
        if self.kappa <= 0.0 {
            f64::INFINITY
        } else {
            ((1.0 - self.sigma) / self.kappa).sqrt()
        }
    }

    /// X_max = X(N*); λ/σ (the asymptote) when κ = 0.
    pub fn peak_throughput(&self) -> f64 {
        let n = self.peak_concurrency();
        if n.is_finite() {
            self.throughput(n)
        } else if self.sigma > 0.0 {
            self.lambda / self.sigma
        } else {
            f64::INFINITY
        }
    }

    fn gradient(&self, n: f64) -> [f64; 3] {
        let d = self.denominator(n);
        let common = -self.lambda * n / (d * d);
        [n / d, common * (n - 1.0), common * n * (n - 1.0)]
    }

    fn clamp(self) -> Usl {
        Usl {
            lambda: self.lambda.max(1e-12),
            sigma: self.sigma.clamp(0.0, 0.999),
            kappa: self.kappa.max(0.0),
        }
    }

    fn step(self, d: [f64; 3]) -> Usl {
        Usl {
            lambda: self.lambda + d[0],
            sigma: self.sigma + d[1],
            kappa: self.kappa + d[2],
        }
        .clamp()
    }
}

/// One point to fit: concurrency, throughput and the point's weight.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weighted {
    pub n: f64,
    pub x: f64,
    pub w: f64,
}

/// Weighted sum of squared residuals.
pub fn sse(m: &Usl, pts: &[Weighted]) -> f64 {
    pts.iter()
        .map(|p| p.w * (p.x - m.throughput(p.n)).powi(2))
        .sum()
}

/// Solves the 3×3 system `a·x = b` by Gaussian elimination with partial
/// pivoting; `None` when singular.
fn solve3(mut a: [[f64; 3]; 3], mut b: [f64; 3]) -> Option<[f64; 3]> {
    for c in 0..3 {
        let piv = (c..3).max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))?;
        if a[piv][c].abs() < 1e-300 {
            return None;
        }
        a.swap(c, piv);
        b.swap(c, piv);
        let pivot = a[c];
        for r in c + 1..3 {
            let f = a[r][c] / pivot[c];
            for (x, p) in a[r].iter_mut().zip(pivot).skip(c) {
                *x -= f * p;
            }
            b[r] -= f * b[c];
        }
    }
    let mut x = [0.0; 3];
    for r in (0..3).rev() {
        let s: f64 = (r + 1..3).map(|k| a[r][k] * x[k]).sum();
        x[r] = (b[r] - s) / a[r][r];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

/// Levenberg–Marquardt from `start`; returns the best model found.
pub fn refine(start: Usl, pts: &[Weighted]) -> Usl {
    let mut m = start.clamp();
    let mut cost = sse(&m, pts);
    let mut mu = 1e-3;
    for _ in 0..200 {
        let mut jtj = [[0.0; 3]; 3];
        let mut jtr = [0.0; 3];
        for p in pts {
            let g = m.gradient(p.n);
            let r = p.x - m.throughput(p.n);
            for i in 0..3 {
                jtr[i] += p.w * g[i] * r;
                for k in 0..3 {
                    jtj[i][k] += p.w * g[i] * g[k];
                }
            }
        }
        let mut improved = false;
        while mu < 1e12 {
            let mut a = jtj;
            for (i, row) in a.iter_mut().enumerate() {
                row[i] += mu * jtj[i][i].max(1e-300);
            }
            let Some(d) = solve3(a, jtr) else {
                mu *= 10.0;
                continue;
            };
            let cand = m.step(d);
            let c = sse(&cand, pts);
            if c < cost {
                let rel = (cost - c) / cost.max(1e-300);
                m = cand;
                cost = c;
                mu = (mu / 3.0).max(1e-12);
                improved = rel > 1e-12;
                break;
            }
            mu *= 4.0;
        }
        if !improved {
            break;
        }
    }
    m
}

/// The best of several starts (contention and coherency spread over their
/// plausible ranges for the measured concurrencies).
pub fn fit(pts: &[Weighted]) -> Usl {
    let n_max = pts.iter().map(|p| p.n).fold(1.0, f64::max);
    let first = pts
        .iter()
        .filter(|p| p.n > 0.0)
        .min_by(|a, b| a.n.total_cmp(&b.n));
    let lambda = first.map_or(1.0, |p| p.x / p.n.max(1e-9));
    let mut best: Option<(f64, Usl)> = None;
    for sigma in [0.0, 0.05, 0.3] {
        for c in [0.0, 0.1, 1.0, 4.0] {
            let start = Usl {
                lambda,
                sigma,
                kappa: c / (n_max * n_max),
            };
            let m = refine(start, pts);
            let e = sse(&m, pts);
            if best.is_none_or(|(b, _)| e < b) {
                best = Some((e, m));
            }
        }
    }
    best.map_or(
        Usl {
            lambda,
            sigma: 0.0,
            kappa: 0.0,
        },
        |(_, m)| m,
    )
}
