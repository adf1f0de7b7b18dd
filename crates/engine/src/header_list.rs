//! A response's header fields as received, in two allocations.
//!
//! A response head of n fields kept as `Vec<(String, String)>` costs 2n
//! small allocations (and as many frees) per response: 16 of each on seed
//! 004's server, ~1 % of the k6 face's CPU per request. A [`HeaderList`]
//! keeps the names and values in one text and their bounds in one list.

use std::fmt;

/// Header fields (name, value) in the order they were received.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct HeaderList {
    text: String,
    /// Each field's name's end and value's end in `text` (the name starts
    /// where the previous field's value ended).
    ends: Vec<(u32, u32)>,
}

impl HeaderList {
    /// Makes room for `fields` more fields of `bytes` more bytes.
    pub fn reserve(&mut self, fields: usize, bytes: usize) {
        self.text.reserve(bytes);
        self.ends.reserve(fields);
    }

    /// Appends a field.
    pub fn push(&mut self, name: &str, value: &str) {
        self.text.push_str(name);
        let name_end = self.text.len() as u32;
        self.text.push_str(value);
        self.ends.push((name_end, self.text.len() as u32));
    }

    /// Empties the list (keeping its room).
    pub fn clear(&mut self) {
        self.text.clear();
        self.ends.clear();
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The fields, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> + '_ {
        let mut start = 0usize;
        self.ends.iter().map(move |&(n, v)| {
            let (n, v) = (n as usize, v as usize);
            let field = (&self.text[start..n], &self.text[n..v]);
            start = v;
            field
        })
    }

    /// The first value of the field `name` (any case).
    pub fn get(&self, name: &str) -> Option<&str> {
        self.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v)
    }
}

impl fmt::Debug for HeaderList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_come_back_in_order_with_empty_names_and_values() {
        let mut h = HeaderList::default();
        h.reserve(2, 16);
        h.push("Content-Type", "application/json");
        h.push("X-Empty", "");
        h.push("Set-Cookie", "a=1");
        h.push("set-cookie", "b=2");
        let fields: Vec<_> = h.iter().collect();
        assert_eq!(
            fields,
            [
                ("Content-Type", "application/json"),
                ("X-Empty", ""),
                ("Set-Cookie", "a=1"),
                ("set-cookie", "b=2"),
            ]
        );
        assert_eq!(h.len(), 4);
        assert_eq!(h.get("SET-COOKIE"), Some("a=1"));
        assert_eq!(h.get("x-empty"), Some(""));
        assert_eq!(h.get("Location"), None);
        assert_eq!(format!("{h:?}").matches("Set-Cookie").count(), 1);
        h.clear();
        assert!(h.is_empty());
        assert_eq!(h.iter().count(), 0);
        h.push("", "2");
        assert_eq!(h.iter().collect::<Vec<_>>(), [("", "2")]);
    }
}
