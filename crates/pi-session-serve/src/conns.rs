//! The accept loop: hyper's HTTP/1 server under the router, with two limits against clients
//! that hold connections open without finishing a request.
//!
//! * Headers must arrive within [`crate::Config::header_timeout`] (also while a kept-alive
//!   connection waits for its next request): a client that sends nothing, or half its headers,
//!   is closed.
//! * At most [`Limits::cap`] connections are open at once, below the open-file limit (raised to
//!   its hard limit first) with a reserve, so that `accept` never fails for lack of descriptors.
//!   At the cap a new connection evicts the oldest one that has not made an authenticated
//!   request; when every open connection has, the new one is closed.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::Request;
use axum::Router;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpSocket};
use tokio::sync::Notify;
use tower_service::Service;

use crate::ServeError;

/// The cap on open connections when the open-file limit allows it: a browser opens a handful
/// per server; the rest of the budget is for whoever else connects.
pub const DEFAULT_MAX_CONNECTIONS: usize = 512;
/// Descriptors kept for everything else (session files, the search index, the watcher, stdio).
const FD_RESERVE: u64 = 128;

/// One open connection, as the accept loop and the request guard see it.
pub(crate) struct Conn {
    id: u64,
    authenticated: AtomicBool,
    evict: Notify,
}

impl Conn {
    /// A request on this connection carried the token: it is no longer shed first.
    pub(crate) fn authenticated(&self) {
        self.authenticated.store(true, Ordering::Relaxed);
    }
}

/// The open connections, oldest first.
struct Open {
    cap: usize,
    next_id: u64,
    conns: BTreeMap<u64, Arc<Conn>>,
}

impl Open {
    /// Room for a new connection: at the cap, the oldest unauthenticated one is evicted. `None`
    /// when every open connection has authenticated (the new one is then refused).
    fn admit(&mut self) -> Option<Arc<Conn>> {
        if self.conns.len() >= self.cap {
            let oldest = self.conns.iter().find(|(_, c)| !c.authenticated.load(Ordering::Relaxed)).map(|(id, _)| *id)?;
            if let Some(c) = self.conns.remove(&oldest) {
                c.evict.notify_one();
            }
        }
        let c = Arc::new(Conn { id: self.next_id, authenticated: AtomicBool::new(false), evict: Notify::new() });
        self.next_id += 1;
        self.conns.insert(c.id, c.clone());
        Some(c)
    }
}

/// The limits of one server.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    pub cap: usize,
    pub header_timeout: Duration,
}

impl Limits {
    /// Raises the soft open-file limit to the hard one, then sets the cap: the one asked for (or
    /// [`DEFAULT_MAX_CONNECTIONS`]), at most the open-file limit less a reserve.
    pub fn new(asked: Option<usize>, header_timeout: Duration) -> Limits {
        let files = raise_fd_limit();
        let budget = if files > 2 * FD_RESERVE { files - FD_RESERVE } else { (files / 2).max(1) };
        let cap = asked.unwrap_or(DEFAULT_MAX_CONNECTIONS).clamp(1, usize::try_from(budget).unwrap_or(usize::MAX));
        Limits { cap, header_timeout }
    }
}

/// The soft limit on open files after raising it to the hard limit (where the OS allows).
#[cfg(unix)]
fn raise_fd_limit() -> u64 {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit/setrlimit only read and write the struct passed.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return 1024;
    }
    if lim.rlim_cur < lim.rlim_max {
        let raised = libc::rlimit { rlim_cur: lim.rlim_max, rlim_max: lim.rlim_max };
        // SAFETY: as above.
        if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &raised) } == 0 {
            lim = raised;
        }
    }
    u64::try_from(lim.rlim_cur).unwrap_or(u64::MAX)
}

#[cfg(not(unix))]
fn raise_fd_limit() -> u64 {
    u64::MAX
}

/// Binds `addr` with a listen backlog larger than the default, so a burst of connections waits
/// in the kernel's queue instead of being dropped. Needs a Tokio runtime entered.
pub(crate) fn bind(addr: SocketAddr) -> Result<TcpListener, ServeError> {
    let err = |source| ServeError::Bind { addr, source };
    let socket = if addr.is_ipv4() { TcpSocket::new_v4() } else { TcpSocket::new_v6() }.map_err(err)?;
    #[cfg(unix)]
    socket.set_reuseaddr(true).map_err(err)?;
    socket.bind(addr).map_err(err)?;
    socket.listen(1024).map_err(err)
}

/// Accepts connections until the runtime stops, each served by the router on a task of its own.
pub(crate) async fn serve(listener: TcpListener, app: Router, limits: Limits) {
    let open = Arc::new(Mutex::new(Open { cap: limits.cap, next_id: 0, conns: BTreeMap::new() }));
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new()).header_read_timeout(limits.header_timeout);
    loop {
        let stream = match listener.accept().await {
            Ok((s, _)) => s,
            Err(e) => {
                // Out of descriptors despite the reserve, or a connection reset before it was
                // accepted: wait a little rather than spin.
                tracing::warn!("serve: accept: {e}");
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        };
        let Some(conn) = open.lock().unwrap().admit() else {
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let (app, open, http) = (app.clone(), open.clone(), http.clone());
        tokio::spawn(async move {
            let mine = conn.clone();
            let service = hyper::service::service_fn(move |mut req: Request<Incoming>| {
                req.extensions_mut().insert(mine.clone());
                let mut app = app.clone();
                async move { app.call(req).await }
            });
            tokio::select! {
                // Errors here are the client's (a reset, a header timeout): nothing to report.
                _ = http.serve_connection(TokioIo::new(stream), service) => {}
                _ = conn.evict.notified() => {}
            }
            open.lock().unwrap().conns.remove(&conn.id);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_the_cap_the_oldest_unauthenticated_connection_goes() {
        let mut open = Open { cap: 3, next_id: 0, conns: BTreeMap::new() };
        let a = open.admit().unwrap();
        let b = open.admit().unwrap();
        let c = open.admit().unwrap();
        a.authenticated();
        let d = open.admit().unwrap();
        assert_eq!(open.conns.keys().copied().collect::<Vec<_>>(), [a.id, c.id, d.id], "b, the oldest unauthenticated, went");
        assert_eq!(Arc::strong_count(&b), 1, "b is no longer held by the open set");
        c.authenticated();
        d.authenticated();
        assert!(open.admit().is_none(), "every open connection authenticated: the new one is refused");
        assert_eq!(open.conns.len(), 3);
    }

    #[test]
    fn the_cap_stays_below_the_open_file_limit() {
        let l = Limits::new(None, Duration::from_secs(1));
        let files = raise_fd_limit();
        assert!(l.cap >= 1 && (l.cap as u64) < files, "cap {} with {files} files", l.cap);
        assert!(l.cap <= DEFAULT_MAX_CONNECTIONS);
        assert_eq!(Limits::new(Some(7), Duration::from_secs(1)).cap, 7);
    }
}
