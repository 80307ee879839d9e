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
                if len > offset && file.seek(SeekFrom::Start(offset)).is_ok() {
                    let mut bytes = Vec::new();
                    if let Ok(n) = (&mut file).take(len - offset).read_to_end(&mut bytes) {
                        offset += n as u64;
                        pending.extend_from_slice(&bytes);
                        let mut batch = Batch::default();
                        while let Some(end) = pending.iter().position(|&b| b == b'\n') {
                            let line: Vec<u8> = pending.drain(..=end).collect();
                            line_no += 1;
                            match traffic::parse_line(&String::from_utf8_lossy(&line)) {
                                Ok(Some(event)) => batch.push(event),
                                Ok(None) => {}
                                Err(e) => {
                                    if !tell(Note::BadLine(format!("{shown}:{line_no}: {e}"))) {
                                        return;
                                    }
                                }
                            }
                        }
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
