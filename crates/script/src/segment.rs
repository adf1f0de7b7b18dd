//! k6's execution segments (`--execution-segment FROM:TO` with
//! `--execution-segment-sequence 0,A,B,…,1`): how one instance's share of a
//! test is chosen, so that N instances given the same sequence, each its own
//! segment, together run exactly the whole test.
//!
//! As k6 does it (checked against k6 v1.8.1, see docs/k6.md):
//!
//! * The sequence is a list of segments `[p0:p1, p1:p2, …]` covering `0:1`
//!   (filled in with `0` and `1` when it does not start or end there). With
//!   no sequence, it is `0:FROM, FROM:TO, TO:1` (the empty ones left out):
//!   instances given different segments but no common sequence may then
//!   overlap, as in k6.
//! * Things are dealt out by *striping*: over a block of `L` items (`L` the
//!   least common denominator of the segments' lengths), a segment of length
//!   `a/L` takes `a` of them, spread out as evenly as possible (the largest
//!   segments choose first). Item `k` belongs to the segment that holds
//!   `k mod L` in the block. For equal segments `1/n` that is `k mod n == i`,
//!   the same as `loadlab attack -segment=i/n`.
//! * A count (VUs) is scaled by counting the items `0..count` the segment
//!   holds ([`Striping::scale`]); per-item work that depends on VUs (the
//!   iterations of `shared-iterations`, the arrivals of the arrival-rate
//!   executors) is striped over a sequence made from the VUs' shares
//!   ([`Tuple::from_value`]), so a segment without VUs gets no work.

use std::fmt;

/// A fraction `num/den` in `[0, 1]`, kept reduced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frac {
    pub num: u64,
    pub den: u64,
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Frac {
    pub const ZERO: Frac = Frac { num: 0, den: 1 };
    pub const ONE: Frac = Frac { num: 1, den: 1 };

    pub fn new(num: u64, den: u64) -> Option<Frac> {
        if den == 0 || num > den {
            return None;
        }
        let g = gcd(num, den).max(1);
        Some(Frac {
            num: num / g,
            den: den / g,
        })
    }

    /// k6's forms: `1/4`, `0.25`, `25%`, `0`, `1`.
    pub fn parse(s: &str) -> Option<Frac> {
        let s = s.trim();
        if let Some(p) = s.strip_suffix('%') {
            let f = decimal(p.trim())?;
            return Frac::new(f.0, f.1.checked_mul(100)?);
        }
        if let Some((a, b)) = s.split_once('/') {
            let (a, b) = (decimal(a.trim())?, decimal(b.trim())?);
            // (a0/a1) / (b0/b1)
            return Frac::new(a.0.checked_mul(b.1)?, a.1.checked_mul(b.0)?);
        }
        let (n, d) = decimal(s)?;
        Frac::new(n, d)
    }

    fn cmp_key(self, o: Frac) -> std::cmp::Ordering {
        (u128::from(self.num) * u128::from(o.den)).cmp(&(u128::from(o.num) * u128::from(self.den)))
    }

    fn sub(self, o: Frac) -> Frac {
        let den = u128::from(self.den) * u128::from(o.den);
        let num =
            u128::from(self.num) * u128::from(o.den) - u128::from(o.num) * u128::from(self.den);
        let g = gcd128(num, den).max(1);
        Frac {
            num: (num / g) as u64,
            den: (den / g) as u64,
        }
    }
}

