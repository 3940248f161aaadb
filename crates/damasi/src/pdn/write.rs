//! Writing PDN: tags in the Seven Tag Roster's order, then the movetext.

use super::*;

/// The result token for `game`: from its outcome, else `*`.
fn result_token(game: &Game) -> &'static str {
    game.outcome().map_or("*", |o| o.pdn_result())
}

/// Writes a tag pair, escaping `\` and `"` in the value as PGN does.
fn write_tag(out: &mut String, name: &str, value: &str) {
    out.push('[');
    out.push_str(name);
    out.push_str(" \"");
    for c in value.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        // A line break would end the tag line: keep records one tag a line.
        out.push(if c == '\n' || c == '\r' { ' ' } else { c });
    }
    out.push_str("\"]\n");
}

/// A moment (seconds since 1970-01-01 UTC) as PDN's `Date` tag writes it: `2026.11.26`.
///
/// ```
/// assert_eq!(damasi::pdn::pdn_date(0), "1970.01.01");
/// assert_eq!(damasi::pdn::pdn_date(1_795_651_200), "2026.11.26");
/// ```
pub fn pdn_date(unix_secs: i64) -> String {
    // Howard Hinnant's `civil_from_days`: the calendar date of a day counted from 1970.
    let z = unix_secs.div_euclid(86_400) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}.{m:02}.{d:02}")
}

/// Writes one game as PDN text, ending in a line break. Separate games with a blank line
/// (as [`write_games`] does). Moves are written in `notation` without the `=K` mark.
pub fn write_game(record: &PdnGame, notation: Notation) -> String {
    let game = &record.game;
    let result = result_token(game);
    let mut out = String::new();
    for (name, default) in ROSTER {
        let value = if name == "Result" {
            result
        } else {
            record.tag(name).unwrap_or(default)
        };
        write_tag(&mut out, name, value);
    }
    write_tag(&mut out, "GameType", &GAME_TYPE.to_string());
    if *game.rules() != RuleSet::default() {
        write_tag(&mut out, RULES_TAG, &game.rules().name());
    }
    let start = *game.initial_position();
    if start != Position::start() {
        write_tag(&mut out, "SetUp", "1");
        write_tag(&mut out, "FEN", &start.to_fen());
    }
    if let Some(clock) = game.clock() {
        write_tag(&mut out, TIME_CONTROL_TAG, &clock.control().pdn());
    }
    if let Some(outcome) = game.outcome() {
        write_tag(&mut out, TERMINATION_TAG, outcome.reason_code());
    }
    for (name, value) in &record.tags {
        let known = ROSTER.iter().any(|(n, _)| n == name) || DERIVED_TAGS.contains(&name.as_str());
        if !known {
            write_tag(&mut out, name, value);
        }
    }
    out.push('\n');

    // Movetext, wrapped before 80 columns as PGN export format asks.
    let mut line = String::new();
    let push_word = |out: &mut String, line: &mut String, word: &str| {
        if !line.is_empty() && line.len() + 1 + word.len() > 79 {
            out.push_str(line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    };
    let side = start.side_to_move();
    let mut pos = start;
    for (ply, m) in game.history().iter().enumerate() {
        let number = move_number(side, ply);
        let written = pos.write_move(m, notation);
        let written = written.strip_suffix("=K").unwrap_or(&written);
        // White's moves carry their number; Black's only when they open the movetext.
        let word = if ply == 0 || !number.ends_with("...") {
            format!("{number} {written}")
        } else {
            written.to_string()
        };
        push_word(&mut out, &mut line, &word);
        pos = pos.play(m);
    }
    push_word(&mut out, &mut line, result);
    out.push_str(&line);
    out.push('\n');
    out
}

/// Writes several games, separated by blank lines.
pub fn write_games<'a>(
    records: impl IntoIterator<Item = &'a PdnGame>,
    notation: Notation,
) -> String {
    let mut out = String::new();
    for (i, r) in records.into_iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&write_game(r, notation));
    }
    out
}
