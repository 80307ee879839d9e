//! A trace file followed as it grows: read from its start, then looked at
//! a few times a second. A file that shrinks was started anew (the gateway
//! truncates its trace when it starts): it is read again from its start.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::time::Duration;

use super::{Batch, Note};
use crate::traffic;

/// How often the file is looked at.
const EVERY: Duration = Duration::from_millis(200);

/// The most read of a followed file at once.
pub const CHUNK: u64 = 8 << 20;

pub(super) async fn follow(path: &Path, tell: &(impl Fn(Note) -> bool + Sync)) {
    let mut tail = Tail {
        shown: path.display().to_string(),
        offset: 0,
        line_no: 0,
        pending: Vec::new(),
    };
    let mut present = false;
    let mut missing_told = false;
    loop {
        match std::fs::File::open(path) {
            Err(e) => {
                if present || !missing_told {
                    let shown = &tail.shown;
                    if !tell(Note::Lost(format!("{shown}: {e}; waiting for it"))) {
                        return;
                    }
                    missing_told = true;
                }
                present = false;
            }
            Ok(mut file) => {
                let len = file.metadata().map(|m| m.len()).unwrap_or(0);
                if !present {
                    present = true;
                    missing_told = false;
                    if !tell(Note::Connected) {
                        return;
                    }
                }
                if tail.read_new(&mut file, len, tell).is_none() {
                    return;
                }
            }
        }
        tokio::time::sleep(EVERY).await;
    }
}

/// Where the reading of a followed file stands.
struct Tail {
    /// The file's path, for messages.
    shown: String,
    /// Bytes read so far.
    offset: u64,
    /// Lines read so far.
    line_no: usize,
    /// The start of a line not yet ended.
    pending: Vec<u8>,
}

impl Tail {
    /// Reads what was added to `file` (now `len` bytes long) and tells its
    /// events; a file shorter than what was read is read again from its
    /// start. `None`: the reader is gone.
    fn read_new(
        &mut self,
        file: &mut std::fs::File,
        len: u64,
        tell: &impl Fn(Note) -> bool,
    ) -> Option<()> {
        if len < self.offset {
            self.offset = 0;
            self.line_no = 0;
            self.pending.clear();
            tell(Note::Restarted).then_some(())?;
        }
        // A large append is read a chunk at a time, each told before the
        // next is read (memory stays bounded).
        while len > self.offset && file.seek(SeekFrom::Start(self.offset)).is_ok() {
            let mut bytes = Vec::new();
            let want = (len - self.offset).min(CHUNK);
            let Ok(n) = (&mut *file).take(want).read_to_end(&mut bytes) else {
                break;
            };
            if n == 0 {
                break;
            }
            self.offset += n as u64;
            self.pending.extend_from_slice(&bytes);
            self.tell_lines(tell)?;
        }
        Some(())
    }

    /// Tells the events of the whole lines pending, as one batch, and the
    /// lines that are not events. Lines are cut from where the last ended:
    /// each byte is looked at once (not the rest of the buffer again for
    /// each line). `None`: the reader is gone.
    fn tell_lines(&mut self, tell: &impl Fn(Note) -> bool) -> Option<()> {
        let mut batch = Batch::default();
        let mut start = 0;
        while let Some(at) = self.pending[start..].iter().position(|&b| b == b'\n') {
            let line = &self.pending[start..start + at + 1];
            start += at + 1;
            self.line_no += 1;
            match traffic::parse_line(&String::from_utf8_lossy(line)) {
                Ok(Some(event)) => batch.push(event),
                Ok(None) => {}
                Err(e) => {
                    let (shown, line_no) = (&self.shown, self.line_no);
                    tell(Note::BadLine(format!("{shown}:{line_no}: {e}"))).then_some(())?;
                }
            }
        }
        self.pending.drain(..start);
        if let Some(note) = batch.take() {
            tell(note).then_some(())?;
        }
        Some(())
    }
}
