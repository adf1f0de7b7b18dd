//! A sample's tags: name and value pairs (`method`, `status`, a script's
//! own), as the metric registry and the run's state take them.

/// Tag pairs, in the order they were added until [`Tags::sort`] (the
/// registry sorts a series' tags and keeps the first of a name).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tags(Vec<(String, String)>);

impl Tags {
    pub fn new() -> Tags {
        Tags(Vec::new())
    }

    pub fn with_capacity(n: usize) -> Tags {
        Tags(Vec::with_capacity(n))
    }

    /// Adds a `(name, value)` pair (after any tag of the same name).
    pub fn push(&mut self, tag: (String, String)) {
        self.0.push(tag);
    }

    /// Keeps the tags `keep` says yes to.
    pub fn retain(&mut self, keep: impl FnMut(&(String, String)) -> bool) {
        self.0.retain(keep);
    }

    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, (String, String)> {
        self.0.iter_mut()
    }

    /// Sorts by name, then value, and keeps the first of each name.
    pub fn sort(&mut self) {
        self.0.sort();
        self.0.dedup_by(|a, b| a.0 == b.0);
    }

    /// The value of tag `name` (the first one).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn into_vec(self) -> Vec<(String, String)> {
        self.0
    }
}

/// The pairs, to read (`iter`, `len`, a slice where one is asked for).
impl std::ops::Deref for Tags {
    type Target = [(String, String)];
    fn deref(&self) -> &[(String, String)] {
        &self.0
    }
}

impl From<Vec<(String, String)>> for Tags {
    fn from(v: Vec<(String, String)>) -> Tags {
        Tags(v)
    }
}

impl Extend<(String, String)> for Tags {
    fn extend<I: IntoIterator<Item = (String, String)>>(&mut self, it: I) {
        self.0.extend(it);
    }
}

impl FromIterator<(String, String)> for Tags {
    fn from_iter<I: IntoIterator<Item = (String, String)>>(it: I) -> Tags {
        Tags(it.into_iter().collect())
    }
}

impl<'a> IntoIterator for &'a Tags {
    type Item = &'a (String, String);
    type IntoIter = std::slice::Iter<'a, (String, String)>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl IntoIterator for Tags {
    type Item = (String, String);
    type IntoIter = std::vec::IntoIter<(String, String)>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_tags_keep_the_first_of_a_name() {
        let mut t = Tags::from(vec![
            ("status".to_string(), "200".to_string()),
            ("method".to_string(), "GET".to_string()),
        ]);
        t.push(("method".into(), "POST".into()));
        t.sort();
        assert_eq!(t.get("method"), Some("GET"));
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].0, "method");
        assert_eq!(t.get("url"), None);
    }
}
