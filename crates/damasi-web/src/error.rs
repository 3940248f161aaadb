//! One error type for the whole API: user mistakes become 4xx answers that say what is wrong,
//! internal faults a logged, generic 500.

use axum::extract::rejection::QueryRejection;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use damasi::{FenError, GameError, MoveError, Outcome};
use serde::de::DeserializeOwned;
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

    /// The HTTP status of this error.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ApiError::BadMove { .. } => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::NotFound(_) => StatusCode::NOT_FOUND,
            ApiError::Forbidden { .. } => StatusCode::FORBIDDEN,
            ApiError::Conflict { .. } => StatusCode::CONFLICT,
            ApiError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ApiError::TooMany(_) | ApiError::Limited { .. } => StatusCode::TOO_MANY_REQUESTS,
            ApiError::Busy(_) | ApiError::Overloaded(_) => StatusCode::SERVICE_UNAVAILABLE,
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
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
            | ApiError::Limited { code, .. } => code,
            ApiError::Unauthorized(_) => "unauthorized",
            ApiError::TooMany(_) => "rate-limited",
            ApiError::Busy(_) => "engine-busy",
            ApiError::Overloaded(_) => "server-busy",
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
            | ApiError::Overloaded(m) => m,
            ApiError::BadMove { message, .. }
            | ApiError::Forbidden { message, .. }
            | ApiError::Conflict { message, .. }
            | ApiError::Limited { message, .. } => message,
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

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let retry_after = match &self {
            ApiError::Limited { retry_after, .. } => *retry_after,
            _ => None,
        };
        let code = self.code();
        let error = self.message();
        let body = match &self {
            ApiError::BadMove { options, .. } => {
                json!({ "error": error, "code": code, "legal": options })
            }
            ApiError::Conflict { params, .. } => {
                json!({ "error": error, "code": code, "params": params })
            }
            ApiError::Internal(detail) => {
                eprintln!("damasi-web: internal error: {detail}");
                json!({ "error": error, "code": code })
            }
            _ => json!({ "error": error, "code": code }),
        };
        let mut res = (status, Json(body)).into_response();
        if let Some(secs) = retry_after {
            res.headers_mut()
                .insert(axum::http::header::RETRY_AFTER, secs.max(1).into());
        }
        res
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

/// A JSON body whose rejections are [`ApiError::BadRequest`] with serde's message.
pub struct ApiJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let form = crate::security::is_form(req.headers());
        let bytes = body_bytes(req, state).await?;
        parse_body(&bytes, form).map(ApiJson)
    }
}

async fn body_bytes<S: Send + Sync>(
    req: Request,
    state: &S,
) -> Result<axum::body::Bytes, ApiError> {
    axum::body::Bytes::from_request(req, state)
        .await
        .map_err(|e| match e.status() {
            StatusCode::PAYLOAD_TOO_LARGE => ApiError::BadRequest("request body too large".into()),
            _ => ApiError::BadRequest(e.body_text()),
        })
}

/// Reads a request body as the clients of lichess's API send it: JSON, or (`form`) a form
/// (`clock.limit=300&rated=true`). In both, keys with dots are nested objects
/// (`"clock.limit": 300` is `"clock": {"limit": 300}`) and `null` means "not given" (the
/// official Python client sends `null` for every option it was not passed).
fn parse_body<T: DeserializeOwned>(bytes: &[u8], form: bool) -> Result<T, ApiError> {
    let value = if form {
        Value::Object(
            form_urlencoded::parse(bytes)
                .map(|(k, v)| (k.to_string(), form_value(&k, &v)))
                .collect(),
        )
    } else {
        serde_json::from_slice(bytes)
            .map_err(|e| ApiError::BadRequest(format!("bad JSON body: {e}")))?
    };
    // The error names the field (`clock.limit: invalid type ...`).
    serde_path_to_error::deserialize(lichess_shape(value))
        .map_err(|e| ApiError::BadRequest(format!("bad request body: {e}")))
}

