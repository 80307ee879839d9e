//! Connections: the accept loop, and what bounds each connection.
//!
//! hyper speaks HTTP/1.1 on each accepted socket; this module decides how
//! long a socket may hold the server and how many may:
//!
//! - a request head must arrive whole within `head_timeout` of its first
//!   byte (408, then closed);
//! - a kept-alive connection with no request may idle `idle_timeout`;
//! - at most `max_connections` are open at once; one more takes the place
//!   of the oldest connection holding no request that no answer marked
//!   [`super::Proven`] (its key checked: `unproven.rs`), else is answered
//!   503 `too_many_connections` and closed;
//! - on shutdown no new connection is accepted, idle connections and half-sent
//!   heads are closed at once, a head already whole in the socket is still
//!   served, requests in flight finish (answered with `connection: close`),
//!   and after `shutdown_grace` whatever is left is dropped.
//!
//! hyper answers a request it cannot parse by itself (400, 414, 431) with an
//! empty body; [`Guarded`] rewrites that answer into the service's JSON
//! error, so every answer the server gives is JSON.

use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::header::CONNECTION;
use axum::http::{HeaderValue, Request, Response};
use hyper::body::{Body as HttpBody, Frame, Incoming, SizeHint};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};
use tokio::time::{Instant, Sleep};

use super::answers::{json_answer, protocol_error, refuse};

/// The bounds of every connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnLimits {
    /// From a head's first byte to its end.
    pub head_timeout: Duration,
    /// A kept-alive connection with no request.
    pub idle_timeout: Duration,
    /// Connections open at once.
    pub max_connections: usize,
    /// How long shutdown waits for requests in flight.
    pub shutdown_grace: Duration,
}

/// The default head limit.
pub const DEFAULT_HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// The default keep-alive idle limit.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// The default wait for requests in flight at shutdown.
pub const DEFAULT_SHUTDOWN_GRACE: Duration = Duration::from_secs(30);

impl Default for ConnLimits {
    fn default() -> Self {
        ConnLimits {
            head_timeout: DEFAULT_HEAD_TIMEOUT,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            max_connections: default_max_connections(),
            shutdown_grace: DEFAULT_SHUTDOWN_GRACE,
        }
    }
}

/// Half the process's open-file limit (the other half is left for upstream
/// calls, the session store and the files a process needs), between 16 and
/// 4,096.
pub fn default_max_connections() -> usize {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the struct it is given and nothing else.
    let soft = if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0 {
        usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX)
    } else {
        1024
    };
    (soft / 2).clamp(16, 4096)
}

/// Answers given while refusing a connection at once: bounded, so a flood of
/// refused connections cannot pile up tasks.
const MAX_REFUSING: usize = 64;

/// How long a connection waits for the place of one it had closed.
const EVICTION_WAIT: Duration = Duration::from_secs(1);

