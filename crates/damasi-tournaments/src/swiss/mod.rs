//! A Swiss tournament as its director keeps it, with no I/O: the settings, the entrants, the
//! rounds played (as a FIDE [`Tournament`], so that pairing, standings and the TRF export read
//! the same data) and the round being played. The director ([`crate::Tournaments`]) makes
//! the games, stores each change and calls these methods.
//!
//! - Players join and withdraw until the last round is paired. Pairing numbers follow the
//!   rating order (then the name); a late joiner is put in its place and the others are
//!   renumbered, and gets a zero-point bye for each round already paired.
//! - Each round is paired by the FIDE Dutch system ([`damasi_swiss::pair_next_round`]); the
//!   pairing-allocated bye gives a point. Withdrawn players are not paired.
//! - A game not started in time (aborted) is a forfeit: the side that had to move loses. A
//!   player who forfeits two games is withdrawn.
//!
//! A round robin ([`System::RoundRobin`], single or double) is the same event with another
//! source of pairings, FIDE's Berger tables ([`damasi_swiss::berger`]):
//!
//! - 3 to 24 players; entries close at the start, when the players are numbered by rating
//!   (then name), as for the Swiss, and the number of rounds follows (`n - 1` for `n` players,
//!   `n` when odd, twice that when double).
//! - With an odd number, the player the table pairs against the missing number rests: no game
//!   and 0 points (`Z`, a zero-point bye, in the TRF), as in FIDE's round robins; every player
//!   rests once a cycle.
//! - A withdrawn player's remaining games are forfeits (`-`, the opponent `+`), made at once
//!   without a game; a game between two withdrawn players is not played and neither scores
//!   (`Z` for both). Withdrawn or not, every round of the table is played.

mod director;
mod report;
mod rounds;
mod settings;

pub(crate) use report::points;
pub use report::{export_trf, import_swiss, results, stored_swiss, summary, view};
pub(crate) use settings::check_name;
pub use settings::{is_format, Entry, SwissSettings, System};

use damasi_swiss::{berger, Colour, GameResult, Player, ResultCode, RoundEntry, Tournament};
use serde::{Deserialize, Serialize};

use crate::tiebreak::{self, Standing};

/// Most rounds a tournament may have.
pub const MAX_ROUNDS: u32 = 30;
/// Most players a tournament may have.
pub const MAX_PLAYERS: usize = 2000;
/// A player who forfeits this many games is withdrawn.
pub const FORFEITS_TO_WITHDRAW: u32 = 2;

/// Where a tournament is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Status {
    /// Taking entries.
    Created,
    /// Rounds are being played.
    Started,
    /// Over.
    Finished,
}

impl Status {
    /// The stored word (lichess's).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Created => "created",
            Status::Started => "started",
            Status::Finished => "finished",
        }
    }
}

/// A player in the tournament; `entrants[i]` has pairing number `i + 1`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entrant {
    /// Account id.
    pub user: i64,
    /// Account name.
    pub name: String,
    /// Rating when joining (for the pairing order).
    pub rating: u32,
    /// Withdrawn: not paired any more.
    pub withdrawn: bool,
    /// Games forfeited.
    pub forfeits: u32,
    /// A BOT account (shown with its title in the standings).
    #[serde(default)]
    pub bot: bool,
}

/// A game's result as the tournament counts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum BoardResult {
    /// White won.
    WhiteWins,
    /// Drawn.
    Draw,
    /// Black won.
    BlackWins,
    /// White did not play: Black wins by forfeit.
    WhiteForfeits,
    /// Black did not play: White wins by forfeit.
    BlackForfeits,
}

impl BoardResult {
    fn fide(self) -> GameResult {
        match self {
            BoardResult::WhiteWins => GameResult::WhiteWins,
            BoardResult::Draw => GameResult::Draw,
            BoardResult::BlackWins => GameResult::BlackWins,
            BoardResult::WhiteForfeits => GameResult::BlackWinsByForfeit,
            BoardResult::BlackForfeits => GameResult::WhiteWinsByForfeit,
        }
    }

