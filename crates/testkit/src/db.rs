//! Private database servers for the SQL tests: a MariaDB (Debian's
//! `mariadb-server`) and a PostgreSQL (Debian's `postgresql`, version 15),
//! each in a temporary data directory, listening on a free 127.0.0.1 port
//! and on a socket inside that directory. Nothing is shared with a system
//! instance: no `/etc/mysql` option files (`--no-defaults`), no system
//! socket, no system data directory. The server is killed and its directory
//! removed when the handle is dropped.
//!
//! Both create the user `sbtest` with password [`PASSWORD`] and the database
//! `sbtest`, the names sysbench uses by default; a MariaDB can be given
//! other names, a password and a fixed port ([`MariaDbOptions`]), as the
//! `private-db` binary does for users trying the sysbench examples.
//!
//! As root: `mariadbd` runs with `--user=root` (it refuses to start as root
//! otherwise), and PostgreSQL, which refuses root outright, runs as the
//! unprivileged `nobody` through `runuser -u nobody` with its data directory
//! handed to that user. As any other user both run as that user.

use crate::proc::BoundedOutput;
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Serializes server start-ups within a test process.
static START: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The password of the `sbtest` user on both servers.
pub const PASSWORD: &str = "sbtest-secret-pw";
/// The user and the database created on both servers.
pub const USER: &str = "sbtest";
pub const DATABASE: &str = "sbtest";

/// Where Debian puts the newest installed PostgreSQL's server programs
/// (`/usr/lib/postgresql/<major>/bin`: 15 on Debian 12, 17 on Debian 13),
/// or `None` when no server is installed.
pub fn pg_bin() -> Option<PathBuf> {
    let mut found: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| {
            let e = e.ok()?;
            let major = e.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            bin.join("postgres").exists().then_some((major, bin))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, bin)| bin)
}

fn pg_program(prog: &str) -> PathBuf {
    pg_bin()
        .map(|b| b.join(prog))
        .unwrap_or_else(|| PathBuf::from(prog))
}

pub(crate) fn which(prog: &str) -> Option<PathBuf> {
    if prog.contains('/') {
        let p = PathBuf::from(prog);
        return p.exists().then_some(p);
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/usr/bin")])
            .map(|d| d.join(prog))
            .find(|p| p.exists())
    })
}

/// True when MariaDB's server and its bootstrap script are installed.
pub fn mariadb_installed() -> bool {
    which("mariadbd").is_some() && which("mariadb-install-db").is_some()
}

fn skip_or_panic(test: &str, what: &str, install: &str) {
    crate::need::missing(test, what, install);
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(|u| u == "0"))
        })
        .unwrap_or(false)
}

/// A port that was free on 127.0.0.1 a moment ago, for a server to bind
/// (for a port that must stay refused, see [`crate::refused::Refused`]).
pub fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("bind 127.0.0.1:0")
}

