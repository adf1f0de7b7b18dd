//! `prepare` and `cleanup`: sysbench's tables `sbtest1..N`, the same
//! columns, keys, index and value shapes as sysbench 1.0's
//! `oltp_common.lua`, so a database prepared by either tool is run by the
//! other.

use std::io::Write;

use crate::driver::{Conn, ErrKind, SqlError};
use crate::options::{Driver, Options};
use crate::rand::{C_TEMPLATE, PAD_TEMPLATE, Rand};
use crate::workload::Test;
use crate::{Error, now_seed};

/// Rows per multi-row INSERT of `prepare`.
const BATCH: u32 = 1000;

fn create_sql(o: &Options, t: u32) -> String {
    let (id_def, engine) = match o.driver {
        Driver::Mysql => (
            if o.auto_inc {
                "INTEGER NOT NULL AUTO_INCREMENT"
            } else {
                "INTEGER NOT NULL"
            },
            format!("/*! ENGINE = {} */", o.mysql_storage_engine),
        ),
        Driver::Pgsql => (
            if o.auto_inc {
                "SERIAL"
            } else {
                "INTEGER NOT NULL"
            },
            String::new(),
        ),
    };
    format!(
        "CREATE TABLE sbtest{t}(\n  id {id_def},\n  k INTEGER DEFAULT '0' NOT NULL,\n  \
         c CHAR(120) DEFAULT '' NOT NULL,\n  pad CHAR(60) DEFAULT '' NOT NULL,\n  \
         PRIMARY KEY (id)\n) {engine}"
    )
}

/// Which of `sbtest1..N` exist.
pub async fn existing_tables(conn: &mut Conn, tables: u32) -> Result<Vec<u32>, SqlError> {
    let mut found = Vec::new();
    for t in 1..=tables {
        match conn
            .query(&format!("SELECT 1 FROM sbtest{t} LIMIT 1"))
            .await
        {
            Ok(_) => found.push(t),
            Err(e) if e.kind == ErrKind::NoTable => {}
            Err(e) => return Err(e),
        }
    }
    Ok(found)
}

/// Creates and fills the tables. Nothing is created when any of them
/// exists already.
pub async fn prepare(o: &Options, out: &mut dyn Write) -> Result<(), Error> {
    let mut conn = Conn::connect(o.driver, &o.conn, o.ps_mode)
        .await
        .map_err(|e| Error::connect(o, e))?;
    let exist = existing_tables(&mut conn, o.tables)
        .await
        .map_err(|e| Error::sql(o, e))?;
    if let Some(t) = exist.first() {
        return Err(Error::TablesExist {
            table: format!("sbtest{t}"),
            db: o.conn.db.clone(),
            count: exist.len(),
        });
    }
    crate::banner_line(o, out);
    // oltp_insert without --auto-inc creates empty tables: ids made at
    // prepare time could collide with the unique ones of the run.
    let rows = if o.test == Test::OltpInsert && !o.auto_inc {
        0
    } else {
        o.table_size
    };
    // `k` as sysbench 1.0.20 draws it (`sb_rand(1, table_size)`: the
    // default distribution, `--rand-type=special` unless told), so that a
    // table prepared by either tool has the same values, and a run over
    // it the same hot spots; `c` and `pad` are uniform random digits in
    // both.
    let mut rng = Rand::new(
        if o.rand_seed == 0 {
            now_seed()
        } else {
            o.rand_seed
        },
        o.rand_type,
        o.rand_spec_pct,
        o.rand_spec_res,
    );
    let (mut c, mut pad) = (String::new(), String::new());
    for t in 1..=o.tables {
        say(o, out, &format!("Creating table 'sbtest{t}'..."));
        conn.query(&create_sql(o, t))
            .await
            .map_err(|e| Error::sql(o, e))?;
        if o.legacy.is_some() {
            say(
                o,
                out,
                &format!("Creating {rows} records in table 'sbtest{t}'..."),
            );
        } else if rows > 0 {
            say(
                o,
                out,
                &format!("Inserting {rows} records into 'sbtest{t}'"),
            );
        }
        let mut sql = String::with_capacity(BATCH as usize * 200);
        let mut i = 1;
        while i <= rows {
            sql.clear();
            sql.push_str(&if o.auto_inc {
                format!("INSERT INTO sbtest{t}(k, c, pad) VALUES")
            } else {
                format!("INSERT INTO sbtest{t}(id, k, c, pad) VALUES")
            });
            let end = (i + BATCH - 1).min(rows);
            for n in i..=end {
                rng.fill(C_TEMPLATE, &mut c);
                rng.fill(PAD_TEMPLATE, &mut pad);
                let k = rng.default_id(1, i64::from(o.table_size));
                if n > i {
                    sql.push(',');
                }
                if o.auto_inc {
                    sql.push_str(&format!("({k}, '{c}', '{pad}')"));
                } else {
                    sql.push_str(&format!("({n}, {k}, '{c}', '{pad}')"));
                }
            }
            conn.query(&sql).await.map_err(|e| Error::sql(o, e))?;
            i = end + 1;
        }
        if o.create_secondary {
            if o.legacy.is_none() {
                say(
                    o,
                    out,
                    &format!("Creating a secondary index on 'sbtest{t}'..."),
                );
            }
            conn.query(&format!("CREATE INDEX k_{t} ON sbtest{t}(k)"))
                .await
                .map_err(|e| Error::sql(o, e))?;
        }
        let _ = out.flush();
    }
    conn.close().await;
    Ok(())
}

/// Drops the tables that exist.
pub async fn cleanup(o: &Options, out: &mut dyn Write) -> Result<(), Error> {
    let mut conn = Conn::connect(o.driver, &o.conn, o.ps_mode)
        .await
        .map_err(|e| Error::connect(o, e))?;
    crate::banner_line(o, out);
    for t in 1..=o.tables {
        say(o, out, &format!("Dropping table 'sbtest{t}'..."));
        conn.query(&format!("DROP TABLE IF EXISTS sbtest{t}"))
            .await
            .map_err(|e| Error::sql(o, e))?;
    }
    conn.close().await;
    if o.legacy.is_some() {
        let _ = out.write_all(crate::report04::cleanup_done(o).as_bytes());
    }
    Ok(())
}

/// One line of `prepare` or `cleanup` about a table: sysbench 1.0's Lua
/// scripts print these whatever the verbosity; 0.4 logs them as notices.
fn say(o: &Options, out: &mut dyn Write, line: &str) {
    if o.legacy.is_none() || o.verbosity >= crate::options::LOG_NOTICE {
        let _ = writeln!(out, "{line}");
    }
}