fn gcd128(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `12`, `0.25`, `.5` → (numerator, denominator) exactly.
fn decimal(s: &str) -> Option<(u64, u64)> {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.bytes().all(|c| c.is_ascii_digit()) || !frac.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    if frac.len() > 9 {
        return None;
    }
    let den = 10u64.pow(frac.len() as u32);
    let i: u64 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let f: u64 = if frac.is_empty() {
        0
    } else {
        frac.parse().ok()?
    };
    Some((i.checked_mul(den)?.checked_add(f)?, den))
}

impl fmt::Display for Frac {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

/// The largest block a striping may have: finer sequences are refused.
pub const MAX_LCD: u64 = 1_000_000;

/// How every segment of a sequence takes items of each block of `lcd`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Striping {
    pub lcd: u64,
    /// For each segment, the positions (sorted) it holds in a block.
    pub positions: Vec<Vec<u64>>,
}

impl Striping {
    /// k6's striping of segments of the given lengths (each `a_i / lcd`).
    fn from_numerators(lcd: u64, nums: &[u64]) -> Striping {
        // Equal segments (`1/n` each): segment i holds i. The loop below
        // would get there in O(n²).
        if nums.iter().all(|n| *n == 1) && lcd == nums.len() as u64 {
            return Striping {
                lcd,
                positions: (0..lcd).map(|i| vec![i]).collect(),
            };
        }
        let mut order: Vec<usize> = (0..nums.len()).collect();
        // Largest first; equal ones in sequence order (a stable sort).
        order.sort_by(|a, b| nums[*b].cmp(&nums[*a]));
        let mut chosen = vec![0u64; nums.len()];
        let mut positions: Vec<Vec<u64>> = nums
            .iter()
            .map(|n| Vec::with_capacity(*n as usize))
            .collect();
        for i in 0..lcd {
            for (rank, &seg) in order.iter().enumerate() {
                let denom = nums[seg];
                if denom == 0 {
                    continue;
                }
                let num = u128::from(chosen[rank]) * u128::from(lcd);
                let (q, r) = (num / u128::from(denom), num % u128::from(denom));
                let i = u128::from(i);
                if i > q || (i == q && r == 0) {
                    chosen[rank] += 1;
                    positions[seg].push(i as u64);
                    break;
                }
            }
        }
        Striping { lcd, positions }
    }

    /// How many of the items `0..value` segment `seg` holds.
    pub fn scale(&self, seg: usize, value: u64) -> u64 {
        let pos = &self.positions[seg];
        let rem = value % self.lcd;
        (value / self.lcd) * pos.len() as u64 + pos.iter().take_while(|p| **p < rem).count() as u64
    }

    /// The item number (in the whole test) of segment `seg`'s `j`-th item;
    /// `None` when the segment holds none.
    pub fn nth(&self, seg: usize, j: u64) -> Option<u64> {
        let pos = &self.positions[seg];
        let m = pos.len() as u64;
        if m == 0 {
            return None;
        }
        (j / m)
            .checked_mul(self.lcd)?
            .checked_add(pos[(j % m) as usize])
    }
}

/// One instance's segment within its sequence (k6's `ExecutionTuple`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tuple {
    /// The sequence's boundaries, `0 = b0 < b1 < … < bm = 1`.
    pub bounds: Vec<Frac>,
    /// This instance's segment: `bounds[index]:bounds[index + 1]`.
    pub index: usize,
    pub striping: Striping,
}

/// The sequence's boundaries from `0,1/4,1/2,1` (or `[0, FROM, TO, 1]`).
fn fill(mut bounds: Vec<Frac>) -> Vec<Frac> {
    if bounds.first() != Some(&Frac::ZERO) {
        bounds.insert(0, Frac::ZERO);
    }
    if bounds.last() != Some(&Frac::ONE) {
        bounds.push(Frac::ONE);
    }
    bounds.dedup();
    bounds
}

impl Tuple {
    /// Segment `i` of `n` equal ones (`i/n:(i+1)/n` of `0,1/n,…,1`):
    /// loadlab's `--execution-segment-index i/n`, for a Kubernetes Indexed
    /// Job whose pods all run one command line.
    pub fn equal(i: u64, n: u64) -> Result<Tuple, String> {
        if n == 0 || i >= n || n > MAX_LCD {
            return Err(format!(
                "segment {i}/{n}: expected I/N with 0 <= I < N <= {MAX_LCD} (I is 0-based, like JOB_COMPLETION_INDEX)"
            ));
        }
        let bounds: Vec<Frac> = (0..=n).map(|k| Frac::new(k, n).expect("k <= n")).collect();
        Ok(Tuple {
            bounds,
            index: i as usize,
            striping: Striping::from_numerators(n, &vec![1; n as usize]),
        })
    }

    /// `--execution-segment-index I/N`.
    pub fn parse_index(s: &str) -> Result<Tuple, String> {
        let bad = || {
            format!(
                "--execution-segment-index {s:?}: expected I/N, e.g. 0/4 (segment I of N equal ones, I 0-based like JOB_COMPLETION_INDEX)"
            )
        };
        let (i, n) = s.trim().split_once('/').ok_or_else(bad)?;
        let (i, n): (u64, u64) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        Tuple::equal(i, n).map_err(|e| format!("--execution-segment-index {s:?}: {e}"))
    }

    /// The whole test (`0:1`).
    pub fn whole() -> Tuple {
        Tuple::new(Frac::ZERO, Frac::ONE, None).expect("0:1 is valid")
    }

