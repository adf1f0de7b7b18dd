//! Kernel receive times for TCP reads.
//!
//! Every TCP connection asks the kernel to stamp incoming data
//! (`SO_TIMESTAMPNS`), and every read returns the stamp of the last packet it
//! consumed. A response is therefore timed by when its bytes reached this
//! host, not by when the client got round to reading them: the engine may
//! collect responses once per scheduling window (see `clock.rs`) without
//! adding that wait to any latency, and a busy client does not inflate the
//! latencies it reports.

use std::io::{self, IoSliceMut};
use std::os::fd::{AsFd, AsRawFd, BorrowedFd};
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use nix::sys::socket::{ControlMessageOwned, MsgFlags, recvmsg, setsockopt, sockopt};
use tokio::io::{AsyncRead, AsyncWrite, Interest, ReadBuf};
use tokio::net::TcpStream;
use tokio::time::Instant;

/// A stamp older than this is not trusted (the wall clock was stepped).
const MAX_AGE: Duration = Duration::from_secs(10);

/// Asks the kernel to stamp the data received on `fd`. Returns false where
/// the kernel refuses (then reads are timed when they return).
pub(crate) fn enable(fd: BorrowedFd<'_>) -> bool {
    setsockopt(&fd, sockopt::ReceiveTimestampns, &true).is_ok()
}

/// A TCP stream whose reads remember when their data arrived.
pub(crate) struct StampedTcp {
    stream: TcpStream,
    stamped: bool,
    cmsg: [u8; 64],
    /// When the data of the last non-empty read arrived.
    last_rx: Option<Instant>,
    /// Every byte written and read on the socket.
    pub counts: std::sync::Arc<crate::wire::WireCounts>,
}

impl StampedTcp {
    /// Wraps a connected stream; `stamp` asks the kernel for receive stamps.
    pub fn new(stream: TcpStream, stamp: bool) -> Self {
        let stamped = stamp && enable(stream.as_fd());
        StampedTcp {
            stream,
            stamped,
            cmsg: [0; 64],
            last_rx: None,
            counts: Default::default(),
        }
    }

    /// True when the kernel agreed to stamp this connection's data.
    pub fn stamped(&self) -> bool {
        self.stamped
    }

    /// When the data returned by the last read reached this host (the
    /// kernel's stamp), or `None` if the kernel gave none.
    pub fn last_rx(&self) -> Option<Instant> {
        self.last_rx
    }
}

/// One non-blocking `recvmsg`: the byte count and, for a non-empty read, the
/// kernel's receive stamp of its data.
fn read_stamped(
    fd: std::os::fd::RawFd,
    cmsg: &mut [u8],
    buf: &mut [u8],
) -> io::Result<(usize, Option<Instant>)> {
    let mut iov = [IoSliceMut::new(buf)];
    let msg =
        recvmsg::<()>(fd, &mut iov, Some(cmsg), MsgFlags::MSG_DONTWAIT).map_err(io::Error::from)?;
    let n = msg.bytes;
    let mut stamp = None;
    if n > 0
        && let Ok(cmsgs) = msg.cmsgs()
    {
        for c in cmsgs {
            if let ControlMessageOwned::ScmTimestampns(ts) = c {
                stamp = Some(Duration::new(ts.tv_sec() as u64, ts.tv_nsec() as u32));
            }
        }
    }
    Ok((n, stamp.and_then(to_instant)))
}

/// A pair of readings of the monotonic and wall clocks, taken together.
#[derive(Clone, Copy)]
struct ClockPair {
    mono: Instant,
    wall: Duration,
}

impl ClockPair {
    fn now() -> Option<Self> {
        let mono = Instant::now();
        let wall = SystemTime::now().duration_since(UNIX_EPOCH).ok()?;
        Some(ClockPair { mono, wall })
    }
}

/// A pair is reused for stamps up to this long after it was taken: reading
/// both clocks for every response cost more than the conversion itself, and
/// the two clocks drift apart by far less than a microsecond in this time.
const PAIR_REUSE: Duration = Duration::from_millis(100);

