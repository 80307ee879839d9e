//! The login's two ends on this machine: the authorization page opened in
//! the user's browser once (or its address printed when there is no
//! browser), and a loopback listener the page's answer comes back to.
//! Only an answer that carries the login's own `state` is taken; any other
//! request gets a 400 and the wait goes on.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::RawQuery;
use axum::http::StatusCode;
use axum::response::Html;
use rmcp::transport::auth::AuthorizationCallback;
use tokio::net::TcpListener;

use super::LoginError;

/// The path the answer comes back to.
pub(super) const CALLBACK_PATH: &str = "/callback";

/// A bound loopback listener.
pub(super) struct Callback {
    listener: TcpListener,
    port: u16,
}

/// The answer, or why the login was refused.
type Answer = Result<AuthorizationCallback, LoginError>;

impl Callback {
    /// Binds 127.0.0.1 on `port`, else any free port.
    pub(super) async fn bind(port: Option<u16>) -> Result<Callback, LoginError> {
        let listener = TcpListener::bind(("127.0.0.1", port.unwrap_or(0)))
            .await
            .map_err(|e| LoginError::Callback(format!(
                "cannot listen on 127.0.0.1:{} for the login's answer: {e}",
                port.unwrap_or(0)
            )))?;
        let port = listener
            .local_addr()
            .map_err(|e| LoginError::Callback(e.to_string()))?
            .port();
        Ok(Callback { listener, port })
    }

    /// The redirect URI the authorization server sends the browser to.
    pub(super) fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}{CALLBACK_PATH}", self.port)
    }

    /// Waits up to `limit` for the answer carrying `state`.
    pub(super) async fn wait(self, state: String, limit: Duration) -> Answer {
        let (tx, rx) = tokio::sync::oneshot::channel::<Answer>();
        let tx = Arc::new(Mutex::new(Some(tx)));
        let redirect = self.redirect_uri();
        let app = axum::Router::new().route(
            CALLBACK_PATH,
            axum::routing::get(move |RawQuery(query): RawQuery| {
                let tx = tx.clone();
                let redirect = redirect.clone();
                let state = state.clone();
                async move { answer(query.unwrap_or_default(), &redirect, &state, &tx) }
            }),
        );
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let server = tokio::spawn(async move {
            let _ = axum::serve(self.listener, app)
                .with_graceful_shutdown(async {
                    let _ = stop_rx.await;
                })
                .await;
        });
        let got = tokio::time::timeout(limit, rx).await;
        // The page's answer is sent before the listener goes.
        tokio::time::sleep(Duration::from_millis(50)).await;
        let _ = stop_tx.send(());
        let _ = server.await;
        match got {
            Ok(Ok(answer)) => answer,
            Ok(Err(_)) => Err(LoginError::Callback("the listener stopped".into())),
            Err(_) => Err(LoginError::TimedOut(limit.as_secs())),
        }
    }
}

fn answer(
    query: String,
    redirect: &str,
    state: &str,
    tx: &Mutex<Option<tokio::sync::oneshot::Sender<Answer>>>,
) -> (StatusCode, Html<&'static str>) {
    let pairs: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect();
    let get = |k: &str| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    if get("state").as_deref() != Some(state) {
        return (StatusCode::BAD_REQUEST, Html(STRAY));
    }
    let result = match get("error") {
        Some(error) => Err(LoginError::Refused {
            error,
            description: get("error_description").unwrap_or_default(),
        }),
        None => AuthorizationCallback::from_redirect_url(&format!("{redirect}?{query}"))
            .map_err(|e| LoginError::Callback(super::plain(&e.to_string()))),
    };
    let page = if result.is_ok() { DONE } else { REFUSED };
    if let Some(tx) = crate::lock::lock(tx).take() {
        let _ = tx.send(result);
    }
    (StatusCode::OK, Html(page))
}

const DONE: &str = "<!doctype html><meta charset=utf-8><title>toolsift</title><p>Logged in. You can close this tab and go back to toolsift.";
const REFUSED: &str = "<!doctype html><meta charset=utf-8><title>toolsift</title><p>The login did not complete; toolsift says why.";
const STRAY: &str = "<!doctype html><meta charset=utf-8><title>toolsift</title><p>This is not the answer toolsift waits for.";

/// How the page was put before the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shown {
    /// Opened in the browser (`$BROWSER`, else the desktop's).
    Browser,
    /// There is no browser to open it: the address was said instead.
    Printed,
}

