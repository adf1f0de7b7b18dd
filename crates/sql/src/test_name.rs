//! sysbench 1.0's test names, as the command line gives them.

/// sysbench 1.0's test names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Test {
    OltpReadOnly,
    OltpReadWrite,
    OltpWriteOnly,
    OltpPointSelect,
    OltpUpdateIndex,
    OltpUpdateNonIndex,
    OltpInsert,
    OltpDelete,
    SelectRandomPoints,
    SelectRandomRanges,
}

impl Test {
    pub const ALL: [Test; 10] = [
        Test::OltpReadOnly,
        Test::OltpReadWrite,
        Test::OltpWriteOnly,
        Test::OltpPointSelect,
        Test::OltpUpdateIndex,
        Test::OltpUpdateNonIndex,
        Test::OltpInsert,
        Test::OltpDelete,
        Test::SelectRandomPoints,
        Test::SelectRandomRanges,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Test::OltpReadOnly => "oltp_read_only",
            Test::OltpReadWrite => "oltp_read_write",
            Test::OltpWriteOnly => "oltp_write_only",
            Test::OltpPointSelect => "oltp_point_select",
            Test::OltpUpdateIndex => "oltp_update_index",
            Test::OltpUpdateNonIndex => "oltp_update_non_index",
            Test::OltpInsert => "oltp_insert",
            Test::OltpDelete => "oltp_delete",
            Test::SelectRandomPoints => "select_random_points",
            Test::SelectRandomRanges => "select_random_ranges",
        }
    }

    /// By name; a `.lua` suffix or a path (`/usr/share/sysbench/x.lua`) is
    /// accepted as sysbench accepts it.
    pub fn from_name(s: &str) -> Option<Test> {
        let base = s.rsplit('/').next().unwrap_or(s);
        let base = base.strip_suffix(".lua").unwrap_or(base);
        Test::ALL.into_iter().find(|t| t.name() == base)
    }
}