    /// `--execution-segment FROM:TO` (a single value `V` is `0:V`) and
    /// `--execution-segment-sequence`, as k6 takes them.
    pub fn parse(segment: Option<&str>, sequence: Option<&str>) -> Result<Tuple, String> {
        let (from, to) = match segment {
            None => (Frac::ZERO, Frac::ONE),
            Some(s) => {
                let bad = || {
                    format!(
                        "--execution-segment {s:?}: expected FROM:TO, fractions as 1/4, 0.25 or 25%, e.g. 1/4:2/4"
                    )
                };
                let (a, b) = s.split_once(':').unwrap_or(("0", s));
                let (a, b) = (
                    Frac::parse(a).ok_or_else(bad)?,
                    Frac::parse(b).ok_or_else(bad)?,
                );
                if b.cmp_key(a) != std::cmp::Ordering::Greater {
                    return Err(format!("--execution-segment {s:?}: TO must be above FROM"));
                }
                (a, b)
            }
        };
        let seq = match sequence {
            None => None,
            Some(q) => {
                let mut v = Vec::new();
                for part in q.split(',') {
                    let f = Frac::parse(part).ok_or_else(|| {
                        format!(
                            "--execution-segment-sequence {q:?}: {:?} is not a fraction (1/4, 0.25 or 25%), e.g. 0,1/4,1/2,1",
                            part.trim()
                        )
                    })?;
                    if let Some(last) = v.last()
                        && f.cmp_key(*last) != std::cmp::Ordering::Greater
                    {
                        return Err(format!(
                            "--execution-segment-sequence {q:?}: the values must increase ({} after {last})",
                            part.trim()
                        ));
                    }
                    v.push(f);
                }
                Some(v)
            }
        };
        Tuple::new(from, to, seq).map_err(|e| match (segment, sequence) {
            (_, Some(q)) => format!("--execution-segment-sequence {q:?}: {e}"),
            (Some(s), None) => format!("--execution-segment {s:?}: {e}"),
            (None, None) => e,
        })
    }

    pub fn new(from: Frac, to: Frac, sequence: Option<Vec<Frac>>) -> Result<Tuple, String> {
        let bounds = fill(sequence.unwrap_or_else(|| vec![from, to]));
        let index = bounds
            .windows(2)
            .position(|w| w[0] == from && w[1] == to)
            .ok_or_else(|| {
                format!(
                    "the segment {from}:{to} is not one of the sequence's ({}); give one of its segments, e.g. {}:{}",
                    bounds.iter().map(Frac::to_string).collect::<Vec<_>>().join(","),
                    bounds[0],
                    bounds[1]
                )
            })?;
        let lengths: Vec<Frac> = bounds.windows(2).map(|w| w[1].sub(w[0])).collect();
        let mut lcd = 1u64;
        for l in &lengths {
            lcd = lcd / gcd(lcd, l.den) * l.den;
            if lcd > MAX_LCD {
                return Err(format!(
                    "the segments' lengths have no common denominator up to {MAX_LCD}: use coarser fractions"
                ));
            }
        }
        let nums: Vec<u64> = lengths.iter().map(|l| l.num * (lcd / l.den)).collect();
        Ok(Tuple {
            bounds,
            index,
            striping: Striping::from_numerators(lcd, &nums),
        })
    }

    pub fn is_whole(&self) -> bool {
        self.bounds.len() == 2
    }

    /// Segments in the sequence.
    pub fn count(&self) -> usize {
        self.bounds.len() - 1
    }

    pub fn from(&self) -> Frac {
        self.bounds[self.index]
    }

    pub fn to(&self) -> Frac {
        self.bounds[self.index + 1]
    }

    /// The sequence as k6 writes it: `0,1/4,1/2,1`.
    pub fn sequence_text(&self) -> String {
        self.bounds
            .iter()
            .map(Frac::to_string)
            .collect::<Vec<_>>()
            .join(",")
    }

    /// This segment's share of a whole-test count (VUs).
    pub fn scale(&self, value: u64) -> u64 {
        self.striping.scale(self.index, value)
    }

    /// Segment `seg`'s share of a whole-test count.
    pub fn scale_of(&self, seg: usize, value: u64) -> u64 {
        self.striping.scale(seg, value)
    }

