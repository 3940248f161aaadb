//! An account's e-mail address and the one-time links that are mailed to it: a link that
//! confirms the address (valid [`CONFIRM_EMAIL_LIFETIME`]) and a link that sets a new password
//! (valid [`RESET_LIFETIME`], used once, every older one void after a reset). The links are
//! random 128-bit secrets kept only as SHA-256 hashes, like sessions. Nothing here sends mail
//! or knows the site's address: the web edge mails the links, the command line prints them.

use std::time::Duration;

use crate::accounts::{
    check_new_password, check_password, hash_password, new_secret, secret_hash, verify_password,
    Accounts, Player,
};
use crate::db::{EmailRow, SecretKind};
use crate::error::ApiError;

/// How long a mailed confirmation link stays valid.
pub const CONFIRM_EMAIL_LIFETIME: Duration = Duration::from_secs(24 * 60 * 60);

/// How long a password-reset link stays valid.
pub const RESET_LIFETIME: Duration = Duration::from_secs(60 * 60);

/// Longest address accepted (RFC 5321's limit on a path).
pub const MAX_EMAIL: usize = 254;

/// Checks an e-mail address and returns it trimmed: at most [`MAX_EMAIL`] characters, one `@`
/// between a local part of at most 64 characters and a domain with a dot, and no spaces,
/// control characters, quotes or angle brackets (what could break out of a mail header).
pub fn check_email(address: &str) -> Result<String, ApiError> {
    let a = address.trim();
    let bad = |why: &str| {
        ApiError::BadRequest(format!(
            "'{}' is not an e-mail address: {why}",
            a.chars().take(60).collect::<String>()
        ))
    };
    if a.is_empty() {
        return Err(ApiError::BadRequest("the e-mail address is empty".into()));
    }
    if a.chars().count() > MAX_EMAIL {
        return Err(bad(&format!("it has more than {MAX_EMAIL} characters")));
    }
    if a.chars()
        .any(|c| c.is_whitespace() || c.is_control() || "<>\"'(),;:\\[]".contains(c))
    {
        return Err(bad(
            "it holds a space, a quote, a bracket or a control character",
        ));
    }
    let Some((local, domain)) = a.split_once('@') else {
        return Err(bad("it has no '@'"));
    };
    if domain.contains('@') {
        return Err(bad("it has more than one '@'"));
    }
    if local.is_empty() || local.chars().count() > 64 {
        return Err(bad("the part before '@' has 1 to 64 characters"));
    }
    let labels_ok = domain
        .split('.')
        .all(|l| !l.is_empty() && !l.starts_with('-') && !l.ends_with('-'));
    if !domain.contains('.') || !labels_ok {
        return Err(bad(
            "the part after '@' is a domain name such as example.org",
        ));
    }
    Ok(a.to_string())
}

/// What a password-reset request found: the account and its confirmed address, with the link's
/// secret to mail. Unknown and unconfirmed addresses find nothing.
#[derive(Clone, Debug)]
pub struct ResetMail {
    /// The account.
    pub player: Player,
    /// Its confirmed address, as stored.
    pub address: String,
    /// The link's secret (shown once: only its hash is kept).
    pub secret: String,
}

/// The refusal of a mailed link that is unknown, used already or expired
/// `not-found`).
fn link_not_valid(what: &str) -> ApiError {
    ApiError::NotFound(format!(
        "this {what} link is not valid: it was used already, it expired, or a newer one replaced it"
    ))
}

fn ms(d: Duration) -> i64 {
    d.as_millis() as i64
}

impl Accounts {
    /// `player`'s e-mail address, if the account has one.
    pub async fn email_of(&self, player: &Player) -> Result<Option<EmailRow>, ApiError> {
        Ok(self
            .db
            .user_and_email(player.id)
            .await?
            .and_then(|(_, email)| email))
    }

