//! The messages a watcher or a program receives from the online core, as types.
//!
//! The wire is lichess's Board API shape, tagged by `type`; each type here serialises to
//! the same JSON the core's `json!` builders write today (see the tests, which hold lines
//! recorded from them).

use damasi::{ByColor, Color, DrawReason, Outcome, WinReason};
use serde::{Deserialize, Serialize};

/// lichess's `status` for a game that ended with `outcome`, as every lichess client reads it
/// (`resign`, `outoftime`, `draw`, `mate`, ...). damasi's own reason stays in the messages'
/// `outcome` field (`white:resignation`); the table is in `docs/online.md`.
pub fn lichess_status(outcome: &Outcome) -> &'static str {
    match outcome {
        Outcome::Win { reason, .. } => match reason {
            // The loser, to move, cannot move: lichess's word for a lost position.
            WinReason::NoPieces | WinReason::Blocked => "mate",
            // An ending only a rule-set option makes.
            WinReason::KingBeatsLoneMan => "variantEnd",
            WinReason::Resignation => "resign",
            WinReason::Time => "outoftime",
            // The loser left (lichess's claim of victory) or its program stopped answering.
            WinReason::Abandonment | WinReason::EngineFailure => "timeout",
            // Engine matches and arbiters only: lichess has no word for them.
            WinReason::IllegalMove | WinReason::Adjudication => "unknownFinish",
        },
        Outcome::Draw(reason) => match reason {
            // Both sides blocked: nobody can move, as in a stalemate.
            DrawReason::MutualBlock => "stalemate",
            // A flag against a side that could never win: lichess says `outoftime` with no
            // winner.
            DrawReason::TimeoutCannotWin => "outoftime",
            DrawReason::OnePieceEach
            | DrawReason::Repetition
            | DrawReason::NoCaptureLimit
            | DrawReason::Agreement
            | DrawReason::Adjudication => "draw",
        },
        Outcome::Aborted => "aborted",
    }
}

/// A game's lichess `status`: `created` while a seat is free, `started` while it is played,
/// then [`lichess_status`] of its outcome (`aborted` for a game over without one).
pub fn game_status(open: bool, outcome: Option<&Outcome>) -> &'static str {
    match (open, outcome) {
        (true, _) => "created",
        (false, Some(o)) => lichess_status(o),
        (false, None) => "started",
    }
}

/// The `gameState` message: the moves, both clocks, the status and the offers.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct GameState {
    /// The moves played, space separated.
    pub moves: String,
    /// White's time left (ms).
    pub wtime: i64,
    /// Black's time left (ms).
    pub btime: i64,
    /// White's increment (ms).
    pub winc: i64,
    /// Black's increment (ms).
    pub binc: i64,
    /// lichess's status: `created`, `started`, or the end's ([`lichess_status`]).
    pub status: String,
    /// The winner's colour, if any.
    pub winner: Option<String>,
    /// damasi's outcome code, if over (`white:resignation`): the exact reason.
    pub outcome: Option<String>,
    /// The end in words, if over.
    pub description: Option<String>,
    /// Time left for the first move (ms), while it runs.
    pub first_move_ms: Option<u64>,
    /// A correspondence game's days a move.
    pub days_per_turn: Option<i64>,
    /// The legal moves of the side to move, while the game is played.
    pub legal: Option<Vec<damasi::MoveInfo>>,
    /// The last move with its route and captures (none before the first), for a page to
    /// play it on its board. Not in lichess's `gameState`: clients that do not know it skip it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_move: Option<damasi::MoveInfo>,
    /// A finished game's positions, one per ply.
    pub fens: Option<Vec<String>>,
    /// White offers a draw.
    pub wdraw: bool,
    /// Black offers a draw.
    pub bdraw: bool,
    /// White asks a takeback.
    pub wtakeback: bool,
    /// Black asks a takeback.
    pub btakeback: bool,
    /// White offers a rematch.
    pub wrematch: bool,
    /// Black offers a rematch.
    pub brematch: bool,
    /// The rematch game's id, once made.
    pub rematch: Option<String>,
    /// The rating changes.
    pub rating_diff: ByColor<Option<i64>>,
    /// The position.
    pub fen: String,
    /// The ply count.
    pub ply: u64,
    /// The side to move.
    pub turn: String,
    /// Which players have left.
    pub gone: ByColor<bool>,
    /// The table's version.
    pub version: u64,
}