    /// White's and Black's result codes.
    fn codes(self) -> (ResultCode, ResultCode) {
        use ResultCode as R;
        match self {
            BoardResult::WhiteWins => (R::Win, R::Loss),
            BoardResult::Draw => (R::Draw, R::Draw),
            BoardResult::BlackWins => (R::Loss, R::Win),
            BoardResult::WhiteForfeits => (R::ForfeitLoss, R::ForfeitWin),
            BoardResult::BlackForfeits => (R::ForfeitWin, R::ForfeitLoss),
        }
    }

    /// The result as written on a pairing sheet (`1-0`, `½-½`, `+/-`).
    pub fn text(self) -> &'static str {
        match self {
            BoardResult::WhiteWins => "1-0",
            BoardResult::Draw => "½-½",
            BoardResult::BlackWins => "0-1",
            BoardResult::WhiteForfeits => "-/+",
            BoardResult::BlackForfeits => "+/-",
        }
    }
}

/// One game of a round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Board {
    /// White's pairing number.
    pub white: u32,
    /// Black's pairing number.
    pub black: u32,
    /// The online game, once made.
    pub game: Option<String>,
    /// The result, once over.
    pub result: Option<BoardResult>,
}

/// One round.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Round {
    /// Its number, from 1.
    pub number: u32,
    /// Its games, in the order of publication.
    pub boards: Vec<Board>,
    /// The player given the pairing-allocated bye.
    pub bye: Option<u32>,
    /// When it was paired (Unix ms).
    pub paired_ms: i64,
}

impl Round {
    fn complete(&self) -> bool {
        self.boards.iter().all(|b| b.result.is_some())
    }
}

/// What went wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SwissError {
    /// The request is malformed.
    #[error("{0}")]
    Invalid(String),
    /// Not possible now (a code and a sentence).
    #[error("{1}")]
    Refused(&'static str, String),
    /// The Dutch system found no pairing.
    #[error("no pairing is possible: {0}")]
    Pairing(String),
}

/// A Swiss tournament.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Swiss {
    /// Its id.
    pub id: String,
    /// The organiser's account.
    pub created_by: i64,
    /// The organiser's name.
    #[serde(default)]
    pub organiser: String,
    /// When it was created (Unix ms).
    pub created_ms: i64,
    /// The settings.
    pub settings: SwissSettings,
    /// Where it is.
    pub status: Status,
    /// The players, by pairing number.
    pub entrants: Vec<Entrant>,
    /// The rounds complete, as FIDE's tournament report (TRF).
    #[serde(with = "trf_text")]
    pub played: Tournament,
    /// Every round paired; the last one may be in play.
    pub rounds: Vec<Round>,
    /// When the next round is to be paired (Unix ms), once the last one is complete.
    pub next_round_ms: Option<i64>,
    /// When it finished (Unix ms): TRF's end date (line 052). None before, and for those
    /// stored before it was kept (their last round's date stands for it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_ms: Option<i64>,
}

mod trf_text {
    use damasi_swiss::Tournament;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(t: &Tournament, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&t.to_trf())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Tournament, D::Error> {
        let text = String::deserialize(d)?;
        Tournament::from_trf(&text)
            .map_err(|e| serde::de::Error::custom(format!("line {}: {}", e.line, e.message)))
    }
}

fn trf_player(number: u32, e: &Entrant, rounds: usize) -> Player {
    Player {
        number,
        sex: String::new(),
        title: String::new(),
        name: e.name.clone(),
        rating: e.rating,
        federation: String::new(),
        fide_id: String::new(),
        birth_date: String::new(),
        points_tenths: 0,
        rank: None,
        rounds: vec![
            RoundEntry {
                opponent: None,
                colour: None,
                result: ResultCode::ZeroPointBye,
            };
            rounds
        ],
    }
}

