//! Reports and moderation: players report each other (cheating, insults in chat, sandbagging,
//! other, with a note and, for a game, the chat lines and result the server saw then);
//! moderators, named by the operator, see the open reports and act: warn, mute the chat for a
//! time, mark as an engine (out of the leaderboards and the rated pools and seeks; the rating
//! its opponents lost to it in its recent rated games given back, once), take a mark away,
//! dismiss the reports, or close the account. Every action goes into the moderation log, which
//! the operator reads (`damasi mod log`), and the player sees what was done to their account.

use std::time::Duration;

use serde_json::{json, Value};

use crate::accounts::Player;
use crate::db::{LogRow, MarkRow, ReportRow, UserRow};
use crate::error::ApiError;
use crate::rating::Speed;
use crate::{now_ms, Online};

/// The role of a moderator.
pub const MODERATOR: &str = "moderator";
/// The name the log gives the operator's actions from the command line.
pub const OPERATOR: &str = "operator";
/// The mark of an account found using an engine.
pub const ENGINE: &str = "engine";
/// The mark of an account whose chat is muted (until a time).
pub const CHAT_MUTE: &str = "chat-mute";
/// Longest note of a report (characters).
pub const MAX_NOTE: usize = 1000;
/// Open reports a moderator's queue shows at once.
pub const QUEUE: i64 = 200;
/// How far back an engine mark gives the opponents their lost rating back.
pub const REFUND_WINDOW: Duration = Duration::from_secs(90 * 24 * 3600);
/// Longest chat mute a moderator gives at once (a week).
pub const MAX_MUTE_MINUTES: i64 = 7 * 24 * 60;

/// Why a player is reported.
pub const REASONS: [&str; 4] = ["cheating", "insults", "sandbagging", "other"];

/// What a moderator does to an account.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// A warning, shown to the player.
    Warn {
        /// The words shown.
        message: String,
    },
    /// No chat for this many minutes.
    Mute {
        /// How long.
        minutes: i64,
    },
    /// The mute taken away.
    Unmute,
    /// Marked as using an engine (see the module's words).
    Engine,
    /// The engine mark taken away (refunds stay given).
    Unengine,
    /// The open reports closed with nothing done.
    Dismiss,
    /// The account closed.
    Close,
}

impl Action {
    /// The action named `name` (`warn`, `mute`, `unmute`, `engine`, `unengine`, `dismiss`,
    /// `close`) with its `message` or `minutes`.
    pub fn parse(
        name: &str,
        message: Option<&str>,
        minutes: Option<i64>,
    ) -> Result<Action, ApiError> {
        Ok(match name {
            "warn" => {
                let message = message
                    .map(str::trim)
                    .filter(|m| !m.is_empty())
                    .ok_or_else(|| {
                        ApiError::BadRequest("message: a warning says what it is about".into())
                    })?;
                if message.chars().count() > MAX_NOTE {
                    return Err(ApiError::BadRequest(format!(
                        "message: at most {MAX_NOTE} characters"
                    )));
                }
                Action::Warn {
                    message: message.to_string(),
                }
            }
            "mute" => {
                let minutes = minutes.ok_or_else(|| {
                    ApiError::BadRequest("minutes: how long the chat is muted".into())
                })?;
                if !(1..=MAX_MUTE_MINUTES).contains(&minutes) {
                    return Err(ApiError::BadRequest(format!(
                        "minutes: 1 to {MAX_MUTE_MINUTES} (a week)"
                    )));
                }
                Action::Mute { minutes }
            }
            "unmute" => Action::Unmute,
            "engine" => Action::Engine,
            "unengine" => Action::Unengine,
            "dismiss" => Action::Dismiss,
            "close" => Action::Close,
            other => {
                return Err(ApiError::BadRequest(format!(
                    "action '{other}' is not warn, mute, unmute, engine, unengine, dismiss or close"
                )))
            }
        })
    }

    /// Its name, as the log writes it.
    pub fn name(&self) -> &'static str {
        match self {
            Action::Warn { .. } => "warn",
            Action::Mute { .. } => "mute",
            Action::Unmute => "unmute",
            Action::Engine => ENGINE,
            Action::Unengine => "unengine",
            Action::Dismiss => "dismiss",
            Action::Close => "close",
        }
    }
}

