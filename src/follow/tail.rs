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
    let shown = path.display().to_string();
    let mut offset: u64 = 0;
    let mut line_no: usize = 0;
    let mut pending: Vec<u8> = Vec::new();
    let mut present = false;
    let mut missing_told = false;
    loop {
        match std::fs::File::open(path) {
            Err(e) => {
                if present || !missing_told {
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
                if len < offset {
                    offset = 0;
                    line_no = 0;
                    pending.clear();
                    if !tell(Note::Restarted) {
                        return;
                    }
                }
                // A large append is read a chunk at a time, each told
                // before the next is read (memory stays bounded).
                while len > offset && file.seek(SeekFrom::Start(offset)).is_ok() {
                    let mut bytes = Vec::new();
                    let want = (len - offset).min(CHUNK);
                    let Ok(n) = (&mut file).take(want).read_to_end(&mut bytes) else {
                        break;
                    };
                    if n == 0 {
                        break;
                    }
                    {
                        offset += n as u64;
                        pending.extend_from_slice(&bytes);
                        let mut batch = Batch::default();
                        // Lines are cut from where the last ended: each
                        // byte is looked at once (not the rest of the
                        // buffer again for each line).
                        let mut start = 0;
                        while let Some(at) = pending[start..].iter().position(|&b| b == b'\n') {
                            let line = &pending[start..start + at + 1];
                            start += at + 1;
                            line_no += 1;
                            match traffic::parse_line(&String::from_utf8_lossy(line)) {
                                Ok(Some(event)) => batch.push(event),
                                Ok(None) => {}
                                Err(e) => {
                                    if !tell(Note::BadLine(format!("{shown}:{line_no}: {e}"))) {
                                        return;
                                    }
                                }
                            }
                        }
                        pending.drain(..start);
                        if let Some(note) = batch.take()
                            && !tell(note)
                        {
                            return;
                        }
                    }
                }
            }
        }
        tokio::time::sleep(EVERY).await;
    }
}
