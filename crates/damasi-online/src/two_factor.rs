//! Two factors: a TOTP secret (RFC 6238: SHA-1, 6 digits, 30-second steps, one step of skew
//! either way) set up with a QR code, turned on by a first code, and then asked at every
//! log-in with a password; ten one-time recovery codes stand in for the authenticator. A code
//! is accepted once per time step (the last step used is kept), so a code seen over a shoulder
//! cannot be used again. API tokens are not asked for it (as on lichess: the second factor
//! guards log-ins). Also the scopes of API tokens, with lichess's names.

use qrcode::render::svg;
use qrcode::QrCode;
use totp_rs::{Algorithm, Secret, TOTP};

use crate::accounts::{
    guests_casual_only, new_secret, secret_hash, verify_password, wrong_password, Accounts, Player,
};
use crate::error::ApiError;

/// Digits of a code.
pub const DIGITS: usize = 6;

/// Seconds of a time step.
pub const STEP_SECONDS: u64 = 30;

/// Steps before and after the current one whose codes are accepted too (a clock a little off).
pub const SKEW: u8 = 1;

/// The issuer the authenticator app shows.
pub const ISSUER: &str = "damasi";

/// Bytes of a new secret (160 bits, as RFC 4226 recommends).
pub const SECRET_BYTES: usize = 20;

/// Recovery codes made when the second factor is turned on.
pub const RECOVERY_CODES: usize = 10;

/// What a person needs to add the account to an authenticator app.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// The secret, base32 (to type in by hand).
    pub secret: String,
    /// The `otpauth://totp/...` URI the QR code holds.
    pub uri: String,
    /// The QR code of the URI, as an SVG document.
    pub qr_svg: String,
}

/// The TOTP generator for `secret` (raw bytes) with `digits` digits, named for `account`.
fn totp(secret: Vec<u8>, digits: usize, account: &str) -> Result<TOTP, ApiError> {
    TOTP::new(
        Algorithm::SHA1,
        digits,
        SKEW,
        STEP_SECONDS,
        secret,
        Some(ISSUER.into()),
        account.into(),
    )
    .map_err(|e| ApiError::Internal(format!("TOTP for {account}: {e}")))
}

/// The TOTP code of `secret` (raw bytes, at least 16) with `digits` digits (6 to 8) at Unix
/// time `unix_s`, as RFC 6238 computes it with SHA-1 and 30-second steps.
pub fn code_at(secret: &[u8], digits: usize, unix_s: u64) -> Result<String, ApiError> {
    Ok(totp(secret.to_vec(), digits, "check")?.generate(unix_s))
}

/// The raw bytes of a stored base32 secret.
fn secret_bytes(base32: &str) -> Result<Vec<u8>, ApiError> {
    Secret::Encoded(base32.to_string())
        .to_bytes()
        .map_err(|e| ApiError::Internal(format!("stored TOTP secret: {e:?}")))
}

/// The time step of `code` (digits, spaces ignored) for `secret` at `unix_s`, within
/// [`SKEW`] steps; none when it fits none.
fn step_of(secret: &[u8], code: &str, unix_s: u64) -> Result<Option<i64>, ApiError> {
    let code: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    if code.len() != DIGITS || !code.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(None);
    }
    let now = unix_s / STEP_SECONDS;
    let t = totp(secret.to_vec(), DIGITS, "check")?;
    let mut found = None;
    for step in now.saturating_sub(SKEW as u64)..=now + SKEW as u64 {
        let expected = t.generate(step * STEP_SECONDS);
        // Every step is computed and compared whole, so the time tells nothing.
        let same = expected
            .bytes()
            .zip(code.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0;
        if same && found.is_none() {
            found = Some(step as i64);
        }
    }
    Ok(found)
}

/// A recovery code as typed, lower case without dashes or spaces, if it has the shape of one
/// (16 hexadecimal digits).
fn recovery_shape(code: &str) -> Option<String> {
    let c: String = code
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .collect::<String>()
        .to_ascii_lowercase();
    (c.len() == 16 && c.bytes().all(|b| b.is_ascii_hexdigit())).then_some(c)
}

