//! A real Redis Cluster for a test: six `redis-server --cluster-enabled yes`
//! on free loopback ports, joined by `redis-cli --cluster create` as three
//! primaries with a replica each; a one-second node timeout, so a killed
//! primary's replica takes over within seconds. Stopped when dropped.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::redis::{free_port, program};

pub struct RedisCluster {
    nodes: Vec<(u16, Option<Child>)>,
    dir: PathBuf,
}

fn cli(port: u16, args: &[&str]) -> Option<String> {
    let out = Command::new("redis-cli")
        .args(["-p", &port.to_string()])
        .args(args)
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

impl RedisCluster {
    pub fn start() -> RedisCluster {
        let dir = std::env::temp_dir().join(format!(
            "toolsift-redis-cluster-{}-{}",
            std::process::id(),
            free_port()
        ));
        let program = program();
        let mut nodes = Vec::new();
        for _ in 0..6 {
            let port = free_port();
            let node_dir = dir.join(port.to_string());
            std::fs::create_dir_all(&node_dir).unwrap();
            let child = Command::new(&program)
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
                .args(["--save", "", "--appendonly", "no", "--protected-mode", "no"])
                .args(["--cluster-enabled", "yes", "--cluster-node-timeout", "1000"])
                .args(["--cluster-config-file", "nodes.conf"])
                .args(["--repl-diskless-sync-delay", "0"])
                .arg("--dir")
                .arg(&node_dir)
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("start redis-server");
            nodes.push((port, Some(child)));
        }
        let cluster = RedisCluster { nodes, dir };
        for (port, _) in &cluster.nodes {
            cluster.wait(&format!("node {port} answers"), || {
                cli(*port, &["PING"]).is_some_and(|s| s.trim() == "PONG")
            });
        }
        let addrs: Vec<String> = cluster
            .nodes
            .iter()
            .map(|(p, _)| format!("127.0.0.1:{p}"))
            .collect();
        let out = Command::new("redis-cli")
            .arg("--cluster")
            .arg("create")
            .args(&addrs)
            .args(["--cluster-replicas", "1", "--cluster-yes"])
            .output()
            .expect("run redis-cli --cluster create");
        assert!(out.status.success(), "redis-cli --cluster create: {out:?}");
        cluster.wait_ok();
        // A replica that has not synced cannot take over: a test that
        // kills a primary needs every replica in sync first.
        cluster.wait("has three replicas in sync", || {
            let ports: Vec<u16> = cluster.running().collect();
            ports
                .iter()
                .filter(|p| {
                    cli(**p, &["INFO", "replication"]).is_some_and(|s| {
                        s.contains("role:slave") && s.contains("master_link_status:up")
                    })
                })
                .count()
                == 3
        });
        cluster
    }

    /// `redis+cluster://127.0.0.1:P1,127.0.0.1:P2,…` (every node).
    pub fn spec(&self) -> String {
        let hosts: Vec<String> = self
            .nodes
            .iter()
            .map(|(p, _)| format!("127.0.0.1:{p}"))
            .collect();
        format!("redis+cluster://{}", hosts.join(","))
    }

    fn wait(&self, what: &str, mut done: impl FnMut() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !done() {
            assert!(Instant::now() < deadline, "the cluster never: {what}");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn running(&self) -> impl Iterator<Item = u16> + '_ {
        self.nodes
            .iter()
            .filter(|(_, c)| c.is_some())
            .map(|(p, _)| *p)
    }

    /// Until every running node says the cluster is ok and knows three
    /// serving primaries.
    pub fn wait_ok(&self) {
        let ports: Vec<u16> = self.running().collect();
        self.wait("is ok with three primaries", || {
            ports.iter().all(|p| {
                cli(*p, &["CLUSTER", "INFO"]).is_some_and(|s| s.contains("cluster_state:ok"))
            }) && self.primaries().len() == 3
        });
    }

    /// The ports of the running primaries.
    pub fn primaries(&self) -> Vec<u16> {
        let Some(port) = self.running().next() else {
            return Vec::new();
        };
        let nodes = cli(port, &["CLUSTER", "NODES"]).unwrap_or_default();
        nodes
            .lines()
            .filter(|l| l.contains("master") && !l.contains("fail"))
            .filter_map(|l| {
                let addr = l.split_whitespace().nth(1)?;
                addr.split(['@', ':']).nth(1)?.parse().ok()
            })
            .collect()
    }

    /// The number of keys matching `pattern` on the node at `port`.
    pub fn keys_on(&self, port: u16, pattern: &str) -> usize {
        cli(port, &["--scan", "--pattern", pattern])
            .unwrap_or_default()
            .lines()
            .count()
    }

    /// Kills the node at `port` (SIGKILL: nothing it had not replicated
    /// survives it).
    pub fn kill(&mut self, port: u16) {
        for (p, child) in &mut self.nodes {
            if *p == port
                && let Some(mut c) = child.take()
            {
                let _ = c.kill();
                let _ = c.wait();
            }
        }
    }
}

impl Drop for RedisCluster {
    fn drop(&mut self) {
        for (_, child) in &mut self.nodes {
            if let Some(mut c) = child.take() {
                let _ = c.kill();
                let _ = c.wait();
            }
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
