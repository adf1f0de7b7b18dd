//! sysbench 1.0 Lua scripts run by loadlab's embedded LuaJIT against a
//! private MariaDB (and PostgreSQL): sysbench's own bundled OLTP scripts
//! count what the built-in tests count, per event, and the same as
//! Debian's sysbench 1.0.20 running the same script; `prepare` and
//! `cleanup` go through the script; a user's script with an option of
//! its own runs; what loadlab lacks is refused before anything runs.

use crate::common;

use common::{figure, mysql_args, pgsql_args, run, sysbench, sysbench_or_skip};
use loadlab_sql::lua::{Script, ScriptError};
use loadlab_sql::{Error, Parsed};
use loadlab_testkit::db::{MariaDb, Postgres};

const DIR: &str = "/usr/share/sysbench";

/// Runs a command line whose test is a Lua script, as the command line
/// does: the script read and declared, then the options parsed.
fn run_script(line: &str) -> Result<String, Error> {
    let args: Vec<String> = line.split_whitespace().map(String::from).collect();
    let script = Script::detect(&args)
        .unwrap_or_else(|e| panic!("{line}: {e}"))
        .unwrap_or_else(|| panic!("{line}: no script"));
    let o = match loadlab_sql::parse_with(&args, Some(script)) {
        Ok(Parsed::Do(o)) => *o,
        other => panic!("{line}: {other:?}"),
    };
    let mut out = Vec::new();
    loadlab_sql::execute(o, &mut out)?;
    Ok(String::from_utf8(out).unwrap())
}

/// read, write, other and transactions of a run's final blocks.
fn counts(out: &str) -> [u64; 4] {
    ["read:", "write:", "other:", "transactions:"].map(|l| figure(out, l) as u64)
}

/// The labels of the final blocks, figures left out.
fn layout(out: &str) -> Vec<String> {
    let start = out.find("SQL statistics:").expect("final blocks");
    out[start..]
        .lines()
        .map(|l| l.split(':').next().unwrap_or("").to_string())
        .collect()
}

fn script(name: &str) -> String {
    format!("{DIR}/{name}.lua")
}

/// The bundled scripts and the built-in tests of the same names, on one
/// server (`a`: its connection options): the same statements per event.
fn bundled_scripts_count_as_builtin(a: &str) {
    let ro = script("oltp_read_only");
    let prep = run_script(&format!("{a} --table-size=1000 {ro} prepare")).unwrap();
    assert!(
        prep.contains("Creating table 'sbtest1'...")
            && prep.contains("Inserting 1000 records into 'sbtest1'"),
        "{prep}"
    );
    let go = "--threads=4 --events=400 --time=0 --table-size=1000";
    let lua = run_script(&format!("{a} {go} {ro} run")).unwrap();
    let builtin = run(&format!("{a} {go} oltp_read_only run")).unwrap();
    assert_eq!(counts(&lua), [5600, 0, 800, 400], "{lua}");
    assert_eq!(counts(&lua), counts(&builtin), "{builtin}");
    assert_eq!(layout(&lua), layout(&builtin));
    // One thread: no deadlock retries, so the writes are exact too.
    let one = "--threads=1 --events=200 --time=0 --table-size=1000";
    for t in ["oltp_read_write", "oltp_point_select", "oltp_write_only"] {
        let lua = run_script(&format!("{a} {one} {} run", script(t))).unwrap();
        let builtin = run(&format!("{a} {one} {t} run")).unwrap();
        assert_eq!(counts(&lua), counts(&builtin), "{t}:\n{lua}\n{builtin}");
    }
    let clean = run_script(&format!("{a} {ro} cleanup")).unwrap();
    assert!(clean.contains("Dropping table 'sbtest1'..."), "{clean}");
    let e = run(&format!("{a} {go} oltp_read_only run")).unwrap_err();
    assert!(matches!(e, Error::TablesMissing { .. }), "{e}");
}

