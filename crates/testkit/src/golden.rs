//! Golden files: output compared byte for byte with a file kept in the
//! repository. Run with `UPDATE_GOLDEN=1` to rewrite the files, then review
//! the diff.

use std::path::Path;

/// Panics unless `actual` equals the file at `path`, naming the first line
/// that differs. With `UPDATE_GOLDEN` set, writes `actual` to the file instead.
pub fn check(path: &Path, actual: &str) {
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with UPDATE_GOLDEN=1)", path.display()));
    if expected == actual {
        return;
    }
    for (i, (e, a)) in expected.lines().zip(actual.lines()).enumerate() {
        if e != a {
            panic!(
                "{} differs: first difference at line {}:\nexpected: {e:?}\nactual:   {a:?}",
                path.display(),
                i + 1
            );
        }
    }
    panic!(
        "{} differs: expected {} lines ({} bytes), actual {} lines ({} bytes)",
        path.display(),
        expected.lines().count(),
        expected.len(),
        actual.lines().count(),
        actual.len()
    );
}