/// Serves `router` on `listener` until `shutdown` resolves, within
/// `limits`; messages on stderr begin `who: ` (`toolsift serve`).
pub async fn serve_as(
    who: &str,
    listener: TcpListener,
    router: Router,
    limits: ConnLimits,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let (stop, stopped) = watch::channel(false);
    let places = Places::new(router, limits, stopped);
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            biased;
            () = &mut shutdown => break,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok((stream, _)) => places.take(stream),
            Err(e) => {
                // Out of file descriptors, or a connection gone before it was
                // accepted: wait a little rather than spin.
                if !matches!(
                    e.kind(),
                    io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset
                ) {
                    eprintln!("{who}: accepting a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }
    drop(listener);
    // Said once every connection can see it: an answer from here on
    // closes its connection.
    let _ = stop.send(true);
    places.drain(who).await;
    Ok(())
}

/// The connections' places: at most `max` open, the oldest a key never
/// proved giving its place when full, a bounded few refused at once.
struct Places {
    max: usize,
    open: Arc<Semaphore>,
    unproven: Arc<super::unproven::Unproven<ConnState>>,
    refusing: Arc<Semaphore>,
    router: Router,
    limits: ConnLimits,
    stopped: watch::Receiver<bool>,
}

impl Places {
    fn new(router: Router, limits: ConnLimits, stopped: watch::Receiver<bool>) -> Places {
        let max = limits.max_connections.max(1);
        Places {
            max,
            open: Arc::new(Semaphore::new(max)),
            unproven: Arc::new(super::unproven::Unproven::default()),
            refusing: Arc::new(Semaphore::new(MAX_REFUSING)),
            router,
            limits,
            stopped,
        }
    }

    /// Serves an accepted connection in its own task: in a free place, else
    /// in the place of the oldest connection no key proved, else refused.
    fn take(&self, stream: TcpStream) {
        let _ = stream.set_nodelay(true);
        let router = self.router.clone();
        let stopped = self.stopped.clone();
        let (unproven, open) = (self.unproven.clone(), self.open.clone());
        let (limits, max) = (self.limits, self.max);
        if let Ok(permit) = open.clone().try_acquire_owned() {
            tokio::spawn(async move {
                connection(stream, router, limits, stopped, &unproven).await;
                drop(permit);
            });
            return;
        }
        let Ok(refusing) = self.refusing.clone().try_acquire_owned() else {
            return;
        };
        tokio::spawn(async move {
            let freed = unproven.evict_one();
            let place = match freed {
                true => tokio::time::timeout(EVICTION_WAIT, open.acquire_owned())
                    .await
                    .ok()
                    .and_then(Result::ok),
                false => None,
            };
            drop(refusing);
            match place {
                Some(permit) => {
                    connection(stream, router, limits, stopped, &unproven).await;
                    drop(permit);
                }
                None => refuse(stream, max).await,
            }
        });
    }

    /// Waits for the open connections to close, at most the shutdown
    /// grace, saying so on stderr.
    async fn drain(&self, who: &str) {
        let (max, open, grace) = (self.max, &self.open, self.limits.shutdown_grace);
        eprintln!(
            "{who}: shutting down; {} open, waiting at most {} s (the shutdown grace) for requests in flight",
            crate::numbers::counted(max - open.available_permits(), "connection"),
            grace.as_secs_f64()
        );
        let all = u32::try_from(max).unwrap_or(u32::MAX);
        if tokio::time::timeout(grace, open.acquire_many(all))
            .await
            .is_err()
        {
            eprintln!(
                "{who}: {} still open after the {} s shutdown grace; closing them",
                crate::numbers::counted(max - open.available_permits(), "connection"),
                grace.as_secs_f64()
            );
        }
    }
}

/// One connection, served until it closes.
async fn connection(
    stream: TcpStream,
    router: Router,
    limits: ConnLimits,
    mut stopped: watch::Receiver<bool>,
    unproven: &super::unproven::Unproven<ConnState>,
) {
    let state = Arc::new(ConnState::default());
    unproven.add(&state);
    let io = TokioIo::new(Guarded::new(stream, state.clone(), limits));
    let service_state = state.clone();
    let server_stopping = stopped.clone();
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        let guard = InFlight::begin(&service_state);
        let state = service_state.clone();
        let server_stopping = server_stopping.clone();
        let call = hyper_util::service::TowerToHyperService::new(router.clone());
        async move {
            let response = hyper::service::Service::call(&call, request).await;
            let mut response: Response<Body> = match response {
                Ok(response) => response,
                Err(never) => match never {},
            };
            if super::unproven::is_proven(&response) {
                state.proven.store(true, Ordering::Release);
            }
            // The server's flag is read here too: an answer written before
            // this connection's task has seen the shutdown still says so.
            if state.stopping.load(Ordering::Acquire) || *server_stopping.borrow() {
                response
                    .headers_mut()
                    .insert(CONNECTION, HeaderValue::from_static("close"));
            }
            Ok::<_, Infallible>(response.map(|body| GuardedBody {
                body,
                _guard: guard,
            }))
        }
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        // The head and idle limits are Guarded's: hyper's one limit would
        // close idle connections as early as half-sent heads.
        .header_read_timeout(None)
        .keep_alive(true)
        // One buffer a write, so hyper's own error answers come whole.
        .writev(false);
    let conn = builder.serve_connection(io, service);
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => return,
        _ = stopped.wait_for(|s| *s) => {}
    }
    state.stop();
    let _ = conn.await;
}

/// What a connection and its requests share.
#[derive(Default)]
struct ConnState {
    /// Requests the service holds (their answers not yet written whole).
    in_flight: AtomicUsize,
    /// Requests begun so far.
    begun: AtomicU64,
    stopping: AtomicBool,
    /// Answered with its key checked ([`super::Proven`]): a client of this
    /// server's.
    proven: AtomicBool,
    /// When the last request ended (None: never, the connection's start).
    idle_since: Mutex<Option<Instant>>,
    /// The reader waiting for bytes, woken on shutdown and when a request ends.
    reader: Mutex<Option<Waker>>,
}

impl ConnState {
    fn wake_reader(&self) {
        if let Some(w) = self.reader.lock().ok().and_then(|mut r| r.take()) {
            w.wake();
        }
    }

    fn stop(&self) {
        self.stopping.store(true, Ordering::Release);
        self.wake_reader();
    }
}

impl super::unproven::Connection for ConnState {
    fn proven(&self) -> bool {
        self.proven.load(Ordering::Acquire)
    }

    fn busy(&self) -> bool {
        self.in_flight.load(Ordering::Acquire) > 0 || self.stopping.load(Ordering::Acquire)
    }

    fn close(&self) {
        self.stop();
    }
}

/// One request held by the service; ends when its answer's body is dropped.
struct InFlight(Arc<ConnState>);

impl InFlight {
    fn begin(state: &Arc<ConnState>) -> InFlight {
        state.in_flight.fetch_add(1, Ordering::AcqRel);
        state.begun.fetch_add(1, Ordering::AcqRel);
        InFlight(state.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if let Ok(mut since) = self.0.idle_since.lock() {
            *since = Some(Instant::now());
        }
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
        self.0.wake_reader();
    }
}

/// An answer's body that ends its request when dropped.
struct GuardedBody {
    body: Body,
    _guard: InFlight,
}

impl HttpBody for GuardedBody {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wait {
    Idle,
    Head,
}

/// The socket as hyper sees it: reads end (EOF) when the connection has
/// waited too long or the server stops, and hyper's bodiless error answers
/// are written as JSON.
struct Guarded {
    inner: TcpStream,
    state: Arc<ConnState>,
    limits: ConnLimits,
    started: Instant,
    /// The first byte of a head not yet whole.
    head_since: Option<Instant>,
    /// `state.begun` when `head_since` was last checked.
    seen_begun: u64,
    timer: Pin<Box<Sleep>>,
    /// Ended: every further read is EOF.
    read_closed: bool,
    /// Bytes of our own still to write, and whether hyper's answer was
    /// replaced (what hyper writes after it is dropped).
    out: Vec<u8>,
    replaced: bool,
}

impl Guarded {
    fn new(inner: TcpStream, state: Arc<ConnState>, limits: ConnLimits) -> Guarded {
        let now = Instant::now();
        Guarded {
            inner,
            state,
            limits,
            started: now,
            head_since: None,
            seen_begun: 0,
            timer: Box::pin(tokio::time::sleep_until(now + limits.idle_timeout)),
            read_closed: false,
            out: Vec::new(),
            replaced: false,
        }
    }

    fn in_flight(&self) -> bool {
        self.state.in_flight.load(Ordering::Acquire) > 0
    }

    /// Writes what is queued; Ready once it is all out (or the socket failed).
    fn poll_out(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while !self.out.is_empty() {
            match Pin::new(&mut self.inner).poll_write(cx, &self.out) {
                Poll::Ready(Ok(0)) => {
                    self.out.clear();
                    return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
                }
                Poll::Ready(Ok(n)) => {
                    self.out.drain(..n);
                }
                Poll::Ready(Err(e)) => {
                    self.out.clear();
                    return Poll::Ready(Err(e));
                }
                Poll::Pending => return Poll::Pending,
            }
        }
        Poll::Ready(Ok(()))
    }

    /// True when the kernel holds bytes for this socket that tokio has not
    /// yet been told of (its readiness comes from the reactor, a turn late).
    fn socket_has_bytes(&self) -> bool {
        use std::os::fd::AsRawFd;
        let mut byte = 0u8;
        // SAFETY: a one-byte peek into a local buffer on a socket this
        // struct owns; MSG_DONTWAIT never blocks.
        let n = unsafe {
            libc::recv(
                self.inner.as_raw_fd(),
                (&raw mut byte).cast(),
                1,
                libc::MSG_PEEK | libc::MSG_DONTWAIT,
            )
        };
        n > 0
    }

    /// What the reader waits for now, and until when.
    fn deadline(&mut self) -> (Wait, Instant) {
        let begun = self.state.begun.load(Ordering::Acquire);
        if begun != self.seen_begun {
            self.seen_begun = begun;
            self.head_since = None;
        }
        match self.head_since {
            Some(t) => (Wait::Head, t + self.limits.head_timeout),
            None => {
                let since = self
                    .state
                    .idle_since
                    .lock()
                    .ok()
                    .and_then(|s| *s)
                    .unwrap_or(self.started);
                (Wait::Idle, since + self.limits.idle_timeout)
            }
        }
    }
}

impl AsyncRead for Guarded {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.read_closed {
            return Poll::Ready(Ok(()));
        }
        let before = buf.filled().len();
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {
                if buf.filled().len() > before && !this.in_flight() {
                    let _ = this.deadline();
                    this.head_since.get_or_insert_with(Instant::now);
                }
                return Poll::Ready(Ok(()));
            }
            Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
            Poll::Pending => {}
        }
        if let Ok(mut reader) = this.state.reader.lock() {
            *reader = Some(cx.waker().clone());
        }
        if this.in_flight() {
            // A request's own limits bound it.
            return Poll::Pending;
        }
        if this.state.stopping.load(Ordering::Acquire) {
            if this.socket_has_bytes() {
                // Sent, but not yet seen by the reactor: it wakes us.
                return Poll::Pending;
            }
            // Nothing more in the socket: idle, or a head that is not whole.
            this.read_closed = true;
            return Poll::Ready(Ok(()));
        }
        let (wait, deadline) = this.deadline();
        if this.timer.deadline() != deadline {
            this.timer.as_mut().reset(deadline);
        }
        if this.timer.as_mut().poll(cx).is_pending() {
            return Poll::Pending;
        }
        if wait == Wait::Head {
            this.out = json_answer(
                408,
                "request_timeout",
                &format!(
                    "the request head did not arrive within {} ms",
                    this.limits.head_timeout.as_millis()
                ),
            );
            let _ = this.poll_out(cx);
            this.replaced = true;
        }
        this.read_closed = true;
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for Guarded {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if !this.replaced
            && !this.in_flight()
            && let Some(answer) = protocol_error(buf)
        {
            this.out = answer;
            this.replaced = true;
        }
        if this.replaced {
            std::task::ready!(this.poll_out(cx))?;
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut this.inner).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        std::task::ready!(this.poll_out(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        std::task::ready!(this.poll_out(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

impl Drop for Guarded {
    fn drop(&mut self) {
        // A last try at an answer still queued (hyper may drop the socket
        // without flushing after an error).
        if !self.out.is_empty() {
            let _ = self.inner.try_write(&self.out);
        }
    }
}

#[cfg(test)]
#[path = "conn_tests.rs"]
mod tests;
