//! A Swiss tournament read out: its summary, standings and whole view for the page and the
//! API, and FIDE's tournament report (TRF) written and read back.

use crate::*;

/// The stored Swiss tournament `id` (for tools that read the store without a server).
pub async fn stored_swiss(db: &OnlineDb, id: &str) -> Result<Swiss, ApiError> {
    let row = db
        .tournament(id)
        .await?
        .filter(|r| r.kind == "swiss")
        .ok_or_else(|| ApiError::NotFound(format!("no tournament {id}")))?;
    serde_json::from_str(&row.data)
        .map_err(|e| ApiError::Internal(format!("tournament {id} is unreadable: {e}")))
}

/// Stores a tournament read from a FIDE report file to go on with it (`damasi swiss
/// import`): each player's name must be an account's; `organiser` is an account's name.
/// Answers the new tournament's id. A running server picks it up when it is first asked for
/// it (its page, the API), and pairs the next round after the pause.
pub async fn import_swiss(
    db: &OnlineDb,
    organiser: &str,
    settings: SwissSettings,
    played: damasi_swiss::Tournament,
) -> Result<String, ApiError> {
    let by = db
        .user_by_name(organiser)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no account called '{organiser}'")))?;
    NewGame {
        initial_ms: settings.initial_ms,
        increment_ms: settings.increment_ms,
        rated: settings.rated,
        chat: true,
        rules: settings.rules,
    }
    .check()?;
    let mut users = Vec::new();
    let mut missing = Vec::new();
    for p in &played.players {
        match db.user_by_name(p.name.trim()).await? {
            Some(u) => users.push((u.id, u.name)),
            None => missing.push(p.name.trim().to_string()),
        }
    }
    if !missing.is_empty() {
        return Err(ApiError::BadRequest(format!(
            "these players have no account (create them with `damasi user add`): {}",
            missing.join(", ")
        )));
    }
    let swiss = Swiss::continue_from(
        new_game_id()?,
        (by.id, by.name),
        now_ms(),
        settings,
        played,
        users,
    )
    .map_err(api)?;
    db.save_tournament(row_of(&swiss)?).await?;
    Ok(swiss.id)
}

/// `s` as a TRF file: the rounds complete, each player's points and place, and TRF-16's
/// lines of the event: its dates (042 start, 052 end, 132 each round's), the number of
/// players (062), the organiser as the chief arbiter (102) and the time control (122).
pub fn export_trf(s: &Swiss) -> String {
    let mut t = s.played.clone();
    let standings = s.standings();
    for line in &standings {
        if let Some(p) = t.players.get_mut(line.number as usize - 1) {
            p.rank = Some(line.rank);
        }
    }
    let mut lines = event_lines(s);
    // A tournament read from a file keeps its own lines of these kinds only where damasi
    // knows nothing better.
    let ours: Vec<String> = lines.iter().map(|l| l[..3].to_string()).collect();
    lines.extend(
        t.other_lines
            .iter()
            .filter(|l| !ours.iter().any(|code| l.starts_with(code)))
            .cloned(),
    );
    t.other_lines = lines;
    t.to_trf()
}

/// TRF-16's lines 042, 052, 062, 102, 122 and 132 of `s` (the dates in UTC): 042 the first
/// round's day, 052 the day it finished.
fn event_lines(s: &Swiss) -> Vec<String> {
    // `YYYY/MM/DD`, and `YY/MM/DD` for line 132, from PDN's `YYYY.MM.DD`.
    let date = |ms: i64| damasi::pdn::pdn_date(ms.div_euclid(1000)).replace('.', "/");
    let mut lines = Vec::new();
    if let Some(first) = s.rounds.first() {
        lines.push(format!("042 {}", date(first.paired_ms)));
    }
    if s.status == Status::Finished {
        if let Some(last) = s.rounds.last() {
            // The day it ended (a correspondence round lasts days), or for one stored before
            // that was kept, the day of its last round.
            lines.push(format!(
                "052 {}",
                date(s.finished_ms.unwrap_or(last.paired_ms))
            ));
        }
    }
    lines.push(format!("062 {}", s.entrants.len()));
    lines.push(format!("102 {}", s.organiser));
    let control = match damasi_online::days_per_turn(s.settings.initial_ms, s.settings.increment_ms)
    {
        Some(days) => format!("{days} days a move (correspondence)"),
        None => format!(
            "{} min + {} s a move",
            s.settings.initial_ms as f64 / 60_000.0,
            s.settings.increment_ms / 1000
        ),
    };
    lines.push(format!("122 {control}"));
    if !s.rounds.is_empty() {
        // The first round's date in columns 92-99, each next one 10 columns further.
        let mut line = format!("132{}", " ".repeat(86));
        for r in &s.rounds {
            line.push_str(&format!("  {}", &date(r.paired_ms)[2..]));
        }
        lines.push(line);
    }
    lines
}

