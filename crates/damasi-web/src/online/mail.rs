//! Mail to accounts' owners through an SMTP server (`damasi serve --smtp-url`): the link that
//! confirms an address and the link that resets a password, in plain text, in English or
//! Turkish. Its one owner is the web edge, because only its requests mail anything and only
//! they know the site's address and the reader's language; the online core makes the links'
//! secrets and knows no SMTP (the Telegram bot and the tournaments, which build on the core,
//! carry no mail library).
//!
//! Sending never holds a request: each mail goes out on a task of its own, bounded by
//! [`SEND_TIMEOUT`], and a failure is logged (`damasi: mail ...`) with the account's name,
//! never the link.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::http::{header, HeaderMap};
use lettre::message::header::ContentType;
use lettre::message::Mailbox;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

/// Longest a mail's delivery to the SMTP server may take (connecting, each command, and the
/// whole); then it is given up and logged.
pub const SEND_TIMEOUT: Duration = Duration::from_secs(30);

/// Sends mail through one SMTP server from one address; cheap to share (`Arc`).
pub struct Mailer {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
    sent: AtomicU64,
    failed: AtomicU64,
}

/// A mail's subject and plain-text body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mail {
    /// The subject line.
    pub subject: String,
    /// The body, plain text.
    pub body: String,
}

/// The languages mail is written in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lang {
    /// English, the default.
    English,
    /// Turkish.
    Turkish,
}

impl Lang {
    /// The reader's language from a request's `Accept-Language` (the first of English and
    /// Turkish it names; English when it names neither).
    pub fn of(headers: &HeaderMap) -> Lang {
        let Some(v) = headers
            .get(header::ACCEPT_LANGUAGE)
            .and_then(|v| v.to_str().ok())
        else {
            return Lang::English;
        };
        for tag in v.split(',') {
            let primary = tag
                .split(';')
                .next()
                .unwrap_or("")
                .trim()
                .split('-')
                .next()
                .unwrap_or("")
                .to_ascii_lowercase();
            match primary.as_str() {
                "tr" => return Lang::Turkish,
                "en" => return Lang::English,
                _ => {}
            }
        }
        Lang::English
    }
}

impl Mailer {
    /// A mailer for the SMTP server at `smtp_url` (`smtp://[USER:PASSWORD@]HOST[:PORT]`, in
    /// the clear or with `?tls=required` for STARTTLS; `smtps://...` for TLS from the start),
    /// sending from `from` (`damasi <noreply@example.org>` or a bare address). Errors name
    /// the option at fault.
    pub fn new(smtp_url: &str, from: &str) -> Result<Mailer, String> {
        let from: Mailbox = from.parse().map_err(|e| {
            format!(
                "--mail-from {from:?}: not an address such as 'damasi <noreply@example.org>': {e}"
            )
        })?;
        let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(smtp_url)
            .map_err(|e| {
                format!(
                    "--smtp-url: not an SMTP server's address such as smtp://user:password@host:587?tls=required or smtps://host: {e}"
                )
            })?
            .timeout(Some(SEND_TIMEOUT))
            .build();
        Ok(Mailer {
            transport,
            from,
            sent: AtomicU64::new(0),
            failed: AtomicU64::new(0),
        })
    }

    /// Mails delivered to the SMTP server so far, and mails given up.
    pub fn counts(&self) -> (u64, u64) {
        (
            self.sent.load(Ordering::Relaxed),
            self.failed.load(Ordering::Relaxed),
        )
    }

    /// Sends `mail` to `to` in the background (at most [`SEND_TIMEOUT`]); `account` names the
    /// mail in the log if it fails. Returns at once.
    pub fn send(self: &Arc<Self>, to: &str, account: &str, mail: Mail) {
        let message = match self.message(to, mail) {
            Ok(m) => m,
            Err(e) => {
                self.failed.fetch_add(1, Ordering::Relaxed);
                eprintln!("damasi: mail to {account}'s address not sent: {e}");
                return;
            }
        };
        let me = Arc::clone(self);
        let account = account.to_string();
        tokio::spawn(async move {
            let outcome = tokio::time::timeout(SEND_TIMEOUT, me.transport.send(message)).await;
            let error = match outcome {
                Ok(Ok(_)) => {
                    me.sent.fetch_add(1, Ordering::Relaxed);
                    return;
                }
                Ok(Err(e)) => e.to_string(),
                Err(_) => format!(
                    "the SMTP server took more than {} s",
                    SEND_TIMEOUT.as_secs()
                ),
            };
            me.failed.fetch_add(1, Ordering::Relaxed);
            eprintln!("damasi: mail to {account}'s address not sent: {error}");
        });
    }

