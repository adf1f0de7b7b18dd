//! Reading results and targets from stdin.

/// A reader that stays at its end once it got there. On a terminal, Ctrl-D
/// makes one `read` return 0, and the next `read` waits for more typing: a
/// targets parser that looks once more after the end (to see whether a
/// target has header lines, then for the next target) would need a second
/// Ctrl-D. After the first 0 this reader never reads again.
pub(crate) struct StickyEof<R> {
    inner: R,
    eof: bool,
}

impl<R> StickyEof<R> {
    pub(crate) fn new(inner: R) -> Self {
        StickyEof { inner, eof: false }
    }
}

impl<R: std::io::Read> std::io::Read for StickyEof<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.eof || buf.is_empty() {
            return Ok(0);
        }
        let n = self.inner.read(buf)?;
        self.eof = n == 0;
        Ok(n)
    }
}