#[test]
fn bundled_oltp_scripts_count_as_the_builtin_tests_on_mariadb() {
    let Some(db) = MariaDb::start_or_skip("bundled_oltp_scripts_on_mariadb") else {
        return;
    };
    bundled_scripts_count_as_builtin(&mysql_args(db.port));
}

#[test]
fn bundled_oltp_scripts_count_as_the_builtin_tests_on_postgres() {
    let Some(db) = Postgres::start_or_skip("bundled_oltp_scripts_on_postgres") else {
        return;
    };
    bundled_scripts_count_as_builtin(&pgsql_args(db.port));
}

/// oltp_read_write.lua prepared by sysbench, run by sysbench then by
/// loadlab (one thread: no deadlock retries), cleaned up by loadlab.
fn read_write_side_by_side(a: &str) {
    let rw = script("oltp_read_write");
    let go = format!("{a} --threads=1 --events=300 --time=0 --table-size=1000 {rw}");
    sysbench(&format!("{a} --table-size=1000 {rw} prepare"));
    let theirs = counts(&sysbench(&format!("{go} run")));
    let ours = counts(&run_script(&format!("{go} run")).unwrap());
    assert_eq!(ours, theirs, "oltp_read_write.lua: loadlab, sysbench");
    run_script(&format!("{a} {rw} cleanup")).unwrap();
}

#[test]
fn read_write_script_counts_as_sysbench_runs_it_on_postgres() {
    let test = "read_write_script_counts_as_sysbench_runs_it_on_postgres";
    let Some(_) = sysbench_or_skip(test) else {
        return;
    };
    let Some(db) = Postgres::start_or_skip(test) else {
        return;
    };
    read_write_side_by_side(&pgsql_args(db.port));
}

/// oltp_read_write.lua and bulk_insert.lua by Debian's sysbench, then by
/// loadlab: the same counts.
#[test]
fn scripts_count_as_sysbench_runs_them_on_mariadb() {
    let test = "scripts_count_as_sysbench_runs_them_on_mariadb";
    let Some(_) = sysbench_or_skip(test) else {
        return;
    };
    let Some(db) = MariaDb::start_or_skip(test) else {
        return;
    };
    let a = mysql_args(db.port);
    read_write_side_by_side(&a);
    // bulk_insert.lua: one table per thread, rows sent in packets of
    // 512 KiB, the last ones by thread_done (counted too).
    let bulk = script("bulk_insert");
    let go = format!("{a} --threads=1 --events=100000 --time=0 {bulk}");
    let rows = || {
        db.root_sql("SELECT COUNT(*) FROM sbtest.sbtest1")
            .unwrap()
            .trim()
            .parse::<u64>()
            .unwrap()
    };
    sysbench(&format!("{go} prepare"));
    let theirs = counts(&sysbench(&format!("{go} run")));
    assert_eq!(rows(), 100_000);
    sysbench(&format!("{go} cleanup"));
    run_script(&format!("{go} prepare")).unwrap();
    let ours = counts(&run_script(&format!("{go} run")).unwrap());
    assert_eq!(rows(), 100_000);
    run_script(&format!("{go} cleanup")).unwrap();
    eprintln!("bulk_insert.lua read/write/other/events: loadlab {ours:?}, sysbench {theirs:?}");
    assert!(theirs[1] > 1, "several packets: {theirs:?}");
    assert_eq!(ours, theirs, "bulk_insert.lua: loadlab, sysbench");
}