/// The variant as lichess writes it, with the rule set's name and options.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Variant {
    /// The variant's key (`standard` for the default rules).
    pub key: String,
    /// Its name.
    pub name: String,
    /// The rule set's name.
    pub rules: String,
    /// The no-capture limit (plies), if any.
    pub no_capture_limit: Option<u32>,
    /// Whether a king beats a lone man.
    pub king_beats_lone_man: bool,
}

/// A seated player in `gameFull`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Seat {
    /// The account id.
    pub id: i64,
    /// The name.
    pub name: String,
    /// Whether a guest.
    pub guest: bool,
    /// lichess's title: `BOT` for a BOT account, absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The rating, if rated.
    pub rating: Option<i64>,
    /// Whether the rating is provisional.
    pub provisional: Option<bool>,
}

/// A live game's clock in `gameFull` (ms).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Clock {
    /// Time each side starts with.
    pub initial: i64,
    /// Increment a move.
    pub increment: i64,
}

/// A chat line as `gameFull` lists it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct ChatEntry {
    /// Who wrote it.
    pub username: String,
    /// What was written.
    pub text: String,
}

/// The `gameFull` message: who plays, the control, the state, the viewer's colour.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct GameFull {
    /// The game's id.
    pub id: String,
    /// Whether rated.
    pub rated: bool,
    /// Whether the players may chat.
    pub chat_enabled: bool,
    /// The speed class.
    pub speed: String,
    /// The rules.
    pub variant: Variant,
    /// The clock (none for correspondence).
    pub clock: Option<Clock>,
    /// A correspondence game's days a move.
    pub days_per_turn: Option<i64>,
    /// Always `startpos`.
    pub initial_fen: String,
    /// When created (Unix ms).
    pub created_at: i64,
    /// White's seat.
    pub white: Option<Seat>,
    /// Black's seat.
    pub black: Option<Seat>,
    /// The players' chat (empty for spectators).
    pub chat: Vec<ChatEntry>,
    /// The state, itself tagged `gameState`.
    pub state: GameMessage,
    /// The viewer's colour, if a player.
    pub you: Option<String>,
    /// The arena that paired the game (lichess's `tournamentId`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament_id: Option<String>,
    /// The Swiss or round robin that paired the game (lichess's `swissId`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swiss_id: Option<String>,
}

/// A message to a game's watchers, tagged by `type`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum GameMessage {
    /// Everything about the game, for a watcher that comes in.
    GameFull(Box<GameFull>),
    /// The state after a change.
    GameState(Box<GameState>),
    /// A line of the players' chat.
    #[serde(rename_all = "camelCase")]
    ChatLine {
        /// Always `player`.
        room: String,
        /// Who wrote it.
        username: String,
        /// What was written.
        text: String,
    },
    /// A player left or came back.
    #[serde(rename_all = "camelCase")]
    OpponentGone {
        /// The side that left or came back.
        side: String,
        /// Whether it is gone.
        gone: bool,
        /// When the other may claim the win (s), if it may.
        claim_win_in_seconds: Option<u64>,
    },
    /// A refusal of what this watcher sent on the game's socket (a move out of turn, a
    /// revoked session): the error's machine code and its English text.
    Error {
        /// The machine code ([`crate::error::ApiError::code`]).
        code: String,
        /// What went wrong.
        error: String,
    },
}

impl GameMessage {
    /// The message as one line of JSON, as sockets and streams send it.
    pub fn text(&self) -> String {
        serde_json::to_string(self).expect("a message serializes")
    }
}

impl From<&crate::error::ApiError> for GameMessage {
    fn from(e: &crate::error::ApiError) -> GameMessage {
        GameMessage::Error {
            code: e.code().to_string(),
            error: e.message().to_string(),
        }
    }
}

impl From<GameFull> for GameMessage {
    fn from(full: GameFull) -> GameMessage {
        GameMessage::GameFull(Box::new(full))
    }
}

impl From<GameState> for GameMessage {
    fn from(state: GameState) -> GameMessage {
        GameMessage::GameState(Box::new(state))
    }
}

