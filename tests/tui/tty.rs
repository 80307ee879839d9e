//! The real binary in a real pseudo-terminal ([`Tty`]): spawned at a size,
//! typed at, its screen read as a user sees it, and killed when dropped.

use std::io::{Read, Write};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};

const COLS: u16 = 120;
const ROWS: u16 = 35;

pub(crate) struct Tty {
    child: Box<dyn Child + Send + Sync>,
    writer: Box<dyn Write + Send>,
    screen: Arc<Mutex<vt100::Parser>>,
    pub(crate) raw: Arc<Mutex<Vec<u8>>>,
    _master: Box<dyn MasterPty + Send>,
    config_dir: std::path::PathBuf,
}

impl Tty {
    pub(crate) fn spawn(args: &[&str]) -> Tty {
        Tty::spawn_with(args, &[])
    }

    pub(crate) fn spawn_with(args: &[&str], envs: &[(&str, &str)]) -> Tty {
        Tty::spawn_sized(args, envs, COLS, ROWS)
    }

    /// The binary in a terminal of `cols` x `rows` (`spawn_with` is 120x35).
    pub(crate) fn spawn_sized(args: &[&str], envs: &[(&str, &str)], cols: u16, rows: u16) -> Tty {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("open a pty");
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_toolsift"));
        cmd.args(args);
        cmd.env("TERM", "xterm-256color");
        // No user config from the machine running the tests.
        let config_dir = std::env::temp_dir().join(format!(
            "toolsift-e2e-{}-{cols}x{rows}-{}",
            std::process::id(),
            args.join("_").replace(['/', '@'], "")
        ));
        std::fs::create_dir_all(&config_dir).unwrap();
        cmd.env("XDG_CONFIG_HOME", &config_dir);
        cmd.env_remove("TOOLSIFT_CONFIG");
        // No remote service from the machine running the tests.
        cmd.env_remove("CAVE_BASE_URL");
        cmd.env_remove("CAVE_API_KEY");
        // No embedding model from the machine's hub cache (the explorer
        // ranks with hybrid when it holds the default model).
        cmd.env("HF_HOME", config_dir.join("no-hub"));
        cmd.env("TOOLSIFT_OFFLINE", "1");
        // Nor the model built in: these tests rank with BM25F, as they say
        // (first_run.rs runs the explorer as shipped).
        cmd.env("TOOLSIFT_MODEL", "off");
        cmd.env_remove("TOOLSIFT_EMBEDDINGS_LOCAL");
        cmd.env_remove("TOOLSIFT_EMBEDDINGS_URL");
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let child = pair.slave.spawn_command(cmd).expect("spawn toolsift");
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().unwrap();
        let writer = pair.master.take_writer().unwrap();
        let screen = Arc::new(Mutex::new(vt100::Parser::new(
            std::num::NonZeroU16::new(rows).unwrap(),
            std::num::NonZeroU16::new(cols).unwrap(),
            0,
        )));
        let raw = Arc::new(Mutex::new(Vec::new()));
        let (s, r) = (screen.clone(), raw.clone());
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            loop {
                match reader.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        s.lock().unwrap().process(&buf[..n]);
                        r.lock().unwrap().extend_from_slice(&buf[..n]);
                    }
                }
            }
        });
        Tty {
            child,
            writer,
            screen,
            raw,
            _master: pair.master,
            config_dir,
        }
    }

    pub(crate) fn contents(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    /// Waits (at most 15 s) until the screen shows `needle`.
    pub(crate) fn wait_for(&mut self, needle: &str) {
        let deadline = Instant::now() + Duration::from_secs(15);
        while Instant::now() < deadline {
            if self.contents().contains(needle) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let screen = self.contents();
        let _ = self.child.kill();
        panic!("timed out waiting for {needle:?}; the screen was:\n{screen}");
    }

    pub(crate) fn wait_gone(&mut self, needle: &str) {
        let deadline = Instant::now() + Duration::from_secs(15);
        while Instant::now() < deadline {
            if !self.contents().contains(needle) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        panic!("{needle:?} did not go away");
    }

    pub(crate) fn send(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).unwrap();
        self.writer.flush().unwrap();
        // Let one key's frame land before the next key, as a person would.
        std::thread::sleep(Duration::from_millis(15));
    }

    pub(crate) fn wait_exit(&mut self) -> portable_pty::ExitStatus {
        let deadline = Instant::now() + Duration::from_secs(15);
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                // Let the reader take the last bytes.
                std::thread::sleep(Duration::from_millis(100));
                return status;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        panic!(
            "toolsift did not exit; the screen was:\n{}",
            self.contents()
        );
    }
}

impl Drop for Tty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = std::fs::remove_dir_all(&self.config_dir);
    }
}