    /// k6's `GetNewExecutionTupleFromValue`: the sequence remade so that
    /// each segment's length is its share of `value` (VUs) over `value`,
    /// segments with none left out. Work striped over it goes only to
    /// segments that have VUs. For every segment of the sequence (by its
    /// index here), the index in the new one, or `None` when it has no
    /// share.
    pub fn from_value(&self, value: u64) -> Option<(Striping, Vec<Option<usize>>)> {
        if value == 0 {
            return None;
        }
        let shares: Vec<u64> = (0..self.count()).map(|s| self.scale_of(s, value)).collect();
        let mut map = Vec::with_capacity(shares.len());
        let mut nums = Vec::new();
        for s in &shares {
            if *s == 0 {
                map.push(None);
            } else {
                map.push(Some(nums.len()));
                nums.push(*s);
            }
        }
        // Lengths share/value: their common denominator divides value.
        let g = nums.iter().fold(value, |g, n| gcd(g, *n));
        let lcd = value / g;
        if lcd > MAX_LCD {
            // Too fine a block to lay out: stripe by the coarser block of
            // the sequence itself (the shares stay in proportion to it).
            let nums: Vec<u64> = self
                .striping
                .positions
                .iter()
                .map(|p| p.len() as u64)
                .collect();
            let striping = Striping::from_numerators(self.striping.lcd, &nums);
            let map = (0..self.count()).map(Some).collect();
            return Some((striping, map));
        }
        let nums: Vec<u64> = nums.iter().map(|n| n / g).collect();
        Some((Striping::from_numerators(lcd, &nums), map))
    }
}

/// Work striped for one segment: its items are `striping.nth(seg, j)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stripe {
    pub striping: Striping,
    pub seg: Option<usize>,
}

impl Stripe {
    /// The whole-test number of this segment's `j`-th item.
    pub fn nth(&self, j: u64) -> Option<u64> {
        self.striping.nth(self.seg?, j)
    }

    /// How many of `0..value` are this segment's.
    pub fn scale(&self, value: u64) -> u64 {
        self.seg.map_or(0, |s| self.striping.scale(s, value))
    }

    /// The stripe of segment `seg` of `t`'s sequence for work shared in
    /// proportion to `vus` (see [`Tuple::from_value`]).
    pub fn by_vus(t: &Tuple, seg: usize, vus: u64) -> Stripe {
        match t.from_value(vus) {
            Some((striping, map)) => Stripe {
                striping,
                seg: map[seg],
            },
            None => Stripe {
                striping: Striping {
                    lcd: 1,
                    positions: vec![vec![0]],
                },
                seg: None,
            },
        }
    }
}