/// The status of a canceled challenge.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct ChallengeRef {
    /// The challenge's (game's) id.
    pub id: String,
    /// Its status.
    pub status: String,
}

/// A player in a challenge (`challenger`, `destUser`).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct ChallengeUser {
    /// The lowercased name.
    pub id: String,
    /// The name.
    pub name: String,
    /// lichess's title: `BOT` for a BOT account, absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The rating, if known.
    pub rating: Option<i64>,
}

/// A challenge's time control: a clock (seconds) or days a move.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum TimeControl {
    /// A live clock.
    Clock {
        /// Initial time (s).
        limit: i64,
        /// Increment (s).
        increment: i64,
        /// As `minutes+seconds`.
        show: String,
    },
    /// Correspondence.
    #[serde(rename_all = "camelCase")]
    Correspondence {
        /// Days a move.
        days_per_turn: i64,
    },
}

/// A perf as a challenge names it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct PerfName {
    /// The speed class.
    pub name: String,
}

/// A direct challenge as lichess's API writes it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Challenge {
    /// The game's id.
    pub id: String,
    /// The game's page.
    pub url: String,
    /// `created`, `declined`, ...
    pub status: String,
    /// Who sent it.
    pub challenger: Option<ChallengeUser>,
    /// Who it is to.
    pub dest_user: ChallengeUser,
    /// The rules.
    pub variant: Variant,
    /// Whether rated.
    pub rated: bool,
    /// The speed class.
    pub speed: String,
    /// The control.
    pub time_control: TimeControl,
    /// The colour asked for (`random` for none).
    pub color: String,
    /// The sender's colour.
    pub final_color: Option<String>,
    /// The perf.
    pub perf: PerfName,
}

/// The opponent in a `gameStart`/`gameFinish` event.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Opponent {
    /// The lowercased name.
    pub id: Option<String>,
    /// The name.
    pub username: Option<String>,
    /// The rating.
    pub rating: Option<i64>,
}

/// A game's status name.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct StatusName {
    /// lichess's status: `created`, `started`, or the end's ([`lichess_status`]).
    pub name: String,
}

/// What a client may use the game with.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Compat {
    /// The Bot API.
    pub bot: bool,
    /// The Board API.
    pub board: bool,
}

/// The game of a `gameStart`/`gameFinish` event, for one side.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct EventGame {
    /// The game's id.
    pub game_id: String,
    /// The same id.
    pub full_id: String,
    /// The same id.
    pub id: String,
    /// The side's colour.
    pub color: String,
    /// The position.
    pub fen: String,
    /// Whether the side has moved.
    pub has_moved: bool,
    /// Whether it is the side's turn.
    pub is_my_turn: bool,
    /// The last move, if any.
    pub last_move: Option<String>,
    /// The side's time (s).
    pub seconds_left: i64,
    /// The opponent.
    pub opponent: Opponent,
    /// Whether rated.
    pub rated: bool,
    /// The speed class.
    pub speed: String,
    /// The perf (the speed class).
    pub perf: String,
    /// Where it came from, as lichess says: `friend` (a challenge), `lobby`, `swiss` or
    /// `arena` (a tournament's pairing).
    pub source: String,
    /// The Swiss (or round robin) that paired it, as lichess's `swissId`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swiss_id: Option<String>,
    /// The arena that paired it, as lichess's `tournamentId`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament_id: Option<String>,
    /// The status, lichess's.
    pub status: StatusName,
    /// damasi's outcome code, if over (`white:resignation`): the exact reason.
    pub outcome: Option<String>,
    /// The winner's colour, if any.
    pub winner: Option<String>,
    /// The rules.
    pub variant: Variant,
    /// The APIs it works with.
    pub compat: Compat,
}

/// A game being played, as lichess's `GET /api/account/playing` lists it (`nowPlaying`).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct NowPlaying {
    /// The game's id.
    pub game_id: String,
    /// The same id.
    pub full_id: String,
    /// The player's colour.
    pub color: String,
    /// The position.
    pub fen: String,
    /// Whether the player has moved.
    pub has_moved: bool,
    /// Whether it is the player's turn.
    pub is_my_turn: bool,
    /// The last move (empty before the first).
    pub last_move: String,
    /// The opponent.
    pub opponent: Opponent,
    /// The perf (the speed class).
    pub perf: String,
    /// The speed class.
    pub speed: String,
    /// Whether rated.
    pub rated: bool,
    /// The player's time, or what is left of a correspondence turn (s).
    pub seconds_left: i64,
    /// Always `friend`.
    pub source: String,
    /// The rules.
    pub variant: Variant,
    /// A correspondence game's days a move.
    pub days_per_turn: Option<i64>,
}

