//! Long-lived requests: NDJSON streams, WebSockets and `wait_version` long-polls. Each holds a
//! [`StreamPermit`] from the server's [`Streams`] for as long as it lasts: at most
//! [`StreamLimits::per_address`] per client address (IPv6 counted per /64), at most
//! [`StreamLimits::per_account`] per account, and at most [`StreamLimits::total`] in all;
//! beyond them a 429 `too-many-streams` (before the upgrade, for a WebSocket).
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

/// Long-lived requests per client address, by default.
pub const STREAMS_PER_ADDRESS: usize = 16;

/// Long-lived requests per account, by default.
pub const STREAMS_PER_ACCOUNT: usize = 16;

/// Long-lived requests in all, by default. With the [`crate::MAX_CONNECTIONS`] ordinary
/// connections this stays under the usual limit of 1,024 open files.
pub const MAX_STREAMS: usize = 400;

/// The caps of a [`Streams`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamLimits {
    /// Most long-lived requests from one client address (IPv6: one /64).
    pub per_address: usize,
    /// Most long-lived requests of one account.
    pub per_account: usize,
    /// Most long-lived requests in all.
    pub total: usize,
}

impl Default for StreamLimits {
    fn default() -> Self {
        StreamLimits {
            per_address: STREAMS_PER_ADDRESS,
            per_account: STREAMS_PER_ACCOUNT,
            total: MAX_STREAMS,
        }
    }
}

#[derive(Default)]
struct Counts {
    total: usize,
    by_address: HashMap<IpAddr, usize>,
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

/// The key of an address: IPv4 as it is (also when written as IPv4-mapped IPv6), IPv6 by its
/// /64 (one subscriber usually has a whole /64).
fn address_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(v4) => IpAddr::V4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let bits = u128::from(v6) & !((1u128 << 64) - 1);
                IpAddr::V6(bits.into())
            }
        },
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

    /// Long-lived requests being served now.
    pub fn open_now(&self) -> usize {
        self.counts().total
    }

    /// A permit for one more long-lived request from `address` (`None`: not known, as in
    /// tests without sockets; then only the other caps apply) by `account` (`None`: a
    /// spectator), or a 429 `too-many-streams`.
    pub fn open(
        self: &Arc<Self>,
        address: Option<IpAddr>,
        account: Option<i64>,
    ) -> Result<StreamPermit, ApiError> {
        let address = address.map(address_key);
        let mut c = self.counts();
        if c.total >= self.limits.total {
            return Err(too_many(
                "the server has too many open streams: try again later",
            ));
        }
        if let Some(a) = address {
            if c.by_address.get(&a).copied().unwrap_or(0) >= self.limits.per_address {
                return Err(too_many(
                    "too many open streams and sockets from this address: close some first",
                ));
            }
        }
        if let Some(p) = account {
            if c.by_account.get(&p).copied().unwrap_or(0) >= self.limits.per_account {
                return Err(too_many(
                    "too many open streams and sockets for this account: close some first",
                ));
            }
        }
        c.total += 1;
        if let Some(a) = address {
            *c.by_address.entry(a).or_insert(0) += 1;
        }
        if let Some(p) = account {
            *c.by_account.entry(p).or_insert(0) += 1;
        }
        Ok(StreamPermit {
            streams: self.clone(),
            address,
            account,
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
    account: Option<i64>,
}

impl Drop for StreamPermit {
    fn drop(&mut self) {
        let mut c = self.streams.counts();
        c.total = c.total.saturating_sub(1);
        if let Some(a) = self.address {
            give_back(&mut c.by_address, &a);
        }
        if let Some(p) = self.account {
            give_back(&mut c.by_account, &p);
        }
    }
}

/// The ordinary connection slot a connection holds (see [`crate::serve_with`]), in each of
/// its requests' extensions, so that a request that turns into a stream can give it back.
#[derive(Clone)]
pub struct ConnectionSlot(Arc<Mutex<Option<OwnedSemaphorePermit>>>);

impl ConnectionSlot {
    /// The slot of a connection holding `permit`.
    pub fn new(permit: OwnedSemaphorePermit) -> ConnectionSlot {
        ConnectionSlot(Arc::new(Mutex::new(Some(permit))))
    }

    /// Gives the slot back (again: nothing).
    pub fn release(&self) {
        let permit = self.0.lock().unwrap_or_else(|e| e.into_inner()).take();
        drop(permit);
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

    #[test]
    fn permits_count_per_address_account_and_in_all() {
        let s = Arc::new(Streams::new(StreamLimits {
            per_address: 2,
            per_account: 3,
            total: 5,
        }));
        let a: IpAddr = "203.0.113.1".parse().unwrap();
        let b: IpAddr = "203.0.113.2".parse().unwrap();
        let p1 = s.open(Some(a), None).unwrap();
        let _p2 = s.open(Some(a), Some(7)).unwrap();
        assert_eq!(
            s.open(Some(a), None).err().map(|e| e.code()),
            Some("too-many-streams")
        );
        let _p3 = s.open(Some(b), Some(7)).unwrap();
        let _p4 = s.open(None, Some(7)).unwrap();
        assert!(s.open(None, Some(7)).is_err(), "the account's cap");
        let _p5 = s.open(None, None).unwrap();
        assert!(s.open(None, None).is_err(), "the total");
        drop(p1);
        assert_eq!(s.open_now(), 4);
        let _again = s.open(Some(a), None).unwrap();
    }

    #[test]
    fn ipv6_addresses_count_per_64() {
        let s = Arc::new(Streams::new(StreamLimits {
            per_address: 1,
            per_account: 9,
            total: 9,
        }));
        let _p = s.open(Some("2001:db8::1".parse().unwrap()), None).unwrap();
        assert!(s.open(Some("2001:db8::2".parse().unwrap()), None).is_err());
        let _q = s
            .open(Some("2001:db8:0:1::1".parse().unwrap()), None)
            .unwrap();
        let _r = s
            .open(Some("::ffff:192.0.2.1".parse().unwrap()), None)
            .unwrap();
        assert!(s.open(Some("192.0.2.1".parse().unwrap()), None).is_err());
    }
}