impl fmt::Display for Tuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.from(), self.to())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(t: &Tuple, seg: usize, upto: u64) -> Vec<u64> {
        (0..upto)
            .filter(|k| t.striping.positions[seg].contains(&(k % t.striping.lcd)))
            .collect()
    }

    #[test]
    fn fractions_in_k6_forms() {
        for s in ["1/4", "0.25", "25%", ".25", "2/8"] {
            assert_eq!(Frac::parse(s), Frac::new(1, 4), "{s}");
        }
        assert_eq!(Frac::parse("1"), Some(Frac::ONE));
        assert_eq!(Frac::parse("0"), Some(Frac::ZERO));
        for s in ["", "x", "5/4", "1/0", "-1/4", "120%"] {
            assert_eq!(Frac::parse(s), None, "{s}");
        }
    }

    /// The stripes k6 v1.8.1 gave (its `exec.scenario.iterationInTest` of
    /// a constant-arrival-rate scenario, 12/s for 1 s, maxVUs 4).
    #[test]
    fn striping_is_k6s() {
        // No sequence: each instance's own 0,FROM,TO,1 (overlapping).
        let t = Tuple::parse(Some("0:1/4"), None).unwrap();
        assert_eq!(t.striping.positions[t.index], [1]);
        let t = Tuple::parse(Some("1/4:2/4"), None).unwrap();
        assert_eq!(t.striping.positions[t.index], [3]);
        let t = Tuple::parse(Some("2/4:3/4"), None).unwrap();
        assert_eq!(t.striping.positions[t.index], [1]);
        // With the sequence: k mod 4.
        for (i, s) in ["0:1/4", "1/4:2/4", "50%:75%", "0.75:1"].iter().enumerate() {
            let t = Tuple::parse(Some(s), Some("0,1/4,1/2,3/4,1")).unwrap();
            assert_eq!(t.index, i);
            assert_eq!(t.striping.positions[i], [i as u64]);
        }
        // Unequal: 0,1/3,1/2,1 → lengths 2/6, 1/6, 3/6.
        let t = Tuple::parse(Some("1/3:1/2"), Some("0,1/3,1/2,1")).unwrap();
        assert_eq!(t.striping.positions, [vec![1, 3], vec![5], vec![0, 2, 4]]);
        // VUs: 7 → 2, 1, 4 (k6 gave constant-vus 7 as 2, 1, 4 VUs).
        assert_eq!(
            (0..3).map(|s| t.scale_of(s, 7)).collect::<Vec<_>>(),
            [2, 1, 4]
        );
        // Arrivals by maxVUs 9 (3, 1, 5): k6 gave 1,3,7,10,12 / 5 / 0,2,4,6,8,9,11.
        let arrivals = |seg| {
            let s = Stripe::by_vus(&t, seg, 9);
            (0..)
                .map_while(|j| s.nth(j).filter(|k| *k <= 12))
                .collect::<Vec<_>>()
        };
        assert_eq!(arrivals(0), [1, 3, 7, 10, 12]);
        assert_eq!(arrivals(1), [5]);
        assert_eq!(arrivals(2), [0, 2, 4, 6, 8, 9, 11]);
        // Shared iterations 17 by vus 5 (2, 0, 3): k6 ran 7, 0, 10.
        let its: Vec<u64> = (0..3).map(|s| Stripe::by_vus(&t, s, 5).scale(17)).collect();
        assert_eq!(its, [7, 0, 10]);
    }

    #[test]
    fn shares_partition_the_whole() {
        for seq in [
            "0,1/3,2/3,1",
            "0,1/5,1/2,1",
            "0,0.1,0.35,0.4,1",
            "0,1/7,2/7,3/7,4/7,5/7,6/7,1",
        ] {
            let t = Tuple::parse(
                Some(&seq.split(',').take(2).collect::<Vec<_>>().join(":")),
                Some(seq),
            )
            .unwrap();
            for v in [0u64, 1, 2, 7, 13, 100, 1001] {
                let sum: u64 = (0..t.count()).map(|s| t.scale_of(s, v)).sum();
                assert_eq!(sum, v, "{seq} {v}");
                let mut all: Vec<u64> = (0..t.count()).flat_map(|s| held(&t, s, v)).collect();
                all.sort_unstable();
                assert_eq!(all, (0..v).collect::<Vec<_>>());
                // Striped by VUs: every item once.
                let mut items = Vec::new();
                for s in 0..t.count() {
                    let st = Stripe::by_vus(&t, s, v.max(1));
                    items.extend((0..).map_while(|j| st.nth(j).filter(|k| *k < 500)));
                }
                items.sort_unstable();
                assert_eq!(items, (0..500).collect::<Vec<_>>(), "{seq} by {v}");
            }
        }
    }

    #[test]
    fn equal_index_is_the_sequence_of_n() {
        for n in [1u64, 2, 3, 7] {
            for i in 0..n {
                let a = Tuple::equal(i, n).unwrap();
                let seq: Vec<String> = (0..=n)
                    .map(|k| Frac::new(k, n).unwrap().to_string())
                    .collect();
                let seg = format!("{}:{}", seq[i as usize], seq[i as usize + 1]);
                let b = Tuple::parse(Some(&seg), Some(&seq.join(","))).unwrap();
                assert_eq!(a, b, "{i}/{n}");
            }
        }
        assert_eq!(Tuple::parse_index("2/3").unwrap().to_string(), "2/3:1");
        assert!(Tuple::parse_index("3/3").is_err());
        assert!(Tuple::parse_index("x").is_err());
        // 10,000 equal segments stripe at once.
        let t = Tuple::equal(9_999, 10_000).unwrap();
        assert_eq!(t.striping.positions[9_999], [9_999]);
    }

    #[test]
    fn bad_segments_are_named() {
        let e = Tuple::parse(Some("1/3:1/2"), Some("0,1/2,1")).unwrap_err();
        assert!(e.contains("not one of the sequence"), "{e}");
        let e = Tuple::parse(None, Some("0,1/2,1")).unwrap_err();
        assert!(e.contains("0:1"), "{e}");
        assert!(
            Tuple::parse(Some("2/4:1/4"), None)
                .unwrap_err()
                .contains("above")
        );
        assert!(Tuple::parse(Some("x:1"), None).is_err());
        assert!(
            Tuple::parse(Some("0:1/2"), Some("0,1/2,1/4,1"))
                .unwrap_err()
                .contains("increase")
        );
        // A sequence not starting at 0 / ending at 1 is filled in (as k6).
        let t = Tuple::parse(Some("1/2:1"), Some("1/2")).unwrap();
        assert_eq!(t.sequence_text(), "0,1/2,1");
    }
}