/// The refusal of a log-in with a right password and no code (401 `two-factor-needed`).
pub fn two_factor_needed() -> ApiError {
    ApiError::LogInRefused {
        code: "two-factor-needed",
        message: "this account has two-factor authentication on: send the code of the \
                  authenticator app (or a recovery code) as `code`"
            .into(),
    }
}

/// The refusal of a code that does not fit, or was used already (401 `two-factor-wrong`).
pub fn two_factor_wrong() -> ApiError {
    ApiError::LogInRefused {
        code: "two-factor-wrong",
        message: "the two-factor code is wrong, or was used already: wait for the next one".into(),
    }
}

impl Accounts {
    /// Whether `user` has the second factor on.
    pub async fn two_factor_on(&self, user: i64) -> Result<bool, ApiError> {
        Ok(self
            .db
            .two_factor(user)
            .await?
            .is_some_and(|r| r.enabled_ms.is_some()))
    }

    /// Checks `password` for `player`'s account, refusing guests (403) and accounts made
    /// without one (409 `no-password`); a wrong one is a 403 `wrong-password`.
    async fn check_own_password(&self, player: &Player, password: String) -> Result<(), ApiError> {
        if player.guest {
            return Err(guests_casual_only(
                "guests cannot have two-factor authentication: sign up first",
            ));
        }
        let user = self
            .db
            .user(player.id)
            .await?
            .ok_or_else(|| ApiError::Unauthorized("the account is gone".into()))?;
        let Some(hash) = user.password else {
            return Err(ApiError::conflict(
                "no-password",
                "this account has no password, so no log-in for a second factor to guard",
            ));
        };
        if !verify_password(password, hash).await? {
            return Err(wrong_password());
        }
        Ok(())
    }

    /// Sets up a new TOTP secret for `player` (after checking `password`): kept pending until
    /// [`Accounts::enable_two_factor`] gets a code of it. 409 `two-factor-on` when it is on
    /// already.
    pub async fn setup_two_factor(
        &self,
        player: &Player,
        password: String,
    ) -> Result<Setup, ApiError> {
        self.check_own_password(player, password).await?;
        let mut raw = [0u8; SECRET_BYTES];
        getrandom::fill(&mut raw)
            .map_err(|e| ApiError::Internal(format!("no random numbers: {e}")))?;
        let t = totp(raw.to_vec(), DIGITS, &player.name)?;
        let secret = t.get_secret_base32();
        if !self
            .db
            .set_pending_two_factor(player.id, secret.clone())
            .await?
        {
            return Err(already_on());
        }
        let uri = t.get_url();
        let qr_svg = QrCode::new(uri.as_bytes())
            .map_err(|e| ApiError::Internal(format!("QR code: {e}")))?
            .render::<svg::Color<'_>>()
            .min_dimensions(200, 200)
            .build();
        Ok(Setup {
            secret,
            uri,
            qr_svg,
        })
    }

    /// Turns on the secret set up for `player` when `code` fits it at `unix_s`, and returns
    /// the [`RECOVERY_CODES`] recovery codes, shown this once (kept as hashes). 409
    /// `two-factor-on` when it is on already, 409 `no-two-factor-setup` when nothing was set
    /// up, 401 `two-factor-wrong` when the code does not fit.
    pub async fn enable_two_factor(
        &self,
        player: &Player,
        code: &str,
        unix_s: u64,
    ) -> Result<Vec<String>, ApiError> {
        let row = self.db.two_factor(player.id).await?;
        let Some(row) = row else {
            return Err(ApiError::conflict(
                "no-two-factor-setup",
                "set two-factor authentication up first (POST /api/account/two-factor/setup)",
            ));
        };
        if row.enabled_ms.is_some() {
            return Err(already_on());
        }
        let Some(step) = step_of(&secret_bytes(&row.secret)?, code, unix_s)? else {
            return Err(two_factor_wrong());
        };
        let mut codes = Vec::with_capacity(RECOVERY_CODES);
        for _ in 0..RECOVERY_CODES {
            let s = new_secret()?;
            codes.push(format!(
                "{}-{}-{}-{}",
                &s[0..4],
                &s[4..8],
                &s[8..12],
                &s[12..16]
            ));
        }
        let hashes = codes
            .iter()
            .map(|c| secret_hash(&recovery_shape(c).unwrap_or_default()))
            .collect();
        let now_ms = (unix_s as i64).saturating_mul(1000);
        if !self
            .db
            .enable_two_factor(player.id, step, now_ms, hashes)
            .await?
        {
            return Err(already_on());
        }
        Ok(codes)
    }

