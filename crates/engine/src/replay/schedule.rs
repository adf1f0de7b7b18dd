//! The replay schedule: records read through a bounded reorder window,
//! windowed, spread across their timestamp's resolution, scaled by the
//! speed, looped; each completed and rewritten into a [`Timed`] target.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::time::Duration;

use super::{Item, Opener, Record, ReplayOptions, SHOWN, SharedStats, Source};
use crate::targets::{Target, TargetError, Timed, check_url};

/// A record in the reorder window, ordered by time, then by reading order.
struct Held {
    ts: i128,
    seq: u64,
    rec: Record,
}

impl PartialEq for Held {
    fn eq(&self, o: &Self) -> bool {
        (self.ts, self.seq) == (o.ts, o.seq)
    }
}
impl Eq for Held {}
impl PartialOrd for Held {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Held {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.ts, self.seq).cmp(&(o.ts, o.seq))
    }
}

/// One pass over the log.
#[derive(Default)]
struct Pass {
    number: u64,
    /// Where this pass starts on the replay's timeline, ns.
    base_ns: f64,
    first_ts: Option<i128>,
    last_sent_ts: Option<i128>,
    max_read_ts: Option<i128>,
    /// The last record's offset into the window, ns, and the records sent.
    last_rel: i128,
    sent: u64,
    /// Reading stopped (end of file, or past the window's end).
    done: bool,
}

/// A replay: an iterator of [`Timed`] targets for
/// [`crate::TargetSource::Replay`].
pub struct Replay {
    opts: ReplayOptions,
    open: Opener,
    source: Option<Source>,
    heap: BinaryHeap<Reverse<Held>>,
    peeked: Option<Held>,
    /// The records of the timestamp being turned into targets (kept to
    /// reuse its allocation).
    group: Vec<Held>,
    out: VecDeque<Timed>,
    seq: u64,
    pass: Pass,
    stats: SharedStats,
    failed: bool,
}

impl Replay {
    /// A replay of the log `open` opens (once per pass).
    pub fn new(opts: ReplayOptions, open: Opener, stats: SharedStats) -> Replay {
        Replay {
            opts,
            open,
            source: None,
            heap: BinaryHeap::new(),
            peeked: None,
            group: Vec::new(),
            out: VecDeque::new(),
            seq: 0,
            pass: Pass::default(),
            stats,
            failed: false,
        }
    }

    fn first_pass(&self) -> bool {
        self.pass.number == 0
    }

    fn malformed(&mut self, line: usize, why: String) -> Result<(), TargetError> {
        if self.opts.strict {
            return Err(TargetError::Syntax {
                source_name: self.opts.name.clone(),
                line,
                reason: why,
            });
        }
        if self.first_pass() {
            let mut s = self.stats.lock().expect("stats lock");
            s.malformed += 1;
            if s.examples.len() < SHOWN {
                s.examples.push(format!("{}:{line}: {why}", self.opts.name));
            }
        }
        Ok(())
    }

    /// The URL to send: completed with the base, rewritten, checked.
    fn complete(&self, line: usize, rec: &mut Record) -> Result<Result<(), String>, TargetError> {
        if rec.url.starts_with('/') {
            let Some(base) = &self.opts.base else {
                return Err(TargetError::Syntax {
                    source_name: self.opts.name.clone(),
                    line,
                    reason: format!(
                        "the log records no host for {:?}: give -replay-base=http://HOST:PORT",
                        rec.url
                    ),
                });
            };
            rec.url = format!("{}{}", base.trim_end_matches('/'), rec.url);
        }
        if let Some(u) = self.opts.rewrite.url(&rec.url) {
            rec.url = u;
        }
        self.opts.rewrite.headers(&mut rec.headers);
        Ok(check_url(&rec.url).map(|_| ()))
    }

    /// Records read and not yet handed out: the window, the group being
    /// gathered, the one peeked at. The targets of a group waiting to be
    /// handed out are not counted: nothing is read while there are any.
    fn held(&self) -> usize {
        self.heap.len() + self.group.len() + usize::from(self.peeked.is_some())
    }

