//! `private-db`: a private MariaDB server (`loadlab_testkit::db`) as a
//! program, for trying the sysbench examples (examples/mysql-local.yaml) on
//! one machine, until Ctrl-C:
//!
//! ```text
//! MYSQL_PASSWORD=… cargo run -p loadlab-testkit --bin private-db -- --mariadb --port 3307
//! ```

use std::net::{Ipv4Addr, TcpListener};
use std::time::Duration;

use loadlab_testkit::cmdline::{self, Arg};
use loadlab_testkit::db::{MariaDb, MariaDbOptions};
use tokio::signal::unix::{SignalKind, signal};

const PROG: &str = "private-db";
/// Where the password comes from (and what the examples' plans reference).
const PASSWORD_ENV: &str = "MYSQL_PASSWORD";

const HELP: &str = "\
private-db: a private MariaDB server for trying loadlab's sysbench examples on
one machine (examples/mysql-local.yaml). It initialises a data directory in a
new temporary folder and starts mariadbd (Debian's mariadb-server) on
127.0.0.1 only, sharing nothing with a system MariaDB (no option files, no
system socket). It creates a user, with the password in $MYSQL_PASSWORD (or a
random one, printed), and its databases; prints the connection settings and
`ready`; and runs until Ctrl-C or SIGTERM, which stop the server and remove
the folder. Its settings suit tests, not durability: the log is not flushed
at each commit and the buffer pool is 64 MiB.

Usage: private-db --mariadb [--port N] [--user NAME] [--database NAME]...

Options:
  --mariadb              start MariaDB (the one server it starts for now)
  --port N               its TCP port on 127.0.0.1 [default: a free one]
  --user NAME            the user to create [default: sysbench]
  --database NAME        a database to create, all rights to the user;
                         repeat for more [default: sysbench]
  --max-connections N    mariadbd's max_connections [default: 151]
  -h, --help             this help

Exit status: 0 stopped by Ctrl-C or SIGTERM; 2 bad command line; 5 the port
is taken; 1 MariaDB is not installed, did not start, or stopped by itself.
";

/// What the command line asks for.
struct Wanted {
    opts: MariaDbOptions,
    generated: bool,
}

fn name(flag: &str, v: String) -> String {
    let ok =
        !v.is_empty() && v.len() <= 64 && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ok {
        cmdline::usage_error(
            PROG,
            &format!("{flag} {v:?}: use 1 to 64 letters, digits or underscores"),
        );
    }
    v
}

fn number<T: std::str::FromStr>(flag: &str, v: &str) -> T {
    v.parse()
        .unwrap_or_else(|_| cmdline::usage_error(PROG, &format!("{flag} {v:?}: not a number")))
}

/// 24 hex digits from the kernel's random source.
fn random_password() -> String {
    use std::io::Read;
    let mut b = [0u8; 12];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut b))
        .unwrap_or_else(|e| cmdline::fail(PROG, 1, &format!("/dev/urandom: {e}")));
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn wanted() -> Wanted {
    let args = cmdline::parse(
        std::env::args().skip(1),
        &["--help", "--mariadb"],
        &["--port", "--user", "--database", "--max-connections"],
    )
    .unwrap_or_else(|e| cmdline::usage_error(PROG, &e));
    let mut opts = MariaDbOptions {
        user: "sysbench".into(),
        databases: Vec::new(),
        ..MariaDbOptions::default()
    };
    let mut mariadb = false;
    for a in args {
        match a {
            Arg::Switch("--help") => {
                print!("{HELP}");
                std::process::exit(0);
            }
            Arg::Switch(_) => mariadb = true,
            Arg::Value("--port", v) => {
                opts.port = Some(number::<u16>("--port", &v)).filter(|p| *p != 0)
            }
            Arg::Value("--user", v) => opts.user = name("--user", v),
            Arg::Value("--database", v) => opts.databases.push(name("--database", v)),
            Arg::Value(f, v) => {
                let n: u32 = number(f, &v);
                if !(10..=100_000).contains(&n) {
                    cmdline::usage_error(PROG, &format!("{f} {n}: from 10 to 100000"));
                }
                opts.max_connections = n;
            }
        }
    }
    if !mariadb {
        cmdline::usage_error(PROG, "say which server to start: --mariadb");
    }
    if opts.databases.is_empty() {
        opts.databases.push("sysbench".into());
    }
    let generated = match std::env::var(PASSWORD_ENV) {
        Ok(p) if p.is_empty() => cmdline::usage_error(
            PROG,
            &format!("${PASSWORD_ENV} is empty: set a password, or unset it for a random one"),
        ),
        Ok(p) => {
            opts.password = p;
            false
        }
        Err(_) => {
            opts.password = random_password();
            true
        }
    };
    Wanted { opts, generated }
}