    /// Sets `player`'s e-mail address after checking their password (as lichess asks it: 403
    /// `wrong-password`; 409 `no-password` for an account without one, whose address only the
    /// operator sets). The address is kept unconfirmed; returns the secret of a confirmation
    /// link to mail to it ([`CONFIRM_EMAIL_LIFETIME`]). Links mailed before are void. 409
    /// `email-taken` when another account has the address.
    pub async fn change_email(
        &self,
        player: &Player,
        password: String,
        address: &str,
        now: i64,
    ) -> Result<String, ApiError> {
        let address = check_email(address)?;
        if player.guest {
            return Err(crate::accounts::guests_casual_only(
                "guests have no e-mail address: sign up first",
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
                "this account has no password: the operator sets its address (damasi user set-email)",
            ));
        };
        if !verify_password(password, hash).await? {
            return Err(ApiError::Forbidden {
                code: "wrong-password",
                message: "the password is wrong".into(),
            });
        }
        self.db.set_email(player.id, Some(address), None).await?;
        self.issue(player.id, SecretKind::ConfirmEmail, now).await
    }

    /// The operator's change (`damasi user set-email`): sets the address of the account called
    /// `name`, confirmed at `now` (the operator vouches for it), or removes it with `None`.
    pub async fn set_email_of(
        &self,
        name: &str,
        address: Option<&str>,
        now: i64,
    ) -> Result<Player, ApiError> {
        let user = self.named(name).await?;
        let address = address.map(check_email).transpose()?;
        let confirmed = address.as_ref().map(|_| now);
        self.db.set_email(user.id, address, confirmed).await?;
        Ok(user)
    }

    /// Confirms the address a link was mailed to: the link is used up, and the address marked
    /// confirmed if the link was issued within [`CONFIRM_EMAIL_LIFETIME`]
    /// `not-found` otherwise). Returns the account.
    pub async fn confirm_email(&self, secret: &str, now: i64) -> Result<Player, ApiError> {
        let not_before = now.saturating_sub(ms(CONFIRM_EMAIL_LIFETIME));
        let user = self
            .db
            .take_secret(secret_hash(secret), SecretKind::ConfirmEmail, not_before)
            .await?
            .ok_or_else(|| link_not_valid("confirmation"))?;
        if !self.db.confirm_email(user, now).await? {
            return Err(link_not_valid("confirmation"));
        }
        let (row, _) = self
            .db
            .user_and_email(user)
            .await?
            .ok_or_else(|| link_not_valid("confirmation"))?;
        Ok(row.into())
    }

    /// A password reset asked for `address`: when an account has it confirmed, a new reset
    /// link ([`RESET_LIFETIME`]) and where to mail it; nothing for an unknown or unconfirmed
    /// address (the caller answers both alike).
    pub async fn reset_request(
        &self,
        address: &str,
        now: i64,
    ) -> Result<Option<ResetMail>, ApiError> {
        let Ok(address) = check_email(address) else {
            return Ok(None);
        };
        let Some((user, Some(email))) = self.db.user_by_email(&address).await? else {
            return Ok(None);
        };
        if email.confirmed_ms.is_none() || user.guest {
            return Ok(None);
        }
        let secret = self.issue(user.id, SecretKind::PasswordReset, now).await?;
        Ok(Some(ResetMail {
            player: user.into(),
            address: email.address,
            secret,
        }))
    }

    /// The operator's reset link for the account called `name` (`damasi user reset-password`),
    /// valid [`RESET_LIFETIME`], whether or not it has an address.
    pub async fn reset_link_for(&self, name: &str, now: i64) -> Result<String, ApiError> {
        let user = self.named(name).await?;
        if user.guest {
            return Err(crate::accounts::guests_casual_only(
                "a guest has no password to reset",
            ));
        }
        self.issue(user.id, SecretKind::PasswordReset, now).await
    }

    /// Whose password reset link `secret` is, if it is still valid (the page shows the name
    /// above its form; the link is not used up).
    pub async fn reset_target(&self, secret: &str, now: i64) -> Result<Player, ApiError> {
        let not_before = now.saturating_sub(ms(RESET_LIFETIME));
        self.db
            .user_by_secret(secret_hash(secret), SecretKind::PasswordReset, not_before)
            .await?
            .map(Player::from)
            .ok_or_else(|| link_not_valid("password reset"))
    }