pub(crate) fn wait_for_port(
    port: u16,
    child: &mut Child,
    log: &Path,
    what: &str,
) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_ok() {
            return Ok(());
        }
        if let Ok(Some(st)) = child.try_wait() {
            let tail = std::fs::read_to_string(log).unwrap_or_default();
            return Err(format!("{what} exited ({st}) before listening:\n{tail}"));
        }
        if Instant::now() > deadline {
            return Err(format!("{what} did not listen on {port} within 60 s"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn run(cmd: &mut Command, what: &str) -> Result<String, String> {
    let out = cmd
        .stdin(Stdio::null())
        .output_bounded()
        .map_err(|e| format!("{what}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{what} failed ({}): {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Settings of a private MariaDB.
#[derive(Debug, Clone)]
pub struct MariaDbOptions {
    /// `--max-connections` (MariaDB's default is 151, its least 10).
    pub max_connections: u32,
    /// The TCP port on 127.0.0.1; `None` for a free one (up to three are
    /// tried, in case one is taken between finding it and binding it).
    pub port: Option<u16>,
    /// The user created, with all rights on each of [`Self::databases`].
    pub user: String,
    /// Its password (any characters: it is quoted as an SQL string).
    pub password: String,
    /// The databases created.
    pub databases: Vec<String>,
}

impl Default for MariaDbOptions {
    fn default() -> Self {
        MariaDbOptions {
            max_connections: 151,
            port: None,
            user: USER.into(),
            password: PASSWORD.into(),
            databases: vec![DATABASE.into()],
        }
    }
}

/// `s` as an SQL string literal for MariaDB (backslashes and quotes escaped).
fn sql_string(s: &str) -> String {
    format!("'{}'", s.replace('\\', "\\\\").replace('\'', "''"))
}

/// `s` as a quoted SQL identifier (backquotes doubled).
fn sql_ident(s: &str) -> String {
    format!("`{}`", s.replace('`', "``"))
}

impl MariaDbOptions {
    /// The statements that create the user and its databases.
    fn setup_sql(&self) -> String {
        let user = format!("{}@'%'", sql_string(&self.user));
        let mut sql = format!(
            "CREATE USER {user} IDENTIFIED BY {};",
            sql_string(&self.password)
        );
        for db in &self.databases {
            let db = sql_ident(db);
            sql.push_str(&format!(
                " CREATE DATABASE {db}; GRANT ALL ON {db}.* TO {user};"
            ));
        }
        sql
    }
}

/// A private MariaDB server, killed and removed on drop.
pub struct MariaDb {
    dir: tempfile::TempDir,
    child: Option<Child>,
    pub port: u16,
}

impl MariaDb {
    /// Starts one, or returns `None` after a loud note when `mariadbd` is
    /// not installed (under `CI` that fails the test instead).
    pub fn start_or_skip(test: &str) -> Option<MariaDb> {
        Self::start_with_or_skip(test, MariaDbOptions::default())
    }

    pub fn start_with_or_skip(test: &str, opts: MariaDbOptions) -> Option<MariaDb> {
        if !mariadb_installed() {
            skip_or_panic(
                test,
                "mariadbd",
                "apt-get install -y mariadb-server mariadb-client",
            );
            return None;
        }
        Some(Self::start(opts).unwrap_or_else(|e| panic!("{test}: {e}")))
    }

    pub fn start(opts: MariaDbOptions) -> Result<MariaDb, String> {
        // One server starts at a time (the tests of a file run in parallel
        // threads): a bootstrap under a storm of others is what fails.
        let _one = START
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let dir = tempfile::Builder::new()
            .prefix("loadlab-mariadb-")
            .tempdir()
            .map_err(|e| e.to_string())?;
        let data = dir.path().join("data");
        let install = which("mariadb-install-db").ok_or("no `mariadb-install-db`")?;
        let server = which("mariadbd").ok_or("no `mariadbd`")?;
        let mut args = vec![
            "--no-defaults",
            "--auth-root-authentication-method=normal",
            "--skip-test-db",
            // No Linux native AIO: many InnoDB instances at once (parallel
            // tests, other users of the host) can exhaust fs.aio-max-nr.
            "--innodb-use-native-aio=0",
            // The servers' own size (below): no resize at their start.
            "--innodb-log-file-size=16M",
        ];
        if is_root() {
            args.push("--user=root");
        }
        let key: Vec<&std::ffi::OsStr> = [install.as_os_str(), server.as_os_str()]
            .into_iter()
            .chain(args.iter().map(std::ffi::OsStr::new))
            .collect();
        crate::datadir::copy_template("mariadb", &key, &data, |at| {
            let mut cmd = Command::new(&install);
            cmd.args(&args)
                .arg(format!("--datadir={}", at.join("data").display()));
            // A bootstrap on a loaded host fails now and then: once more.
            if run(&mut cmd, "mariadb-install-db").is_err() {
                let _ = std::fs::remove_dir_all(at.join("data"));
                run(&mut cmd, "mariadb-install-db")?;
            }
            Ok(())
        })?;
        // A port can be taken between finding it free and the server
        // binding it: try a few (a given port once).
        let tries = if opts.port.is_some() { 1 } else { 3 };
        let mut last = String::new();
        for _ in 0..tries {
            let port = opts.port.unwrap_or_else(free_port);
            let log = dir.path().join("error.log");
            let mut cmd = Command::new(which("mariadbd").unwrap());
            cmd.arg("--no-defaults")
                .arg(format!("--datadir={}", data.display()))
                .arg(format!("--port={port}"))
                .arg("--bind-address=127.0.0.1")
                .arg(format!("--socket={}", dir.path().join("sock").display()))
                .arg(format!("--pid-file={}", dir.path().join("pid").display()))
                .arg(format!("--log-error={}", log.display()))
                .arg(format!("--max-connections={}", opts.max_connections))
                .arg("--skip-log-bin")
                .arg("--skip-name-resolve")
                .arg("--innodb-buffer-pool-size=64M")
                .arg("--innodb-log-file-size=16M")
                .arg("--innodb-flush-log-at-trx-commit=0")
                .arg("--innodb-use-native-aio=0")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                // Its own process group: a Ctrl-C in the terminal reaches
                // only its owner, which stops it and removes its directory.
                .process_group(0);
            if is_root() {
                cmd.arg("--user=root");
            }
            let mut child = cmd.spawn().map_err(|e| format!("mariadbd: {e}"))?;
            match wait_for_port(port, &mut child, &log, "mariadbd") {
                Ok(()) => {
                    let db = MariaDb {
                        dir,
                        child: Some(child),
                        port,
                    };
                    db.root_sql(&opts.setup_sql())?;
                    return Ok(db);
                }
                Err(e) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    last = e;
                }
            }
        }
        Err(last)
    }

    /// Runs SQL as the server's root user over its socket (the `mariadb`
    /// client); returns its tab-separated output without headers.
    pub fn root_sql(&self, sql: &str) -> Result<String, String> {
        run(
            Command::new(which("mariadb").ok_or("no `mariadb` client")?)
                .arg("--no-defaults")
                .arg(format!(
                    "--socket={}",
                    self.dir.path().join("sock").display()
                ))
                .arg("-uroot")
                .arg("-N")
                .arg("-B")
                .arg("-e")
                .arg(sql),
            "mariadb",
        )
    }

    /// The data directory's parent, where the socket and error log are.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The server's exit status once it has exited (a crash, a kill from
    /// outside); `None` while it runs.
    pub fn exited(&mut self) -> Option<ExitStatus> {
        self.child
            .as_mut()
            .and_then(|c| c.try_wait().ok().flatten())
    }

    /// The last `n` lines of the server's error log.
    pub fn log_tail(&self, n: usize) -> String {
        let log = std::fs::read_to_string(self.dir.path().join("error.log")).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(n)..].join("\n")
    }

    /// Kills the server at once (SIGKILL), as a crash would.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for MariaDb {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A private PostgreSQL 15 server, killed and removed on drop.
pub struct Postgres {
    dir: tempfile::TempDir,
    child: Option<Child>,
    pub port: u16,
    as_user: Option<String>,
}

fn uid_gid_of(user: &str) -> Option<(u32, u32)> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    passwd.lines().find_map(|l| {
        let f: Vec<&str> = l.split(':').collect();
        if f.len() > 3 && f[0] == user {
            Some((f[2].parse().ok()?, f[3].parse().ok()?))
        } else {
            None
        }
    })
}

impl Postgres {
    /// Starts one, or returns `None` after a loud note when no PostgreSQL
    /// server is installed (under `CI` that fails the test instead).
    pub fn start_or_skip(test: &str) -> Option<Postgres> {
        if pg_bin().is_none() {
            skip_or_panic(test, "PostgreSQL server", "apt-get install -y postgresql");
            return None;
        }
        Some(Self::start().unwrap_or_else(|e| panic!("{test}: {e}")))
    }

    fn command(&self, prog: &str) -> Command {
        command_as(self.as_user.as_deref(), &pg_program(prog))
    }

    pub fn start() -> Result<Postgres, String> {
        let _one = START
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let dir = tempfile::Builder::new()
            .prefix("loadlab-postgres-")
            .tempdir()
            .map_err(|e| e.to_string())?;
        // PostgreSQL refuses to run as root: run it as `nobody`, owner of
        // the whole temporary directory.
        let as_user = if is_root() {
            let (uid, gid) = uid_gid_of("nobody").ok_or("no user `nobody` to run postgres as")?;
            std::os::unix::fs::chown(dir.path(), Some(uid), Some(gid))
                .map_err(|e| e.to_string())?;
            Some("nobody".to_string())
        } else {
            None
        };
        let data = dir.path().join("data");
        let initdb = pg_program("initdb");
        let args = [
            "-U",
            "postgres",
            "--auth-local=trust",
            "--auth-host=scram-sha-256",
            "--no-sync",
        ];
        let server = pg_program("postgres");
        let key: Vec<&std::ffi::OsStr> = [initdb.as_os_str(), server.as_os_str()]
            .into_iter()
            .chain(args.iter().map(std::ffi::OsStr::new))
            .collect();
        crate::datadir::copy_template("postgres", &key, &data, |at| {
            // initdb runs as the server's user, in a directory it owns.
            let owner = as_user.as_deref().and_then(uid_gid_of);
            if let Some((uid, gid)) = owner {
                std::os::unix::fs::chown(at, Some(uid), Some(gid)).map_err(|e| e.to_string())?;
            }
            let pwfile = at.join("pw");
            std::fs::write(&pwfile, format!("{PASSWORD}\n")).map_err(|e| e.to_string())?;
            if let Some((uid, gid)) = owner {
                std::os::unix::fs::chown(&pwfile, Some(uid), Some(gid))
                    .map_err(|e| e.to_string())?;
            }
            run(
                command_as(as_user.as_deref(), &initdb)
                    .arg("-D")
                    .arg(at.join("data"))
                    .args(args)
                    .arg(format!("--pwfile={}", pwfile.display()))
                    .env("LC_ALL", "C"),
                "initdb",
            )
            .map(|_| ())
        })?;
        let mut pg = Postgres {
            dir,
            child: None,
            port: 0,
            as_user,
        };
        let mut last = String::new();
        for _ in 0..3 {
            let port = free_port();
            let log = pg.dir.path().join("postgres.log");
            let logf = std::fs::File::create(&log).map_err(|e| e.to_string())?;
            if let Some((uid, gid)) = pg.as_user.as_deref().and_then(uid_gid_of) {
                let _ = std::os::unix::fs::chown(&log, Some(uid), Some(gid));
            }
            let mut child = pg
                .command("postgres")
                .arg("-D")
                .arg(&data)
                .arg("-p")
                .arg(port.to_string())
                .arg("-k")
                .arg(pg.dir.path())
                .arg("-c")
                .arg("listen_addresses=127.0.0.1")
                .arg("-c")
                .arg("fsync=off")
                .arg("-c")
                .arg("max_connections=100")
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(logf)
                .spawn()
                .map_err(|e| format!("postgres: {e}"))?;
            match wait_for_port(port, &mut child, &log, "postgres") {
                Ok(()) => {
                    pg.port = port;
                    pg.child = Some(child);
                    // The server answers TCP a moment before it accepts
                    // sessions: retry the first statement briefly.
                    let sql = format!("CREATE ROLE {USER} LOGIN PASSWORD '{PASSWORD}'");
                    let mut res = pg.superuser_sql("postgres", &sql);
                    for _ in 0..50 {
                        match &res {
                            Err(e) if e.contains("starting up") => {
                                std::thread::sleep(Duration::from_millis(100));
                                res = pg.superuser_sql("postgres", &sql);
                            }
                            _ => break,
                        }
                    }
                    res?;
                    pg.superuser_sql(
                        "postgres",
                        &format!("CREATE DATABASE {DATABASE} OWNER {USER}"),
                    )?;
                    return Ok(pg);
                }
                Err(e) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    last = e;
                }
            }
        }
        Err(last)
    }

    /// Runs SQL as the superuser `postgres` over the socket (psql), in
    /// database `db`; returns the unaligned output without headers.
    pub fn superuser_sql(&self, db: &str, sql: &str) -> Result<String, String> {
        run(
            Command::new(pg_program("psql"))
                .arg("-h")
                .arg(self.dir.path())
                .arg("-p")
                .arg(self.port.to_string())
                .arg("-U")
                .arg("postgres")
                .arg("-d")
                .arg(db)
                .arg("-X")
                .arg("-q")
                .arg("-A")
                .arg("-t")
                .arg("-v")
                .arg("ON_ERROR_STOP=1")
                .arg("-c")
                .arg(sql),
            "psql",
        )
    }

    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Kills the server at once (SIGKILL to the postmaster), as a crash would.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            // runuser's child is the postmaster: ask it to stop at once
            // (SIGQUIT), then make sure the wrapper is gone.
            if let Ok(pid) = std::fs::read_to_string(self.dir.path().join("data/postmaster.pid"))
                && let Some(pid) = pid.lines().next()
            {
                let _ = Command::new("kill").arg("-QUIT").arg(pid.trim()).status();
            }
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = c.try_wait() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        self.kill();
    }
}

fn command_as(user: Option<&str>, prog: &Path) -> Command {
    match user {
        Some(u) => {
            let mut c = Command::new("runuser");
            c.arg("-u").arg(u).arg("--").arg(prog);
            c
        }
        None => Command::new(prog),
    }
}