/// A form field's value as JSON: numbers and `true`/`false` typed, except in the fields that
/// hold free text (a chat line, a name, a colour, a reason).
fn form_value(key: &str, text: &str) -> Value {
    const TEXT_FIELDS: [&str; 9] = [
        "text",
        "name",
        "password",
        "color",
        "reason",
        "room",
        "fen",
        "variant",
        "ratingRange",
    ];
    if TEXT_FIELDS.contains(&key) {
        return Value::String(text.to_string());
    }
    match text {
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        _ => text
            .parse::<i64>()
            .map(Value::from)
            .or_else(|_| text.parse::<f64>().map(Value::from))
            .unwrap_or_else(|_| Value::String(text.to_string())),
    }
}

/// Drops the `null` fields of an object and nests its dotted keys (see [`parse_body`]).
fn lichess_shape(value: Value) -> Value {
    let Value::Object(fields) = value else {
        return value;
    };
    let mut out = serde_json::Map::new();
    for (key, v) in fields {
        if v.is_null() {
            continue;
        }
        let mut parts = key.split('.').peekable();
        let mut at = &mut out;
        while let Some(part) = parts.next() {
            if parts.peek().is_none() {
                at.insert(part.to_string(), v);
                break;
            }
            let next = at
                .entry(part.to_string())
                .or_insert_with(|| Value::Object(Default::default()));
            if !next.is_object() {
                *next = Value::Object(Default::default());
            }
            at = next.as_object_mut().expect("made an object just above");
        }
    }
    Value::Object(out)
}

/// A query string whose rejections are [`ApiError::BadRequest`].
pub struct ApiQuery<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        match axum::extract::Query::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Query(v)) => Ok(ApiQuery(v)),
            Err(e) => Err(ApiError::BadRequest(query_message(e))),
        }
    }
}

fn query_message(e: QueryRejection) -> String {
    e.body_text()
}

/// A JSON body that may be left out: an empty body reads as `T::default()`.
pub struct OptionalJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Default> FromRequest<S> for OptionalJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let form = crate::security::is_form(req.headers());
        let bytes = body_bytes(req, state).await?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(OptionalJson(T::default()));
        }
        parse_body(&bytes, form).map(OptionalJson)
    }
}

/// A path parameter whose rejections are [`ApiError::BadRequest`] in JSON.
pub struct ApiPath<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for ApiPath<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Path(v)) => Ok(ApiPath(v)),
            Err(e) => Err(ApiError::BadRequest(e.body_text())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Clock {
        limit: i64,
        increment: i64,
    }

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Request {
        clock: Option<Clock>,
        #[serde(default)]
        rated: bool,
        color: Option<String>,
        text: Option<String>,
    }

    #[test]
    fn bodies_are_read_as_lichess_clients_send_them() {
        let want = Request {
            clock: Some(Clock {
                limit: 300,
                increment: 2,
            }),
            rated: true,
            color: Some("white".into()),
            text: None,
        };
        // curl as lichess's documentation writes it.
        let form: Request = parse_body(
            b"clock.limit=300&clock.increment=2&rated=true&color=white",
            true,
        )
        .unwrap();
        assert_eq!(form, want);
        // berserk: dotted keys in JSON, null for what it was not given.
        let json = br#"{"clock.limit": 300, "clock.increment": 2, "rated": true,
            "color": "white", "days": null, "variant": null, "text": null}"#;
        assert_eq!(parse_body::<Request>(json, false).unwrap(), want);
        // Plain nested JSON as before; `rated: null` is "not given".
        let plain = br#"{"clock": {"limit": 300, "increment": 2}, "rated": null}"#;
        assert!(!parse_body::<Request>(plain, false).unwrap().rated);
        // Free text stays text even when it reads as a number.
        let chat: Request = parse_body(b"text=42&color=%C5%9Fah", true).unwrap();
        assert_eq!(
            (chat.text.as_deref(), chat.color.as_deref()),
            (Some("42"), Some("şah"))
        );
        // Bad bodies are 400s that say what is wrong.
        let e = parse_body::<Request>(b"{\"clock\": 5", false).unwrap_err();
        assert_eq!(e.status(), StatusCode::BAD_REQUEST);
        let e = parse_body::<Request>(b"clock.limit=soon&clock.increment=0", true).unwrap_err();
        assert!(e.message().contains("limit"), "{}", e.message());
    }
}