/// Whether `TOOLSIFT_NO_BROWSER` keeps toolsift from opening a browser.
pub fn no_browser() -> bool {
    std::env::var_os("TOOLSIFT_NO_BROWSER").is_some_and(|v| !v.is_empty() && v != "0")
}

/// Why `endpoint` (an authorization server's login page) is not one to
/// open: only `https`, or `http` on a loopback host (127.0.0.0/8, ::1,
/// `localhost`), is; a `file:`, `javascript:` or an application's scheme
/// would have the browser (or the desktop) run what the server chose.
pub(super) fn unsafe_page(endpoint: &str) -> Option<&'static str> {
    let Ok(url) = url::Url::parse(endpoint) else {
        return Some("it is not a URL");
    };
    let loopback = match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    match url.scheme() {
        "https" if url.host().is_some() => None,
        "http" if loopback => None,
        "http" => Some("it is http on a host that is not this machine (only https is, or http on a loopback host)"),
        _ => Some("only an https address (or http on a loopback host) is opened"),
    }
}

/// Opens `url` in the user's browser; `Printed` when none opens
/// (`TOOLSIFT_NO_BROWSER=1` never tries), or the address is not one to
/// open ([`unsafe_page`]).
pub(super) fn show(url: &str) -> Shown {
    if no_browser() || unsafe_page(url).is_some() {
        return Shown::Printed;
    }
    let options = {
        let mut o = webbrowser::BrowserOptions::new();
        o.with_suppress_output(true);
        o
    };
    match webbrowser::open_browser_with_options(webbrowser::Browser::Default, url, &options) {
        Ok(()) => Shown::Browser,
        Err(_) => Shown::Printed,
    }
}

/// The `state` the authorization URL carries.
pub(super) fn state_of(url: &str) -> Option<String> {
    url::Url::parse(url)
        .ok()?
        .query_pairs()
        .find(|(k, _)| k == "state")
        .map(|(_, v)| v.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn get(url: String) -> u16 {
        crate::http::client::builder()
            .build()
            .unwrap()
            .get(url)
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    }

    #[tokio::test]
    async fn only_the_answer_with_the_login_s_state_is_taken() {
        let callback = Callback::bind(None).await.unwrap();
        let redirect = callback.redirect_uri();
        assert!(redirect.starts_with("http://127.0.0.1:") && redirect.ends_with("/callback"));
        let waiting = tokio::spawn(callback.wait("s1".into(), Duration::from_secs(10)));
        // A stray request (another state, none) is refused; the wait goes on.
        assert_eq!(get(format!("{redirect}?code=x&state=other")).await, 400);
        assert_eq!(get(format!("{redirect}?code=x")).await, 400);
        assert_eq!(get(format!("{redirect}?code=c1&state=s1")).await, 200);
        let answer = waiting.await.unwrap().unwrap();
        assert_eq!(answer.code, "c1");
        assert_eq!(answer.csrf_token, "s1");
    }

    #[tokio::test]
    async fn a_refusal_is_said_with_the_server_s_reason_and_no_answer_in_time_too() {
        let callback = Callback::bind(None).await.unwrap();
        let redirect = callback.redirect_uri();
        let waiting = tokio::spawn(callback.wait("s2".into(), Duration::from_secs(10)));
        get(format!("{redirect}?error=access_denied&error_description=the+user+said+no&state=s2")).await;
        let refused = waiting.await.unwrap().unwrap_err();
        assert_eq!(
            refused.to_string(),
            "the authorization server refused the login: access_denied (the user said no)"
        );
        let quiet = Callback::bind(None).await.unwrap();
        let timed_out = quiet.wait("s3".into(), Duration::from_millis(200)).await.unwrap_err();
        assert_eq!(timed_out, LoginError::TimedOut(0));
    }

    #[test]
    fn only_an_https_page_or_http_on_this_machine_is_opened() {
        for ok in [
            "https://auth.example/authorize",
            "http://127.0.0.1:8080/authorize",
            "http://127.9.9.9/authorize",
            "http://[::1]:9/authorize",
            "http://localhost:9/authorize",
        ] {
            assert_eq!(unsafe_page(ok), None, "{ok}");
        }
        for bad in [
            "file:///etc/passwd",
            "javascript:alert(1)",
            "vscode://ext/run?x=1",
            "http://auth.example/authorize",
            "http://10.0.0.1/authorize",
            "ftp://auth.example/",
            "not a url",
        ] {
            assert!(unsafe_page(bad).is_some(), "{bad}");
            assert_eq!(show(bad), Shown::Printed, "{bad}");
        }
    }
}
