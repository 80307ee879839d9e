//! A request body read as it arrives, recognising a catalog already parsed
//! on the way: once the `tools` value starts, its bytes are compared, chunk
//! by chunk, with the texts of the catalogs this service holds, and not
//! kept. A body whose `tools` value is one of them ends as the rest of the
//! body (`tools` set to `[]`) and that catalog; any other body ends whole,
//! byte for byte as it was sent, and is read as before.
//!
//! Equal bytes are the same catalog, whoever sends them: no hash decides
//! (a crafted collision gains nothing), and a key never reaches what
//! another key's catalog holds, only the same bytes it sent itself.

use std::sync::Arc;

use super::parsed::Parsed;
use super::{Service, lock};
use crate::catalog::Catalog;

/// The members before `tools` are looked through while they are at most
/// this long, and at most [`HEAD_LOOKS`] times (once per chunk); past
/// either the body is kept whole. A chunk is looked through where it lies,
/// whatever its length, while nothing is kept; only a start split over
/// chunks is gathered, up to this length.
const HEAD_LIMIT: usize = 64 << 10;
const HEAD_LOOKS: u32 = 16;

/// A body being read: feed it the chunks as they come ([`BodyReader::push`]),
/// then [`BodyReader::finish`].
pub struct BodyReader {
    /// The body's bytes kept so far: until the `tools` value starts, all
    /// of them; while it is being compared, the bytes before it; once
    /// recognised, those, `[]` and what follows the value.
    kept: Vec<u8>,
    phase: Phase,
    /// The catalogs held when the body began, the ones still equal to what
    /// has come so far.
    candidates: Vec<Parsed>,
    /// Where the `tools` value starts in `kept` (once found).
    value_start: usize,
    /// Bytes of the body seen in all.
    seen: usize,
    /// Room to make at once for a body kept whole.
    capacity: usize,
    /// Times the start was looked for.
    head_looks: u32,
}

enum Phase {
    /// Looking for where the `tools` value starts.
    Head,
    /// `matched` bytes of the value are equal to each candidate's first.
    Matching { matched: usize },
    /// The value is `candidates[0]`'s text; what follows is kept.
    Recognised,
    /// Kept whole.
    Whole,
}

/// A body read to its end.
pub enum ReadBody {
    /// Kept whole, as it was sent.
    Whole(Vec<u8>),
    /// The `tools` value was a catalog already parsed.
    Recognised(Recognised),
}

/// A body whose `tools` value was a catalog already parsed.
pub struct Recognised {
    /// The body with `tools` set to `[]`.
    pub(super) rest: Vec<u8>,
    /// Where `[]` stands in `rest`.
    pub(super) at: usize,
    pub(super) parsed: Parsed,
}

impl Recognised {
    pub fn catalog(&self) -> &Arc<Catalog> {
        self.parsed.catalog()
    }

    /// The body as it was sent.
    pub fn into_whole(self) -> Vec<u8> {
        let text = self.parsed.text();
        let mut body = Vec::with_capacity(self.rest.len() + text.len());
        body.extend_from_slice(&self.rest[..self.at]);
        body.extend_from_slice(text);
        body.extend_from_slice(&self.rest[self.at + 2..]);
        body
    }
}

impl ReadBody {
    /// The body as JSON: whole, or without its catalog (`tools: []`).
    pub fn json(&self) -> &[u8] {
        match self {
            ReadBody::Whole(body) => body,
            ReadBody::Recognised(r) => &r.rest,
        }
    }
}

impl Service {
    /// A reader for one request body, comparing it with the catalogs held
    /// now.
    pub fn body_reader(&self, capacity: usize) -> BodyReader {
        let candidates: Vec<Parsed> = lock(&self.parsed).iter().map(|(p, _)| p.clone()).collect();
        BodyReader::new(candidates, capacity)
    }
}

impl BodyReader {
    /// `capacity`: room kept at once for a body that is not recognised
    /// (its declared length, bounded by the caller).
    pub(super) fn new(candidates: Vec<Parsed>, capacity: usize) -> BodyReader {
        let phase = if candidates.is_empty() {
            Phase::Whole
        } else {
            Phase::Head
        };
        let mut kept = Vec::new();
        if matches!(phase, Phase::Whole) {
            kept.reserve(capacity);
        }
        BodyReader {
            kept,
            phase,
            candidates,
            value_start: 0,
            seen: 0,
            capacity,
            head_looks: 0,
        }
    }

    /// Bytes of the body seen in all.
    pub fn seen(&self) -> usize {
        self.seen
    }