/// A user's script: an option of its own, a SELECT per event, what it
/// prints in the command's output.
#[test]
fn a_users_script_with_its_own_option_runs() {
    let Some(db) = MariaDb::start_or_skip("a_users_script_with_its_own_option_runs") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("my_test.lua");
    std::fs::write(
        &path,
        r#"
sysbench.cmdline.options = {
   max_id = {"Largest id", 10},
   label = {"A word printed once", "none"},
   quiet = {"Print nothing", false},
}

function thread_init()
   con = sysbench.sql.driver():connect()
   if sysbench.tid == 0 and not sysbench.opt.quiet then
      print("label=" .. sysbench.opt.label .. " max_id=" .. sysbench.opt.max_id)
   end
end

function event()
   con:query(string.format("SELECT %d", sysbench.rand.uniform(1, sysbench.opt.max_id)))
end

function thread_done()
   con:disconnect()
end
"#,
    )
    .unwrap();
    let a = mysql_args(db.port);
    let p = path.display();
    let out = run_script(&format!(
        "{a} --threads=2 --events=50 --time=0 --max-id=7 --label=hello {p} run"
    ))
    .unwrap();
    // Printed by thread_init where sysbench prints it.
    let (init, printed, started) = (
        out.find("Initializing worker threads...").unwrap(),
        out.find("label=hello max_id=7\n")
            .expect("the script's line"),
        out.find("Threads started!").unwrap(),
    );
    assert!(init < printed && printed < started, "{out}");
    assert_eq!(counts(&out), [50, 0, 0, 50], "{out}");
    let out = run_script(&format!("{a} --events=5 --time=0 --quiet {p} run")).unwrap();
    assert!(!out.contains("label="), "{out}");
    // Not declared, or not of the default's type: refused by name.
    let args = |l: &str| l.split_whitespace().map(String::from).collect::<Vec<_>>();
    for (line, needle) in [
        (format!("--max-idd=3 {p} run"), "does not declare it"),
        (
            format!("--max-id=many {p} run"),
            "--max-id=many: not a valid integer",
        ),
        (format!("--point-selects=3 {p} run"), "--point-selects"),
    ] {
        let s = Script::detect(&args(&line)).unwrap();
        let e = loadlab_sql::parse_with(&args(&line), s).unwrap_err();
        assert!(e.to_string().contains(needle), "{line}: {e}");
    }
    // No prepare command in the script: a clear error.
    let e = run_script(&format!("{a} {p} prepare")).unwrap_err();
    assert!(e.to_string().contains("has no 'prepare' command"), "{e}");
    // An error of the script's own during the run: its file and line.
    let rt = dir.path().join("rt.lua");
    std::fs::write(
        &rt,
        "function event()\n  local x = nil\n  return x.y\nend\n",
    )
    .unwrap();
    let e = run_script(&format!("{a} --time=5 {} run", rt.display())).unwrap_err();
    assert!(
        matches!(&e, Error::Script(m) if m.contains("rt.lua:3: attempt to index local 'x'")),
        "{e}"
    );
}

/// What loadlab lacks, named with file:line:col before anything runs.
#[test]
fn unsupported_api_is_refused_before_any_load() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "xyz.lua",
            "function event()\n  sysbench.sql.xyz()\nend\n",
            "xyz.lua:2:3: sysbench.sql.xyz is not supported by loadlab",
        ),
        (
            "rows.lua",
            "function event()\n  local rs = con:query('SELECT 1')\n  local r = rs:fetch_row()\nend\n",
            "rows.lua:3:15: the method :fetch_row() is not supported by loadlab",
        ),
        (
            "hook.lua",
            "function sysbench.hooks.report_intermediate(s) end\nfunction event() end\n",
            "hook.lua:1:10: sysbench.hooks.report_intermediate is not supported by loadlab",
        ),
    ];
    for (name, text, want) in cases {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        let args = vec![p.display().to_string(), "run".into()];
        match Script::detect(&args) {
            Err(ScriptError::Unsupported(m)) => assert!(m.ends_with(want), "{m}"),
            other => panic!("{name}: {other:?}"),
        }
    }
    let p = dir.path().join("syntax.lua");
    std::fs::write(&p, "function event(\n").unwrap();
    let args = vec![p.display().to_string(), "run".into()];
    match Script::detect(&args) {
        Err(ScriptError::Bad(m)) => assert!(m.contains("syntax.lua:2:"), "{m}"),
        other => panic!("{other:?}"),
    }
    // A built-in test's name with .lua and no such file stays the test.
    let args = vec!["oltp_read_only.lua".to_string(), "run".into()];
    assert!(Script::detect(&args).unwrap().is_none());
}
