//! `toolsift demo --record FILE`: the tour written as an asciicast v2 file
//! (what asciinema records and every asciinema player plays), with no
//! terminal behind it.
//!
//! The explorer draws through crossterm's backend as it does on a terminal,
//! into [`Cast`], which writes each flush of the ANSI stream as one output
//! event, stamped with the time since the recording began; [`Recording`]
//! gives the loop the size asked for instead of asking a terminal.

use std::io::{self, Write};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use ratatui::backend::{Backend, ClearType, CrosstermBackend, WindowSize};
use ratatui::buffer::Cell;
use ratatui::layout::{Position, Size};

/// An asciicast v2 stream: a header line, then `[time, "o", data]` lines.
pub struct Cast<W: Write> {
    out: W,
    start: Instant,
    /// What was written since the last flush: the next event's data.
    pending: Vec<u8>,
    events: usize,
}

impl<W: Write> Cast<W> {
    /// Writes the header of a `width` x `height` recording titled `title`.
    pub fn new(mut out: W, width: u16, height: u16, title: &str) -> io::Result<Self> {
        let timestamp = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let header = serde_json::json!({
            "version": 2,
            "width": width,
            "height": height,
            "timestamp": timestamp,
            "title": title,
            "env": {"TERM": "xterm-256color"},
        });
        writeln!(out, "{header}")?;
        Ok(Cast {
            out,
            start: Instant::now(),
            pending: Vec::new(),
            events: 0,
        })
    }

    /// How many output events were written.
    pub fn events(&self) -> usize {
        self.events
    }

    /// Seconds since the recording began.
    pub fn elapsed(&self) -> f64 {
        self.start.elapsed().as_secs_f64()
    }

    /// Writes what is pending as an event, and returns the writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.flush()?;
        Ok(self.out)
    }
}

impl<W: Write> Write for Cast<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.pending.extend_from_slice(buf);
        Ok(buf.len())
    }

    /// One event per flush: a frame as the terminal would have received it.
    fn flush(&mut self) -> io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        // Microseconds, as asciinema writes them.
        let time = (self.elapsed() * 1e6).round() / 1e6;
        // A flush ends whole escape sequences and characters: what crossterm
        // writes is UTF-8.
        let data = String::from_utf8_lossy(&self.pending);
        let line = serde_json::to_string(&(time, "o", data)).map_err(io::Error::other)?;
        writeln!(self.out, "{line}")?;
        self.out.flush()?;
        self.pending.clear();
        self.events += 1;
        Ok(())
    }
}

/// Crossterm's backend over a writer, at a size of its own: nothing asks a
/// terminal for its size or its cursor.
pub struct Recording<W: Write> {
    inner: CrosstermBackend<W>,
    size: Size,
    cursor: Position,
}

impl<W: Write> Recording<W> {
    pub fn new(out: W, size: Size) -> Self {
        Recording {
            inner: CrosstermBackend::new(out),
            size,
            cursor: Position::ORIGIN,
        }
    }

    /// Writes raw bytes to the stream (the recording's start and end).
    pub fn write_raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.inner.write_all(bytes)?;
        Write::flush(&mut self.inner)
    }
}

impl<W: Write> Backend for Recording<W> {
    type Error = io::Error;

    fn draw<'a, I>(&mut self, content: I) -> io::Result<()>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        self.inner.draw(content)
    }

    fn hide_cursor(&mut self) -> io::Result<()> {
        self.inner.hide_cursor()
    }

    fn show_cursor(&mut self) -> io::Result<()> {
        self.inner.show_cursor()
    }

    fn get_cursor_position(&mut self) -> io::Result<Position> {
        Ok(self.cursor)
    }

    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> io::Result<()> {
        self.cursor = position.into();
        self.inner.set_cursor_position(self.cursor)
    }

    fn clear(&mut self) -> io::Result<()> {
        self.inner.clear()
    }

    fn clear_region(&mut self, clear_type: ClearType) -> io::Result<()> {
        self.inner.clear_region(clear_type)
    }

    fn size(&self) -> io::Result<Size> {
        Ok(self.size)
    }

    fn window_size(&mut self) -> io::Result<WindowSize> {
        Ok(WindowSize {
            columns_rows: self.size,
            // No pixels behind a recording.
            pixels: Size::ZERO,
        })
    }

    fn flush(&mut self) -> io::Result<()> {
        Backend::flush(&mut self.inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_flush_is_one_event_after_the_header() {
        let mut cast = Cast::new(Vec::new(), 80, 24, "t").unwrap();
        cast.write_all(b"\x1b[1;1Hhello \"").unwrap();
        cast.write_all("wörld".as_bytes()).unwrap();
        cast.flush().unwrap();
        // Nothing pending: no empty event.
        cast.flush().unwrap();
        assert_eq!(cast.events(), 1);
        let out = String::from_utf8(cast.finish().unwrap()).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2, "{out}");
        let header: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
        assert_eq!(header["version"], 2);
        assert_eq!(header["width"], 80);
        assert_eq!(header["height"], 24);
        assert!(header["timestamp"].as_u64().unwrap() > 0);
        let event: (f64, String, String) = serde_json::from_str(lines[1]).unwrap();
        assert!(event.0 >= 0.0);
        assert_eq!(event.1, "o");
        assert_eq!(event.2, "\x1b[1;1Hhello \"wörld");
    }

    #[test]
    fn a_recording_draws_at_its_own_size() {
        let cast = Cast::new(Vec::new(), 100, 30, "t").unwrap();
        let mut terminal =
            ratatui::Terminal::new(Recording::new(cast, Size::new(100, 30))).unwrap();
        let frame = terminal
            .draw(|f| {
                f.render_widget(ratatui::widgets::Paragraph::new("hi"), f.area());
            })
            .unwrap();
        assert_eq!(frame.area, ratatui::layout::Rect::new(0, 0, 100, 30));
    }
}
