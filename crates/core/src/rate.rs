//! Request rates as vegeta spells them: `400` (per second), `400/1s`, `10/100ms`,
//! `50/s`, and `0` or `infinity` for "as fast as the worker/connection caps allow".

use std::fmt;
use std::time::Duration;

use crate::duration::parse_go_duration;

/// A request rate: `freq` requests every `per`. `freq == 0` means unlimited.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    pub freq: u64,
    pub per: Duration,
}

/// Why a rate string was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RateError {
    #[error(
        "invalid rate {0:?}: expected FREQ or FREQ/DURATION, e.g. 400, 400/1s, 10/100ms, 0 or infinity"
    )]
    Invalid(String),
    #[error("invalid rate {input:?}: {reason}")]
    BadPer { input: String, reason: String },
}

impl Rate {
    /// Unlimited: send as fast as the worker and connection caps allow.
    pub const UNLIMITED: Rate = Rate {
        freq: 0,
        per: Duration::from_secs(1),
    };

    pub fn per_second(freq: u64) -> Rate {
        Rate {
            freq,
            per: Duration::from_secs(1),
        }
    }

    pub fn is_unlimited(&self) -> bool {
        self.freq == 0
    }

    /// Requests per second as a float (`f64::INFINITY` when unlimited).
    pub fn hz(&self) -> f64 {
        if self.is_unlimited() {
            f64::INFINITY
        } else {
            self.freq as f64 / self.per.as_secs_f64()
        }
    }

    pub fn parse(input: &str) -> Result<Rate, RateError> {
        let s = input.trim();
        let lower = s.to_ascii_lowercase();
        if lower == "infinity" || lower == "inf" || lower == "max" {
            return Ok(Rate::UNLIMITED);
        }
        let (f, p) = match s.split_once('/') {
            Some((f, p)) => (f.trim(), Some(p.trim())),
            None => (s, None),
        };
        let freq: u64 = f
            .parse()
            .map_err(|_| RateError::Invalid(input.to_string()))?;
        let per = match p {
            None => Duration::from_secs(1),
            Some(p) => {
                // vegeta accepts "50/s" as "50/1s".
                let p = if p.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
                    p.to_string()
                } else {
                    format!("1{p}")
                };
                let d = parse_go_duration(&p).map_err(|e| RateError::BadPer {
                    input: input.to_string(),
                    reason: e.to_string(),
                })?;
                if d.is_zero() {
                    return Err(RateError::BadPer {
                        input: input.to_string(),
                        reason: "the period must be greater than zero".into(),
                    });
                }
                d
            }
        };
        Ok(Rate { freq, per })
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_unlimited() {
            write!(f, "infinity")
        } else {
            write!(
                f,
                "{}/{}",
                self.freq,
                crate::duration::format_go_duration(self.per)
            )
        }
    }
}

impl std::str::FromStr for Rate {
    type Err = RateError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Rate::parse(s)
    }
}

/// In a file (a study plan's `load.rates`), a rate is written as on the
/// command line: a whole number of requests per second (`400`) or a string in
/// vegeta's syntax (`"400/1s"`, `"10/100ms"`, `"infinity"`).
impl<'de> serde::Deserialize<'de> for Rate {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Rate, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Rate;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a rate: FREQ or FREQ/DURATION, e.g. 400, 400/1s, 10/100ms")
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Rate, E> {
                Ok(Rate::per_second(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Rate, E> {
                u64::try_from(v)
                    .map(Rate::per_second)
                    .map_err(|_| E::custom(RateError::Invalid(v.to_string())))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Rate, E> {
                Rate::parse(v).map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_itself_as_written_in_a_file() {
        use serde::Deserialize;
        use serde::de::IntoDeserializer;
        use serde::de::value::Error;
        let de =
            |s: &str| Rate::deserialize(s.into_deserializer()).map_err(|e: Error| e.to_string());
        assert_eq!(de("10/100ms").unwrap().hz(), 100.0);
        assert!(de("infinity").unwrap().is_unlimited());
        assert!(de("fast").unwrap_err().starts_with("invalid rate \"fast\""));
        let n = Rate::deserialize(IntoDeserializer::<Error>::into_deserializer(400u64));
        assert_eq!(n.unwrap(), Rate::per_second(400));
        let neg = Rate::deserialize(IntoDeserializer::<Error>::into_deserializer(-5i64));
        assert!(
            neg.unwrap_err()
                .to_string()
                .starts_with("invalid rate \"-5\"")
        );
        let s = serde::de::value::StrDeserializer::<Error>::new("2.5");
        assert!(Rate::deserialize(s).is_err());
    }

    #[test]
    fn parses() {
        assert_eq!(Rate::parse("400").unwrap(), Rate::per_second(400));
        assert_eq!(Rate::parse("400/1s").unwrap(), Rate::per_second(400));
        assert_eq!(Rate::parse("50/s").unwrap(), Rate::per_second(50));
        assert_eq!(
            Rate::parse("10/100ms").unwrap(),
            Rate {
                freq: 10,
                per: Duration::from_millis(100)
            }
        );
        assert!(Rate::parse("0").unwrap().is_unlimited());
        assert!(Rate::parse("infinity").unwrap().is_unlimited());
        assert!((Rate::parse("10/100ms").unwrap().hz() - 100.0).abs() < 1e-9);
        assert!(Rate::parse("abc").is_err());
        assert!(Rate::parse("-5").is_err());
        assert!(Rate::parse("10/0s").is_err());
        assert!(Rate::parse("10/xyz").is_err());
    }
}
