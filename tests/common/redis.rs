//! A real `redis-server` for a test: its own free loopback port, a temp
//! directory, no persistence; stopped when dropped. Missing `redis-server`
//! fails the test (it never skips), naming the setup script.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Redis {
    child: Option<Child>,
    pub port: u16,
    dir: PathBuf,
    /// `--replicaof 127.0.0.1 PORT`: a replica of that server.
    primary: Option<u16>,
}

pub fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

pub fn program() -> String {
    let p = std::env::var("TOOLSIFT_REDIS_SERVER").unwrap_or_else(|_| "redis-server".into());
    let found = Command::new(&p)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        found,
        "{p} is missing: the shared-session tests need a real Redis. Run \
         `scripts/setup-test-deps.sh` as root (it installs the Debian package \
         redis-server; `bash .ci/run` does this too), or install redis-server \
         (or valkey-server and set TOOLSIFT_REDIS_SERVER to it)."
    );
    p
}

impl Redis {
    pub fn start() -> Redis {
        Redis::start_with(None)
    }

    /// A replica of `primary`, started once it answers PING (it may still
    /// be syncing: see [`Redis::replicas_online`]).
    pub fn replica_of(primary: &Redis) -> Redis {
        Redis::start_with(Some(primary.port))
    }

    /// The replicas `INFO replication` says are online.
    pub fn replicas_online(&self) -> usize {
        self.cli(&["info", "replication"])
            .lines()
            .filter(|l| l.starts_with("slave") && l.contains("state=online"))
            .count()
    }

    fn start_with(primary: Option<u16>) -> Redis {
        use std::sync::atomic::{AtomicU32, Ordering};
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "toolsift-redis-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let mut r = Redis {
            child: None,
            port: free_port(),
            dir,
            primary,
        };
        r.restart();
        r
    }

    /// `redis://127.0.0.1:PORT/0`
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    /// Starts the server (again, on the same port) and waits until it
    /// answers PING.
    pub fn restart(&mut self) {
        let mut cmd = Command::new(program());
        cmd.args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no", "--protected-mode", "no"]);
        if let Some(p) = self.primary {
            cmd.args(["--replicaof", "127.0.0.1", &p.to_string()]);
        }
        let child = cmd
            .arg("--dir")
            .arg(&self.dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start redis-server");
        self.child = Some(child);
        let deadline = Instant::now() + Duration::from_secs(20);
        while !self.pings() {
            assert!(
                Instant::now() < deadline,
                "redis-server did not start on port {}",
                self.port
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn pings(&self) -> bool {
        let Ok(mut s) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = s.set_read_timeout(Some(Duration::from_secs(2)));
        let mut buf = [0u8; 7];
        s.write_all(b"PING\r\n").is_ok() && s.read_exact(&mut buf).is_ok() && &buf == b"+PONG\r\n"
    }

    /// What `redis-cli -p PORT ARGS...` prints.
    pub fn cli(&self, args: &[&str]) -> String {
        let out = Command::new("redis-cli")
            .args(["-p", &self.port.to_string()])
            .args(args)
            .output()
            .expect("run redis-cli (it comes with redis-server)");
        assert!(out.status.success(), "redis-cli {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Stops the server and waits until it is gone.
    pub fn stop(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