    /// Turns `player`'s second factor off, after checking `password` and `code` (a TOTP code
    /// or a recovery code). 409 `two-factor-off` when it is not on.
    pub async fn disable_two_factor(
        &self,
        player: &Player,
        password: String,
        code: &str,
        unix_s: u64,
    ) -> Result<(), ApiError> {
        self.check_own_password(player, password).await?;
        if !self.two_factor_on(player.id).await? {
            return Err(ApiError::conflict(
                "two-factor-off",
                "two-factor authentication is not on",
            ));
        }
        if !self.check_second_factor(player.id, code, unix_s).await? {
            return Err(two_factor_wrong());
        }
        self.db.disable_two_factor(player.id).await?;
        Ok(())
    }

    /// Whether `code` passes `user`'s second factor at `unix_s`, and uses it up: a TOTP code of
    /// a step later than the last one used, or one of the recovery codes left. False when the
    /// second factor is off.
    pub async fn check_second_factor(
        &self,
        user: i64,
        code: &str,
        unix_s: u64,
    ) -> Result<bool, ApiError> {
        let Some(row) = self.db.two_factor(user).await? else {
            return Ok(false);
        };
        if row.enabled_ms.is_none() {
            return Ok(false);
        }
        if let Some(step) = step_of(&secret_bytes(&row.secret)?, code, unix_s)? {
            return self.db.use_two_factor_step(user, step).await;
        }
        match recovery_shape(code) {
            Some(c) => self.db.use_recovery_code(user, secret_hash(&c)).await,
            None => Ok(false),
        }
    }

    /// The log-in with a second factor: [`Accounts::log_in`] (the same answer for an unknown
    /// name and a wrong password), then, when the account has the second factor on, 401
    /// `two-factor-needed` without `code` and 401 `two-factor-wrong` with one that does not
    /// pass ([`Accounts::check_second_factor`]).
    pub async fn log_in_with_code(
        &self,
        name: &str,
        password: String,
        code: Option<&str>,
        unix_s: u64,
    ) -> Result<Player, ApiError> {
        let player = self.log_in(name, password).await?;
        if !self.two_factor_on(player.id).await? {
            return Ok(player);
        }
        match code.map(str::trim).filter(|c| !c.is_empty()) {
            None => Err(two_factor_needed()),
            Some(c) if self.check_second_factor(player.id, c, unix_s).await? => Ok(player),
            Some(_) => Err(two_factor_wrong()),
        }
    }
}

fn already_on() -> ApiError {
    ApiError::conflict(
        "two-factor-on",
        "two-factor authentication is on already: turn it off first to set up another secret",
    )
}

/// lichess's scope names that damasi's routes know; a token without scopes may do all.
pub const SCOPES: &[&str] = &[
    "board:play",
    "bot:play",
    "challenge:read",
    "challenge:write",
    "tournament:write",
    "follow:read",
    "follow:write",
    "email:read",
    "preference:read",
    "msg:write",
    "web:mod",
];

/// What only a log-in (or a token that may do everything) may do: change the password, the
/// address, the second factor, sessions and tokens, close the account, download its data,
/// report players. lichess's name for a full log-in; no token can be given it as a scope.
pub const WEB_LOGIN: &str = "web:login";

