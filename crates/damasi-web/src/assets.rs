//! The page: HTML, CSS, JavaScript and icon, embedded in the binary at compile time.

use axum::extract::Path;
use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

use crate::AppState;

/// The embedded files: URL path, content type, contents. The page's JavaScript is native ES
/// modules under `/js/` (no build step); a test checks that every file of `assets/js/` is here.
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
        "/i18n.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/i18n.js"),
    ),
    (
        "/js/api.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/api.js"),
    ),
    (
        "/js/board/animation.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/board/animation.js"),
    ),
    (
        "/js/board/index.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/board/index.js"),
    ),
    (
        "/js/board/input.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/board/input.js"),
    ),
    (
        "/js/board/material.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/board/material.js"),
    ),
    (
        "/js/board/shapes.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/board/shapes.js"),
    ),
    (
        "/js/board/render.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/board/render.js"),
    ),
    (
        "/js/errors.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/errors.js"),
    ),
    (
        "/js/i18n.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/i18n.js"),
    ),
    (
        "/js/swiss/common.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/swiss/common.js"),
    ),
    (
        "/js/swiss/page.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/swiss/page.js"),
    ),
    (
        "/js/swiss/print.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/swiss/print.js"),
    ),
    (
        "/js/local.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/local.js"),
    ),
    (
        "/js/main.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/main.js"),
    ),
    (
        "/js/online/account.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/online/account.js"),
    ),
    (
        "/js/online/security.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/online/security.js"),
    ),
    (
        "/js/online/challenges.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/online/challenges.js"),
    ),
    (
        "/js/online/common.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/online/common.js"),
    ),
    (
        "/js/online/events.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/online/events.js"),
    ),
    (
        "/js/online/game.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/online/game.js"),
    ),
    (
        "/js/online/lobby.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/online/lobby.js"),
    ),
    (
        "/js/online/main.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/online/main.js"),
    ),
    (
        "/js/online/panels.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/online/panels.js"),
    ),
    (
        "/js/online/profile.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/online/profile.js"),
    ),
    (
        "/js/online/moderation.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/online/moderation.js"),
    ),
    (
        "/js/online/socket.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/online/socket.js"),
    ),
    (
        "/js/online/state.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/online/state.js"),
    ),
    (
        "/js/plies.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/plies.js"),
    ),
    (
        "/js/position.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/position.js"),
    ),
    (
        "/js/router.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/router.js"),
    ),
    (
        "/js/server-token.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/server-token.js"),
    ),
    (
        "/js/settings.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/settings.js"),
    ),
    (
        "/js/sound.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/sound.js"),
    ),
    (
        "/js/state.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/state.js"),
    ),
    (
        "/js/tree.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/tree.js"),
    ),
    (
        "/js/util.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/util.js"),
    ),
    (
        "/js/views/editor.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/views/editor.js"),
    ),
    (
        "/js/views/explorer.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/views/explorer.js"),
    ),
    (
        "/js/views/games.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/views/games.js"),
    ),
    (
        "/js/views/learn.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/views/learn.js"),
    ),
    (
        "/js/views/newgame.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/views/newgame.js"),
    ),
    (
        "/js/views/play.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/views/play.js"),
    ),
    (
        "/js/views/puzzle.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/views/puzzle.js"),
    ),
    (
        "/js/views/review.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/views/review.js"),
    ),
    (
        "/js/views/study.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/js/views/study.js"),
    ),
    (
        "/print.css",
        "text/css; charset=utf-8",
        include_str!("../assets/print.css"),
    ),
    (
        "/online.css",
        "text/css; charset=utf-8",
        include_str!("../assets/online.css"),
    ),
    (
        "/favicon.svg",
        "image/svg+xml",
        include_str!("../assets/favicon.svg"),
    ),
];

/// The in-browser engine's own files, embedded (from `crates/damasi-wasm/site/`): the page
/// loads them from `/wasm/` when it plays with no server or the reader chooses the engine in
/// the browser.
pub const WASM_SITE_FILES: &[(&str, &str)] = &[
    (
        "engine.js",
        include_str!("../../damasi-wasm/site/engine.js"),
    ),
    (
        "worker.js",
        include_str!("../../damasi-wasm/site/worker.js"),
    ),
];

/// The WebAssembly build the page loads from `/wasm/` (`scripts/build-wasm`'s output), read
/// from the directory in `DAMASI_WASM_DIR`, else `target/wasm-pkg` of the source tree the
/// server was built from; a 404 when it is not there.
pub const WASM_BUILD_FILES: &[(&str, &str)] = &[
    ("damasi_wasm.js", "text/javascript; charset=utf-8"),
    ("damasi_wasm_bg.wasm", "application/wasm"),
];

fn wasm_dir() -> std::path::PathBuf {
    std::env::var_os("DAMASI_WASM_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../target/wasm-pkg"
            ))
        })
}

async fn wasm_file(Path(name): Path<String>) -> Response {
    if let Some(&(_, body)) = WASM_SITE_FILES.iter().find(|(n, _)| *n == name) {
        return (
            [
                (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            body,
        )
            .into_response();
    }
    if let Some(&(file, mime)) = WASM_BUILD_FILES.iter().find(|(n, _)| *n == name) {
        let path = wasm_dir().join(file);
        if let Ok(Ok(bytes)) = tokio::task::spawn_blocking(move || std::fs::read(path)).await {
            return (
                [
                    (header::CONTENT_TYPE, mime),
                    (header::CACHE_CONTROL, "no-cache"),
                ],
                bytes,
            )
                .into_response();
        }
    }
    (
        StatusCode::NOT_FOUND,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        "404: no such file (the WebAssembly build is made by scripts/build-wasm)\n",
    )
        .into_response()
}

/// Routes for the embedded files and the in-browser engine's (`/wasm/...`); anything else is
/// a 404 page.
pub fn routes() -> Router<AppState> {
    let mut r = Router::new().route("/wasm/{name}", get(wasm_file));
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

/// The tournaments' page (`/swiss`: the list and the form; `/swiss/{id}`: one tournament).
pub async fn swiss_page() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        include_str!("../assets/swiss.html"),
    )
        .into_response()
}

/// A tournament's pairings and standings for the wall (`/swiss/{id}/print`,
/// `/tournament/{id}/print`): black on white, no header, A4.
pub async fn print_page() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        include_str!("../assets/print.html"),
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

#[cfg(test)]
mod tests {
    use super::FILES;

    /// A module added under `assets/js/` and not listed in [`FILES`] would be a 404 for the
    /// page that imports it.
    #[test]
    fn every_module_of_the_page_is_embedded() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
        let mut stack = vec![dir.join("js")];
        let mut seen = 0;
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                    continue;
                }
                let rel = p
                    .strip_prefix(&dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                let url = format!("/{rel}");
                let (_, _, body) = FILES
                    .iter()
                    .find(|(u, _, _)| *u == url)
                    .unwrap_or_else(|| panic!("{url} is not embedded (src/assets.rs FILES)"));
                assert_eq!(*body, std::fs::read_to_string(&p).unwrap(), "{url}");
                seen += 1;
            }
        }
        assert!(seen >= 10, "only {seen} modules found");
    }
}