impl Swiss {
    /// A new tournament taking entries, organised by `created_by` (account id and name).
    pub fn new(
        id: String,
        created_by: (i64, String),
        now: i64,
        mut settings: SwissSettings,
        first_colour: Colour,
    ) -> Result<Swiss, SwissError> {
        settings.check()?;
        if settings.system.is_round_robin() {
            // Known at the start, from the number of players.
            settings.rounds = 0;
        }
        let played = Tournament {
            name: Some(settings.name.clone()),
            players: Vec::new(),
            total_rounds: (settings.rounds > 0).then_some(settings.rounds),
            initial_colour: Some(first_colour),
            other_lines: Vec::new(),
        };
        Ok(Swiss {
            id,
            created_by: created_by.0,
            organiser: created_by.1,
            created_ms: now,
            settings,
            status: Status::Created,
            entrants: Vec::new(),
            played,
            rounds: Vec::new(),
            next_round_ms: None,
            finished_ms: None,
        })
    }

    /// A tournament to go on with, from a FIDE report file (`damasi swiss import`): `played`
    /// holds the rounds played, `users` the account (id, name) of each player in pairing
    /// number order. It is started, its next round due after the pause.
    pub fn continue_from(
        id: String,
        created_by: (i64, String),
        now: i64,
        mut settings: SwissSettings,
        mut played: Tournament,
        users: Vec<(i64, String)>,
    ) -> Result<Swiss, SwissError> {
        if users.len() != played.players.len() {
            return Err(SwissError::Invalid(format!(
                "{} accounts for {} players",
                users.len(),
                played.players.len()
            )));
        }
        for (i, p) in played.players.iter().enumerate() {
            if p.number != i as u32 + 1 {
                return Err(SwissError::Invalid(
                    "the pairing numbers must run from 1 without a gap".into(),
                ));
            }
        }
        let rounds_played = played
            .players
            .iter()
            .map(|p| p.rounds.len())
            .max()
            .unwrap_or(0);
        if let Some(total) = played.total_rounds {
            settings.rounds = total;
        }
        if rounds_played as u32 >= settings.rounds {
            return Err(SwissError::Invalid(format!(
                "all {} rounds are played already",
                settings.rounds
            )));
        }
        settings.check()?;
        if played.players.len() < 2 {
            return Err(SwissError::Invalid(
                "a tournament has two players or more".into(),
            ));
        }
        let mut rounds = Vec::new();
        for r in 0..rounds_played {
            let mut boards = Vec::new();
            let mut bye = None;
            for p in &mut played.players {
                p.rounds.resize(rounds_played, RoundEntry::absent());
                let e = p.rounds[r];
                if e.result == ResultCode::PairingAllocatedBye {
                    bye = Some(p.number);
                }
                let (Some(black), Some(Colour::White)) = (e.opponent, e.colour) else {
                    continue;
                };
                use ResultCode as R;
                let result = match e.result {
                    R::Win | R::UnratedWin => BoardResult::WhiteWins,
                    R::Draw | R::UnratedDraw => BoardResult::Draw,
                    R::Loss | R::UnratedLoss => BoardResult::BlackWins,
                    R::ForfeitWin => BoardResult::BlackForfeits,
                    _ => BoardResult::WhiteForfeits,
                };
                boards.push(Board {
                    white: p.number,
                    black,
                    game: None,
                    result: Some(result),
                });
            }
            rounds.push(Round {
                number: r as u32 + 1,
                boards,
                bye,
                paired_ms: now,
            });
        }
        for p in &mut played.players {
            p.points_tenths = p.score_after(rounds_played);
        }
        played.name = Some(settings.name.clone());
        played.total_rounds = Some(settings.rounds);
        let entrants = played
            .players
            .iter()
            .zip(users)
            .map(|(p, (user, name))| Entrant {
                user,
                name,
                rating: p.rating,
                withdrawn: false,
                forfeits: 0,
                bot: false,
            })
            .collect();
        Ok(Swiss {
            id,
            created_by: created_by.0,
            organiser: created_by.1,
            created_ms: now,
            next_round_ms: Some(now + settings.round_pause_ms),
            settings,
            status: Status::Started,
            entrants,
            played,
            rounds,
            finished_ms: None,
        })
    }

