//! Commands the online tests send often, spelled once.

use damasi_online::accounts::Player;
use damasi_online::command::Command;
use damasi_online::Online;
use damasi_web::ApiError;
use serde_json::Value;

/// `player` plays `text` in game `id` (a move command).
pub async fn play(
    online: &Online,
    id: &str,
    player: &Player,
    text: &str,
) -> Result<Value, ApiError> {
    let text = text.to_string();
    online.run(id, player, Command::Move { text }).await
}
