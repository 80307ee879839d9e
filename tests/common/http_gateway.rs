//! A real `toolsift gateway` over HTTP on a free port, for the tests that
//! drive one: started with the test's arguments, its stderr kept, its
//! process group stopped when dropped.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The gateway over HTTP on a free port, killed when dropped; its stderr
/// lines collected.
pub struct HttpGateway {
    child: Child,
    pub url: String,
    lines: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl HttpGateway {
    pub fn start(args: &[String], env: &[(&str, &str)]) -> HttpGateway {
        HttpGateway::start_prepared(args, env, |_| {})
    }

    /// [`HttpGateway::start`], its command given to `prepare` first.
    pub fn start_prepared(
        args: &[String],
        env: &[(&str, &str)],
        prepare: impl FnOnce(&mut Command),
    ) -> HttpGateway {
        use std::os::unix::process::CommandExt;
        // Every server listed before the first request, unless the test
        // says how long to wait.
        let wait: &[&str] = if args.iter().any(|a| a == "--start-wait") {
            &[]
        } else {
            &["--start-wait", "60"]
        };
        // A free port, unless the test names one.
        let listen: &[&str] = if args.iter().any(|a| a == "--http") {
            &[]
        } else {
            &["--http", "127.0.0.1:0"]
        };
        let mut command = Command::new(env!("CARGO_BIN_EXE_toolsift"));
        command.env("TOOLSIFT_MODEL", "off");
        command
            .args(["gateway", "--offline", "--mcp-timeout", "60"])
            .args(listen)
            .args(wait)
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0);
        prepare(&mut command);
        let mut child = command.spawn().unwrap();
        let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        let err = child.stderr.take().unwrap();
        let sink = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                if let Some(at) = line.find("listening on ") {
                    let url = line[at + "listening on ".len()..]
                        .split_whitespace()
                        .next()
                        .unwrap_or("")
                        .to_string();
                    let _ = tx.send(url);
                }
                sink.lock().unwrap().push(line);
            }
        });
        let url = rx
            .recv_timeout(Duration::from_secs(120))
            .unwrap_or_else(|_| panic!("the gateway did not listen: {:?}", lines.lock().unwrap()));
        HttpGateway { child, url, lines }
    }

    /// The gateway's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn base(&self) -> String {
        self.url.trim_end_matches("/mcp").to_string()
    }

    /// What the gateway wrote on stderr so far.
    pub fn stderr(&self) -> String {
        self.lines.lock().unwrap().join("\n")
    }
}

impl Drop for HttpGateway {
    fn drop(&mut self) {
        // SAFETY: the group is the one this test started.
        unsafe {
            libc::killpg(self.child.id() as i32, libc::SIGTERM);
        }
        let _ = self.child.wait();
    }
}