/// Points in half points as a number (`2.5`).
pub(crate) fn points(halves: u32) -> f64 {
    halves as f64 / 2.0
}

/// A tournament as lists show it (lichess's fields where it has them).
pub fn summary(s: &Swiss) -> Value {
    let mut v = json!({
        "id": s.id,
        "name": s.settings.name,
        "createdBy": s.organiser,
        "status": s.status.as_str(),
        "round": s.rounds.len(),
        "nbRounds": s.nb_rounds(),
        // damasi's: how the rounds are paired (`swiss`, `roundRobin`) and, for a round robin,
        // whether it is double.
        "system": s.settings.system.key(),
        "double": s.settings.system == swiss::System::DoubleRoundRobin,
        "nbPlayers": s.entrants.len(),
        "nbOngoing": s.in_play().map_or(0, |r| r.boards.iter().filter(|b| b.result.is_none()).count()),
        "clock": {"limit": s.settings.initial_ms / 1000, "increment": s.settings.increment_ms / 1000},
        // damasi's: the days a move of a correspondence Swiss (lichess's has none), else null.
        "days": damasi_online::days_per_turn(s.settings.initial_ms, s.settings.increment_ms),
        "rated": s.settings.rated,
        "variant": damasi_online::variant::key(&s.settings.rules),
        "rules": damasi_online::variant::json(&s.settings.rules),
        "password": matches!(s.settings.entry, Entry::Password { .. }),
        "allowBots": s.settings.allow_bots,
        "nextRound": s.next_round_ms.map(|at| json!({"at": at, "in": ((at - now_ms()).max(0) / 1000)})),
    });
    // lichess always has a start; a tournament started by its organiser has none until then.
    if let Some(at) = s.settings.starts_ms {
        v["startsAt"] = json!(at);
    }
    v
}

/// The standings as the API gives them, one line per player (lichess's `results` lines).
pub fn results(s: &Swiss) -> Vec<Value> {
    s.standings()
        .into_iter()
        .map(|l| {
            let e = &s.entrants[l.number as usize - 1];
            json!({
                "rank": l.rank,
                "points": points(l.halves),
                "tieBreak": l.tiebreaks.first().map(|v| tiebreak_value(s.settings.tiebreaks[0], *v)),
                "tieBreaks": l.tiebreaks.iter().zip(&s.settings.tiebreaks).map(|(v, t)| tiebreak_value(*t, *v)).collect::<Vec<_>>(),
                "rating": e.rating,
                "username": e.name,
                "title": e.bot.then_some(damasi_online::accounts::BOT_TITLE),
                "number": l.number,
                "withdrawn": e.withdrawn,
            })
        })
        .collect()
}

fn tiebreak_value(t: tiebreak::Tiebreak, v: u32) -> f64 {
    match t {
        tiebreak::Tiebreak::Wins => v as f64,
        tiebreak::Tiebreak::SonnebornBerger => v as f64 / 4.0,
        _ => v as f64 / 2.0,
    }
}

/// The whole tournament as its page shows it: the summary, the tie-breaks' names, the
/// standings and every round's games.
pub fn view(s: &Swiss) -> Value {
    let name = |n: u32| {
        s.entrants
            .get(n as usize - 1)
            .map(|e| e.name.clone())
            .unwrap_or_default()
    };
    let mut v = summary(s);
    v["tieBreaks"] = json!(s
        .settings
        .tiebreaks
        .iter()
        .map(|t| t.abbreviation())
        .collect::<Vec<_>>());
    v["roundPauseSeconds"] = json!(s.settings.round_pause_ms / 1000);
    v["entry"] = json!(match &s.settings.entry {
        Entry::Anyone => "anyone",
        Entry::Password { .. } => "password",
        Entry::List { .. } => "list",
    });
    v["standings"] = json!(results(s));
    v["rounds"] = s
        .rounds
        .iter()
        .map(|r| {
            json!({
                "number": r.number,
                "bye": r.bye.map(name),
                "games": r.boards.iter().map(|b| json!({
                    "id": b.game,
                    "white": name(b.white),
                    "black": name(b.black),
                    "result": b.result.map(|r| r.text()),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    v
}
