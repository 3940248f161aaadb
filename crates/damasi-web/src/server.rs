//! Serving the app on a socket: the connection limits (slots, per address, header and body
//! timeouts, trusted proxies), the background work started with the server (games resumed,
//! the explorer, the fair-play screen, tournaments, tidying), and refusals of connections
//! beyond the limits.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::ConnectInfo;
use tower::ServiceExt;

use crate::{router, security, streams, AppState};

/// Longest a client may take to send a request's headers (also the idle time allowed on a
/// kept-alive connection before its next request).
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// Longest a client may take to send a request's body.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(20);

/// Most connections served at once; more wait in the listen queue. Each costs a file
/// descriptor, and the usual limit is 1,024. Long-lived requests (streams, WebSockets,
/// long-polls) give their slot back and are counted apart ([`streams`]).
pub const MAX_CONNECTIONS: usize = 512;

/// Most ordinary connections served at once for one client address (IPv6: one /64), unless
/// it is a trusted proxy; beyond it a connection gets a 429 and is closed at once, so that one
/// address (sending half requests, say) cannot take every slot. A browser opens up to six a
/// site, so this leaves room for a club's members behind one router.
pub const CONNECTIONS_PER_ADDRESS: usize = 64;

/// Connections the kernel keeps waiting to be accepted (it caps this at its `somaxconn`,
/// 4,096 on current Linux): players arriving by the thousand at once (a tournament's start,
/// a restart) wait their turn instead of being reset, as they were with the usual 1,024.
pub const LISTEN_BACKLOG: u32 = 4096;

/// A listening socket on `addr` with [`LISTEN_BACKLOG`].
fn listen(addr: SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    // As std's bind does on Unix: a restarted server takes its port back at once.
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}

/// Limits on connections and the trusted proxies, for [`serve_with`].
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// Most connections served at once; more wait in the listen queue.
    pub max_connections: usize,
    /// Most connections served at once for one client address (trusted proxies aside).
    pub connections_per_address: usize,
    /// Longest a client may take to send a request's headers, and to start its next request
    /// on a kept-alive connection.
    pub header_timeout: Duration,
    /// Reverse proxies whose `X-Forwarded-For` / `Forwarded` name the client (see
    /// [`security::client_address`]); from any other peer those headers are ignored.
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// Screen the rated games for fair play with these settings (`damasi serve` does unless
    /// told `--no-fair-play`); none: no screening.
    pub fair_play: Option<damasi_online::fair_play::ScreenSettings>,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            max_connections: MAX_CONNECTIONS,
            connections_per_address: CONNECTIONS_PER_ADDRESS,
            header_timeout: HEADER_TIMEOUT,
            trusted_proxies: Vec::new(),
            fair_play: None,
        }
    }
}

/// Serves `router(state)` on `addr` until Ctrl-C; `on_ready` is called with the bound address
/// (useful when the port is 0). Slow clients cannot hold the server: headers must arrive
/// within [`HEADER_TIMEOUT`], bodies within [`BODY_TIMEOUT`], at most [`MAX_CONNECTIONS`]
/// connections are served at once and at most [`CONNECTIONS_PER_ADDRESS`] for one address,
/// besides the long-lived requests ([`streams`]), which have caps of their own.
pub async fn serve(
    state: AppState,
    addr: SocketAddr,
    on_ready: impl FnOnce(SocketAddr),
) -> std::io::Result<()> {
    serve_with(state, addr, ServeOptions::default(), on_ready).await
}

