//! sysbench 0.4's `--test=oltp` in its default mode, `complex` ("Running
//! mixed OLTP test"), as sysbench 0.4.12 runs one request (transaction):
//!
//! * `--oltp-point-selects` (10) point selects, then `--oltp-simple-ranges`,
//!   `--oltp-sum-ranges`, `--oltp-order-ranges` and
//!   `--oltp-distinct-ranges` (1 each) range selects: 14 reads;
//! * unless `--oltp-read-only`: `--oltp-index-updates` (1) `UPDATE … SET
//!   k=k+1`, `--oltp-non-index-updates` (1) `UPDATE … SET c=?`, then **one
//!   more `UPDATE … SET k=k+1` on the id that the DELETE and the INSERT
//!   which follow use** (0.4.12 sends it on every driver; its source calls
//!   it a workaround for PostgreSQL), the DELETE and the INSERT: 5 writes;
//! * BEGIN and COMMIT around them unless `--oltp-skip-trx`: 2 "other".
//!
//! 0.4 counts a statement by its kind, not by the rows it changed: every
//! UPDATE, DELETE and INSERT is a write (see [`Worker::count_by_kind`]).
//! Its ranges stay inside the table (a start past `table-size -
//! range-size` is moved back) and its DISTINCT range spans `range-size +
//! 1` ids; the row put back has `k = 0`, `c = ' '` and 0.4's constant pad.

use super::*;

/// The `pad` of the row sysbench 0.4's INSERT puts back.
const PAD_04: &str = "aaaaaaaaaaffffffffffrrrrrrrrrreeeeeeeeeeyyyyyyyyyy";

impl Worker {
    /// Whether statements count by their kind (sysbench 0.4) rather than
    /// by the rows they changed (sysbench 1.0's drivers).
    pub(super) fn count_by_kind(&self) -> bool {
        self.opts.legacy.is_some()
    }

    /// The statements of one 0.4 `complex` request, BEGIN and COMMIT
    /// aside (the caller sends those).
    pub(super) async fn complex_04(&mut self) -> Result<(), SqlError> {
        let o = self.opts.clone();
        let t = self.table();
        for _ in 0..o.point_selects {
            let id = self.id();
            self.exec(Stmt::PointSelect, t, &[Param::Int(id)]).await?;
        }
        if o.range_selects {
            let size = i64::from(o.range_size);
            for (stmt, n, extra) in [
                (Stmt::SimpleRange, o.simple_ranges, 0),
                (Stmt::SumRange, o.sum_ranges, 0),
                (Stmt::OrderRange, o.order_ranges, 0),
                (Stmt::DistinctRange, o.distinct_ranges, 1),
            ] {
                for _ in 0..n {
                    let from = self.range_start_04();
                    let to = from + size - 1 + extra;
                    self.exec(stmt, t, &[Param::Int(from), Param::Int(to)])
                        .await?;
                }
            }
        }
        if o.test == Test::OltpReadOnly {
            return Ok(());
        }
        for _ in 0..o.index_updates {
            let id = self.id();
            self.exec(Stmt::IndexUpdate, t, &[Param::Int(id)]).await?;
        }
        self.non_index_updates_in(t, o.non_index_updates).await?;
        for _ in 0..o.delete_inserts {
            let id = self.id();
            self.exec(Stmt::IndexUpdate, t, &[Param::Int(id)]).await?;
            self.exec(Stmt::Delete, t, &[Param::Int(id)]).await?;
            let row = [
                Param::Int(id),
                Param::Int(0),
                Param::Str(" "),
                Param::Str(PAD_04),
            ];
            self.exec(Stmt::Insert, t, &row).await?;
        }
        Ok(())
    }

    /// A range's first id as 0.4 draws it: the range ends inside the
    /// table, and starts at 1 at the least.
    fn range_start_04(&mut self) -> i64 {
        let (size, rows) = (
            i64::from(self.opts.range_size),
            i64::from(self.opts.table_size),
        );
        let id = self.id();
        let id = if id + size > rows { rows - size } else { id };
        id.max(1)
    }
}