    /// The next bytes of the body.
    pub fn push(&mut self, chunk: &[u8]) {
        if chunk.is_empty() {
            return;
        }
        self.seen = self.seen.saturating_add(chunk.len());
        let mut chunk = chunk;
        loop {
            match self.phase {
                Phase::Whole | Phase::Recognised => {
                    self.kept.extend_from_slice(chunk);
                    return;
                }
                Phase::Head => {
                    // The members before `tools` are looked through a
                    // few times at most, so a body sent a byte at a time
                    // costs no more than one sent whole.
                    self.head_looks += 1;
                    if self.head_looks > HEAD_LOOKS {
                        self.keep_whole();
                        continue;
                    }
                    // The start is looked for in the chunk itself while
                    // nothing is kept (the usual case: `{"tools":` in the
                    // first chunk, however long that chunk is), so only
                    // the bytes before the value are copied.
                    let found = if self.kept.is_empty() {
                        crate::wire::tools_value_start(chunk)
                            .filter(|&start| start < chunk.len() && start <= HEAD_LIMIT)
                            .inspect(|&start| self.kept.extend_from_slice(&chunk[..start]))
                    } else {
                        // A start split over chunks: gathered up to the
                        // limit.
                        let before = self.kept.len();
                        let take = chunk.len().min(HEAD_LIMIT.saturating_sub(before));
                        self.kept.extend_from_slice(&chunk[..take]);
                        let found = crate::wire::tools_value_start(&self.kept)
                            .filter(|&start| start < self.kept.len())
                            .map(|start| {
                                self.kept.truncate(start);
                                start - before
                            });
                        if found.is_none() && take < chunk.len() {
                            self.keep_whole();
                            chunk = &chunk[take..];
                            continue;
                        }
                        found
                    };
                    match found {
                        // At least the value's first byte is here (white
                        // space may still come before it otherwise).
                        Some(offset) => {
                            chunk = &chunk[offset..];
                            self.value_start = self.kept.len();
                            self.phase = Phase::Matching { matched: 0 };
                        }
                        None if self.kept.is_empty() && chunk.len() > HEAD_LIMIT => {
                            self.keep_whole();
                        }
                        None => {
                            if self.kept.is_empty() {
                                self.kept.extend_from_slice(chunk);
                            }
                            return;
                        }
                    }
                }
                Phase::Matching { matched } => {
                    chunk = self.compare(matched, chunk);
                    if chunk.is_empty() {
                        return;
                    }
                }
            }
        }
    }

    /// Compares `chunk`, the value's bytes from `matched` on, with the
    /// candidates; what is left of it once the phase changes.
    fn compare<'c>(&mut self, matched: usize, chunk: &'c [u8]) -> &'c [u8] {
        // Every candidate left is equal to the body's first `matched`
        // bytes of the value: any one of them restores them.
        let Some(first) = self.candidates.first().cloned() else {
            self.keep_whole();
            return chunk;
        };
        let mut whole: Option<usize> = None;
        self.candidates.retain(|p| {
            let text = p.text();
            let n = chunk.len().min(text.len() - matched);
            let equal = text[matched..matched + n] == chunk[..n];
            if equal && matched + n == text.len() && whole.is_none() {
                whole = Some(n);
            }
            equal
        });
        if let Some(n) = whole {
            // One complete JSON value is never the start of another, so
            // the candidate whose text ended here is the only one left.
            self.candidates.retain(|p| p.text().len() == matched + n);
            self.candidates.truncate(1);
            self.kept.extend_from_slice(b"[]");
            self.phase = Phase::Recognised;
            return &chunk[n..];
        }
        match self.candidates.first() {
            Some(_) => {
                self.phase = Phase::Matching {
                    matched: matched + chunk.len(),
                };
                &[]
            }
            None => {
                // No catalog held is the value: the body is kept whole
                // from here on.
                self.keep_whole();
                self.kept.extend_from_slice(&first.text()[..matched]);
                chunk
            }
        }
    }

    fn keep_whole(&mut self) {
        self.phase = Phase::Whole;
        self.kept
            .reserve(self.capacity.saturating_sub(self.kept.len()));
    }

    /// The body read to its end.
    pub fn finish(mut self) -> ReadBody {
        match self.phase {
            Phase::Recognised => {
                let parsed = self.candidates.swap_remove(0);
                ReadBody::Recognised(Recognised {
                    at: self.value_start,
                    rest: self.kept,
                    parsed,
                })
            }
            Phase::Matching { matched } => {
                // The body ended inside the value: restore it.
                if let Some(p) = self.candidates.first() {
                    self.kept.extend_from_slice(&p.text()[..matched]);
                }
                ReadBody::Whole(self.kept)
            }
            Phase::Head | Phase::Whole => ReadBody::Whole(self.kept),
        }
    }
}