/// [`serve`] with other connection limits.
pub async fn serve_with(
    state: AppState,
    addr: SocketAddr,
    options: ServeOptions,
    on_ready: impl FnOnce(SocketAddr),
) -> std::io::Result<()> {
    let listener = listen(addr)?;
    // Games left running (clocks, the engine to move) are looked after again at once.
    let referee = state.referee.clone();
    let online = state.online.clone();
    let tournaments = state.tournaments.clone();
    let limits = state.limits.clone();
    let fair_play = options.fair_play.clone();
    tokio::spawn(async move {
        if let Err(e) = referee.resume_all().await {
            eprintln!("damasi-web: cannot resume games: {e:?}");
        }
        if let Err(e) = online.resume_all().await {
            eprintln!("damasi-web: cannot resume online games: {e:?}");
        }
        // The opening explorer counts the games that ended while the server was down, then
        // each game as it ends.
        damasi_online::explorer::follow(&online);
        // The fair-play screen takes up the rated games that ended unscreened, then each.
        if let Some(settings) = fair_play {
            damasi_online::fair_play::follow(&online, settings);
        }
        if let Err(e) = tournaments.run().await {
            eprintln!("damasi-web: cannot resume tournaments: {e:?}");
        }
        // Now and then: forget idle rate-limit entries, games nobody watches or plays, and
        // expired sessions; withdraw open games nobody took in a day.
        let mut tidy = tokio::time::interval(Duration::from_secs(60));
        loop {
            tidy.tick().await;
            limits.shrink();
            online.evict_idle();
            if let Err(e) = online.expire_open().await {
                eprintln!("damasi-web: cannot withdraw old open games: {e:?}");
            }
            if let Err(e) = online.accounts().forget_expired().await {
                eprintln!("damasi-web: cannot forget expired sessions: {e:?}");
            }
        }
    });
    on_ready(listener.local_addr()?);
    let app = router(state);
    let slots = Arc::new(tokio::sync::Semaphore::new(options.max_connections.max(1)));
    let trusted: Arc<[std::net::IpAddr]> = options.trusted_proxies.clone().into();
    let per_address = Arc::new(streams::PerAddress::default());
    let shutdown = tokio::signal::ctrl_c();
    tokio::pin!(shutdown);
    loop {
        // Wait for a free slot before accepting: extra clients queue in the kernel.
        let permit = tokio::select! {
            _ = &mut shutdown => return Ok(()),
            p = slots.clone().acquire_owned() => p.expect("the semaphore is never closed"),
        };
        let (stream, peer) = tokio::select! {
            _ = &mut shutdown => return Ok(()),
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors and the like: wait a little, keep serving.
                    eprintln!("damasi-web: accept: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        // A move's answer goes out at once, not after the client's acknowledgement of the
        // last one: with Nagle's algorithm a small write waits for it, and a client that
        // delays its acknowledgements (40 ms on Linux) would see every second message late.
        let _ = stream.set_nodelay(true);
        // One address may hold only so many of the slots (a proxy's visitors are told apart
        // by the limits further in).
        let place = if trusted.contains(&peer.ip()) {
            None
        } else {
            match per_address.enter(peer.ip(), options.connections_per_address) {
                Some(place) => Some(place),
                None => {
                    drop(permit);
                    tokio::spawn(refuse_connection(stream));
                    continue;
                }
            }
        };
        let app = app.clone();
        let trusted = trusted.clone();
        // A request that turns into a stream gives the slot back (see `streams::Client::hold`).
        let slot = streams::ConnectionSlot::new(permit, place);
        tokio::spawn(async move {
            let held = slot.clone();
            let service = hyper::service::service_fn(
                move |mut req: hyper::Request<hyper::body::Incoming>| {
                    let client = security::client_address(peer, req.headers(), &trusted);
                    req.extensions_mut().insert(ConnectInfo(client));
                    req.extensions_mut().insert(held.clone());
                    app.clone().oneshot(req)
                },
            );
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(hyper_util::rt::TokioTimer::new())
                .header_read_timeout(options.header_timeout)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                // WebSockets (online play) take the connection over after the upgrade.
                .with_upgrades();
            let _ = conn.await;
            slot.release();
        });
    }
}

/// Answers a connection over its address's cap with a 429 and closes it, without reading its
/// request (a client that sends nothing is not waited for).
async fn refuse_connection(mut stream: tokio::net::TcpStream) {
    use tokio::io::AsyncWriteExt;
    let body = r#"{"error":"too many connections from this address: close some first","code":"too-many-connections"}"#;
    let refusal = format!(
        "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 10\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ =
        tokio::time::timeout(Duration::from_secs(2), stream.write_all(refusal.as_bytes())).await;
    let _ = stream.shutdown().await;
}