    /// Sets a new password with reset link `secret` (checked as at sign-up: 400): the link is
    /// used up, and every session, reset link and Telegram link of the account is revoked;
    /// API tokens are kept, so that the account's programs keep running. Returns the account
    /// and how many sessions and links were revoked; 404 `not-found` for a link unknown,
    /// used or older than [`RESET_LIFETIME`].
    pub async fn reset_password(
        &self,
        secret: &str,
        new: String,
        now: i64,
    ) -> Result<(Player, u64), ApiError> {
        let player = self.reset_target(secret, now).await?;
        check_password(&new)?;
        check_new_password(&player.name, &new)?;
        let hash = hash_password(new).await?;
        let not_before = now.saturating_sub(ms(RESET_LIFETIME));
        let (user, revoked) = self
            .db
            .reset_password(secret_hash(secret), not_before, hash)
            .await?
            .ok_or_else(|| link_not_valid("password reset"))?;
        self.unlink(&player, None).await?;
        self.revoked_now(user);
        Ok((player, revoked))
    }

    /// The operator's new password for the account called `name` (`damasi user reset-password
    /// --password-stdin`), checked as at sign-up; revokes as [`Accounts::reset_password`] does.
    pub async fn set_password_of(&self, name: &str, new: String) -> Result<u64, ApiError> {
        let user = self.named(name).await?;
        if user.guest {
            return Err(crate::accounts::guests_casual_only(
                "a guest has no password to set",
            ));
        }
        check_password(&new)?;
        check_new_password(&user.name, &new)?;
        let hash = hash_password(new).await?;
        // The same revocations as a reset by link: through a link issued for the purpose.
        let secret = new_secret()?;
        let now = crate::now_ms();
        self.db
            .add_secret(
                user.id,
                SecretKind::PasswordReset,
                secret_hash(&secret),
                now,
            )
            .await?;
        let (_, revoked) = self
            .db
            .reset_password(secret_hash(&secret), now, hash)
            .await?
            .ok_or_else(|| ApiError::Internal("the operator's reset link vanished".into()))?;
        self.unlink(&user, None).await?;
        self.revoked_now(user.id);
        Ok(revoked.saturating_sub(1))
    }

    /// Forgets confirmation and reset links that have expired; how many.
    pub async fn forget_expired_links(&self, now: i64) -> Result<u64, ApiError> {
        let confirm = self
            .db
            .delete_expired_links(
                SecretKind::ConfirmEmail,
                now.saturating_sub(ms(CONFIRM_EMAIL_LIFETIME)),
            )
            .await?;
        let reset = self
            .db
            .delete_expired_links(
                SecretKind::PasswordReset,
                now.saturating_sub(ms(RESET_LIFETIME)),
            )
            .await?;
        Ok(confirm + reset)
    }

