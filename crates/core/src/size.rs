//! Byte sizes such as `200kb` (binary multiples, as OriginSimulator recipes use them).

/// Why a size string was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    #[error(
        "invalid size {0:?}: expected a whole number with an optional unit b, kb, mb or gb (e.g. 512, 200kb, 1mb)"
    )]
    Invalid(String),
    #[error("invalid size {0:?}: too large")]
    Overflow(String),
}

/// Parses `512`, `512b`, `200kb`, `200k`, `200KiB`, `1mb`, `1gb`. Units are
/// case-insensitive; `k`, `kb` and `kib` all mean 1024.
pub fn parse_size(input: &str) -> Result<u64, SizeError> {
    let s = input.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    if num.is_empty() {
        return Err(SizeError::Invalid(input.to_string()));
    }
    let n: u64 = num
        .parse()
        .map_err(|_| SizeError::Overflow(input.to_string()))?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => return Err(SizeError::Invalid(input.to_string())),
    };
    n.checked_mul(mult)
        .ok_or_else(|| SizeError::Overflow(input.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn sizes() {
        assert_eq!(parse_size("200kb").unwrap(), 204_800);
        assert_eq!(parse_size("1MB").unwrap(), 1 << 20);
        assert_eq!(parse_size("100").unwrap(), 100);
        assert_eq!(parse_size("100b").unwrap(), 100);
        assert!(parse_size("12tb").is_err());
        assert!(parse_size("kb").is_err());
        assert!(parse_size("1.5kb").is_err());
    }
}
