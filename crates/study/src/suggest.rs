//! "Did you mean …?": the nearest valid name to a mistyped one. A leaf
//! module: the plan (keys), hypotheses (metrics, targets) and others use it.

/// The nearest valid name to `bad` among `valid`, if it is close enough.
pub fn suggest<'a>(bad: &str, valid: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    valid
        .into_iter()
        .map(|k| (strsim::jaro_winkler(bad, k), k))
        .filter(|(s, _)| *s > 0.7)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
}