/// An account as lichess's game export names it (`players.white.user`).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct ExportUser {
    /// The name.
    pub name: String,
    /// lichess's title: `BOT` for a BOT account, absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The lowercased name.
    pub id: String,
}

/// One side of an exported game.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ExportPlayer {
    /// The account, none while the seat is free.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<ExportUser>,
    /// The rating change of a finished rated game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rating_diff: Option<i64>,
}

/// A live game's clock in an export, in seconds as lichess writes it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ExportClock {
    /// Time each side starts with (s).
    pub initial: i64,
    /// Increment a move (s).
    pub increment: i64,
    /// lichess's estimate of a game's length: `initial + 40 × increment` (s).
    pub total_time: i64,
}

/// A game as lichess's `GET /game/export/{id}` and `GET /api/games/user/{name}` write it in
/// JSON, with damasi's exact end (`outcome`) beside lichess's `status`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct GameExport {
    /// The game's id.
    pub id: String,
    /// Whether rated.
    pub rated: bool,
    /// The rules as lichess's export names a variant: its key (`standard` for the
    /// federation's rules, else the rule set's name).
    pub variant: String,
    /// The speed class.
    pub speed: String,
    /// The perf (the speed class).
    pub perf: String,
    /// When created (Unix ms).
    pub created_at: i64,
    /// When the last move was made (Unix ms; the creation for a game without moves).
    pub last_move_at: i64,
    /// lichess's status ([`lichess_status`]).
    pub status: String,
    /// Where it came from: `friend`, `lobby`, `swiss` or `arena`.
    pub source: String,
    /// Both sides.
    pub players: ByColor<ExportPlayer>,
    /// The winner's colour, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winner: Option<String>,
    /// damasi's outcome code, if over (`white:resignation`): the exact reason.
    pub outcome: Option<String>,
    /// The moves, landing notation, space separated.
    pub moves: String,
    /// A live game's clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<ExportClock>,
    /// A correspondence game's days a move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub days_per_turn: Option<i64>,
    /// The arena that paired it, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<String>,
    /// The Swiss or round robin that paired it, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub swiss: Option<String>,
}

/// A user event (of the account's event stream), tagged by `type`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum UserEvent {
    /// A game of the user's started.
    GameStart {
        /// The game.
        game: Box<EventGame>,
    },
    /// A game of the user's ended.
    GameFinish {
        /// The game.
        game: Box<EventGame>,
    },
    /// A challenge to (or from) the user.
    Challenge {
        /// The challenge.
        challenge: Box<Challenge>,
    },
    /// A challenge was declined.
    #[serde(rename_all = "camelCase")]
    ChallengeDeclined {
        /// The challenge.
        challenge: Box<Challenge>,
        /// The reason's key.
        decline_reason: String,
    },
    /// A challenge to the user was canceled by its sender.
    ChallengeCanceled {
        /// The challenge.
        challenge: ChallengeRef,
    },
}

impl UserEvent {
    /// The event as one line of JSON, as the event stream sends it.
    pub fn text(&self) -> String {
        serde_json::to_string(self).expect("an event serializes")
    }

    /// The id of the challenge it is about, if it is a `challenge` event.
    pub fn challenge_id(&self) -> Option<&str> {
        match self {
            UserEvent::Challenge { challenge } => Some(&challenge.id),
            _ => None,
        }
    }
}

/// A game that ended, for the service's own listeners (tournaments, the Telegram bot): they
/// subscribe with [`crate::Online::finished_games`] instead of editing the runner. In a cluster every
/// process hears every game's end (over Redis), so the tournament director hears the games of
/// its rounds wherever they are kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameFinished {
    /// The game's id.
    pub id: String,
    /// White's and Black's accounts.
    pub players: [Option<i64>; 2],
    /// How it ended.
    pub outcome: Option<Outcome>,
    /// Whether it was rated.
    pub rated: bool,
}

