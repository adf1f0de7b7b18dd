//! `sysbench.rand.*` (and the older `sb_rand*` globals): sysbench 1.0's
//! distributions over one generator per thread, `default` and `special`
//! from [`crate::rand::Rand`] as the built-in tests draw them.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use mlua::{Lua, Table};

use crate::options::{Options, RandType};
use crate::rand::Rand;

/// sysbench's `--rand-spec-iter`: uniform draws summed for `gaussian`.
const GAUSS_ITER: u32 = 12;
/// sysbench's `--rand-pareto-h`.
const PARETO_H: f64 = 0.2;
/// sysbench's `--rand-zipfian-exp`.
const ZIPF_THETA: f64 = 0.8;

/// One thread's generators.
pub struct Gen {
    /// `--rand-type`'s distribution, for `default`.
    main: Rand,
    /// `special` whatever `--rand-type` says.
    special: Rand,
    /// zeta(n, θ) and zeta(2, θ) by n, for `zipfian`.
    zeta: HashMap<u64, f64>,
    unique: Arc<AtomicU32>,
}

impl Gen {
    pub fn new(o: &Options, seed: u64, unique: Arc<AtomicU32>) -> Gen {
        Gen {
            main: Rand::new(seed, o.rand_type, o.rand_spec_pct, o.rand_spec_res),
            special: Rand::new(
                seed ^ 0x5bd1_e995,
                RandType::Special,
                o.rand_spec_pct,
                o.rand_spec_res,
            ),
            zeta: HashMap::new(),
            unique,
        }
    }