/// The connection settings, as `loadlab sysbench` flags, on stdout.
fn announce(db: &MariaDb, w: &Wanted) {
    let o = &w.opts;
    println!("MariaDB listening on 127.0.0.1:{}", db.port);
    println!("  socket:    {}", db.dir().join("sock").display());
    println!("  user:      {}", o.user);
    if w.generated {
        println!(
            "  password:  random (no ${PASSWORD_ENV} was set): export {PASSWORD_ENV}={}",
            o.password
        );
    } else {
        println!("  password:  the one in ${PASSWORD_ENV}");
    }
    println!("  databases: {}", o.databases.join(", "));
    println!(
        "  loadlab sysbench flags: --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port={} \
         --mysql-user={} --mysql-password=\"${PASSWORD_ENV}\" --mysql-db={}",
        db.port, o.user, o.databases[0]
    );
    println!(
        "ready (Ctrl-C stops the server and removes {})",
        db.dir().display()
    );
}

fn main() {
    let w = wanted();
    if let Some(p) = w.opts.port
        && let Err(e) = TcpListener::bind((Ipv4Addr::LOCALHOST, p))
    {
        cmdline::fail(
            PROG,
            5,
            &format!("--port {p}: 127.0.0.1:{p} is taken ({e})"),
        );
    }
    if !loadlab_testkit::db::mariadb_installed() {
        cmdline::fail(
            PROG,
            1,
            "no mariadbd or mariadb-install-db (apt-get install mariadb-server mariadb-client)",
        );
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| cmdline::fail(PROG, 1, &format!("runtime: {e}")));
    // The signals are caught from before the server starts: a Ctrl-C during
    // its start-up stops it as soon as it is up, and removes its folder.
    let (mut int, mut term, mut hup) = {
        let _g = rt.enter();
        let s = |k| signal(k).unwrap_or_else(|e| cmdline::fail(PROG, 1, &format!("signals: {e}")));
        (
            s(SignalKind::interrupt()),
            s(SignalKind::terminate()),
            s(SignalKind::hangup()),
        )
    };
    let mut db = MariaDb::start(w.opts.clone())
        .unwrap_or_else(|e| cmdline::fail(PROG, 1, &format!("MariaDB did not start: {e}")));
    announce(&db, &w);
    let why = rt.block_on(async {
        let mut tick = tokio::time::interval(Duration::from_millis(500));
        loop {
            tokio::select! {
                _ = int.recv() => return None,
                _ = term.recv() => return None,
                _ = hup.recv() => return None,
                _ = tick.tick() => {
                    if let Some(st) = db.exited() {
                        return Some(format!(
                            "mariadbd stopped by itself ({st}); the end of its log:\n{}",
                            db.log_tail(20)
                        ));
                    }
                }
            }
        }
    });
    let dir = db.dir().to_path_buf();
    drop(db);
    match why {
        None => eprintln!("{PROG}: stopped MariaDB and removed {}", dir.display()),
        Some(why) => cmdline::fail(PROG, 1, &why),
    }
}
