//! k6's system tags (`systemTags`, `--system-tags`, `K6_SYSTEM_TAGS`): the
//! tags loadlab k6 puts on samples by itself, and which of them a test
//! keeps.
//!
//! As in k6, a tag left out is not set at all (a tag of the same name the
//! script gives, `params.tags.name` say, stays: it is the script's);
//! `vu` and `iter` are off unless asked for and go to a sample's
//! metadata, not its tags (`--out json`'s `metadata`, `--out csv`'s last
//! column); `ip` is the address the request's connection went to;
//! `ocsp_status` is `unknown` over TLS (loadlab asks for no OCSP staple).

/// Every system tag, in k6's order (its bit order).
pub const ALL: [&str; 18] = [
    "proto",
    "subproto",
    "status",
    "method",
    "url",
    "name",
    "group",
    "check",
    "error",
    "error_code",
    "tls_version",
    "scenario",
    "service",
    "expected_response",
    "iter",
    "vu",
    "ocsp_status",
    "ip",
];

/// A set of system tags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SystemTags(u32);

macro_rules! tag_bits {
    ($($name:ident = $i:expr),* $(,)?) => {
        impl SystemTags {
            $(pub const $name: u32 = 1 << $i;)*
        }
    };
}

tag_bits! {
    PROTO = 0, SUBPROTO = 1, STATUS = 2, METHOD = 3, URL = 4, NAME = 5,
    GROUP = 6, CHECK = 7, ERROR = 8, ERROR_CODE = 9, TLS_VERSION = 10,
    SCENARIO = 11, SERVICE = 12, EXPECTED_RESPONSE = 13, ITER = 14, VU = 15,
    OCSP_STATUS = 16, IP = 17,
}

impl Default for SystemTags {
    /// k6's default: all but `iter`, `vu`, `ocsp_status` and `ip`.
    fn default() -> Self {
        SystemTags((1 << 14) - 1)
    }
}

impl SystemTags {
    pub const NONE: SystemTags = SystemTags(0);

    /// True when `tag` (one of the constants) is kept.
    #[inline]
    pub fn has(self, tag: u32) -> bool {
        self.0 & tag != 0
    }

    /// The set of the names in `list`; the names that are no system tag
    /// are returned apart (k6 leaves them out silently).
    pub fn from_names<'a>(list: impl IntoIterator<Item = &'a str>) -> (SystemTags, Vec<String>) {
        let mut bits = 0;
        let mut unknown = Vec::new();
        for name in list {
            let name = name.trim();
            if name.is_empty() {
                continue;
            }
            match ALL.iter().position(|t| *t == name) {
                Some(i) => bits |= 1 << i,
                None => unknown.push(name.to_string()),
            }
        }
        (SystemTags(bits), unknown)
    }

    /// The kept names, sorted (`exec.test.options.systemTags`).
    pub fn names(self) -> Vec<&'static str> {
        let mut v: Vec<&'static str> = ALL
            .iter()
            .enumerate()
            .filter(|(i, _)| self.0 & (1 << i) != 0)
            .map(|(_, n)| *n)
            .collect();
        v.sort_unstable();
        v
    }

    /// The kept names that are tags (not metadata), sorted: the columns
    /// of `--out csv`.
    pub fn columns(self) -> Vec<&'static str> {
        let mut v = self.names();
        v.retain(|n| *n != "vu" && *n != "iter");
        v
    }

    /// True when samples carry metadata (`vu` or `iter`).
    pub fn has_metadata(self) -> bool {
        self.has(Self::VU | Self::ITER)
    }
}

/// k6's default system tags, in its order: the tags its CSV output gives a
/// column each (the others go to `extra_tags` as `k=v&k=v`), and
/// `exec.test.options.systemTags`.
pub(crate) const CSV_TAGS: [&str; 14] = [
    "check",
    "error",
    "error_code",
    "expected_response",
    "group",
    "method",
    "name",
    "proto",
    "scenario",
    "service",
    "status",
    "subproto",
    "tls_version",
    "url",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_is_k6s_fourteen() {
        let d = SystemTags::default();
        assert_eq!(d.columns(), CSV_TAGS.to_vec());
        assert!(!d.has(SystemTags::VU) && !d.has(SystemTags::IP));
        assert!(d.has(SystemTags::EXPECTED_RESPONSE) && d.has(SystemTags::PROTO));
        assert!(!d.has_metadata());
    }

    #[test]
    fn names_are_read_as_k6_reads_them() {
        let (s, unknown) = SystemTags::from_names(["status", " method", "", "staus", "vu", "ip"]);
        assert_eq!(s.names(), vec!["ip", "method", "status", "vu"]);
        assert_eq!(s.columns(), vec!["ip", "method", "status"]);
        assert_eq!(unknown, vec!["staus".to_string()]);
        assert!(s.has_metadata());
        assert_eq!(SystemTags::from_names([]).0, SystemTags::NONE);
    }
}
