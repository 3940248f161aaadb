//! Commands in a chat with the bot: `/language`, `/skin`, `/link`, `/unlink`, and in a group
//! `/swiss` and `/arena`.

use damasi_online::accounts::Player;
use damasi_online::db::SecretKind;
use damasi_online::now_ms;
use teloxide_core::payloads::SendMessageSetters;
use teloxide_core::requests::Requester;
use teloxide_core::types::{Message, User};

use super::{markup, refused, PersonSettings, Telegram, LINK_CODE_LIFETIME};
use crate::board::{Button, ButtonKind, EventKind, Press, Skin};
use crate::texts::{Lang, Text};

impl Telegram {
    /// A message to the bot in a chat: the commands.
    pub(super) async fn message(&self, m: Message) -> Result<(), String> {
        let (Some(text), Some(from)) = (m.text(), m.from.as_ref()) else {
            return Ok(());
        };
        let mut words = text.split_whitespace();
        let command = words.next().unwrap_or("");
        let (command, addressee) = command.split_once('@').unwrap_or((command, ""));
        // In a group, only commands to this bot are its business (nobody there gets an
        // account for talking).
        let for_me = addressee.is_empty() || addressee.eq_ignore_ascii_case(&self.inner.username);
        if !m.chat.is_private() && (!command.starts_with('/') || !for_me) {
            return Ok(());
        }
        let (player, settings) = self
            .person(from)
            .await
            .map_err(|e| e.message().to_string())?;
        let lang = Self::lang_of(from, &settings);
        let bot = &self.inner.bot;
        let send = |text: String| bot.send_message(m.chat.id, text);
        let result = match command {
            "/language" | "/dil" => {
                let rows = Lang::ALL
                    .iter()
                    .map(|l| {
                        vec![Button {
                            text: l.name().into(),
                            kind: ButtonKind::Press(Press::Language(*l).encode()),
                        }]
                    })
                    .collect::<Vec<_>>();
                send(lang.text(Text::ChooseLanguage).into())
                    .reply_markup(markup(&rows))
                    .await
            }
            "/skin" => {
                let rows = Skin::ALL
                    .iter()
                    .map(|s| {
                        vec![Button {
                            text: s.sample(),
                            kind: ButtonKind::Press(Press::Skin(*s).encode()),
                        }]
                    })
                    .collect::<Vec<_>>();
                send(lang.text(Text::ChooseSkin).into())
                    .reply_markup(markup(&rows))
                    .await
            }
            // `/start link-CODE` is what the link `t.me/BOT?start=link-CODE` sends.
            "/link" | "/start" if command == "/link" || text.contains(" link-") => {
                let code = words.next().map(|w| w.trim_start_matches("link-"));
                let reply = match code {
                    None => lang.text(Text::LinkUsage).to_string(),
                    Some(code) => self.link(from, &player, settings, code, lang).await,
                };
                send(reply).await
            }
            "/unlink" => send(self.unlink(from, &player, lang).await).await,
            "/swiss" | "/arena" => {
                let kind = if command == "/swiss" {
                    EventKind::Swiss
                } else {
                    EventKind::Arena
                };
                let args: Vec<&str> = words.collect();
                match self.new_event(&m, &player, lang, kind, &args).await {
                    Ok(()) => return Ok(()),
                    Err(reply) => send(reply).await,
                }
            }
            _ if m.chat.is_private() => {
                let me = self.inner.username.as_str();
                send(lang.say(Text::Help, &[me, me])).await
            }
            _ => return Ok(()),
        };
        result.map(|_| ()).map_err(|e| format!("sendMessage: {e}"))
    }

    /// `/link CODE`: ties this Telegram user to the damasi account the code was made for.
    pub(super) async fn link(
        &self,
        from: &User,
        _was: &Player,
        settings: PersonSettings,
        code: &str,
        lang: Lang,
    ) -> String {
        let db = self.inner.online.db();
        let hash = damasi_online::accounts::secret_hash(code.trim());
        let not_before = now_ms() - LINK_CODE_LIFETIME.as_millis() as i64;
        let user = match db
            .user_by_secret(hash.clone(), SecretKind::Link, not_before)
            .await
        {
            Ok(Some(u)) => u,
            Ok(None) => return lang.text(Text::BadCode).to_string(),
            Err(e) => return refused(lang, &e),
        };
        let _ = db.delete_secret(hash).await;
        let player = Player::from(user);
        self.save_person(from, &player, &settings).await;
        lang.say(Text::Linked, &[&player.name])
    }

    /// `/unlink`: unties this Telegram user from the damasi account `/link` tied it to; the
    /// bot plays them as a guest again (a new `tg-` one) until they link again with a new code.
    pub(super) async fn unlink(&self, from: &User, player: &Player, lang: Lang) -> String {
        if player.guest {
            return lang.text(Text::NotLinked).to_string();
        }
        let outside_id = from.id.0.to_string();
        match self
            .inner
            .online
            .accounts()
            .unlink(player, Some(&outside_id))
            .await
        {
            Ok(_) => lang.say(Text::Unlinked, &[&player.name]),
            Err(e) => refused(lang, &e),
        }
    }

    pub(super) async fn choose_language(&self, from: &User, l: Lang) -> String {
        match self.person(from).await {
            Ok((player, mut settings)) => {
                settings.lang = Some(l.code().to_string());
                self.save_person(from, &player, &settings).await;
                l.text(Text::LanguageSet).to_string()
            }
            Err(e) => refused(l, &e),
        }
    }

    pub(super) async fn choose_skin(&self, from: &User, skin: Skin) -> String {
        match self.person(from).await {
            Ok((player, mut settings)) => {
                let lang = Self::lang_of(from, &settings);
                settings.skin = Some(skin.code().to_string());
                self.save_person(from, &player, &settings).await;
                lang.say(Text::SkinSet, &[&skin.sample()])
            }
            Err(e) => refused(Lang::En, &e),
        }
    }
}
