//! The offers of games the bot sends (a message from an inline query) and how far a press on
//! one is trusted. Telegram gives the bot a button's callback data as the client sent it, and a
//! modified client can send any data, on any message: so the data that begins a game is signed
//! by the bot ([`PressKey`], a truncated HMAC-SHA-256 under a key made from the bot's token),
//! holds when it was made, and each offer begins one game at most ([`UsedOffers`]); and one
//! Telegram user begins only so many games a while ([`BeginLimit`]).

use std::collections::HashMap;
use std::time::Duration;

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::board::Start;

/// Bytes of HMAC-SHA-256 kept in a press's tag: 72 bits, 12 characters of base64url.
const TAG_BYTES: usize = 9;

/// The characters of a tag.
pub const TAG_LEN: usize = TAG_BYTES / 3 * 4;

/// The characters of an offer's nonce (hexadecimal).
pub const NONCE_LEN: usize = 8;

/// How long an offer of a live game can be taken after it was made.
pub const OFFER_LIFETIME: Duration = Duration::from_secs(24 * 60 * 60);

/// How long an offer of a correspondence game can be taken after it was made.
pub const CORRESPONDENCE_OFFER_LIFETIME: Duration = Duration::from_secs(7 * 24 * 60 * 60);

/// The key that signs the data of the buttons that begin games.
#[derive(Clone)]
pub struct PressKey {
    key: [u8; 32],
}

impl PressKey {
    /// The key of the bot with `token`: HMAC-SHA-256 of the token under a name of its own
    /// (the same in every process that runs the bot, and after a restart; nobody without the
    /// token can make it).
    pub fn from_token(token: &str) -> PressKey {
        let mut mac = Hmac::<Sha256>::new_from_slice(b"damasi-telegram press").expect("any key");
        mac.update(token.as_bytes());
        PressKey {
            key: mac.finalize().into_bytes().into(),
        }
    }

    /// The tag of `start` (every field but the tag itself).
    fn tag_of(&self, start: &Start) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.key).expect("any key");
        mac.update(start.signed_part().as_bytes());
        base64url(&mac.finalize().into_bytes()[..TAG_BYTES])
    }

    /// `start` with its tag.
    pub fn sign(&self, mut start: Start) -> Start {
        start.tag = self.tag_of(&start);
        start
    }

    /// Whether `start` carries the tag this key gives it (compared in constant time).
    pub fn verify(&self, start: &Start) -> bool {
        let want = self.tag_of(start);
        want.len() == start.tag.len()
            && want
                .bytes()
                .zip(start.tag.bytes())
                .fold(0u8, |d, (a, b)| d | (a ^ b))
                == 0
    }
}

/// `bytes` (a multiple of 3 long) in base64url without padding.
fn base64url(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    bytes
        .chunks(3)
        .flat_map(|c| {
            let n = (u32::from(c[0]) << 16)
                | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
                | u32::from(*c.get(2).unwrap_or(&0));
            [18, 12, 6, 0].map(|s| ALPHABET[(n >> s) as usize & 63] as char)
        })
        .collect()
}

/// The minute (since the Unix epoch) of `ms`, as an offer holds when it was made.
pub fn minute_of(ms: i64) -> u32 {
    u32::try_from(ms.max(0) / 60_000).unwrap_or(u32::MAX)
}

/// Until when (Unix ms) `start`'s offer can be taken.
pub fn offer_expires_ms(start: &Start) -> i64 {
    let correspondence = start.increment == 0 && start.minutes >= 24 * 60;
    let lifetime = if correspondence {
        CORRESPONDENCE_OFFER_LIFETIME
    } else {
        OFFER_LIFETIME
    };
    i64::from(start.issued) * 60_000 + lifetime.as_millis() as i64
}

/// What became of an offer when it was taken.
#[derive(Debug, PartialEq, Eq)]
pub enum Taken {
    /// Not taken before: it is now, on this message.
    Now,
    /// Taken already, on this same message (two presses at once on it).
    HereAlready,
    /// Taken already on another message: a replay of its data.
    Elsewhere,
    /// Too many offers remembered (only offers that began games are, so this is far off).
    Full,
}

/// The offers that began a game, each remembered until it expires (so that its signed data,
/// sent again on another message, begins no second game), at most `cap` of them.
pub struct UsedOffers {
    /// By tag: the message it began, and until when it is kept (Unix ms).
    taken: HashMap<String, (String, i64)>,
    cap: usize,
}

impl UsedOffers {
    /// Remembers at most `cap` offers at once.
    pub fn new(cap: usize) -> UsedOffers {
        UsedOffers {
            taken: HashMap::new(),
            cap,
        }
    }

    /// Takes the offer `start` for message `message` at `now_ms`.
    pub fn take(&mut self, start: &Start, message: &str, now_ms: i64) -> Taken {
        if let Some((at, _)) = self.taken.get(&start.tag) {
            return if at == message {
                Taken::HereAlready
            } else {
                Taken::Elsewhere
            };
        }
        if self.taken.len() >= self.cap {
            self.taken.retain(|_, (_, until)| *until > now_ms);
            if self.taken.len() >= self.cap {
                return Taken::Full;
            }
        }
        let until = offer_expires_ms(start);
        self.taken
            .insert(start.tag.clone(), (message.to_string(), until));
        Taken::Now
    }

