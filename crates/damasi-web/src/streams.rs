//! Long-lived requests: NDJSON streams, WebSockets and `wait_version` long-polls. Each holds a
//! [`StreamPermit`] from the server's [`Streams`] for as long as it lasts. Players come before
//! spectators: the two are counted apart, so that spectators, however many, never take a
//! seated player's game socket or a player's event stream.
//!
//! - A **player's** stream (an account's event stream, or the game socket or stream of a player
//!   seated in that game) counts against [`StreamLimits::per_account`] for the account,
//!   [`StreamLimits::players_per_address`] for the address, and [`StreamLimits::players`] in
//!   all.
//! - A **spectator's** (anybody else's: a watcher of a game, a tournament page, a long-poll)
//!   counts against [`StreamLimits::spectators_per_address`] and [`StreamLimits::spectators`].
//!
//! Addresses are counted by [`address_key`]: IPv4 per address, IPv6 per /64 (one
//! subscriber usually has a whole /64). Beyond a cap the answer is a 429 `too-many-streams`
//! (before the upgrade, for a WebSocket).
//!
//! These are counted apart from the ordinary connections ([`crate::MAX_CONNECTIONS`]): a
//! request that turns into a stream gives its connection slot back ([`Client::hold`]) and its
//! connection closes when the stream ends, so streams that never end cannot take the slots
//! every other request needs.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};

use axum::body::Body;
use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::header::{self, HeaderValue};
use axum::http::request::Parts;
use axum::response::Response;
use futures_util::StreamExt;
use tokio::sync::OwnedSemaphorePermit;

use crate::error::ApiError;
use crate::security::address_key;

/// Spectators' long-lived requests per client address, by default.
pub const STREAMS_PER_ADDRESS: usize = 16;

/// Spectators' long-lived requests in all, by default.
pub const MAX_STREAMS: usize = 400;

/// Long-lived requests per account, by default.
pub const STREAMS_PER_ACCOUNT: usize = 16;

/// Players' long-lived requests per client address, by default: a club's members behind one
/// router each keep an event stream and a game socket.
pub const PLAYER_STREAMS_PER_ADDRESS: usize = 100;

/// Players' long-lived requests in all, by default. Each costs a file descriptor: the server
/// raises its limit of open files at start (see `damasi serve`), and lowers this cap when it
/// cannot.
pub const MAX_PLAYER_STREAMS: usize = 20_000;

/// The caps of a [`Streams`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamLimits {
    /// Most spectators' long-lived requests from one client address (IPv6: one /64).
    pub spectators_per_address: usize,
    /// Most spectators' long-lived requests in all.
    pub spectators: usize,
    /// Most long-lived requests of one account.
    pub per_account: usize,
    /// Most players' long-lived requests from one client address (IPv6: one /64).
    pub players_per_address: usize,
    /// Most players' long-lived requests in all.
    pub players: usize,
}

impl Default for StreamLimits {
    fn default() -> Self {
        StreamLimits {
            spectators_per_address: STREAMS_PER_ADDRESS,
            spectators: MAX_STREAMS,
            per_account: STREAMS_PER_ACCOUNT,
            players_per_address: PLAYER_STREAMS_PER_ADDRESS,
            players: MAX_PLAYER_STREAMS,
        }
    }
}

/// Who a long-lived request is for, which decides the caps it counts against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Viewer {
    /// A player: an account's own event stream, or a seated player's game socket or stream.
    Player(i64),
    /// Anybody else (a watcher, signed in or not).
    Spectator,
}

impl Viewer {
    /// A seated player of the game (`seated`) is a player; anybody else watching it a spectator.
    pub fn of_game(account: Option<i64>, seated: bool) -> Viewer {
        match account {
            Some(id) if seated => Viewer::Player(id),
            _ => Viewer::Spectator,
        }
    }
}

/// Counts of one class (players or spectators).
#[derive(Default)]
struct Class {
    total: usize,
    by_address: HashMap<IpAddr, usize>,
}

#[derive(Default)]
struct Counts {
    players: Class,
    spectators: Class,
    by_account: HashMap<i64, usize>,
}

/// The long-lived requests being served, counted per address, per account and in all.
pub struct Streams {
    limits: StreamLimits,
    counts: Mutex<Counts>,
}

impl Default for Streams {
    fn default() -> Self {
        Streams::new(StreamLimits::default())
    }
}

fn too_many(message: &str) -> ApiError {
    ApiError::Limited {
        code: "too-many-streams",
        message: message.into(),
        retry_after: Some(10),
    }
}

impl Streams {
    /// A registry with the caps `limits`.
    pub fn new(limits: StreamLimits) -> Streams {
        Streams {
            limits,
            counts: Mutex::new(Counts::default()),
        }
    }

    /// Its caps.
    pub fn limits(&self) -> StreamLimits {
        self.limits
    }

    fn counts(&self) -> MutexGuard<'_, Counts> {
        // The counts are plain numbers: still right after a panic elsewhere.
        self.counts.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Long-lived requests being served now (players' and spectators').
    pub fn open_now(&self) -> usize {
        let c = self.counts();
        c.players.total + c.spectators.total
    }