/// A correspondence game's turn began (its start, or the opponent's move): `player` is to
/// move, for the service's own listeners that tell players (the Telegram bot); they subscribe
/// with [`crate::Online::your_turns`]. Live games send none (a message a move would be spam).
/// In a cluster every process hears every game's turns (over Redis), so the one process that
/// runs the Telegram bot tells them all.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct YourTurn {
    /// The game's id.
    pub id: String,
    /// The account to move.
    pub player: i64,
    /// Its side.
    #[serde(with = "side_serde::required")]
    pub side: Color,
    /// The opponent's name.
    pub opponent: Option<String>,
    /// The opponent's move that began the turn (landing notation), none at the start.
    pub last_move: Option<String>,
    /// The game's days a move.
    pub days_per_turn: i64,
    /// When the turn's time runs out (Unix ms).
    pub deadline_ms: i64,
}

/// A colour as the API and the stored lobby write it (`white`, `black`; `random` or nothing: none).
pub(crate) mod side_serde {
    use damasi::Color;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes `white`, `black` or null.
    pub fn serialize<S: Serializer>(c: &Option<Color>, s: S) -> Result<S::Ok, S::Error> {
        match c {
            Some(c) => s.serialize_str(c.name()),
            None => s.serialize_none(),
        }
    }

