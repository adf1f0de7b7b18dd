//! The name a generated study plan takes from its file's stem.

/// `my api.v2` → `my-api-v2`: letters, digits, `-` and `_` kept, anything
/// else a `-`, so that the name is a valid plan name.
pub(super) fn plan_name(stem: &str) -> String {
    stem.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .collect()
}