    /// Reads until the reorder window is full or the log ends. The window
    /// counts every record held (see [`Self::held`]), so that memory does
    /// not grow by a burst's group on top of a full window.
    fn fill(&mut self) -> Result<(), TargetError> {
        while !self.pass.done && self.held() < self.opts.reorder.max(1) {
            if self.source.is_none() {
                self.source = Some((self.open)()?);
            }
            let Some(item) = self.source.as_mut().and_then(Iterator::next) else {
                self.pass.done = true;
                break;
            };
            let (line, mut rec) = match item? {
                Item::Malformed(line, why) => {
                    self.malformed(line, why)?;
                    continue;
                }
                Item::Record(line, rec) => (line, rec),
            };
            if let Err(why) = self.complete(line, &mut rec)? {
                self.malformed(line, why)?;
                continue;
            }
            if self.first_pass() {
                let mut s = self.stats.lock().expect("stats lock");
                s.records += 1;
                if self.pass.max_read_ts.is_some_and(|m| rec.ts < m) {
                    s.backwards += 1;
                }
            }
            self.pass.max_read_ts = Some(self.pass.max_read_ts.map_or(rec.ts, |m| m.max(rec.ts)));
            self.seq += 1;
            self.heap.push(Reverse(Held {
                ts: rec.ts,
                seq: self.seq,
                rec,
            }));
        }
        Ok(())
    }

    /// The next record in time order, or `None` at the end of the pass.
    fn next_sorted(&mut self) -> Result<Option<Held>, TargetError> {
        if let Some(h) = self.peeked.take() {
            return Ok(Some(h));
        }
        self.fill()?;
        let Some(Reverse(mut h)) = self.heap.pop() else {
            return Ok(None);
        };
        if let Some(last) = self.pass.last_sent_ts
            && h.ts < last
        {
            if self.first_pass() {
                self.stats.lock().expect("stats lock").beyond_window += 1;
            }
            h.ts = last;
        }
        self.pass.last_sent_ts = Some(h.ts);
        Ok(Some(h))
    }

    /// Turns the next group of records sharing a timestamp into targets.
    /// False at the end of the pass.
    fn next_group(&mut self) -> Result<bool, TargetError> {
        let Some(first) = self.next_sorted()? else {
            return Ok(false);
        };
        let log_first = *self.pass.first_ts.get_or_insert(first.ts);
        let (start, end) = self.opts.window;
        let rel = first.ts - log_first;
        if end.is_some_and(|e| rel >= e.as_nanos() as i128) {
            // Sorted: every later record is past the end too.
            self.pass.done = true;
            self.heap.clear();
            return Ok(false);
        }
        self.group.clear();
        self.group.push(first);
        while self.group.len() < self.opts.reorder.max(1) {
            match self.next_sorted()? {
                Some(h) if h.ts == self.group[0].ts => self.group.push(h),
                other => {
                    self.peeked = other;
                    break;
                }
            }
        }
        let start_ns = start.as_nanos() as i128;
        let mut group = std::mem::take(&mut self.group);
        if rel < start_ns {
            group.clear();
            self.group = group;
            return Ok(true);
        }
        let m = group.len() as i128;
        for (k, h) in group.drain(..).enumerate() {
            let spread = i128::from(h.rec.resolution) * k as i128 / m;
            let r = rel - start_ns + spread;
            self.pass.last_rel = r;
            self.pass.sent += 1;
            let at = self.pass.base_ns + r as f64 / self.opts.speed;
            self.out.push_back(Timed {
                at: Duration::from_nanos(at.round().max(0.0) as u64),
                target: Target {
                    method: h.rec.method,
                    url: h.rec.url,
                    headers: h.rec.headers,
                    body: h.rec.body,
                },
            });
        }
        self.group = group;
        Ok(true)
    }

    /// Starts the next pass of a loop; false when there is none.
    fn next_pass(&mut self) -> bool {
        if !self.opts.looped || self.pass.sent == 0 {
            return false;
        }
        let span = match self.opts.window {
            (s, Some(e)) => (e - s).as_nanos() as f64,
            _ if self.pass.sent > 1 => {
                let last = self.pass.last_rel as f64;
                last + last / (self.pass.sent - 1) as f64
            }
            _ => 1e9,
        };
        let base_ns = self.pass.base_ns + span.max(1.0) / self.opts.speed;
        self.pass = Pass {
            number: self.pass.number + 1,
            base_ns,
            ..Pass::default()
        };
        self.source = None;
        self.heap.clear();
        self.group.clear();
        self.peeked = None;
        true
    }

    fn step(&mut self) -> Result<Option<Timed>, TargetError> {
        loop {
            if let Some(t) = self.out.pop_front() {
                return Ok(Some(t));
            }
            if !self.next_group()? && !self.next_pass() {
                return Ok(None);
            }
        }
    }
}

impl Iterator for Replay {
    type Item = Result<Timed, TargetError>;
    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        let r = self.step();
        self.failed = r.is_err();
        r.transpose()
    }
}