    async fn named(&self, name: &str) -> Result<Player, ApiError> {
        self.db
            .user_by_name(name)
            .await?
            .map(Player::from)
            .ok_or_else(|| ApiError::NotFound(format!("no account called '{name}'")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::OnlineDb;

    const HOUR: i64 = 60 * 60 * 1000;

    async fn ayse() -> (Accounts, Player) {
        let accounts = Accounts::new(OnlineDb::in_memory());
        let p = accounts
            .sign_up("ayse", "kestane kebap".into(), 1_000)
            .await
            .unwrap();
        (accounts, p)
    }

    #[test]
    fn addresses_are_checked() {
        assert_eq!(
            check_email("  ayse@example.org ").unwrap(),
            "ayse@example.org"
        );
        assert!(check_email("a.b+dama@mail.example.com.tr").is_ok());
        for bad in [
            "",
            "ayse",
            "ayse@",
            "@example.org",
            "ayse@example",
            "ayse@@example.org",
            "a@b@example.org",
            "ayse@example..org",
            "ayse @example.org",
            "ayse@example.org\r\nBcc: x@y.z",
            "<ayse@example.org>",
            "ayse@-example.org",
        ] {
            let e = check_email(bad).unwrap_err();
            assert_eq!(e.code(), "bad-request", "{bad:?} was accepted");
        }
        let long = format!("{}@example.org", "a".repeat(65));
        assert!(check_email(&long).is_err());
    }

    #[tokio::test]
    async fn a_confirmation_link_works_once_within_a_day() {
        let (accounts, p) = ayse().await;
        let wrong = accounts
            .change_email(&p, "not the password".into(), "ayse@example.org", 2_000)
            .await
            .unwrap_err();
        assert_eq!(wrong.code(), "wrong-password");
        assert_eq!(accounts.email_of(&p).await.unwrap(), None);

        let link = accounts
            .change_email(&p, "kestane kebap".into(), "Ayse@Example.org", 2_000)
            .await
            .unwrap();
        let stored = accounts.email_of(&p).await.unwrap().unwrap();
        assert_eq!(stored.address, "Ayse@Example.org");
        assert_eq!(stored.confirmed_ms, None);
        // Not a session, nor listed with them.
        assert!(accounts
            .identify_by(None, Some(&link))
            .await
            .unwrap()
            .is_none());
        assert!(accounts.secrets_of(&p).await.unwrap().is_empty());

        let at = 2_000 + 23 * HOUR;
        assert_eq!(accounts.confirm_email(&link, at).await.unwrap().id, p.id);
        assert_eq!(
            accounts.email_of(&p).await.unwrap().unwrap().confirmed_ms,
            Some(at)
        );
        let again = accounts.confirm_email(&link, at).await.unwrap_err();
        assert_eq!(again.code(), "not-found");

        // A day and a second later, a link is void.
        let late = accounts
            .change_email(&p, "kestane kebap".into(), "ayse@example.net", 10 * HOUR)
            .await
            .unwrap();
        assert!(accounts.confirm_email(&late, 34 * HOUR + 1).await.is_err());
        assert_eq!(
            accounts.email_of(&p).await.unwrap().unwrap().confirmed_ms,
            None,
            "a new address is unconfirmed"
        );
    }

    #[tokio::test]
    async fn a_new_address_voids_the_links_mailed_to_the_old_one() {
        let (accounts, p) = ayse().await;
        let first = accounts
            .change_email(&p, "kestane kebap".into(), "old@example.org", 2_000)
            .await
            .unwrap();
        accounts
            .change_email(&p, "kestane kebap".into(), "new@example.org", 3_000)
            .await
            .unwrap();
        assert!(accounts.confirm_email(&first, 4_000).await.is_err());
        assert_eq!(
            accounts.email_of(&p).await.unwrap().unwrap().confirmed_ms,
            None
        );
    }

    #[tokio::test]
    async fn an_address_belongs_to_one_account_whatever_the_case() {
        let (accounts, p) = ayse().await;
        accounts
            .change_email(&p, "kestane kebap".into(), "ayse@example.org", 2_000)
            .await
            .unwrap();
        let q = accounts
            .sign_up("mehmet", "lokum lokum".into(), 1_000)
            .await
            .unwrap();
        let e = accounts
            .change_email(&q, "lokum lokum".into(), "AYSE@example.ORG", 2_000)
            .await
            .unwrap_err();
        assert_eq!(e.code(), "email-taken");
        let e = accounts
            .set_email_of("mehmet", Some("Ayse@Example.Org"), 2_000)
            .await
            .unwrap_err();
        assert_eq!(e.code(), "email-taken");
        // Setting one's own address again in another case is no conflict.
        accounts
            .set_email_of("ayse", Some("AYSE@example.org"), 2_000)
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn only_a_confirmed_address_gets_a_reset_link() {
        let (accounts, p) = ayse().await;
        assert!(accounts
            .reset_request("nobody@example.org", 2_000)
            .await
            .unwrap()
            .is_none());
        assert!(accounts
            .reset_request("not an address", 2_000)
            .await
            .unwrap()
            .is_none());
        let link = accounts
            .change_email(&p, "kestane kebap".into(), "ayse@example.org", 2_000)
            .await
            .unwrap();
        assert!(accounts
            .reset_request("ayse@example.org", 2_000)
            .await
            .unwrap()
            .is_none());
        accounts.confirm_email(&link, 3_000).await.unwrap();
        let mail = accounts
            .reset_request(" AYSE@example.org", 4_000)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(mail.player.id, p.id);
        assert_eq!(mail.address, "ayse@example.org");
        assert_eq!(
            accounts.reset_target(&mail.secret, 4_000).await.unwrap().id,
            p.id
        );
    }

    #[tokio::test]
    async fn a_reset_link_expires_after_an_hour_and_works_once() {
        let (accounts, p) = ayse().await;
        accounts
            .set_email_of("ayse", Some("ayse@example.org"), 1_000)
            .await
            .unwrap();
        let old = accounts
            .reset_request("ayse@example.org", 0)
            .await
            .unwrap()
            .unwrap();
        let e = accounts
            .reset_password(&old.secret, "yeni parola 1".into(), HOUR + 1)
            .await
            .unwrap_err();
        assert_eq!(e.code(), "not-found");

        let now = 5 * HOUR;
        let session = accounts
            .issue(p.id, SecretKind::Session, now)
            .await
            .unwrap();
        let token = accounts.issue(p.id, SecretKind::Token, now).await.unwrap();
        let a = accounts
            .reset_request("ayse@example.org", now)
            .await
            .unwrap()
            .unwrap();
        let b = accounts
            .reset_request("ayse@example.org", now)
            .await
            .unwrap()
            .unwrap();
        // Checked as at sign-up, and a refused password does not use the link up.
        let e = accounts
            .reset_password(&b.secret, "ayse".into(), now + 1)
            .await
            .unwrap_err();
        assert_eq!(e.code(), "bad-request");
        let e = accounts
            .reset_password(&b.secret, "password123".into(), now + 1)
            .await
            .unwrap_err();
        assert_eq!(e.code(), "bad-request");

        let (who, revoked) = accounts
            .reset_password(&b.secret, "yeni parola 1".into(), now + HOUR - 1)
            .await
            .unwrap();
        assert_eq!(who.id, p.id);
        // The session, the other reset links (the expired one, and this one); the token is
        // kept.
        assert_eq!(revoked, 4);
        assert!(accounts
            .identify_by(None, Some(&session))
            .await
            .unwrap()
            .is_none());
        assert_eq!(
            accounts
                .identify_by(Some(&token), None)
                .await
                .unwrap()
                .unwrap()
                .0
                .id,
            p.id
        );
        assert!(accounts
            .reset_password(&b.secret, "yeni parola 2".into(), now + 2)
            .await
            .is_err());
        assert!(accounts
            .reset_password(&a.secret, "yeni parola 2".into(), now + 2)
            .await
            .is_err());
        assert!(accounts
            .log_in("ayse", "kestane kebap".into())
            .await
            .is_err());
        assert_eq!(
            accounts
                .log_in("ayse", "yeni parola 1".into())
                .await
                .unwrap()
                .id,
            p.id
        );
    }

    #[tokio::test]
    async fn the_operator_resets_without_mail() {
        let (accounts, p) = ayse().await;
        let session = accounts
            .issue(p.id, SecretKind::Session, crate::now_ms())
            .await
            .unwrap();
        let link = accounts
            .reset_link_for("AYSE", crate::now_ms())
            .await
            .unwrap();
        assert_eq!(
            accounts
                .reset_target(&link, crate::now_ms())
                .await
                .unwrap()
                .id,
            p.id
        );
        assert_eq!(
            accounts
                .reset_link_for("nobody", 0)
                .await
                .unwrap_err()
                .code(),
            "not-found"
        );
        let revoked = accounts
            .set_password_of("ayse", "yeni parola 1".into())
            .await
            .unwrap();
        assert_eq!(revoked, 2, "the session and the reset link printed before");
        assert!(accounts
            .identify_by(None, Some(&session))
            .await
            .unwrap()
            .is_none());
        assert!(accounts.reset_target(&link, crate::now_ms()).await.is_err());
        assert!(accounts
            .log_in("ayse", "yeni parola 1".into())
            .await
            .is_ok());
    }

    #[tokio::test]
    async fn expired_links_are_forgotten() {
        let (accounts, p) = ayse().await;
        accounts
            .issue(p.id, SecretKind::PasswordReset, 0)
            .await
            .unwrap();
        accounts
            .issue(p.id, SecretKind::ConfirmEmail, 0)
            .await
            .unwrap();
        accounts
            .issue(p.id, SecretKind::PasswordReset, 2 * HOUR)
            .await
            .unwrap();
        assert_eq!(accounts.forget_expired_links(2 * HOUR).await.unwrap(), 1);
        // A day later: the confirmation link, and the reset link of 2 h.
        assert_eq!(accounts.forget_expired_links(25 * HOUR).await.unwrap(), 2);
        assert_eq!(accounts.forget_expired_links(25 * HOUR).await.unwrap(), 0);
        assert_eq!(accounts.forget_expired_links(26 * HOUR).await.unwrap(), 0);
        assert_eq!(
            accounts.forget_expired_links(3 * HOUR + 1).await.unwrap(),
            0
        );
    }
}