    /// The pairing number of account `user`.
    pub fn number_of(&self, user: i64) -> Option<u32> {
        self.entrants
            .iter()
            .position(|e| e.user == user)
            .map(|i| i as u32 + 1)
    }

    /// The round being played, if one is.
    pub fn in_play(&self) -> Option<&Round> {
        self.rounds.last().filter(|r| !r.complete())
    }

    /// Rounds complete.
    pub fn rounds_complete(&self) -> usize {
        self.rounds.iter().filter(|r| r.complete()).count()
    }

    /// Whether players may still join: before the last round is paired.
    pub fn open_for_entries(&self) -> bool {
        if self.settings.system.is_round_robin() {
            return self.status == Status::Created;
        }
        self.status != Status::Finished && (self.rounds.len() as u32) < self.settings.rounds
    }

    /// The number of rounds: the settings' for a Swiss; for a round robin, its table's (before
    /// the start, for the players in so far, at least 3).
    pub fn nb_rounds(&self) -> u32 {
        if self.settings.system.is_round_robin() && self.status == Status::Created {
            let n = (self.entrants.len() as u32).clamp(berger::MIN_PLAYERS, berger::MAX_PLAYERS);
            return berger::round_count(n, self.double()).unwrap_or(0);
        }
        self.settings.rounds
    }

    fn double(&self) -> bool {
        self.settings.system == System::DoubleRoundRobin
    }

    /// The result written for the round's bye: a zero-point bye (a rest) in a round robin, the
    /// pairing-allocated bye (a point) in a Swiss.
    fn bye_code(&self) -> ResultCode {
        if self.settings.system.is_round_robin() {
            ResultCode::ZeroPointBye
        } else {
            ResultCode::PairingAllocatedBye
        }
    }

