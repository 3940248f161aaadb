//! The web edge of [`ApiError`]: each kind of error becomes an HTTP status with a JSON body
//! that says what is wrong (`error`, `code`, and the legal moves or parameters where they
//! help), and the extractors whose rejections are such errors.

use axum::extract::rejection::QueryRejection;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

pub use damasi_online::error::ApiError;

/// An [`ApiError`] on its way out as an HTTP answer: what handlers return. Every error
/// converts into it with `?`.
#[derive(Debug)]
pub struct HttpError(pub ApiError);

/// Every error that converts into an [`ApiError`] converts into an [`HttpError`] too, so `?`
/// works in a handler.
macro_rules! http_error_from {
    ($($t:ty),*) => {$(
        impl From<$t> for HttpError {
            fn from(e: $t) -> HttpError {
                HttpError(e.into())
            }
        }
    )*};
}

http_error_from!(
    ApiError,
    damasi::FenError,
    damasi::MoveError,
    damasi::GameError,
    rusqlite::Error,
    tokio::task::JoinError
);

/// Seconds a 429 tells the client to wait (`Retry-After`) when its limit does not know
/// better: all of a player's open seeks are out, say.
pub const RETRY_AFTER_DEFAULT: u64 = 60;

/// The HTTP status of `e`.
pub fn status(e: &ApiError) -> StatusCode {
    match e {
        ApiError::BadRequest(_) => StatusCode::BAD_REQUEST,
        ApiError::BadMove { .. } => StatusCode::UNPROCESSABLE_ENTITY,
        ApiError::NotFound(_) => StatusCode::NOT_FOUND,
        ApiError::Forbidden { .. } => StatusCode::FORBIDDEN,
        ApiError::Conflict { .. } => StatusCode::CONFLICT,
        ApiError::Unauthorized(_) | ApiError::LogInRefused { .. } => StatusCode::UNAUTHORIZED,
        ApiError::TooMany(_) | ApiError::Limited { .. } => StatusCode::TOO_MANY_REQUESTS,
        ApiError::Busy(_) | ApiError::Overloaded(_) | ApiError::NotHere(_) => {
            StatusCode::SERVICE_UNAVAILABLE
        }
        ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

impl IntoResponse for HttpError {
    fn into_response(self) -> Response {
        let HttpError(e) = self;
        let status = status(&e);
        // Every 429 says when to come back: the limit's own wait when it knows it, else
        // [`RETRY_AFTER_DEFAULT`] (lichess asks its clients to wait a minute after a 429).
        let retry_after = match &e {
            ApiError::Limited { retry_after, .. } => {
                Some(retry_after.unwrap_or(RETRY_AFTER_DEFAULT))
            }
            ApiError::TooMany(_) => Some(RETRY_AFTER_DEFAULT),
            _ => None,
        };
        let code = e.code();
        let error = e.message();
        let body = match &e {
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
/// A JSON body whose rejections are [`ApiError::BadRequest`] with serde's message.
pub struct ApiJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for ApiJson<T> {
    type Rejection = HttpError;

    async fn from_request(req: Request, state: &S) -> Result<Self, HttpError> {
        let form = crate::security::is_form(req.headers());
        let bytes = body_bytes(req, state).await?;
        parse_body(&bytes, form).map(ApiJson).map_err(HttpError)
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
    type Rejection = HttpError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, HttpError> {
        match axum::extract::Query::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Query(v)) => Ok(ApiQuery(v)),
            Err(e) => Err(ApiError::BadRequest(query_message(e)).into()),
        }
    }
}

fn query_message(e: QueryRejection) -> String {
    e.body_text()
}

/// A JSON body that may be left out: an empty body reads as `T::default()`.
pub struct OptionalJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Default> FromRequest<S> for OptionalJson<T> {
    type Rejection = HttpError;

    async fn from_request(req: Request, state: &S) -> Result<Self, HttpError> {
        let form = crate::security::is_form(req.headers());
        let bytes = body_bytes(req, state).await?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(OptionalJson(T::default()));
        }
        parse_body(&bytes, form)
            .map(OptionalJson)
            .map_err(HttpError)
    }
}

/// A path parameter whose rejections are [`ApiError::BadRequest`] in JSON.
pub struct ApiPath<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for ApiPath<T> {
    type Rejection = HttpError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, HttpError> {
        match axum::extract::Path::<T>::from_request_parts(parts, state).await {
            Ok(axum::extract::Path(v)) => Ok(ApiPath(v)),
            Err(e) => Err(ApiError::BadRequest(e.body_text()).into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_429_says_when_to_come_back() {
        let retry_after = |e: ApiError| {
            let res = HttpError(e).into_response();
            assert_eq!(res.status(), StatusCode::TOO_MANY_REQUESTS);
            res.headers()
                .get(axum::http::header::RETRY_AFTER)
                .map(|v| v.to_str().unwrap().to_string())
        };
        let limited = |retry_after| ApiError::Limited {
            code: "too-many-streams",
            message: "too many".into(),
            retry_after,
        };
        assert_eq!(retry_after(limited(Some(7))).as_deref(), Some("7"));
        // A wait under a second is still one.
        assert_eq!(retry_after(limited(Some(0))).as_deref(), Some("1"));
        // A limit that does not know its wait: a minute.
        assert_eq!(retry_after(limited(None)).as_deref(), Some("60"));
        assert_eq!(
            retry_after(ApiError::TooMany("at most 3 open seeks each".into())).as_deref(),
            Some("60")
        );
        // Other errors have none.
        let res = HttpError(ApiError::Conflict {
            code: "x",
            message: "y".into(),
            params: Value::Null,
        })
        .into_response();
        assert!(res.headers().get(axum::http::header::RETRY_AFTER).is_none());
    }

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
        assert_eq!(status(&e), StatusCode::BAD_REQUEST);
        let e = parse_body::<Request>(b"clock.limit=soon&clock.increment=0", true).unwrap_err();
        assert!(e.message().contains("limit"), "{}", e.message());
    }
}