    /// Reads `white`, `black`, `random` or null; anything else is an error.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Color>, D::Error> {
        let text = Option::<String>::deserialize(d)?;
        crate::parse_color(text.as_deref()).map_err(|e| serde::de::Error::custom(e.message()))
    }

    /// The same for a colour that must be given.
    pub mod required {
        use damasi::Color;
        use serde::{Deserializer, Serializer};

        /// Writes `white` or `black`.
        pub fn serialize<S: Serializer>(c: &Color, s: S) -> Result<S::Ok, S::Error> {
            s.serialize_str(c.name())
        }

        /// Reads `white` or `black`.
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Color, D::Error> {
            super::deserialize(d)?
                .ok_or_else(|| serde::de::Error::custom("a side is white or black"))
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn round_trip<T>(line: &str)
    where
        T: Serialize + for<'de> Deserialize<'de>,
    {
        let parsed: T = serde_json::from_str(line).expect("parses");
        let back: Value = serde_json::to_value(&parsed).unwrap();
        let want: Value = serde_json::from_str(line).unwrap();
        assert_eq!(back, want, "{line}");
    }

    #[test]
    fn every_outcome_has_a_lichess_status() {
        let win = |reason| {
            lichess_status(&Outcome::Win {
                winner: damasi::Color::Black,
                reason,
            })
        };
        let draw = |reason| lichess_status(&Outcome::Draw(reason));
        let wins: Vec<&str> = WinReason::ALL.into_iter().map(win).collect();
        // In `WinReason::ALL`'s order: no-pieces, blocked, king-beats-lone-man, resignation,
        // time, illegal-move, engine-failure, adjudication, abandonment.
        assert_eq!(
            wins,
            [
                "mate",
                "mate",
                "variantEnd",
                "resign",
                "outoftime",
                "unknownFinish",
                "timeout",
                "unknownFinish",
                "timeout"
            ]
        );
        // one-piece-each, repetition, mutual-block, no-capture-limit, agreement,
        // timeout-cannot-win, adjudication.
        let draws: Vec<&str> = DrawReason::ALL.into_iter().map(draw).collect();
        assert_eq!(
            draws,
            [
                "draw",
                "draw",
                "stalemate",
                "draw",
                "draw",
                "outoftime",
                "draw"
            ]
        );
        assert_eq!(lichess_status(&Outcome::Aborted), "aborted");
        // Before the end.
        assert_eq!(game_status(true, None), "created");
        assert_eq!(game_status(false, None), "started");
        assert_eq!(
            game_status(false, Some(&Outcome::Draw(DrawReason::Agreement))),
            "draw"
        );
    }

    #[test]
    fn chat_line_matches_the_wire() {
        // Today's builder (runner.rs), recorded.
        let line = json!({"type": "chatLine", "room": "player", "username": "ali", "text": "hi"})
            .to_string();
        assert_eq!(
            line,
            r#"{"room":"player","text":"hi","type":"chatLine","username":"ali"}"#
        );
        round_trip::<GameMessage>(&line);
    }

    #[test]
    fn opponent_gone_matches_the_wire() {
        round_trip::<GameMessage>(
            r#"{"claimWinInSeconds":10,"gone":true,"side":"black","type":"opponentGone"}"#,
        );
        round_trip::<GameMessage>(
            r#"{"claimWinInSeconds":null,"gone":false,"side":"white","type":"opponentGone"}"#,
        );
    }

    #[test]
    fn a_socket_error_matches_the_wire() {
        // Today's builder (web's online/socket.rs), recorded.
        let line = r#"{"code":"unauthorized","error":"log in again","type":"error"}"#;
        round_trip::<GameMessage>(line);
        let e = crate::error::ApiError::Unauthorized("log in again".into());
        let v: serde_json::Value = serde_json::from_str(&GameMessage::from(&e).text()).unwrap();
        assert_eq!(v, serde_json::from_str::<serde_json::Value>(line).unwrap());
    }

    #[test]
    fn challenge_canceled_matches_the_wire() {
        let id = "abcd1234";
        let line =
            json!({"type": "challengeCanceled", "challenge": {"id": id, "status": "canceled"}})
                .to_string();
        round_trip::<UserEvent>(&line);
    }

    /// Recorded from the `json!` builder `TableState::state_json` that `TableState::state`
    /// replaced (command's `wire_record`).
    pub(crate) const STATE: &str = r#"{"bdraw":false,"binc":0,"brematch":false,"btakeback":false,"btime":60000,"daysPerTurn":null,"description":null,"fen":"B:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,d3,e3,f3,g3,h3,c4:Ba6,b6,c6,d6,e6,f6,g6,h6,a7,b7,c7,d7,e7,f7,g7,h7","fens":null,"firstMoveMs":30000,"gone":{"black":false,"white":false},"legal":[{"captured":"a6-a5","captures":[],"from":"a6","landing":"a6-a5","promotion":false,"route":["a5"],"to":"a5"},{"captured":"b6-b5","captures":[],"from":"b6","landing":"b6-b5","promotion":false,"route":["b5"],"to":"b5"},{"captured":"c6-c5","captures":[],"from":"c6","landing":"c6-c5","promotion":false,"route":["c5"],"to":"c5"},{"captured":"d6-d5","captures":[],"from":"d6","landing":"d6-d5","promotion":false,"route":["d5"],"to":"d5"},{"captured":"e6-e5","captures":[],"from":"e6","landing":"e6-e5","promotion":false,"route":["e5"],"to":"e5"},{"captured":"f6-f5","captures":[],"from":"f6","landing":"f6-f5","promotion":false,"route":["f5"],"to":"f5"},{"captured":"g6-g5","captures":[],"from":"g6","landing":"g6-g5","promotion":false,"route":["g5"],"to":"g5"},{"captured":"h6-h5","captures":[],"from":"h6","landing":"h6-h5","promotion":false,"route":["h5"],"to":"h5"}],"moves":"c3-c4","outcome":null,"ply":1,"ratingDiff":{"black":null,"white":null},"rematch":null,"status":"started","turn":"black","type":"gameState","version":4,"wdraw":false,"winc":0,"winner":null,"wrematch":false,"wtakeback":false,"wtime":60000}"#;
    /// Recorded from the `json!` builder `TableState::full_json` that `TableState::full`
    /// replaced (command's `wire_record`).
    pub(crate) const FULL: &str = r#"{"black":{"guest":false,"id":2,"name":"p2","provisional":null,"rating":null},"chat":[],"chatEnabled":true,"clock":{"increment":0,"initial":60000},"createdAt":0,"daysPerTurn":null,"id":"g1","initialFen":"startpos","rated":false,"speed":"bullet","state":{"bdraw":false,"binc":0,"brematch":false,"btakeback":false,"btime":60000,"daysPerTurn":null,"description":null,"fen":"B:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,d3,e3,f3,g3,h3,c4:Ba6,b6,c6,d6,e6,f6,g6,h6,a7,b7,c7,d7,e7,f7,g7,h7","fens":null,"firstMoveMs":30000,"gone":{"black":false,"white":false},"legal":[{"captured":"a6-a5","captures":[],"from":"a6","landing":"a6-a5","promotion":false,"route":["a5"],"to":"a5"},{"captured":"b6-b5","captures":[],"from":"b6","landing":"b6-b5","promotion":false,"route":["b5"],"to":"b5"},{"captured":"c6-c5","captures":[],"from":"c6","landing":"c6-c5","promotion":false,"route":["c5"],"to":"c5"},{"captured":"d6-d5","captures":[],"from":"d6","landing":"d6-d5","promotion":false,"route":["d5"],"to":"d5"},{"captured":"e6-e5","captures":[],"from":"e6","landing":"e6-e5","promotion":false,"route":["e5"],"to":"e5"},{"captured":"f6-f5","captures":[],"from":"f6","landing":"f6-f5","promotion":false,"route":["f5"],"to":"f5"},{"captured":"g6-g5","captures":[],"from":"g6","landing":"g6-g5","promotion":false,"route":["g5"],"to":"g5"},{"captured":"h6-h5","captures":[],"from":"h6","landing":"h6-h5","promotion":false,"route":["h5"],"to":"h5"}],"moves":"c3-c4","outcome":null,"ply":1,"ratingDiff":{"black":null,"white":null},"rematch":null,"status":"started","turn":"black","type":"gameState","version":4,"wdraw":false,"winc":0,"winner":null,"wrematch":false,"wtakeback":false,"wtime":60000},"type":"gameFull","variant":{"key":"standard","kingBeatsLoneMan":false,"name":"Standard","noCaptureLimit":null,"rules":"turkish"},"white":{"guest":false,"id":1,"name":"p1","provisional":null,"rating":null},"you":"white"}"#;

    #[test]
    fn game_state_matches_the_wire() {
        round_trip::<GameMessage>(STATE);
    }

    #[test]
    fn game_full_matches_the_wire() {
        round_trip::<GameMessage>(FULL);
        let parsed: GameMessage = serde_json::from_str(FULL).unwrap();
        // Keys in the order serde_json's map writes them: the exact line comes back.
        assert_eq!(serde_json::to_value(&parsed).unwrap().to_string(), FULL);
    }

    /// Recorded from today's `TableState::game_event` (command.rs `wire_record`).
    pub(crate) const START: &str = r#"{"game":{"color":"white","compat":{"board":true,"bot":true},"fen":"B:Wa2,b2,c2,d2,e2,f2,g2,h2,a3,b3,d3,e3,f3,g3,h3,c4:Ba6,b6,c6,d6,e6,f6,g6,h6,a7,b7,c7,d7,e7,f7,g7,h7","fullId":"g1","gameId":"g1","hasMoved":true,"id":"g1","isMyTurn":false,"lastMove":"c3-c4","opponent":{"id":"p2","rating":null,"username":"p2"},"outcome":null,"perf":"bullet","rated":false,"secondsLeft":60,"source":"lobby","speed":"bullet","status":{"name":"started"},"variant":{"key":"standard","kingBeatsLoneMan":false,"name":"Standard","noCaptureLimit":null,"rules":"turkish"},"winner":null},"type":"gameStart"}"#;
    /// Recorded from today's `TableState::challenge_json` (command.rs `wire_record`).
    pub(crate) const CHALLENGE: &str = r#"{"challenger":{"id":"p1","name":"p1","rating":null},"color":"random","destUser":{"id":"p2","name":"p2","rating":null},"finalColor":"white","id":"g1","perf":{"name":"bullet"},"rated":false,"speed":"bullet","status":"created","timeControl":{"increment":0,"limit":60,"show":"1+0","type":"clock"},"url":"/online/g1","variant":{"key":"standard","kingBeatsLoneMan":false,"name":"Standard","noCaptureLimit":null,"rules":"turkish"}}"#;

    #[test]
    fn user_events_match_the_wire() {
        round_trip::<UserEvent>(START);
        let finish = START.replace("gameStart", "gameFinish");
        round_trip::<UserEvent>(&finish);
        round_trip::<UserEvent>(&format!(
            r#"{{"challenge":{CHALLENGE},"type":"challenge"}}"#
        ));
        round_trip::<UserEvent>(&format!(
            r#"{{"challenge":{CHALLENGE},"declineReason":"generic","type":"challengeDeclined"}}"#
        ));
        round_trip::<Challenge>(CHALLENGE);
    }
}