    /// Forgets that `start` was taken (its game could not be made).
    pub fn give_back(&mut self, start: &Start) {
        self.taken.remove(&start.tag);
    }
}

/// How many games one Telegram user may begin by pressing: a bucket of `burst` that refills
/// one every `every`.
pub struct BeginLimit {
    burst: f64,
    every: Duration,
    /// By Telegram user: the games they may still begin, when last counted.
    buckets: HashMap<i64, (f64, tokio::time::Instant)>,
    cap: usize,
}

impl BeginLimit {
    /// `burst` games at once, then one every `every`; at most `cap` users counted at once
    /// (those with a full bucket are forgotten first).
    pub fn new(burst: u32, every: Duration, cap: usize) -> BeginLimit {
        BeginLimit {
            burst: f64::from(burst),
            every,
            buckets: HashMap::new(),
            cap,
        }
    }

    fn level(&self, (left, at): (f64, tokio::time::Instant), now: tokio::time::Instant) -> f64 {
        let gained = now.saturating_duration_since(at).as_secs_f64() / self.every.as_secs_f64();
        (left + gained).min(self.burst)
    }

    /// Whether `user` may begin a game now (it is counted if so).
    pub fn allow(&mut self, user: i64, now: tokio::time::Instant) -> bool {
        if self.buckets.len() >= self.cap && !self.buckets.contains_key(&user) {
            let burst = self.burst;
            let every = self.every;
            self.buckets.retain(|_, &mut (left, at)| {
                let gained = now.saturating_duration_since(at).as_secs_f64() / every.as_secs_f64();
                left + gained < burst
            });
            if self.buckets.len() >= self.cap {
                return false;
            }
        }
        let level = match self.buckets.get(&user) {
            Some(&b) => self.level(b, now),
            None => self.burst,
        };
        if level < 1.0 {
            return false;
        }
        self.buckets.insert(user, (level - 1.0, now));
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Skin;
    use crate::texts::Lang;

    fn start() -> Start {
        Start {
            creator: 111,
            minutes: 5,
            increment: 3,
            level: 0,
            rated: true,
            group: false,
            lang: Lang::En,
            skin: Skin::Plain,
            issued: 29_000_000,
            nonce: "0a1b2c3d".into(),
            tag: String::new(),
        }
    }

    #[test]
    fn base64url_of_known_bytes() {
        // RFC 4648's examples, in the URL alphabet.
        assert_eq!(base64url(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64url(&[0xfb, 0xff, 0xbf]), "-_-_");
    }

    #[test]
    fn a_signed_start_verifies_and_any_change_or_another_key_does_not() {
        let key = PressKey::from_token("123:A");
        let signed = key.sign(start());
        assert_eq!(signed.tag.len(), TAG_LEN);
        assert!(key.verify(&signed));
        assert!(!PressKey::from_token("123:B").verify(&signed));
        let changes: [fn(&mut Start); 5] = [
            |s| s.creator = 222,
            |s| s.rated = false,
            |s| s.minutes = 1,
            |s| s.issued += 1,
            |s| s.nonce = "0a1b2c3e".into(),
        ];
        for change in changes {
            let mut s = signed.clone();
            change(&mut s);
            assert!(!key.verify(&s), "{s:?}");
        }
        let mut unsigned = signed.clone();
        unsigned.tag.clear();
        assert!(!key.verify(&unsigned));
    }

    #[test]
    fn an_offer_begins_one_game_on_one_message() {
        let start = PressKey::from_token("1:T").sign(start());
        let mut used = UsedOffers::new(2);
        let now = i64::from(start.issued) * 60_000;
        assert_eq!(used.take(&start, "IM1", now), Taken::Now);
        assert_eq!(used.take(&start, "IM1", now), Taken::HereAlready);
        assert_eq!(used.take(&start, "IM2", now), Taken::Elsewhere);
        used.give_back(&start);
        assert_eq!(used.take(&start, "IM2", now), Taken::Now);
        // Full of offers not expired: refused; once they expire, room again.
        let mut other = start.clone();
        other.tag = "other".into();
        assert_eq!(used.take(&other, "IM3", now), Taken::Now);
        let mut third = start.clone();
        third.tag = "third".into();
        assert_eq!(used.take(&third, "IM4", now), Taken::Full);
        let later = offer_expires_ms(&start) + 1;
        assert_eq!(used.take(&third, "IM4", later), Taken::Now);
    }

    #[test]
    fn begins_are_limited_per_user_and_refill() {
        let mut limit = BeginLimit::new(3, Duration::from_secs(10), 100);
        let t0 = tokio::time::Instant::now();
        for _ in 0..3 {
            assert!(limit.allow(1, t0));
        }
        assert!(!limit.allow(1, t0));
        assert!(limit.allow(2, t0), "another user has their own");
        assert!(!limit.allow(1, t0 + Duration::from_secs(9)));
        assert!(limit.allow(1, t0 + Duration::from_secs(10)));
        assert!(!limit.allow(1, t0 + Duration::from_secs(10)));
    }
}
