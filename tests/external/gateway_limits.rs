//! `toolsift gateway` at its limits: connections that only asked
//! `/healthz` keep no client with a key out.

use crate::common::held_open;
use crate::gateway::{HttpGateway, get};
use crate::gateway_faults::fake_stdio;
use crate::mcp_support::*;

use std::net::TcpStream;
use std::process::Command;
use std::time::Duration;

/// The gateway's soft limit on open files set to `n` (it keeps half of
/// them for connections).
fn open_files(command: &mut Command, n: u64) {
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec, getrlimit and setrlimit alone (both
    // async-signal-safe).
    unsafe {
        command.pre_exec(move || {
            let mut limit = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            limit.rlim_cur = n.min(limit.rlim_max);
            if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Every place taken by kept-alive connections that asked `/healthz`
/// (which needs no key): a request with the key still gets in, each time
/// in the place of the oldest of them.
#[test]
fn connections_that_only_asked_healthz_do_not_keep_a_keyed_client_out_of_the_gateway() {
    const KEY: &str = "k-places";
    let m = marker("gw-places");
    let mut args = fake_stdio("paged", &m, &["--pages", "1", "--per-page", "2"]);
    args.extend(["--api-key-env".into(), "GW_PLACES_KEY".into()]);
    // 48 open files: 24 places for connections.
    let gw = HttpGateway::start_prepared(&args, &[("GW_PLACES_KEY", KEY)], |c| open_files(c, 48));
    let base = gw.base();
    let addr = base.trim_start_matches("http://");
    let health = b"GET /healthz HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n";
    let _idle: Vec<TcpStream> = (0..24).map(|_| held_open(addr, health)).collect();
    for _ in 0..3 {
        let (status, body) = get(&format!("{base}/metrics"), Some(KEY));
        assert_eq!(status, 200, "{body}");
    }
    drop(gw);
    assert_gone(&m, Duration::from_secs(10));
}