    /// A permit for one more long-lived request from `address` (`None`: not known, as in
    /// tests without sockets; then only the other caps apply) for `viewer`, or a 429
    /// `too-many-streams`.
    pub fn open(
        self: &Arc<Self>,
        address: Option<IpAddr>,
        viewer: Viewer,
    ) -> Result<StreamPermit, ApiError> {
        let address = address.map(address_key);
        let l = self.limits;
        let mut guard = self.counts();
        let c = &mut *guard;
        let (class, per_address, total, who) = match viewer {
            Viewer::Player(id) => {
                if c.by_account.get(&id).copied().unwrap_or(0) >= l.per_account {
                    return Err(too_many(
                        "too many open streams and sockets for this account: close some first",
                    ));
                }
                (&mut c.players, l.players_per_address, l.players, "players")
            }
            Viewer::Spectator => (
                &mut c.spectators,
                l.spectators_per_address,
                l.spectators,
                "spectators",
            ),
        };
        if class.total >= total {
            return Err(too_many(&format!(
                "the server has too many open streams for {who}: try again later"
            )));
        }
        if let Some(a) = address {
            if class.by_address.get(&a).copied().unwrap_or(0) >= per_address {
                return Err(too_many(
                    "too many open streams and sockets from this address: close some first",
                ));
            }
            *class.by_address.entry(a).or_insert(0) += 1;
        }
        class.total += 1;
        if let Viewer::Player(id) = viewer {
            *c.by_account.entry(id).or_insert(0) += 1;
        }
        Ok(StreamPermit {
            streams: self.clone(),
            address,
            viewer,
        })
    }
}

fn give_back<K: std::hash::Hash + Eq>(map: &mut HashMap<K, usize>, key: &K) {
    if let Some(n) = map.get_mut(key) {
        *n = n.saturating_sub(1);
        if *n == 0 {
            map.remove(key);
        }
    }
}

/// One long-lived request's place in [`Streams`], given back when dropped.
pub struct StreamPermit {
    streams: Arc<Streams>,
    address: Option<IpAddr>,
    viewer: Viewer,
}

impl Drop for StreamPermit {
    fn drop(&mut self) {
        let mut guard = self.streams.counts();
        let c = &mut *guard;
        let class = match self.viewer {
            Viewer::Player(id) => {
                give_back(&mut c.by_account, &id);
                &mut c.players
            }
            Viewer::Spectator => &mut c.spectators,
        };
        class.total = class.total.saturating_sub(1);
        if let Some(a) = self.address {
            give_back(&mut class.by_address, &a);
        }
    }
}

/// The ordinary connections served now, counted per client address (by [`address_key`]); a
/// connection that turns into a stream or a socket gives its place back (see
/// [`ConnectionSlot::release`]).
#[derive(Default)]
pub struct PerAddress(Mutex<HashMap<IpAddr, usize>>);

/// One connection's place in [`PerAddress`], given back when dropped.
pub struct AddressPlace {
    counts: Arc<PerAddress>,
    key: IpAddr,
}

impl PerAddress {
    fn counts(&self) -> MutexGuard<'_, HashMap<IpAddr, usize>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A place for one more connection from `ip`, or `None` when it has `cap` already.
    pub fn enter(self: &Arc<Self>, ip: IpAddr, cap: usize) -> Option<AddressPlace> {
        let key = address_key(ip);
        let mut counts = self.counts();
        let n = counts.entry(key).or_insert(0);
        if *n >= cap.max(1) {
            return None;
        }
        *n += 1;
        Some(AddressPlace {
            counts: self.clone(),
            key,
        })
    }
}

impl Drop for AddressPlace {
    fn drop(&mut self) {
        give_back(&mut self.counts.counts(), &self.key);
    }
}

/// The ordinary connection slot a connection holds (see [`crate::serve_with`]), in each of
/// its requests' extensions, so that a request that turns into a stream can give it back.
#[derive(Clone)]
pub struct ConnectionSlot(Arc<Mutex<Option<Held>>>);

/// What an ordinary connection holds until it ends or turns into a stream.
type Held = (OwnedSemaphorePermit, Option<AddressPlace>);

impl ConnectionSlot {
    /// The slot of a connection holding `permit`, and its `place` among its address's
    /// connections (none for a trusted proxy's).
    pub fn new(permit: OwnedSemaphorePermit, place: Option<AddressPlace>) -> ConnectionSlot {
        ConnectionSlot(Arc::new(Mutex::new(Some((permit, place)))))
    }

    /// Gives the slot and the address's place back (again: nothing): a stream is counted by
    /// its own caps from then on.
    pub fn release(&self) {
        let held = self.0.lock().unwrap_or_else(|e| e.into_inner()).take();
        drop(held);
    }
}

/// Who sent a request, as far as the connection tells: the client's address (from
/// `ConnectInfo`, set by [`crate::serve_with`]) and the connection's slot. Both are missing
/// when the router is called without a server (tests).
#[derive(Clone, Default)]
pub struct Client {
    /// The client's address, if known.
    pub address: Option<IpAddr>,
    slot: Option<ConnectionSlot>,
}

