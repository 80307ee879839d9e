//! Sessions in a real three-primary Redis Cluster (started by the test):
//! shared by two instances, and surviving the failover of a primary: one
//! is killed while both instances extend sessions, its replica takes over,
//! traffic resumes, and no session write that was answered is lost (the
//! instances wait for a replica to hold each write).

use crate::common;

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::redis_cluster::RedisCluster;
use common::{Server, names};

const KEY: &str = "k-cluster";
const TOOLS: usize = 64;
const SESSIONS: usize = 30;

/// Sets its flag when dropped.
struct StopOnDrop<'a>(&'a AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

fn serve(cluster: &RedisCluster) -> Server {
    Server::with_sessions(&cluster.spec(), KEY, &["--sessions-wait-replicas", "1"])
}

#[test]
fn sessions_are_shared_and_survive_a_primarys_failover() {
    let mut cluster = RedisCluster::start();
    let a = serve(&cluster);
    let b = serve(&cluster);
    // Sessions begun on a and continued on b: shared.
    let mut ids = Vec::new();
    for s in 0..SESSIONS {
        let (status, _, v) = a.word_search(Some(KEY), TOOLS, s % TOOLS, None);
        assert_eq!(status, 200, "{v}");
        let id = v["session_id"].as_str().unwrap().to_string();
        let (status, _, v) = b.word_search(Some(KEY), TOOLS, (s + 1) % TOOLS, Some(&id));
        assert_eq!(status, 200, "{v}");
        assert_eq!(
            names(&v["session_tools"]),
            [
                format!("tool_{:02}", s % TOOLS),
                format!("tool_{:02}", (s + 1) % TOOLS)
            ]
        );
        ids.push(id);
    }
    let victim = cluster.primaries()[0];
    let on_victim = cluster.keys_on(victim, "toolsift:session:*");
    assert!(on_victim > 0, "no session lives on primary {victim}");
    // What each session was answered for, kept by the callers.
    let acknowledged: Mutex<HashMap<String, Vec<String>>> = Mutex::new(
        ids.iter()
            .enumerate()
            .map(|(s, id)| {
                (
                    id.clone(),
                    vec![
                        format!("tool_{:02}", s % TOOLS),
                        format!("tool_{:02}", (s + 1) % TOOLS),
                    ],
                )
            })
            .collect(),
    );
    let stop = AtomicBool::new(false);
    let failures = Mutex::new(0usize);
    let after_kill_ok = Mutex::new(0usize);
    let killed = AtomicBool::new(false);
    std::thread::scope(|scope| {
        // A failed assertion below stops the callers too (else the scope
        // waits for them for ever).
        let _stop = StopOnDrop(&stop);
        for caller in 0..4 {
            let (a, b, ids) = (&a, &b, &ids);
            let (acknowledged, stop, failures, after_kill_ok, killed) =
                (&acknowledged, &stop, &failures, &after_kill_ok, &killed);
            scope.spawn(move || {
                let mut n = caller;
                while !stop.load(Ordering::Relaxed) {
                    let s = n % SESSIONS;
                    let tool = (s + 2 + n / SESSIONS) % TOOLS;
                    let srv = if n % 2 == 0 { a } else { b };
                    let after = killed.load(Ordering::Relaxed);
                    let (status, _, v) = srv.word_search(Some(KEY), TOOLS, tool, Some(&ids[s]));
                    if status == 200 {
                        acknowledged
                            .lock()
                            .unwrap()
                            .get_mut(&ids[s])
                            .unwrap()
                            .push(format!("tool_{tool:02}"));
                        if after {
                            *after_kill_ok.lock().unwrap() += 1;
                        }
                    } else {
                        // Only the store's 503 while the cluster fails over.
                        assert_eq!(status, 503, "{v}");
                        assert_eq!(v["error"]["code"], "session_store_unavailable", "{v}");
                        *failures.lock().unwrap() += 1;
                    }
                    n += 4;
                }
            });
        }
        std::thread::sleep(Duration::from_secs(2));
        cluster.kill(victim);
        killed.store(true, Ordering::Relaxed);
        cluster.wait_ok();
        // Traffic resumes: answered searches after the failover.
        let deadline = Instant::now() + Duration::from_secs(60);
        while *after_kill_ok.lock().unwrap() < 100 {
            assert!(Instant::now() < deadline, "traffic did not resume");
            std::thread::sleep(Duration::from_millis(100));
        }
        stop.store(true, Ordering::Relaxed);
    });
    assert!(!cluster.primaries().contains(&victim));
    // Nothing answered is lost: every session holds every tool it was
    // answered for, read through either instance.
    let acknowledged = acknowledged.into_inner().unwrap();
    for (s, id) in ids.iter().enumerate() {
        let srv = if s % 2 == 0 { &a } else { &b };
        let (status, _, v) = srv.word_search(Some(KEY), TOOLS, s % TOOLS, Some(id));
        assert_eq!(status, 200, "{v}");
        let held = names(&v["session_tools"]);
        for tool in &acknowledged[id] {
            assert!(
                held.contains(tool),
                "session {s} lost {tool}: holds {held:?}"
            );
        }
    }
    // The promoted replica has no replica of its own: its writes were not
    // waited on (each would have waited 500 ms on the shared connection).
    let skipped: f64 = [&a, &b]
        .iter()
        .map(|s| s.metric(Some(KEY), "toolsift_session_replica_waits_skipped_total"))
        .sum();
    assert!(
        skipped > 0.0,
        "no write skipped its wait after the failover"
    );
    eprintln!(
        "failover: {} searches refused while it ran; every answered write kept; {skipped} writes to the promoted primary not waited on",
        failures.into_inner().unwrap()
    );
}
