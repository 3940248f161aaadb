//! An arena as its director keeps it, with no I/O: for a fixed time, players who are free are
//! paired again as soon as their game ends, with someone of a similar score they did not just
//! play. lichess's scoring: a win 2 points, a draw 1, a loss 0; after two wins in a row a
//! player is *on fire* and each next win is worth 4 and a draw 2, until a game is not won.
//! A player may pause (and come back); games still being played when the time is up count
//! when they end.

mod director;

pub use director::{arena_results, arena_view, NewArena};

use serde::{Deserialize, Serialize};

use crate::swiss::{BoardResult, Entry, Status, SwissError};

/// Longest arena (minutes).
pub const MAX_MINUTES: u32 = 24 * 60;

/// What the organiser chose.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArenaSettings {
    /// The name.
    pub name: String,
    /// How long it lasts (minutes).
    pub minutes: u32,
    /// Time each side starts with (ms).
    pub initial_ms: i64,
    /// Increment per move (ms).
    pub increment_ms: i64,
    /// Whether the games are rated.
    pub rated: bool,
    /// When it starts (Unix ms); none: when the organiser starts it.
    pub starts_ms: Option<i64>,
    /// Who may join.
    pub entry: Entry,
    /// The rules every game is played under (lichess's `variant`; stored as its key,
    /// arenas stored before it was chosen are the federation's).
    #[serde(default, with = "damasi_online::variant::serde_rules")]
    pub rules: damasi::RuleSet,
    /// Whether BOT accounts may join (lichess's `conditions.bots`; off unless the organiser
    /// allows them).
    #[serde(default)]
    pub allow_bots: bool,
}

impl ArenaSettings {
    /// Checks the settings; the time control is checked by the online service.
    pub fn check(&self) -> Result<(), SwissError> {
        crate::swiss::check_name(&self.name)?;
        if !(1..=MAX_MINUTES).contains(&self.minutes) {
            return Err(SwissError::Invalid(format!(
                "an arena lasts 1 to {MAX_MINUTES} minutes"
            )));
        }
        Ok(())
    }
}

/// One game of a player's sheet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SheetEntry {
    /// The game.
    pub game: String,
    /// The opponent's account.
    pub opponent: i64,
    /// 2 a win, 1 a draw, 0 a loss (before doubling).
    pub outcome: u8,
    /// Points it gave.
    pub points: u32,
}

/// A player of the arena.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArenaPlayer {
    /// Account id.
    pub user: i64,
    /// Account name.
    pub name: String,
    /// Rating when joining.
    pub rating: u32,
    /// Points.
    pub score: u32,
    /// Wins in a row just now.
    pub streak: u32,
    /// Paused: not paired.
    pub paused: bool,
    /// The game being played, if any.
    pub playing: Option<String>,
    /// Games played with White (for the colours).
    pub whites: u32,
    /// The games played, oldest first.
    pub sheet: Vec<SheetEntry>,
    /// A BOT account (shown with its title in the standings).
    #[serde(default)]
    pub bot: bool,
}

impl ArenaPlayer {
    /// On fire: the next win counts double.
    pub fn on_fire(&self) -> bool {
        self.streak >= 2
    }
}

/// A game being played: its players by index.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ArenaGame {
    /// The online game.
    pub id: String,
    /// White's index in [`Arena::players`].
    pub white: usize,
    /// Black's index.
    pub black: usize,
}

/// An arena.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Arena {
    /// Its id.
    pub id: String,
    /// The organiser's account.
    pub created_by: i64,
    /// The organiser's name.
    pub organiser: String,
    /// When it was created (Unix ms).
    pub created_ms: i64,
    /// The settings.
    pub settings: ArenaSettings,
    /// Where it is.
    pub status: Status,
    /// When it ends (Unix ms), once started.
    pub ends_ms: Option<i64>,
    /// The players, in the order they joined.
    pub players: Vec<ArenaPlayer>,
    /// The games being played.
    pub games: Vec<ArenaGame>,
}

impl Arena {
    /// A new arena taking entries.
    pub fn new(
        id: String,
        created_by: (i64, String),
        now: i64,
        settings: ArenaSettings,
    ) -> Result<Arena, SwissError> {
        settings.check()?;
        Ok(Arena {
            id,
            created_by: created_by.0,
            organiser: created_by.1,
            created_ms: now,
            settings,
            status: Status::Created,
            ends_ms: None,
            players: Vec::new(),
            games: Vec::new(),
        })
    }

    fn index_of(&self, user: i64) -> Option<usize> {
        self.players.iter().position(|p| p.user == user)
    }