    fn double(&mut self) -> f64 {
        (self.main.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    pub fn default(&mut self, a: i64, b: i64) -> i64 {
        self.main.default_id(a, b)
    }

    pub fn uniform(&mut self, a: i64, b: i64) -> i64 {
        self.main.uniform(a, b)
    }

    pub fn special(&mut self, a: i64, b: i64) -> i64 {
        self.special.default_id(a, b)
    }

    /// The mean of 12 uniform draws over `a..=b`.
    pub fn gaussian(&mut self, a: i64, b: i64) -> i64 {
        if b <= a {
            return a;
        }
        let t = (b - a + 1) as u64;
        let sum: u64 = (0..GAUSS_ITER).map(|_| self.main.next_u64() % t).sum();
        a + (sum / u64::from(GAUSS_ITER)) as i64
    }

    /// `a + (b − a + 1)·u^p`, p = ln h / ln(1 − h).
    pub fn pareto(&mut self, a: i64, b: i64) -> i64 {
        if b <= a {
            return a;
        }
        let power = PARETO_H.ln() / (1.0 - PARETO_H).ln();
        let v = a + ((b - a + 1) as f64 * self.double().powf(power)) as i64;
        v.min(b)
    }

    /// Zipfian over `a..=b` (Gray et al.'s method, θ = 0.8): `a` the most
    /// frequent.
    pub fn zipfian(&mut self, a: i64, b: i64) -> i64 {
        if b <= a {
            return a;
        }
        let n = (b - a + 1) as u64;
        let zeta_n = *self
            .zeta
            .entry(n)
            .or_insert_with(|| (1..=n).map(|i| 1.0 / (i as f64).powf(ZIPF_THETA)).sum());
        let zeta_2 = 1.0 + 0.5f64.powf(ZIPF_THETA);
        let alpha = 1.0 / (1.0 - ZIPF_THETA);
        let eta = (1.0 - (2.0 / n as f64).powf(1.0 - ZIPF_THETA)) / (1.0 - zeta_2 / zeta_n);
        let u = self.double();
        let uz = u * zeta_n;
        let k = if uz < 1.0 {
            0
        } else if uz < zeta_2 {
            1
        } else {
            ((n as f64) * (eta * u - eta + 1.0).powf(alpha)) as i64
        };
        (a + k).min(b)
    }

    /// `template` with each `#` a random digit and each `@` a lowercase
    /// letter.
    pub fn string(&mut self, template: &str, out: &mut String) {
        self.main.fill(template, out);
    }

    /// A string of `min..=max` characters from `0` to `z`.
    pub fn varstring(&mut self, min: i64, max: i64) -> String {
        let len = self.main.uniform(min.max(0), max.max(min).max(0));
        (0..len)
            .map(|_| char::from(self.main.uniform(i64::from(b'0'), i64::from(b'z')) as u8))
            .collect()
    }

    /// A value no other call of the run returns (32 bits).
    pub fn unique(&mut self) -> u32 {
        self.unique.fetch_add(1, Ordering::Relaxed)
    }
}

/// The thread's generator, shared by the functions of its Lua state.
pub type Shared = Rc<RefCell<Gen>>;

/// Adds `sysbench.rand` to `sysbench`, and the `sb_rand*` globals.
pub fn install(lua: &Lua, sysbench: &Table, g: &Shared) -> mlua::Result<()> {
    let t = lua.create_table()?;
    macro_rules! range {
        ($name:literal, $method:ident) => {{
            let g = g.clone();
            t.set(
                $name,
                lua.create_function(move |_, (a, b): (f64, f64)| {
                    Ok(g.borrow_mut().$method(a as i64, b as i64) as f64)
                })?,
            )?;
        }};
    }
    range!("default", default);
    range!("uniform", uniform);
    range!("gaussian", gaussian);
    range!("special", special);
    range!("pareto", pareto);
    range!("zipfian", zipfian);
    let g2 = g.clone();
    t.set(
        "string",
        lua.create_function(move |_, template: String| {
            let mut s = String::with_capacity(template.len());
            g2.borrow_mut().string(&template, &mut s);
            Ok(s)
        })?,
    )?;
    let g2 = g.clone();
    t.set(
        "varstring",
        lua.create_function(move |_, (a, b): (f64, f64)| {
            Ok(g2.borrow_mut().varstring(a as i64, b as i64))
        })?,
    )?;
    let g2 = g.clone();
    t.set(
        "unique",
        lua.create_function(move |_, ()| Ok(f64::from(g2.borrow_mut().unique())))?,
    )?;
    let g2 = g.clone();
    t.set(
        "uniform_uint64",
        lua.create_function(move |_, ()| Ok(g2.borrow_mut().main.next_u64() as f64))?,
    )?;
    let g2 = g.clone();
    t.set(
        "uniform_double",
        lua.create_function(move |_, ()| Ok(g2.borrow_mut().double()))?,
    )?;
    let globals = lua.globals();
    for (old, new) in [
        ("sb_rand", "default"),
        ("sb_rand_uniform", "uniform"),
        ("sb_rand_gaussian", "gaussian"),
        ("sb_rand_special", "special"),
        ("sb_rand_str", "string"),
        ("sb_rand_varstr", "varstring"),
        ("sb_rand_uniq", "unique"),
    ] {
        globals.set(old, t.get::<mlua::Function>(new)?)?;
    }
    sysbench.set("rand", t)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new_gen() -> Gen {
        let o = crate::options::parse(&["oltp_read_only".into(), "run".into()]).unwrap();
        let crate::Parsed::Do(o) = o else { panic!() };
        Gen::new(&o, 42, Arc::new(AtomicU32::new(0)))
    }

    #[test]
    fn distributions_stay_in_range_with_their_shapes() {
        let mut g = new_gen();
        let n = 20_000;
        for f in [Gen::gaussian, Gen::pareto, Gen::zipfian, Gen::special] {
            assert!(
                (0..1000)
                    .map(|_| f(&mut g, 1, 100))
                    .all(|v| (1..=100).contains(&v))
            );
        }
        // zipfian and pareto favour the low end, gaussian the middle.
        let low = |g: &mut Gen, f: fn(&mut Gen, i64, i64) -> i64| {
            (0..n).filter(|_| f(g, 1, 1000) <= 100).count()
        };
        assert!(low(&mut g, Gen::zipfian) > n / 3);
        assert!(low(&mut g, Gen::pareto) > n / 2);
        assert!(low(&mut g, Gen::gaussian) < n / 100);
        let s = g.varstring(3, 5);
        assert!((3..=5).contains(&s.len()) && s.bytes().all(|b| (b'0'..=b'z').contains(&b)));
        assert_ne!(g.unique(), g.unique());
    }
}
