//! Open-model load over many keep-alive connections (wrk2's `-c N -R rate`),
//! used by `bench/origin.sh` for the 10,000-connection latency check.
//!
//! `open_load URL CONNS RATE DURATION_S`: opens CONNS connections first, then
//! request i is due at t0 + i/RATE on connection i mod CONNS. Latency is
//! measured from the due time (not the actual send), so a slow server cannot
//! hide behind a slowed client. Prints one JSON line.

use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() != 4 {
        eprintln!("usage: open_load URL CONNS RATE DURATION_S");
        std::process::exit(2);
    }
    let url = args[0]
        .strip_prefix("http://")
        .unwrap_or(&args[0])
        .to_string();
    let (authority, path) = match url.find('/') {
        Some(i) => (url[..i].to_string(), url[i..].to_string()),
        None => (url.clone(), "/".to_string()),
    };
    let conns: usize = args[1].parse().expect("CONNS");
    let rate: f64 = args[2].parse().expect("RATE");
    let secs: f64 = args[3].parse().expect("DURATION_S");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(run(authority, path, conns, rate, secs));
}

async fn run(authority: String, path: String, conns: usize, rate: f64, secs: f64) {
    let gate = std::sync::Arc::new(tokio::sync::Semaphore::new(200));
    let mut opening = Vec::with_capacity(conns);
    for _ in 0..conns {
        let (a, g) = (authority.clone(), gate.clone());
        opening.push(tokio::spawn(async move {
            let _p = g.acquire().await.ok()?;
            TcpStream::connect(a).await.ok()
        }));
    }
    let mut streams = Vec::with_capacity(conns);
    let mut connect_errors = 0;
    for o in opening {
        match o.await.ok().flatten() {
            Some(s) => streams.push(s),
            None => connect_errors += 1,
        }
    }
    let request: &'static [u8] = Box::leak(
        format!("GET {path} HTTP/1.1\r\nHost: {authority}\r\n\r\n")
            .into_bytes()
            .into_boxed_slice(),
    );
    let t0 = Instant::now() + Duration::from_millis(500);
    let end = t0 + Duration::from_secs_f64(secs);
    let n = streams.len();
    let mut tasks = Vec::with_capacity(n);
    for (idx, s) in streams.into_iter().enumerate() {
        tasks.push(tokio::spawn(connection(s, idx, n, rate, t0, end, request)));
    }
    let mut lat: Vec<u64> = Vec::new();
    let mut errors = connect_errors;
    let mut non2xx = 0;
    for t in tasks {
        if let Ok((l, e, bad)) = t.await {
            lat.extend(l);
            errors += e;
            non2xx += bad;
        }
    }
    lat.sort_unstable();
    let q = |p: f64| -> f64 {
        if lat.is_empty() {
            return 0.0;
        }
        lat[((p * lat.len() as f64) as usize).min(lat.len() - 1)] as f64 / 1000.0
    };
    println!(
        "{{\"connections\": {conns}, \"target_rate\": {rate}, \"duration_s\": {secs}, \"requests\": {}, \"errors\": {errors}, \"non_2xx\": {non2xx}, \"rate\": {:.1}, \"p50_ms\": {:.2}, \"p90_ms\": {:.2}, \"p99_ms\": {:.2}, \"max_ms\": {:.2}}}",
        lat.len(),
        lat.len() as f64 / secs,
        q(0.5),
        q(0.9),
        q(0.99),
        q(1.0)
    );
}

/// One connection's share of the schedule: (latencies in µs, errors, non-2xx).
async fn connection(
    mut s: TcpStream,
    idx: usize,
    conns: usize,
    rate: f64,
    t0: Instant,
    end: Instant,
    request: &'static [u8],
) -> (Vec<u64>, usize, usize) {
    let mut lat = Vec::new();
    let mut bad = 0;
    for k in 0.. {
        let due = t0 + Duration::from_secs_f64((idx + k * conns) as f64 / rate);
        if due >= end {
            break;
        }
        tokio::time::sleep_until(due.into()).await;
        match exchange(&mut s, request).await {
            Ok(status) => {
                lat.push(due.elapsed().as_micros() as u64);
                if !(200..300).contains(&status) {
                    bad += 1;
                }
            }
            Err(_) => return (lat, 1, bad),
        }
    }
    (lat, 0, bad)
}

/// Sends one request and reads its whole response; returns the status.
async fn exchange(s: &mut TcpStream, request: &[u8]) -> std::io::Result<u16> {
    s.write_all(request).await?;
    let mut buf = vec![0u8; 16 * 1024];
    let mut filled = 0;
    let head_end = loop {
        let n = s.read(&mut buf[filled..]).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        filled += n;
        if let Some(i) = buf[..filled].windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        if filled == buf.len() {
            return Err(std::io::ErrorKind::InvalidData.into());
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let len: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    let mut left = (head_end + len).saturating_sub(filled);
    while left > 0 {
        let n = s.read(&mut buf).await?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        left = left.saturating_sub(n);
    }
    Ok(status)
}
