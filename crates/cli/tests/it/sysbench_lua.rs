//! `loadlab sysbench SCRIPT.lua` end to end, the real binary: a script
//! that uses what loadlab lacks of sysbench's Lua API exits 29 and one
//! that cannot run exits 28, each with one line naming the file and where
//! in it, before any connection is tried (nothing listens on the port
//! given: a connection would exit 5).

use loadlab_testkit::proc::BoundedOutput;
use std::process::Command;

#[test]
fn scripts_loadlab_cannot_run_are_refused_before_any_load() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "my.lua",
            "function event()\n  sysbench.sql.xyz()\nend\n",
            29,
            "my.lua:2:3: sysbench.sql.xyz is not supported by loadlab",
        ),
        ("broken.lua", "function event(\n", 28, "broken.lua:2:"),
        (
            "top.lua",
            "error('needs a newer sysbench')\n",
            28,
            "top.lua:1: needs a newer sysbench",
        ),
    ];
    for (name, text, code, needle) in cases {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_loadlab"))
            .args(["sysbench", "--mysql-host=127.0.0.1", "--mysql-port=9"])
            .arg(&p)
            .arg("run")
            .output_bounded()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{name}: {err}");
        assert!(out.stdout.is_empty(), "{name}");
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert!(
            err.starts_with("loadlab: sysbench: ") && err.contains(needle),
            "{name}: {err}"
        );
    }
}

/// `SCRIPT help`: the options the script declares, in sysbench's layout.
#[test]
fn script_help_lists_its_own_options() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("mine.lua");
    std::fs::write(
        &p,
        "sysbench.cmdline.options = {\n  rows = {'Rows to read', 10},\n  fast = {'Skip the checks', false},\n}\nfunction event() end\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_loadlab"))
        .arg("sysbench")
        .arg(&p)
        .arg("help")
        .output_bounded()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.ends_with(
            " options:\n  --fast[=on|off] Skip the checks [off]\n  --rows=N        Rows to read [10]\n\n"
        ),
        "{text}"
    );
}