/// Checks a token's scopes as asked (lichess's names, see [`SCOPES`]) and returns them
/// space-separated, sorted and without repeats; 400 naming the first unknown one.
pub fn check_scopes(scopes: &[String]) -> Result<String, ApiError> {
    let mut out: Vec<&str> = Vec::new();
    for (i, s) in scopes.iter().enumerate() {
        let s = s.trim();
        match SCOPES.iter().find(|k| **k == s) {
            Some(k) => out.push(k),
            None => {
                return Err(ApiError::BadRequest(format!(
                    "scopes[{i}]: unknown scope '{s}' (known: {})",
                    SCOPES.join(", ")
                )))
            }
        }
    }
    if out.is_empty() {
        return Err(ApiError::BadRequest(
            "scopes: give at least one, or leave it out for a token that may do everything".into(),
        ));
    }
    out.sort_unstable();
    out.dedup();
    Ok(out.join(" "))
}

/// The scopes of which a request sent with a scoped token needs one, from its method and
/// path under `/api` (as lichess asks them where it has the route); none for what any token
/// may do (public reads, the token's own test and revocation, a player's own games and
/// notices). The account's own settings need [`WEB_LOGIN`], which no scoped token has.
pub fn scope_for(method: &str, path: &str) -> Option<&'static [&'static str]> {
    let write = method != "GET" && method != "HEAD";
    let path = path.strip_prefix("/api/")?;
    let under = |prefix: &str| path == prefix || path.starts_with(&format!("{prefix}/"));
    Some(match () {
        _ if path == "bot/online" => return None,
        _ if under("board")
            || (write && (under("online/games") || under("lobby") || under("pool"))) =>
        {
            &["board:play"]
        }
        _ if under("bot") => &["bot:play"],
        _ if under("stream/event") => &["challenge:read", "bot:play", "board:play"],
        _ if under("challenge") && write => &["challenge:write"],
        _ if under("challenge") => &["challenge:read"],
        _ if write && (under("tournament") || under("swiss")) => &["tournament:write"],
        _ if under("rel") && write => &["follow:write"],
        _ if under("rel") => &["follow:read"],
        _ if under("mod") => &["web:mod"],
        _ if path == "report"
            || path == "account/export"
            || path == "account/close"
            || path == "account/token"
            || path == "account/link-code"
            || path == "account/logout-everywhere"
            || under("account/password") && !under("account/password-reset")
            || under("account/sessions")
            || under("account/two-factor")
            || under("account/email")
            || under("account/telegram") =>
        {
            &[WEB_LOGIN]
        }
        _ => return None,
    })
}

