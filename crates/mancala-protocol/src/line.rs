//! Splitting an untrusted byte stream into lines, with bounded memory and no panics.
//!
//! The process code owns the reading (tokio, pipes); it pushes whatever bytes it read into a
//! [`LineBuffer`] and drains the complete lines. Nothing here blocks or allocates without bound.

use std::collections::VecDeque;

/// The longest line, in bytes, not counting its `"\n"` or `"\r\n"` end: 64 KiB.
///
/// Real messages are far shorter (a long `info ... pv ...` line is a few hundred bytes); a longer
/// line means a broken bot, and the arena treats it as garbage (see `docs/protocol.md`).
pub const MAX_LINE_LEN: usize = 64 * 1024;

/// A line that could not be delivered as text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LineError {
    /// The line grew past the limit. Reported as soon as the limit is passed (before its end
    /// arrives); the rest of the line, up to its `"\n"`, is discarded.
    #[error("line longer than {limit} bytes")]
    TooLong { limit: usize },
    /// The line is not valid UTF-8. `lossy` is the start of the line (120 characters at most)
    /// with bad bytes replaced by U+FFFD, for the log.
    #[error("line is not valid UTF-8: {lossy:?}")]
    InvalidUtf8 { lossy: String },
}

/// Splits bytes into lines: LF ends a line, a CR just before the LF is dropped, and each line is
/// checked for length and UTF-8.
///
/// Feed it with [`push`](Self::push), then call [`next_line`](Self::next_line) until it returns
/// `None`; at end of stream call [`finish`](Self::finish) once for a last line without a line end.
/// Memory: the unfinished line is never kept beyond `max_len + 1` bytes; complete lines wait in a
/// queue until drained, so drain after every push (the queue then holds at most one push's worth).
///
/// ```
/// use mancala_protocol::{LineBuffer, LineError};
///
/// let mut lines = LineBuffer::with_max_len(8);
/// lines.push(b"readyok\r\nbest");
/// assert_eq!(lines.next_line(), Some(Ok("readyok".to_owned())));
/// assert_eq!(lines.next_line(), None); // `best` is not complete yet
/// lines.push(b"move 3\n\xff\n");
/// assert_eq!(lines.next_line(), Some(Err(LineError::TooLong { limit: 8 })));
/// assert!(matches!(lines.next_line(), Some(Err(LineError::InvalidUtf8 { .. }))));
/// assert_eq!(lines.next_line(), None);
/// ```
#[derive(Clone, Debug)]
pub struct LineBuffer {
    max_len: usize,
    /// The bytes of the unfinished line (empty while discarding).
    partial: Vec<u8>,
    /// True while skipping the rest of a line already reported as too long.
    discarding: bool,
    ready: VecDeque<Result<String, LineError>>,
}

impl Default for LineBuffer {
    fn default() -> Self {
        LineBuffer::new()
    }
}

impl LineBuffer {
    /// A buffer with the protocol's limit, [`MAX_LINE_LEN`].
    pub fn new() -> Self {
        LineBuffer::with_max_len(MAX_LINE_LEN)
    }

    /// A buffer that accepts lines of at most `max_len` bytes (not counting the line end).
    pub fn with_max_len(max_len: usize) -> Self {
        LineBuffer {
            max_len,
            partial: Vec::new(),
            discarding: false,
            ready: VecDeque::new(),
        }
    }

    /// The line length limit in bytes.
    pub fn max_len(&self) -> usize {
        self.max_len
    }

    /// Adds bytes read from the stream (any chunking).
    pub fn push(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let (chunk, ends_line) = match bytes.iter().position(|&b| b == b'\n') {
                Some(i) => (&bytes[..i], true),
                None => (bytes, false),
            };
            bytes = if ends_line {
                &bytes[chunk.len() + 1..]
            } else {
                &[]
            };

            if self.discarding {
                self.discarding = !ends_line;
                continue;
            }
            // The unfinished line may hold `max_len + 1` bytes if the last is a CR (of a CRLF).
            let room = (self.max_len + 1).saturating_sub(self.partial.len());
            let overflow = chunk.len() > room || {
                self.partial.extend_from_slice(chunk);
                self.partial.len() > self.max_len && self.partial.last() != Some(&b'\r')
            };
            if overflow {
                self.partial = Vec::new();
                self.discarding = !ends_line;
                self.ready.push_back(Err(LineError::TooLong {
                    limit: self.max_len,
                }));
            } else if ends_line {
                self.complete();
            }
        }
    }

    /// The next complete line (without its line end), or `None` until more bytes arrive.
    pub fn next_line(&mut self) -> Option<Result<String, LineError>> {
        self.ready.pop_front()
    }

    /// At end of stream: ends an unfinished last line (one without `"\n"`), then returns the next
    /// waiting line, like [`next_line`](Self::next_line). Keep calling `next_line` afterwards
    /// until it returns `None`.
    pub fn finish(&mut self) -> Option<Result<String, LineError>> {
        if self.discarding {
            self.discarding = false;
        } else if !self.partial.is_empty() {
            self.complete();
        }
        self.next_line()
    }

    /// Moves the unfinished line, now complete, to the queue.
    fn complete(&mut self) {
        let mut bytes = std::mem::take(&mut self.partial);
        if bytes.last() == Some(&b'\r') {
            bytes.pop();
        }
        let item = if bytes.len() > self.max_len {
            Err(LineError::TooLong {
                limit: self.max_len,
            })
        } else {
            String::from_utf8(bytes).map_err(|e| LineError::InvalidUtf8 {
                lossy: super::shorten(&String::from_utf8_lossy(e.as_bytes())),
            })
        };
        self.ready.push_back(item);
    }
}
