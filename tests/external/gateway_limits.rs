//! `toolsift gateway` at its limits: a server that lists more tools than
//! one server may is refused alone, the others searched and called; and
//! connections that only asked `/healthz` keep no client with a key out.

use crate::common::held_open;
use crate::gateway::{HttpGateway, call, found, get, host, search};
use crate::gateway_faults::{fake_stdio, time_stdio};
use crate::mcp_support::*;

use std::net::TcpStream;
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

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

/// A server that lists 16,000 tools in four pages next to mcp-server-time:
/// the big one is refused once past 10,000 (its last page never read) and
/// says so in its state; the time server's tools are found and called.
#[test]
fn a_server_listing_too_many_tools_is_refused_alone_and_the_others_serve() {
    let m = marker("gw-too-many");
    let mut args = fake_stdio("paged", &m, &["--pages", "4", "--per-page", "4000"]);
    args.extend(time_stdio());
    let gw = HttpGateway::start(&args, &[]);
    let (status, health) = get(&format!("{}/healthz", gw.base()), None);
    assert_eq!(status, 200, "{health}");
    let health: Value = serde_json::from_str(&health).unwrap();
    let servers = health["servers"].as_array().unwrap();
    let state = |word: &str| {
        servers
            .iter()
            .find(|s| s["state"] == word)
            .unwrap_or_else(|| panic!("no {word} server: {health}"))
    };
    let refused = state("failed")["error"].as_str().unwrap();
    assert!(
        refused.contains("it lists more than 10,000 tools (12,000 in the pages read"),
        "{refused}"
    );
    assert!(
        refused.contains("toolsift takes at most 10,000 from one server"),
        "{refused}"
    );
    assert_eq!(state("loaded")["tools"], 2, "{health}");
    assert_eq!(health["tools"], 2, "{health}");
    let steps = json!([
        search("the current time in a timezone"),
        call("get_current_time", json!({"timezone": "Asia/Tokyo"})),
    ]);
    let doc = host(&["--url", &gw.url], "legacy", &steps, 1);
    let r = doc["sessions"][0].as_array().unwrap();
    assert!(
        found(&r[0]).contains(&"get_current_time".to_string()),
        "{}",
        r[0]
    );
    assert_eq!(r[1]["isError"], false, "{}", r[1]);
    assert_eq!(
        r[1]["structuredContent"]["timezone"], "Asia/Tokyo",
        "{}",
        r[1]
    );
    drop(gw);
    assert_gone(&m, Duration::from_secs(10));
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