/// A mark that holds at `now` (a mute past its time holds no more).
fn holds(mark: &MarkRow, now: i64) -> bool {
    mark.until_ms.is_none_or(|until| until > now)
}

/// Reports and the moderators' work, a view of the service ([`Online::moderation`]): players
/// report, moderators read the queue, act and read the log, and the service asks whether a
/// player may chat or play rated games.
#[derive(Clone, Copy)]
pub struct Moderation<'a> {
    online: &'a Online,
}

impl Online {
    /// Reports and the moderators' work.
    pub fn moderation(&self) -> Moderation<'_> {
        Moderation { online: self }
    }
}

impl Moderation<'_> {
    /// `by` reports the player called `name` for `reason` (one of [`REASONS`]) with `note`,
    /// about `game` if given (a game the reported player plays or played): the game's chat
    /// lines as `by` sees them and its result are kept with the report. One open report of a
    /// player by the same reporter at a time (409 `already-reported`). Answers its number.
    pub async fn report(
        &self,
        by: &Player,
        name: &str,
        game: Option<&str>,
        reason: &str,
        note: &str,
    ) -> Result<i64, ApiError> {
        if by.guest {
            return Err(crate::accounts::guests_casual_only(
                "guests cannot report players: sign up first",
            ));
        }
        if !REASONS.contains(&reason) {
            return Err(ApiError::BadRequest(format!(
                "reason '{reason}' is not cheating, insults, sandbagging or other"
            )));
        }
        if note.chars().count() > MAX_NOTE {
            return Err(ApiError::BadRequest(format!(
                "note: at most {MAX_NOTE} characters"
            )));
        }
        let reported = self.online.user_named(name).await?;
        if reported.id == by.id {
            return Err(ApiError::BadRequest("you cannot report yourself".into()));
        }
        let db = self.online.db();
        let open = db.reports(true, Some(reported.id), QUEUE).await?;
        if open.iter().any(|r| r.reporter == Some(by.id)) {
            return Err(ApiError::conflict(
                "already-reported",
                format!(
                    "you reported {} already; a moderator will look",
                    reported.name
                ),
            ));
        }
        let evidence = match game {
            None => json!({}),
            Some(id) => {
                let full = self.online.full(id, Some(by)).await?;
                let plays = [&full.white, &full.black]
                    .into_iter()
                    .any(|s| s.as_ref().is_some_and(|s| s.id == reported.id));
                if !plays {
                    return Err(ApiError::BadRequest(format!(
                        "{} does not play game {id}",
                        reported.name
                    )));
                }
                let crate::messages::GameMessage::GameState(state) = &full.state else {
                    return Err(ApiError::Internal("a game without its state".into()));
                };
                json!({
                    "chat": full.chat.iter().map(|l| json!({"user": l.username, "text": l.text})).collect::<Vec<_>>(),
                    "status": state.status,
                    "outcome": state.outcome,
                    "moves": state.moves,
                    "rated": full.rated,
                })
            }
        };
        let row = ReportRow {
            id: 0,
            created_ms: now_ms(),
            reporter: Some(by.id),
            reported: reported.id,
            game_id: game.map(str::to_string),
            reason: reason.to_string(),
            note: note.trim().to_string(),
            evidence: evidence.to_string(),
            closed_ms: None,
        };
        db.add_report(row).await
    }

    /// Refuses `p` unless a moderator (403 `not-a-moderator`).
    pub async fn check_moderator(&self, p: &Player) -> Result<(), ApiError> {
        if self.online.db().has_role(p.id, MODERATOR).await? {
            Ok(())
        } else {
            Err(ApiError::Forbidden {
                code: "not-a-moderator",
                message: "only the site's moderators see this".into(),
            })
        }
    }

    /// The operator names (or, with `on` false, un-names) the account `name` a moderator.
    pub async fn set_moderator(&self, name: &str, on: bool) -> Result<UserRow, ApiError> {
        let user = self.online.user_named(name).await?;
        self.online.db().set_role(user.id, MODERATOR, on).await?;
        let action = if on { "moderator" } else { "unmoderator" };
        self.log_action(OPERATOR, user.id, action, String::new())
            .await?;
        Ok(user)
    }

    /// The open reports, oldest first, for moderator `m`: each with the reported player's
    /// and the reporter's names, the reported player's marks, and the evidence kept.
    pub async fn report_queue(&self, m: &Player) -> Result<Vec<Value>, ApiError> {
        self.check_moderator(m).await?;
        let db = self.online.db();
        let now = now_ms();
        let mut out = Vec::new();
        for r in db.reports(true, None, QUEUE).await? {
            let name = |id| async move {
                self.online
                    .db()
                    .user(id)
                    .await
                    .map(|u| u.map_or_else(|| "?".to_string(), |u| u.name))
            };
            let marks: Vec<String> = db
                .marks_of(r.reported)
                .await?
                .into_iter()
                .filter(|k| holds(k, now))
                .map(|k| k.kind)
                .collect();
            out.push(json!({
                "id": r.id,
                "createdAt": r.created_ms,
                "reported": name(r.reported).await?,
                "reporter": match r.reporter {
                    Some(id) => Some(name(id).await?),
                    None => None,
                },
                "reason": r.reason,
                "note": r.note,
                "game": r.game_id,
                "evidence": serde_json::from_str::<Value>(&r.evidence).unwrap_or(Value::Null),
                "marks": marks,
            }));
        }
        Ok(out)
    }

    /// Moderator `m` (none: the operator, from the command line) does `action` to the account
    /// called `name`; the reports of it are closed, and the action logged. Answers what was
    /// done (`{action, refunds}` for an engine mark: the games whose opponents got rating
    /// back).
    pub async fn moderate(
        &self,
        m: Option<&Player>,
        name: &str,
        action: Action,
    ) -> Result<Value, ApiError> {
        if let Some(m) = m {
            self.check_moderator(m).await?;
        }
        let moderator = m.map_or_else(|| OPERATOR.to_string(), |m| m.name.clone());
        let user = self.online.user_named(name).await?;
        if m.is_some_and(|m| m.id == user.id) {
            return Err(ApiError::BadRequest(
                "moderators do not act on themselves".into(),
            ));
        }
        let db = self.online.db();
        let now = now_ms();
        let mark = |kind: &str, until_ms| MarkRow {
            kind: kind.to_string(),
            until_ms,
            created_ms: now,
        };
        let mut answer = json!({"action": action.name(), "name": user.name});
        let details = match &action {
            Action::Warn { message } => message.clone(),
            Action::Mute { minutes } => {
                db.set_mark(user.id, mark(CHAT_MUTE, Some(now + minutes * 60_000)), true)
                    .await?;
                format!("chat muted for {minutes} minutes")
            }
            Action::Unmute => {
                db.set_mark(user.id, mark(CHAT_MUTE, None), false).await?;
                "chat mute taken away".to_string()
            }
            Action::Engine => {
                db.set_mark(user.id, mark(ENGINE, None), true).await?;
                let refunds = self.refund_opponents(user.id, now).await?;
                let text = format!(
                    "marked as using an engine; {} opponents' rating given back ({})",
                    refunds.len(),
                    refunds
                        .iter()
                        .map(|(game, name, points)| format!("{name} +{points:.0} in {game}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                answer["refunds"] = json!(refunds
                    .iter()
                    .map(
                        |(game, name, points)| json!({"game": game, "name": name, "points": points})
                    )
                    .collect::<Vec<_>>());
                text
            }
            Action::Unengine => {
                db.set_mark(user.id, mark(ENGINE, None), false).await?;
                "engine mark taken away".to_string()
            }
            Action::Dismiss => "reports dismissed".to_string(),
            Action::Close => {
                let closed = Player::from(user.clone());
                let new_name = self.online.close_account_by_moderator(&closed).await?;
                answer["newName"] = json!(new_name);
                format!("account closed (now {new_name})")
            }
        };
        let closed = db.close_reports(user.id, now).await?;
        answer["reportsClosed"] = json!(closed);
        self.log_action(&moderator, user.id, action.name(), details)
            .await?;
        Ok(answer)
    }

    /// Gives the opponents of engine-marked `user` back the rating they lost to it in its
    /// rated games of the last [`REFUND_WINDOW`], once per game: `(game, opponent, points)`.
    async fn refund_opponents(
        &self,
        user: i64,
        now: i64,
    ) -> Result<Vec<(String, String, f64)>, ApiError> {
        let db = self.online.db();
        let since = now - REFUND_WINDOW.as_millis() as i64;
        let mut refunds = Vec::new();
        for g in db.games_of(user, 10_000).await? {
            let row = &g.row;
            if !row.rated || row.created_ms < since {
                continue;
            }
            let Some(side) = row.players.iter().position(|&p| p == Some(user)) else {
                continue;
            };
            let other = 1 - side;
            let (Some(opponent), Some(diff)) = (row.players[other], row.diffs[other]) else {
                continue;
            };
            if diff >= 0 {
                continue;
            }
            let speed = Speed::of(row.initial_ms, row.increment_ms).name();
            let points = -diff as f64;
            if db.refund(&row.id, opponent, speed, points, now).await? {
                let name = g.names[other].clone().unwrap_or_default();
                refunds.push((row.id.clone(), name, points));
            }
        }
        Ok(refunds)
    }

    async fn log_action(
        &self,
        moderator: &str,
        user: i64,
        action: &str,
        details: String,
    ) -> Result<(), ApiError> {
        self.online
            .db()
            .add_log(LogRow {
                at_ms: now_ms(),
                moderator: moderator.to_string(),
                user,
                action: action.to_string(),
                details,
            })
            .await
    }

    /// The moderation log, newest first, of the account `name` or of everybody, for moderator
    /// `m` (none: the operator).
    pub async fn moderation_log(
        &self,
        m: Option<&Player>,
        name: Option<&str>,
        limit: i64,
    ) -> Result<Vec<Value>, ApiError> {
        if let Some(m) = m {
            self.check_moderator(m).await?;
        }
        let user = match name {
            Some(n) => Some(self.online.user_named(n).await?.id),
            None => None,
        };
        let db = self.online.db();
        let mut out = Vec::new();
        for l in db.moderation_log(user, limit).await? {
            let name = db.user(l.user).await?.map(|u| u.name);
            out.push(
                json!({"at": l.at_ms, "moderator": l.moderator, "name": name,
                "action": l.action, "details": l.details}),
            );
        }
        Ok(out)
    }

    /// What was done to `p`'s account, as they see it: the marks that hold now and the
    /// actions taken (without the moderators' names), newest first.
    pub async fn moderation_of(&self, p: &Player) -> Result<Value, ApiError> {
        let db = self.online.db();
        let now = now_ms();
        let marks: Vec<Value> = db
            .marks_of(p.id)
            .await?
            .into_iter()
            .filter(|m| holds(m, now))
            .map(|m| json!({"kind": m.kind, "until": m.until_ms, "since": m.created_ms}))
            .collect();
        let actions: Vec<Value> = db
            .moderation_log(Some(p.id), 100)
            .await?
            .into_iter()
            // Roles given are not something done to the player.
            .filter(|l| l.action != "moderator" && l.action != "unmoderator")
            .map(|l| json!({"at": l.at_ms, "action": l.action, "details": l.details}))
            .collect();
        Ok(json!({"marks": marks, "actions": actions}))
    }

    /// Refuses a chat line of `user` while their chat is muted (403 `muted`, saying until
    /// when).
    pub async fn check_may_chat(&self, user: i64) -> Result<(), ApiError> {
        let now = now_ms();
        for m in self.online.db().marks_of(user).await? {
            if m.kind == CHAT_MUTE && holds(&m, now) {
                let minutes = ((m.until_ms.unwrap_or(now) - now + 59_999) / 60_000).max(1);
                return Err(ApiError::Forbidden {
                    code: "muted",
                    message: format!(
                        "a moderator muted your chat; it comes back in {minutes} minutes"
                    ),
                });
            }
        }
        Ok(())
    }

    /// Refuses rated games with people in the lobby and the pools to an engine-marked
    /// account (403 `engine-marked`).
    pub async fn check_may_play_rated(&self, player: &Player) -> Result<(), ApiError> {
        let marked = self
            .online
            .db()
            .marks_of(player.id)
            .await?
            .iter()
            .any(|m| m.kind == ENGINE);
        if marked {
            Err(ApiError::Forbidden {
                code: "engine-marked",
                message: "this account is marked as playing with an engine: it plays no rated \
                          games in the lobby or the pools"
                    .into(),
            })
        } else {
            Ok(())
        }
    }
}