/// Refuses a request needing one of `needed` sent with a token limited to `scopes`
/// (space-separated) that has none of them: 403 `missing-scope`.
pub fn check_scope(scopes: Option<&str>, needed: &[&str]) -> Result<(), ApiError> {
    match scopes {
        Some(list) if !list.split(' ').any(|s| needed.contains(&s)) => {
            let what = if needed == [WEB_LOGIN] {
                "only a log-in or a token that may do everything may do this".to_string()
            } else {
                format!("this API token needs the scope '{}'", needed.join("' or '"))
            };
            Err(ApiError::Forbidden {
                code: "missing-scope",
                message: format!("{what} (it has: {list})"),
            })
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::OnlineDb;
    use hmac::{Hmac, Mac};

    /// RFC 6238 written out again for the tests, from RFC 4226's HMAC-SHA-1 and dynamic
    /// truncation, without the code under test: the codes a person's app would show.
    fn app_code(secret: &[u8], unix_s: u64, digits: u32) -> String {
        let mut mac = Hmac::<sha1::Sha1>::new_from_slice(secret).unwrap();
        mac.update(&(unix_s / 30).to_be_bytes());
        let h = mac.finalize().into_bytes();
        let o = (h[19] & 0x0f) as usize;
        let n = u32::from_be_bytes([h[o] & 0x7f, h[o + 1], h[o + 2], h[o + 3]]);
        format!("{:0w$}", n % 10u32.pow(digits), w = digits as usize)
    }

    /// Base32 (RFC 4648) decoded by hand, for [`app_code`].
    fn base32(text: &str) -> Vec<u8> {
        let (mut bits, mut n, mut out) = (0u64, 0, Vec::new());
        for c in text.bytes() {
            let v = match c {
                b'A'..=b'Z' => c - b'A',
                b'2'..=b'7' => c - b'2' + 26,
                _ => panic!("not base32: {c}"),
            };
            bits = (bits << 5) | v as u64;
            n += 5;
            if n >= 8 {
                out.push((bits >> (n - 8)) as u8);
                n -= 8;
            }
        }
        out
    }

    #[test]
    fn the_tests_own_totp_gives_the_rfc_vectors() {
        assert_eq!(app_code(b"12345678901234567890", 1111111109, 8), "07081804");
        assert_eq!(
            app_code(b"12345678901234567890", 20000000000, 8),
            "65353130"
        );
    }

    #[tokio::test]
    async fn two_factors_guard_the_log_in_once_per_code() {
        let accounts = Accounts::new(OnlineDb::in_memory());
        let p = accounts
            .sign_up("ayse", "kestane kebap".into(), 1_000)
            .await
            .unwrap();
        let t = 1_800_000_000u64;
        let code = |secret: &str, t: u64| app_code(&base32(secret), t, 6);
        assert_eq!(
            accounts
                .setup_two_factor(&p, "wrong one!".into())
                .await
                .unwrap_err()
                .code(),
            "wrong-password"
        );
        let setup = accounts
            .setup_two_factor(&p, "kestane kebap".into())
            .await
            .unwrap();
        assert_eq!(base32(&setup.secret).len(), SECRET_BYTES);
        assert!(
            setup.uri.starts_with("otpauth://totp/damasi:ayse?"),
            "{}",
            setup.uri
        );
        assert!(setup.uri.contains(&format!("secret={}", setup.secret)));
        assert!(setup.uri.contains("issuer=damasi"));
        assert!(setup.qr_svg.contains("<svg"));
        // Pending: log-ins do not ask for it yet.
        assert!(!accounts.two_factor_on(p.id).await.unwrap());
        accounts
            .log_in_with_code("ayse", "kestane kebap".into(), None, t)
            .await
            .unwrap();
        let wrong = format!(
            "{:06}",
            (code(&setup.secret, t).parse::<u32>().unwrap() + 1) % 1_000_000
        );
        assert_eq!(
            accounts
                .enable_two_factor(&p, &wrong, t)
                .await
                .unwrap_err()
                .code(),
            "two-factor-wrong"
        );
        let recovery = accounts
            .enable_two_factor(&p, &code(&setup.secret, t), t)
            .await
            .unwrap();
        assert_eq!(recovery.len(), RECOVERY_CODES);
        assert!(accounts.two_factor_on(p.id).await.unwrap());
        assert_eq!(
            accounts
                .setup_two_factor(&p, "kestane kebap".into())
                .await
                .unwrap_err()
                .code(),
            "two-factor-on"
        );
        let log_in = |c: Option<String>, t: u64| {
            let accounts = accounts.clone();
            async move {
                accounts
                    .log_in_with_code("ayse", "kestane kebap".into(), c.as_deref(), t)
                    .await
                    .map_err(|e| e.code())
            }
        };
        assert_eq!(log_in(None, t).await.unwrap_err(), "two-factor-needed");
        // The code that turned it on is used: not again, nor its step's neighbours' earlier.
        assert_eq!(
            log_in(Some(code(&setup.secret, t)), t).await.unwrap_err(),
            "two-factor-wrong"
        );
        assert_eq!(
            log_in(Some(code(&setup.secret, t)), t + 10)
                .await
                .unwrap_err(),
            "two-factor-wrong"
        );
        // The next step's code, a step late (the app's clock behind): accepted once.
        let next = code(&setup.secret, t + 30);
        assert_eq!(log_in(Some(next.clone()), t + 60).await.unwrap().id, p.id);
        assert_eq!(
            log_in(Some(next), t + 60).await.unwrap_err(),
            "two-factor-wrong"
        );
        // Two steps off: refused.
        assert_eq!(
            log_in(Some(code(&setup.secret, t + 300)), t + 240)
                .await
                .unwrap_err(),
            "two-factor-wrong"
        );
        // A wrong password is refused as before, code or not.
        assert_eq!(
            accounts
                .log_in_with_code(
                    "ayse",
                    "not the one".into(),
                    Some(&code(&setup.secret, t + 600)),
                    t + 600
                )
                .await
                .unwrap_err()
                .code(),
            "unauthorized"
        );
        // A recovery code, in capitals and without dashes: once.
        let r = recovery[3].replace('-', "").to_uppercase();
        assert_eq!(log_in(Some(r.clone()), t + 900).await.unwrap().id, p.id);
        assert_eq!(
            log_in(Some(r), t + 900).await.unwrap_err(),
            "two-factor-wrong"
        );
        assert_eq!(accounts.db.recovery_codes_left(p.id).await.unwrap(), 9);
        // Another account's recovery code is not this one's.
        let q = accounts
            .sign_up("mehmet", "badem ezmesi".into(), 1_000)
            .await
            .unwrap();
        assert!(!accounts
            .check_second_factor(q.id, &recovery[4], t)
            .await
            .unwrap());
        // Turning it off asks the password and a code.
        assert_eq!(
            accounts
                .disable_two_factor(&p, "kestane kebap".into(), "000000x", t + 1200)
                .await
                .unwrap_err()
                .code(),
            "two-factor-wrong"
        );
        accounts
            .disable_two_factor(
                &p,
                "kestane kebap".into(),
                &code(&setup.secret, t + 1200),
                t + 1200,
            )
            .await
            .unwrap();
        assert!(!accounts.two_factor_on(p.id).await.unwrap());
        assert_eq!(accounts.db.recovery_codes_left(p.id).await.unwrap(), 0);
        assert_eq!(log_in(None, t + 1500).await.unwrap().id, p.id);
        // Guests and accounts without a password cannot have it.
        let g = accounts.guest(1_000).await.unwrap();
        assert_eq!(
            accounts
                .setup_two_factor(&g, "whatever1".into())
                .await
                .unwrap_err()
                .code(),
            "guests-casual-only"
        );
        let b = accounts.add_bot("robot", 1_000).await.unwrap();
        assert_eq!(
            accounts
                .setup_two_factor(&b, "whatever1".into())
                .await
                .unwrap_err()
                .code(),
            "no-password"
        );
    }

    /// RFC 6238, Appendix B: the SHA-1 rows, secret "12345678901234567890", 8 digits.
    #[test]
    fn codes_are_rfc_6238s_test_vectors() {
        let secret = b"12345678901234567890";
        for (t, code) in [
            (59, "94287082"),
            (1111111109, "07081804"),
            (1111111111, "14050471"),
            (1234567890, "89005924"),
            (2000000000, "69279037"),
            (20000000000, "65353130"),
        ] {
            assert_eq!(code_at(secret, 8, t).unwrap(), code, "at {t}");
        }
        // Six digits are the last six of the same number (RFC 4226's truncation).
        assert_eq!(code_at(secret, 6, 59).unwrap(), "287082");
    }

    #[test]
    fn a_code_fits_its_step_and_one_either_side() {
        let secret = b"12345678901234567890";
        // 1111111111 is in step 37037037; "050471" is its code.
        let t = 1111111111;
        assert_eq!(step_of(secret, "050471", t).unwrap(), Some(37037037));
        assert_eq!(step_of(secret, "050 471", t + 30).unwrap(), Some(37037037));
        assert_eq!(step_of(secret, "050471", t - 30).unwrap(), Some(37037037));
        assert_eq!(step_of(secret, "050471", t + 60).unwrap(), None);
        assert_eq!(step_of(secret, "050472", t).unwrap(), None);
        assert_eq!(step_of(secret, "05047", t).unwrap(), None);
        assert_eq!(step_of(secret, "abcdef", t).unwrap(), None);
    }

    #[test]
    fn recovery_codes_are_read_whatever_the_dashes_and_case() {
        assert_eq!(
            recovery_shape("ABCD-0123-4567-89ef").as_deref(),
            Some("abcd0123456789ef")
        );
        assert_eq!(recovery_shape("123456"), None);
        assert_eq!(recovery_shape("zzzz-0123-4567-89ef"), None);
    }

    #[test]
    fn scopes_are_lichess_names_and_checked_per_route() {
        assert_eq!(
            check_scopes(&[
                "challenge:write".into(),
                "board:play".into(),
                "board:play".into()
            ])
            .unwrap(),
            "board:play challenge:write"
        );
        let e = check_scopes(&["board:play".into(), "games:everything".into()]).unwrap_err();
        assert!(e.message().contains("scopes[1]"), "{}", e.message());
        assert!(check_scopes(&[]).is_err());
        // Route by route, as lichess asks (any of the scopes listed).
        for (method, path, want) in [
            (
                "POST",
                "/api/board/game/x/move/e3",
                Some(&["board:play"][..]),
            ),
            (
                "POST",
                "/api/online/games/x/move",
                Some(&["board:play"][..]),
            ),
            ("POST", "/api/lobby/seeks", Some(&["board:play"][..])),
            ("GET", "/api/online/games/x", None),
            ("POST", "/api/bot/account/upgrade", Some(&["bot:play"][..])),
            ("GET", "/api/bot/online", None),
            (
                "GET",
                "/api/stream/event",
                Some(&["challenge:read", "bot:play", "board:play"][..]),
            ),
            ("GET", "/api/challenge", Some(&["challenge:read"][..])),
            (
                "POST",
                "/api/challenge/ayse",
                Some(&["challenge:write"][..]),
            ),
            ("POST", "/api/tournament", Some(&["tournament:write"][..])),
            ("POST", "/api/swiss/x/join", Some(&["tournament:write"][..])),
            ("GET", "/api/tournament", None),
            ("POST", "/api/rel/follow/ayse", Some(&["follow:write"][..])),
            ("GET", "/api/rel/following", Some(&["follow:read"][..])),
            ("POST", "/api/mod/ayse/warn", Some(&["web:mod"][..])),
            ("POST", "/api/account/password", Some(&[WEB_LOGIN][..])),
            (
                "POST",
                "/api/account/two-factor/setup",
                Some(&[WEB_LOGIN][..]),
            ),
            ("POST", "/api/account/token", Some(&[WEB_LOGIN][..])),
            ("GET", "/api/account/export", Some(&[WEB_LOGIN][..])),
            ("POST", "/api/report", Some(&[WEB_LOGIN][..])),
            ("POST", "/api/account/password-reset", None),
            ("GET", "/api/account", None),
            ("DELETE", "/api/token", None),
            ("GET", "/api/user/ayse", None),
            ("GET", "/online", None),
        ] {
            assert_eq!(scope_for(method, path), want, "{method} {path}");
        }
        assert!(check_scope(None, &["board:play"]).is_ok());
        assert!(check_scope(Some("board:play challenge:write"), &["board:play"]).is_ok());
        assert!(check_scope(Some("bot:play"), &["challenge:read", "bot:play"]).is_ok());
        assert_eq!(
            check_scope(Some("challenge:read"), &["board:play"])
                .unwrap_err()
                .code(),
            "missing-scope"
        );
        let e = check_scope(Some("board:play"), &[WEB_LOGIN]).unwrap_err();
        assert!(e.message().contains("only a log-in"), "{}", e.message());
    }
}
