//! The page: HTML, CSS, JavaScript and icon, embedded in the binary at compile time.

use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use crate::AppState;

/// The embedded files: URL path, content type, contents.
pub const FILES: &[(&str, &str, &str)] = &[
    (
        "/",
        "text/html; charset=utf-8",
        include_str!("../assets/index.html"),
    ),
    (
        "/app.css",
        "text/css; charset=utf-8",
        include_str!("../assets/app.css"),
    ),
    (
        "/app.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/app.js"),
    ),
    (
        "/i18n.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/i18n.js"),
    ),
    (
        "/online.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/online.js"),
    ),
    (
        "/favicon.svg",
        "image/svg+xml",
        include_str!("../assets/favicon.svg"),
    ),
];

/// Routes for the embedded files; anything else is a 404 page.
pub fn routes() -> Router<AppState> {
    let mut r = Router::new();
    for &(path, mime, body) in FILES {
        r = r.route(
            path,
            get(move || async move {
                (
                    [
                        (header::CONTENT_TYPE, mime),
                        (header::CACHE_CONTROL, "no-cache"),
                    ],
                    body,
                )
            }),
        );
    }
    r.fallback(not_found)
}

/// The online play page (`/online` and `/online/{id}`: the lobby, or one game).
pub async fn online_page() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        include_str!("../assets/online.html"),
    )
        .into_response()
}

async fn not_found(uri: Uri) -> Response {
    (
        StatusCode::NOT_FOUND,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        format!("404: nothing at {}\n", uri.path()),
    )
        .into_response()
}
