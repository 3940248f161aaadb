//! The one error of the online service and the web API: user mistakes that say what is
//! wrong with a stable machine code (see `docs/web-api.md`), and internal faults whose detail
//! is only logged. The web edge turns each kind into an HTTP status; the Telegram bot into a
//! short notice in the reader's language.

use damasi::{FenError, GameError, MoveError, Outcome};
use serde_json::{json, Value};

/// Why a request failed. Every answer carries an English message and a stable machine `code`
/// (see `docs/web-api.md`), so a page can show it in the reader's language.
#[derive(Debug)]
pub enum ApiError {
    /// The request could not be read: bad JSON, a missing field, a malformed FEN (400).
    BadRequest(String),
    /// A move that is illegal here, or fits more than one legal move (422); lists the options.
    BadMove {
        /// What is wrong, in one sentence.
        message: String,
        /// The moves the client could have meant (landing notation).
        options: Vec<String>,
        /// Whether the text fits several legal moves (else it fits none).
        ambiguous: bool,
    },
    /// No such game, path or resource (404).
    NotFound(String),
    /// The action is not the requester's to take, e.g. resigning for the engine (403).
    Forbidden {
        /// Machine code, e.g. `engine-side`.
        code: &'static str,
        /// What is refused and why.
        message: String,
    },
    /// The request is well formed but not possible now, e.g. a move after the game ended (409).
    Conflict {
        /// Machine code, e.g. `game-over`.
        code: &'static str,
        /// What is not possible and why.
        message: String,
        /// Values the message names (e.g. the outcome code), for translations.
        params: Value,
    },
    /// The request needs an account or a guest session, or its token is not valid (401).
    Unauthorized(String),
    /// A log-in that needs more than it was sent, with its own code (401), e.g.
    /// `two-factor-needed` (the password was right, the second factor's code is missing) or
    /// `two-factor-wrong`.
    LogInRefused {
        /// Machine code, e.g. `two-factor-needed`.
        code: &'static str,
        /// What is missing or wrong.
        message: String,
    },
    /// Too many requests of this kind from this client; try again later (429).
    TooMany(String),
    /// A limit with its own code (429), e.g. `too-many-streams`, and how many seconds to wait
    /// (sent as `Retry-After`) when the server knows.
    Limited {
        /// Machine code, e.g. `too-many-streams`.
        code: &'static str,
        /// What is refused and why.
        message: String,
        /// Seconds before trying again, if known.
        retry_after: Option<u64>,
    },
    /// The engine is busy or took too long (503).
    Busy(String),
    /// The server has too much of one kind of work at once (password hashing): try again in
    /// a moment (503 `server-busy`).
    Overloaded(String),
    /// Work this server process does not do: another process of the same site does (503
    /// `not-here`), e.g. directing tournaments in a cluster.
    NotHere(String),
    /// A fault of the server; the detail is logged, the client gets a generic message (500).
    Internal(String),
}

impl ApiError {
    /// A 409 with `code` and `message`.
    pub fn conflict(code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::Conflict {
            code,
            message: message.into(),
            params: Value::Null,
        }
    }

    /// A 409 `game-over` for a game that ended with `outcome`.
    pub fn game_over(outcome: &Outcome) -> ApiError {
        ApiError::Conflict {
            code: "game-over",
            message: format!("the game is over: {}", outcome.describe()),
            params: json!({ "outcome": outcome.code() }),
        }
    }

    /// The machine code of this error.
    pub fn code(&self) -> &'static str {
        match self {
            ApiError::BadRequest(_) => "bad-request",
            ApiError::BadMove {
                ambiguous: true, ..
            } => "ambiguous-move",
            ApiError::BadMove { .. } => "illegal-move",
            ApiError::NotFound(_) => "not-found",
            ApiError::Forbidden { code, .. }
            | ApiError::Conflict { code, .. }
            | ApiError::Limited { code, .. }
            | ApiError::LogInRefused { code, .. } => code,
            ApiError::Unauthorized(_) => "unauthorized",
            ApiError::TooMany(_) => "rate-limited",
            ApiError::Busy(_) => "engine-busy",
            ApiError::Overloaded(_) => "server-busy",
            ApiError::NotHere(_) => "not-here",
            ApiError::Internal(_) => "internal",
        }
    }

    /// The message a client is shown: the English sentence of a refusal, and a generic one
    /// for a fault of the server (whose detail is only logged).
    pub fn message(&self) -> &str {
        match self {
            ApiError::BadRequest(m)
            | ApiError::NotFound(m)
            | ApiError::Unauthorized(m)
            | ApiError::TooMany(m)
            | ApiError::Busy(m)
            | ApiError::Overloaded(m)
            | ApiError::NotHere(m) => m,
            ApiError::BadMove { message, .. }
            | ApiError::Forbidden { message, .. }
            | ApiError::Conflict { message, .. }
            | ApiError::Limited { message, .. }
            | ApiError::LogInRefused { message, .. } => message,
            ApiError::Internal(_) => "internal server error",
        }
    }

    /// The same error with `context: ` before its message (e.g. which earlier move failed).
    pub fn prefixed(self, context: &str) -> ApiError {
        match self {
            ApiError::BadRequest(m) => ApiError::BadRequest(format!("{context}: {m}")),
            ApiError::BadMove {
                message,
                options,
                ambiguous,
            } => ApiError::BadMove {
                message: format!("{context}: {message}"),
                options,
                ambiguous,
            },
            ApiError::Conflict {
                code,
                message,
                params,
            } => ApiError::Conflict {
                code,
                message: format!("{context}: {message}"),
                params,
            },
            other => other,
        }
    }
}

impl From<FenError> for ApiError {
    fn from(e: FenError) -> ApiError {
        ApiError::BadRequest(format!("bad FEN: {e}"))
    }
}

impl From<MoveError> for ApiError {
    fn from(e: MoveError) -> ApiError {
        match e {
            MoveError::Syntax { .. } => ApiError::BadRequest(e.to_string()),
            MoveError::Illegal { ref legal, .. } => ApiError::BadMove {
                options: legal.clone(),
                message: e.to_string(),
                ambiguous: false,
            },
            MoveError::Ambiguous { ref candidates, .. } => ApiError::BadMove {
                options: candidates.clone(),
                message: e.to_string(),
                ambiguous: true,
            },
        }
    }
}

impl From<GameError> for ApiError {
    fn from(e: GameError) -> ApiError {
        match e {
            GameError::Notation(m) => m.into(),
            GameError::Over(o) => ApiError::game_over(&o),
            GameError::Illegal { played, legal } => ApiError::BadMove {
                message: format!("{played} is not legal here"),
                options: legal,
                ambiguous: false,
            },
            GameError::NothingToTakeBack => {
                ApiError::conflict("nothing-to-take-back", e.to_string())
            }
            GameError::TooLateToAbort => ApiError::conflict("too-late-to-abort", e.to_string()),
            GameError::NotDeclarable(_) => ApiError::BadRequest(e.to_string()),
        }
    }
}

impl From<rusqlite::Error> for ApiError {
    fn from(e: rusqlite::Error) -> ApiError {
        ApiError::Internal(format!("database: {e}"))
    }
}

impl From<tokio::task::JoinError> for ApiError {
    fn from(e: tokio::task::JoinError) -> ApiError {
        ApiError::Internal(format!("worker task: {e}"))
    }
}