thread_local! {
    static PAIR: std::cell::Cell<Option<ClockPair>> = const { std::cell::Cell::new(None) };
}

/// Converts a wall-clock stamp to the monotonic clock the engine measures with.
fn to_instant(stamp: Duration) -> Option<Instant> {
    PAIR.with(|cell| {
        if let Some(p) = cell.get()
            && stamp.abs_diff(p.wall) <= PAIR_REUSE
        {
            return if stamp >= p.wall {
                p.mono.checked_add(stamp - p.wall)
            } else {
                p.mono.checked_sub(p.wall - stamp)
            };
        }
        // Time has moved on (or the wall clock was stepped): a fresh pair.
        let p = ClockPair::now()?;
        cell.set(Some(p));
        // A stamp from the future (clock stepped back) counts as "now".
        let age = p.wall.saturating_sub(stamp);
        if age > MAX_AGE {
            return None;
        }
        p.mono.checked_sub(age)
    })
}

impl AsRawFd for StampedTcp {
    fn as_raw_fd(&self) -> std::os::fd::RawFd {
        self.stream.as_raw_fd()
    }
}

impl AsyncRead for StampedTcp {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if !this.stamped {
            this.last_rx = None;
            let before = buf.filled().len();
            let r = Pin::new(&mut this.stream).poll_read(cx, buf);
            this.counts.read((buf.filled().len() - before) as u64);
            return r;
        }
        loop {
            ready!(this.stream.poll_read_ready(cx))?;
            let unfilled = buf.initialize_unfilled();
            let len = unfilled.len();
            let fd = this.stream.as_raw_fd();
            let cmsg = &mut this.cmsg;
            // A short read drained the socket: report "would block" to
            // `try_io` so it clears the readiness (as tokio's own reads do),
            // and the next read waits for new data instead of first making a
            // system call that fails.
            let mut drained = None;
            let r = this.stream.try_io(Interest::READABLE, || {
                let (n, stamp) = read_stamped(fd, cmsg, unfilled)?;
                if n > 0 && n < len {
                    drained = Some((n, stamp));
                    return Err(io::ErrorKind::WouldBlock.into());
                }
                Ok((n, stamp))
            });
            let r = match (r, drained) {
                (_, Some(got)) => Ok(got),
                (r, None) => r,
            };
            match r {
                Ok((n, stamp)) => {
                    if n > 0 {
                        this.last_rx = stamp;
                    }
                    this.counts.read(n as u64);
                    buf.advance(n);
                    return Poll::Ready(Ok(()));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => continue,
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
    }
}

impl AsyncWrite for StampedTcp {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.stream).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = &r {
            this.counts.written(*n as u64);
        }
        r
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wall_now() -> Duration {
        SystemTime::now().duration_since(UNIX_EPOCH).unwrap()
    }

    fn near(a: Instant, b: Instant) -> bool {
        let d = if a > b { a - b } else { b - a };
        d < Duration::from_millis(20)
    }

    #[test]
    fn stamps_convert_to_the_monotonic_clock_with_a_reused_pair() {
        let ms = Duration::from_millis;
        // Fresh pair, then conversions that reuse it (stamps before and after it).
        let now = Instant::now();
        assert!(near(to_instant(wall_now()).unwrap(), now));
        assert!(near(to_instant(wall_now() - ms(50)).unwrap(), now - ms(50)));
        std::thread::sleep(ms(30));
        let now = Instant::now();
        assert!(near(to_instant(wall_now()).unwrap(), now));
        // Past the reuse span: a new pair, still right.
        std::thread::sleep(PAIR_REUSE + ms(20));
        let now = Instant::now();
        assert!(near(to_instant(wall_now()).unwrap(), now));
        // Too old to trust: the wall clock was stepped.
        assert!(to_instant(wall_now() - MAX_AGE - ms(1000)).is_none());
        // From the future (the wall clock was stepped back): "now".
        let t = to_instant(wall_now() + ms(500)).unwrap();
        assert!(near(t, Instant::now()) && t <= Instant::now());
    }
}