    /// `user` joins, or comes back from a pause.
    pub fn join(&mut self, user: i64, name: &str, rating: u32) -> Result<(), SwissError> {
        if self.status == Status::Finished {
            return Err(SwissError::Refused(
                "tournament-finished",
                "the tournament is over".into(),
            ));
        }
        if let Entry::List { names } = &self.settings.entry {
            if !names.iter().any(|n| n.eq_ignore_ascii_case(name)) {
                return Err(SwissError::Refused(
                    "not-invited",
                    "only the players on the organiser's list may join".into(),
                ));
            }
        }
        match self.index_of(user) {
            Some(i) if self.players[i].paused => self.players[i].paused = false,
            Some(_) => {
                return Err(SwissError::Refused(
                    "already-joined",
                    "you are already in this tournament".into(),
                ))
            }
            None => {
                if self.players.len() >= crate::swiss::MAX_PLAYERS {
                    return Err(SwissError::Refused(
                        "tournament-full",
                        "the tournament is full".into(),
                    ));
                }
                self.players.push(ArenaPlayer {
                    user,
                    name: name.to_string(),
                    rating,
                    score: 0,
                    streak: 0,
                    paused: false,
                    playing: None,
                    whites: 0,
                    sheet: Vec::new(),
                    bot: false,
                });
            }
        }
        Ok(())
    }

    /// `user` pauses (before the start: leaves). Their game in play goes on.
    pub fn pause(&mut self, user: i64) -> Result<(), SwissError> {
        let i = self.index_of(user).ok_or_else(|| {
            SwissError::Refused("not-joined", "you are not in this tournament".into())
        })?;
        match self.status {
            Status::Created => {
                self.players.remove(i);
            }
            Status::Started => self.players[i].paused = true,
            Status::Finished => {
                return Err(SwissError::Refused(
                    "tournament-finished",
                    "the tournament is over".into(),
                ))
            }
        }
        Ok(())
    }

    /// Starts the clock of the arena.
    pub fn start(&mut self, now: i64) -> Result<(), SwissError> {
        if self.status != Status::Created {
            return Err(SwissError::Refused(
                "already-started",
                "the tournament has started".into(),
            ));
        }
        self.status = Status::Started;
        self.ends_ms = Some(now + self.settings.minutes as i64 * 60_000);
        Ok(())
    }

    /// Ends it if its time is up (answers whether it did).
    pub fn finish_if_due(&mut self, now: i64) -> bool {
        if self.status == Status::Started && self.ends_ms.is_some_and(|e| e <= now) {
            self.status = Status::Finished;
            true
        } else {
            false
        }
    }

    /// Ends it now.
    pub fn close(&mut self) {
        self.status = Status::Finished;
    }

    /// The pairs to make now, as (White, Black) indices: the free players (not paused, not
    /// playing) in order of score (then rating), each with the next one they did not just
    /// play; White to the one who has had it less.
    pub fn pairs(&self) -> Vec<(usize, usize)> {
        if self.status != Status::Started {
            return Vec::new();
        }
        let mut free: Vec<usize> = (0..self.players.len())
            .filter(|&i| !self.players[i].paused && self.players[i].playing.is_none())
            .collect();
        free.sort_by(|&a, &b| {
            let (pa, pb) = (&self.players[a], &self.players[b]);
            pb.score
                .cmp(&pa.score)
                .then(pb.rating.cmp(&pa.rating))
                .then(a.cmp(&b))
        });
        let last = |i: usize| self.players[i].sheet.last().map(|e| e.opponent);
        let mut pairs = Vec::new();
        let mut taken = vec![false; free.len()];
        for k in 0..free.len() {
            if taken[k] {
                continue;
            }
            let a = free[k];
            let partner = (k + 1..free.len()).filter(|&m| !taken[m]).find(|&m| {
                let b = free[m];
                last(a) != Some(self.players[b].user) && last(b) != Some(self.players[a].user)
            });
            let Some(m) = partner else { continue };
            taken[k] = true;
            taken[m] = true;
            let b = free[m];
            let (pa, pb) = (&self.players[a], &self.players[b]);
            let a_whites = 2 * pa.whites as i64 - pa.sheet.len() as i64;
            let b_whites = 2 * pb.whites as i64 - pb.sheet.len() as i64;
            pairs.push(if a_whites <= b_whites { (a, b) } else { (b, a) });
        }
        pairs
    }

    /// Records that game `id` between players `white` and `black` started.
    pub fn started(&mut self, id: String, white: usize, black: usize) {
        self.players[white].playing = Some(id.clone());
        self.players[white].whites += 1;
        self.players[black].playing = Some(id.clone());
        self.games.push(ArenaGame { id, white, black });
    }

    /// Records the end of game `id`; answers whether it was one of the arena's.
    pub fn record(&mut self, id: &str, result: BoardResult) -> bool {
        let Some(at) = self.games.iter().position(|g| g.id == id) else {
            return false;
        };
        let g = self.games.remove(at);
        let (w, b) = match result {
            BoardResult::WhiteWins | BoardResult::BlackForfeits => (2, 0),
            BoardResult::BlackWins | BoardResult::WhiteForfeits => (0, 2),
            BoardResult::Draw => (1, 1),
        };
        let (wu, bu) = (self.players[g.white].user, self.players[g.black].user);
        for (i, outcome, opponent) in [(g.white, w, bu), (g.black, b, wu)] {
            let p = &mut self.players[i];
            let points = if p.on_fire() {
                outcome as u32 * 2
            } else {
                outcome as u32
            };
            p.streak = if outcome == 2 { p.streak + 1 } else { 0 };
            p.score += points;
            p.playing = None;
            p.sheet.push(SheetEntry {
                game: id.to_string(),
                opponent,
                outcome,
                points,
            });
        }
        // A player who forfeits (did not move) is paused: they are not here.
        match result {
            BoardResult::WhiteForfeits => self.players[g.white].paused = true,
            BoardResult::BlackForfeits => self.players[g.black].paused = true,
            _ => {}
        }
        true
    }