    /// `user` (named `name`, rated `rating`) joins; `allowed` says whether they passed the
    /// entry rule (password or list), checked by the caller. A withdrawn player joins again.
    pub fn join(&mut self, user: i64, name: &str, rating: u32) -> Result<(), SwissError> {
        if !self.open_for_entries() {
            return Err(SwissError::Refused(
                "tournament-closed",
                "the tournament takes no more entries".into(),
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
        if let Some(n) = self.number_of(user) {
            let e = &mut self.entrants[n as usize - 1];
            if !e.withdrawn {
                return Err(SwissError::Refused(
                    "already-joined",
                    "you are already in this tournament".into(),
                ));
            }
            e.withdrawn = false;
            e.forfeits = 0;
            return Ok(());
        }
        if self.settings.system.is_round_robin()
            && self.entrants.len() >= berger::MAX_PLAYERS as usize
        {
            return Err(SwissError::Refused(
                "tournament-full",
                format!("the round robin is full ({} players)", berger::MAX_PLAYERS),
            ));
        }
        if self.entrants.len() >= MAX_PLAYERS {
            return Err(SwissError::Refused(
                "tournament-full",
                format!("the tournament is full ({MAX_PLAYERS} players)"),
            ));
        }
        let entrant = Entrant {
            user,
            name: name.to_string(),
            rating,
            withdrawn: false,
            forfeits: 0,
            bot: false,
        };
        if self.status == Status::Created {
            self.entrants.push(entrant);
        } else {
            // A late entry: its place in the rating order, zero-point byes for the rounds
            // paired without it.
            let at = self
                .entrants
                .iter()
                .position(|e| seed_order(&entrant, e).is_lt())
                .unwrap_or(self.entrants.len());
            let rounds = self.played.players.first().map_or(0, |p| p.rounds.len());
            self.played
                .players
                .insert(at, trf_player(0, &entrant, rounds));
            self.entrants.insert(at, entrant);
            let old: Vec<u32> = (0..self.entrants.len())
                .map(|i| match i {
                    i if i < at => i as u32 + 1,
                    i if i == at => 0,
                    i => i as u32,
                })
                .collect();
            self.renumber(&old);
        }
        Ok(())
    }

    /// Gives every player the number of their place in `entrants` (and in `played.players`,
    /// kept in the same order), where `old[i]` was the number of the player now at `i`.
    fn renumber(&mut self, old: &[u32]) {
        let mut new_of = vec![0u32; old.len() + 1];
        for (i, &o) in old.iter().enumerate() {
            if o > 0 {
                new_of[o as usize] = i as u32 + 1;
            }
        }
        let map = |n: u32| new_of.get(n as usize).copied().unwrap_or(n);
        for (i, p) in self.played.players.iter_mut().enumerate() {
            p.number = i as u32 + 1;
            for r in &mut p.rounds {
                r.opponent = r.opponent.map(map);
            }
        }
        for r in &mut self.rounds {
            for b in &mut r.boards {
                b.white = map(b.white);
                b.black = map(b.black);
            }
            r.bye = r.bye.map(map);
        }
    }

    /// `user` leaves: before the start they are taken off the list; after it they are not
    /// paired again (their game in play goes on).
    pub fn withdraw(&mut self, user: i64) -> Result<(), SwissError> {
        let n = self.number_of(user).ok_or_else(|| {
            SwissError::Refused("not-joined", "you are not in this tournament".into())
        })?;
        match self.status {
            Status::Created => {
                self.entrants.remove(n as usize - 1);
            }
            Status::Started => self.entrants[n as usize - 1].withdrawn = true,
            Status::Finished => {
                return Err(SwissError::Refused(
                    "tournament-finished",
                    "the tournament is over".into(),
                ))
            }
        }
        Ok(())
    }

    /// Players not withdrawn.
    pub fn active(&self) -> usize {
        self.entrants.iter().filter(|e| !e.withdrawn).count()
    }

    /// Each player's rounds: those complete, then the games of the round in play that are
    /// over (and its bye).
    pub fn entries(&self) -> Vec<Vec<RoundEntry>> {
        let mut rounds: Vec<Vec<RoundEntry>> = self
            .played
            .players
            .iter()
            .map(|p| p.rounds.clone())
            .collect();
        // Entrants who joined before the start appear once it starts.
        rounds.resize(self.entrants.len(), Vec::new());
        let bye_code = self.bye_code();
        if let Some(r) = self.in_play() {
            let mut put = |n: u32, e: RoundEntry| {
                if let Some(list) = rounds.get_mut(n as usize - 1) {
                    list.push(e);
                }
            };
            if let Some(b) = r.bye {
                put(
                    b,
                    RoundEntry {
                        opponent: None,
                        colour: None,
                        result: bye_code,
                    },
                );
            }
            for b in &r.boards {
                let Some(result) = b.result else { continue };
                let (w, bl) = result.codes();
                let entry = |opponent: u32, colour: Colour, result: ResultCode| RoundEntry {
                    opponent: Some(opponent),
                    colour: Some(colour),
                    result,
                };
                let (w, bl) = (
                    entry(b.black, Colour::White, w),
                    entry(b.white, Colour::Black, bl),
                );
                put(b.white, w);
                put(b.black, bl);
            }
        }
        rounds
    }

    /// The standings now.
    pub fn standings(&self) -> Vec<Standing> {
        tiebreak::standings(&self.entries(), &self.settings.tiebreaks)
    }
}

/// The pairing order: higher rating first, then name.
fn seed_order(a: &Entrant, b: &Entrant) -> std::cmp::Ordering {
    b.rating.cmp(&a.rating).then_with(|| {
        a.name
            .to_ascii_lowercase()
            .cmp(&b.name.to_ascii_lowercase())
    })
}

#[cfg(test)]
mod tests;
