//! A load balancer of the test's own: each connection it accepts goes to
//! the next of its backends in turn, its bytes copied both ways.

use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

pub struct RoundRobin {
    /// `http://127.0.0.1:PORT`
    pub url: String,
    /// Connections sent to each backend so far.
    sent: Arc<Vec<AtomicUsize>>,
}

fn pipe(mut from: TcpStream, mut to: TcpStream) {
    let _ = std::io::copy(&mut from, &mut to);
    let _ = to.shutdown(std::net::Shutdown::Write);
}

impl RoundRobin {
    /// In front of `backends` (`http://HOST:PORT` each).
    pub fn start(backends: &[&str]) -> RoundRobin {
        let addrs: Vec<String> = backends
            .iter()
            .map(|b| b.trim_start_matches("http://").to_string())
            .collect();
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let sent: Arc<Vec<AtomicUsize>> =
            Arc::new(addrs.iter().map(|_| AtomicUsize::new(0)).collect());
        let counts = sent.clone();
        std::thread::spawn(move || {
            let mut next = 0;
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                let i = next % addrs.len();
                next += 1;
                let Ok(backend) = TcpStream::connect(&addrs[i]) else {
                    continue;
                };
                counts[i].fetch_add(1, Ordering::Relaxed);
                let (c2, b2) = (client.try_clone().unwrap(), backend.try_clone().unwrap());
                std::thread::spawn(move || pipe(client, backend));
                std::thread::spawn(move || pipe(b2, c2));
            }
        });
        RoundRobin { url, sent }
    }

    /// Connections each backend was given.
    pub fn sent(&self) -> Vec<usize> {
        self.sent
            .iter()
            .map(|n| n.load(Ordering::Relaxed))
            .collect()
    }
}