    /// The standings: by score, then performance (points per game), then rating; answers
    /// player indices.
    pub fn ranking(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.players.len()).collect();
        order.sort_by(|&a, &b| {
            let (pa, pb) = (&self.players[a], &self.players[b]);
            pb.score
                .cmp(&pa.score)
                .then(pb.sheet.len().cmp(&pa.sheet.len()).reverse())
                .then(pb.rating.cmp(&pa.rating))
                .then(a.cmp(&b))
        });
        order
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arena() -> Arena {
        let mut a = Arena::new(
            "a".into(),
            (1, "org".into()),
            0,
            ArenaSettings {
                name: "Akşam arenası".into(),
                minutes: 60,
                initial_ms: 180_000,
                increment_ms: 2000,
                rated: true,
                starts_ms: None,
                entry: Entry::Anyone,
                rules: damasi::RuleSet::default(),
                allow_bots: false,
            },
        )
        .unwrap();
        for (u, r) in [(10, 1500), (11, 1600), (12, 1700), (13, 1800)] {
            a.join(u, &format!("p{u}"), r).unwrap();
        }
        a.start(0).unwrap();
        a
    }

    #[test]
    fn lichess_scoring_with_streaks() {
        // Hand-worked: player 0 wins, wins (on fire), wins (4), draws (2, streak over),
        // wins (2).
        let mut a = arena();
        let mut n = 0;
        let mut play = |a: &mut Arena, result| {
            n += 1;
            let id = format!("g{n}");
            a.started(id.clone(), 0, 1);
            assert!(a.record(&id, result));
        };
        for (result, score, streak) in [
            (BoardResult::WhiteWins, 2, 1),
            (BoardResult::WhiteWins, 4, 2),
            (BoardResult::WhiteWins, 8, 3),
            (BoardResult::Draw, 10, 0),
            (BoardResult::WhiteWins, 12, 1),
        ] {
            play(&mut a, result);
            assert_eq!((a.players[0].score, a.players[0].streak), (score, streak));
        }
        // Player 1 lost four and drew one (not on fire): one point.
        assert_eq!(a.players[1].score, 1);
        assert!(!a.record("nothing", BoardResult::Draw));
    }

    #[test]
    fn pairs_by_score_never_the_last_opponent_and_not_the_paused() {
        let mut a = arena();
        // Nobody has a score: by rating, 13-12 and 11-10.
        let first = a.pairs();
        let names: Vec<(i64, i64)> = first
            .iter()
            .map(|&(w, b)| {
                let (x, y) = (a.players[w].user, a.players[b].user);
                (x.max(y), x.min(y))
            })
            .collect();
        assert_eq!(names, vec![(13, 12), (11, 10)]);
        for (k, &(w, b)) in first.iter().enumerate() {
            a.started(format!("r1g{k}"), w, b);
        }
        assert!(a.pairs().is_empty(), "everybody is playing");
        // 13 beats 12, 11 and 10 draw.
        let g0 = a.games[0].clone();
        let winner_is_white = a.players[g0.white].user == 13;
        a.record(
            "r1g0",
            if winner_is_white {
                BoardResult::WhiteWins
            } else {
                BoardResult::BlackWins
            },
        );
        a.record("r1g1", BoardResult::Draw);
        // Scores: 13: 2, 11: 1, 10: 1, 12: 0. In score order 13 would meet 11 (not its last
        // opponent 12), then 10 meets 12.
        let second: Vec<(i64, i64)> = a
            .pairs()
            .iter()
            .map(|&(w, b)| {
                let (x, y) = (a.players[w].user, a.players[b].user);
                (x.max(y), x.min(y))
            })
            .collect();
        assert_eq!(second, vec![(13, 11), (12, 10)]);
        // Whoever had White has Black now when the other had Black.
        a.pause(13).unwrap();
        let third: Vec<(i64, i64)> = a
            .pairs()
            .iter()
            .map(|&(w, b)| (a.players[w].user, a.players[b].user))
            .collect();
        assert!(third.iter().all(|&(w, b)| w != 13 && b != 13));
        assert_eq!(third.len(), 1, "three free players make one pair");
    }

    #[test]
    fn the_time_is_up() {
        let mut a = arena();
        assert!(!a.finish_if_due(60 * 60_000 - 1));
        assert!(a.finish_if_due(60 * 60_000));
        assert!(a.pairs().is_empty());
        assert_eq!(
            a.join(99, "late", 1500).unwrap_err().to_string(),
            "the tournament is over"
        );
    }
}