impl<S: Send + Sync> FromRequestParts<S> for Client {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Infallible> {
        Ok(Client {
            address: parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|c| c.0.ip()),
            slot: parts.extensions.get::<ConnectionSlot>().cloned(),
        })
    }
}

fn keep(_: &StreamPermit) {}

impl Client {
    /// Gives the connection's ordinary slot back now (a long-poll, before it waits); the
    /// answer must then go through [`Client::hold`], which closes the connection after it.
    pub fn release_slot(&self) {
        if let Some(slot) = &self.slot {
            slot.release();
        }
    }

    /// Makes `res` a long-lived answer: its body keeps `permit` until the connection is done
    /// with it, the connection's ordinary slot is given back, and the connection closes after
    /// the answer (so it cannot serve ordinary requests without a slot).
    pub fn hold(&self, res: Response, permit: StreamPermit) -> Response {
        self.release_slot();
        let (mut parts, body) = res.into_parts();
        parts
            .headers
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
        let body = body.into_data_stream().map(move |chunk| {
            keep(&permit);
            chunk
        });
        Response::from_parts(parts, Body::from_stream(body))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> StreamLimits {
        StreamLimits {
            spectators_per_address: 2,
            spectators: 3,
            per_account: 3,
            players_per_address: 4,
            players: 5,
        }
    }

    #[test]
    fn spectators_count_per_address_and_in_all() {
        let s = Arc::new(Streams::new(limits()));
        let a: IpAddr = "203.0.113.1".parse().unwrap();
        let b: IpAddr = "203.0.113.2".parse().unwrap();
        let p1 = s.open(Some(a), Viewer::Spectator).unwrap();
        let _p2 = s.open(Some(a), Viewer::Spectator).unwrap();
        assert_eq!(
            s.open(Some(a), Viewer::Spectator).err().map(|e| e.code()),
            Some("too-many-streams")
        );
        let _p3 = s.open(Some(b), Viewer::Spectator).unwrap();
        assert!(s.open(None, Viewer::Spectator).is_err(), "the total");
        drop(p1);
        assert_eq!(s.open_now(), 2);
        let _again = s.open(Some(a), Viewer::Spectator).unwrap();
    }

    #[test]
    fn players_count_per_account_and_address_and_in_all() {
        let s = Arc::new(Streams::new(limits()));
        let a: IpAddr = "203.0.113.1".parse().unwrap();
        let _p1 = s.open(Some(a), Viewer::Player(7)).unwrap();
        let _p2 = s.open(Some(a), Viewer::Player(7)).unwrap();
        let _p3 = s.open(None, Viewer::Player(7)).unwrap();
        assert!(
            s.open(None, Viewer::Player(7)).is_err(),
            "the account's cap"
        );
        let _p4 = s.open(Some(a), Viewer::Player(8)).unwrap();
        let _p5 = s.open(Some(a), Viewer::Player(9)).unwrap();
        assert!(
            s.open(Some(a), Viewer::Player(10)).is_err(),
            "the address's cap"
        );
        assert!(s.open(None, Viewer::Player(10)).is_err(), "the total");
    }

    #[test]
    fn spectators_never_take_a_players_place() {
        let s = Arc::new(Streams::new(limits()));
        let a: IpAddr = "203.0.113.1".parse().unwrap();
        let b: IpAddr = "203.0.113.2".parse().unwrap();
        // Every spectator place is taken, from the player's own address too.
        let _w: Vec<_> = [a, a, b]
            .into_iter()
            .map(|ip| s.open(Some(ip), Viewer::Spectator).unwrap())
            .collect();
        assert!(s.open(Some(b), Viewer::Spectator).is_err());
        // The player still gets their socket and their event stream.
        let _socket = s.open(Some(a), Viewer::Player(1)).unwrap();
        let _events = s.open(Some(a), Viewer::Player(1)).unwrap();
    }

    #[test]
    fn a_signed_in_watcher_is_a_spectator() {
        assert_eq!(Viewer::of_game(Some(3), true), Viewer::Player(3));
        assert_eq!(Viewer::of_game(Some(3), false), Viewer::Spectator);
        assert_eq!(Viewer::of_game(None, false), Viewer::Spectator);
    }

    #[test]
    fn ipv6_addresses_count_per_64() {
        let s = Arc::new(Streams::new(StreamLimits {
            spectators_per_address: 1,
            ..limits()
        }));
        let w = Viewer::Spectator;
        let _p = s.open(Some("2001:db8::1".parse().unwrap()), w).unwrap();
        assert!(s.open(Some("2001:db8::2".parse().unwrap()), w).is_err());
        let _q = s.open(Some("2001:db8:0:1::1".parse().unwrap()), w).unwrap();
        let _r = s
            .open(Some("::ffff:192.0.2.1".parse().unwrap()), w)
            .unwrap();
        assert!(s.open(Some("192.0.2.1".parse().unwrap()), w).is_err());
    }
}