    fn message(&self, to: &str, mail: Mail) -> Result<Message, String> {
        let to: Mailbox = to
            .parse()
            .map_err(|e| format!("the stored address is not one: {e}"))?;
        Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(mail.subject)
            .header(ContentType::TEXT_PLAIN)
            .body(mail.body)
            .map_err(|e| e.to_string())
    }
}

/// The mail that confirms `name`'s address with `link`.
pub fn confirmation(lang: Lang, name: &str, link: &str) -> Mail {
    match lang {
        Lang::English => Mail {
            subject: format!("damasi: confirm the address of {name}"),
            body: format!(
                "Hello {name},\n\n\
                 this address was given for your account on damasi. To confirm it, open this \
                 link within 24 hours:\n\n{link}\n\n\
                 With a confirmed address you can reset your password by mail.\n\
                 If you did not ask for this, ignore this mail: the address stays unconfirmed.\n"
            ),
        },
        Lang::Turkish => Mail {
            subject: format!("damasi: {name} hesabının adresini onaylayın"),
            body: format!(
                "Merhaba {name},\n\n\
                 bu adres damasi'deki hesabınız için verildi. Onaylamak için bu bağlantıyı 24 \
                 saat içinde açın:\n\n{link}\n\n\
                 Onaylı bir adresle parolanızı e-postayla sıfırlayabilirsiniz.\n\
                 Bunu siz istemediyseniz bu e-postayı dikkate almayın: adres onaylanmamış kalır.\n"
            ),
        },
    }
}

/// The mail that lets `name` set a new password with `link`.
pub fn reset(lang: Lang, name: &str, link: &str) -> Mail {
    match lang {
        Lang::English => Mail {
            subject: format!("damasi: a new password for {name}"),
            body: format!(
                "Hello {name},\n\n\
                 somebody asked to reset the password of your account on damasi. To choose a \
                 new password, open this link within an hour (it works once):\n\n{link}\n\n\
                 Setting a new password logs every browser out of the account; programs' API \
                 tokens keep working.\n\
                 If you did not ask for this, ignore this mail: your password stays as it is.\n"
            ),
        },
        Lang::Turkish => Mail {
            subject: format!("damasi: {name} için yeni parola"),
            body: format!(
                "Merhaba {name},\n\n\
                 damasi'deki hesabınızın parolasının sıfırlanması istendi. Yeni bir parola \
                 seçmek için bu bağlantıyı bir saat içinde açın (bir kez çalışır):\n\n{link}\n\n\
                 Yeni parola, hesaptaki bütün tarayıcıların oturumunu kapatır; programların API \
                 anahtarları çalışmaya devam eder.\n\
                 Bunu siz istemediyseniz bu e-postayı dikkate almayın: parolanız değişmez.\n"
            ),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn the_language_is_the_first_of_english_and_turkish_asked_for() {
        let lang = |v: &str| {
            let mut h = HeaderMap::new();
            h.insert(header::ACCEPT_LANGUAGE, HeaderValue::from_str(v).unwrap());
            Lang::of(&h)
        };
        assert_eq!(Lang::of(&HeaderMap::new()), Lang::English);
        assert_eq!(lang("tr-TR,tr;q=0.9,en;q=0.8"), Lang::Turkish);
        assert_eq!(lang("de-DE,en;q=0.5,tr;q=0.3"), Lang::English);
        assert_eq!(lang("fr, TR;q=0.5"), Lang::Turkish);
        assert_eq!(lang("fr"), Lang::English);
    }

    #[test]
    fn bad_settings_name_the_option() {
        let e = Mailer::new("smtp://127.0.0.1:2525", "not an address")
            .err()
            .unwrap();
        assert!(e.starts_with("--mail-from"), "{e}");
        let e = Mailer::new("http://example.org", "noreply@example.org")
            .err()
            .unwrap();
        assert!(e.starts_with("--smtp-url"), "{e}");
        assert!(Mailer::new("smtp://127.0.0.1:2525", "damasi <noreply@example.org>").is_ok());
        assert!(Mailer::new("smtps://mail.example.org", "noreply@example.org").is_ok());
    }

    #[test]
    fn mails_carry_the_link_and_the_name() {
        for lang in [Lang::English, Lang::Turkish] {
            for mail in [
                confirmation(lang, "ayse", "http://x/account/confirm-email/abc"),
                reset(lang, "ayse", "http://x/account/reset/abc"),
            ] {
                assert!(mail.subject.contains("ayse"));
                assert!(mail.body.contains("\nhttp://x/account/"));
            }
        }
        assert!(reset(Lang::Turkish, "a", "l").body.contains("bir saat"));
    }
}
