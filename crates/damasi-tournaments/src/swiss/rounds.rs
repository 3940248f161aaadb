//! The tournament in play: its start, each round paired, the results recorded, the round
//! complete and the end.

use damasi_swiss::{berger, GameResult, Pairing, ResultCode, RoundEntry, Tournament};

use super::{
    seed_order, trf_player, Board, BoardResult, Round, Status, Swiss, SwissError,
    FORFEITS_TO_WITHDRAW,
};

impl Swiss {
    /// Starts the tournament: pairing numbers by rating (then name). Needs two players.
    pub fn start(&mut self) -> Result<(), SwissError> {
        if self.status != Status::Created {
            return Err(SwissError::Refused(
                "already-started",
                "the tournament has started".into(),
            ));
        }
        if self.active() < 2 && !self.settings.system.is_round_robin() {
            return Err(SwissError::Refused(
                "too-few-players",
                "a tournament needs two players to start".into(),
            ));
        }
        if self.settings.system.is_round_robin() {
            let n = self.entrants.len() as u32;
            let rounds = berger::round_count(n, self.double()).map_err(|_| {
                SwissError::Refused(
                    "too-few-players",
                    format!(
                        "a round robin needs {} to {} players to start, it has {n}",
                        berger::MIN_PLAYERS,
                        berger::MAX_PLAYERS
                    ),
                )
            })?;
            self.settings.rounds = rounds;
            self.played.total_rounds = Some(rounds);
            // TRF-16's line 092, the type of tournament (free text).
            self.played.other_lines.push(format!(
                "092 Individual: {}",
                if self.double() {
                    "double round robin (Berger tables)"
                } else {
                    "round robin (Berger tables)"
                }
            ));
        }
        self.entrants.sort_by(seed_order);
        self.played.players = self
            .entrants
            .iter()
            .enumerate()
            .map(|(i, e)| trf_player(i as u32 + 1, e, 0))
            .collect();
        self.status = Status::Started;
        Ok(())
    }

    /// Pairs the next round (the previous one complete). Answers the new round; when fewer
    /// than two players are left, or no pairing is possible (everybody left has met), the
    /// tournament finishes instead and answers none.
    pub fn pair_next(&mut self, now: i64) -> Result<Option<&Round>, SwissError> {
        match self.to_pair(now)? {
            Some(_) if self.settings.system.is_round_robin() => {
                let pairing = self.berger_pairing();
                self.paired(pairing, now)
            }
            Some(view) => self.paired(damasi_swiss::pair_next_round(&view), now),
            None => Ok(None),
        }
    }

    /// A round robin's next round from the Berger tables (the players numbered 1 to n at the
    /// start). Instant: no need of a thread of its own.
    pub fn berger_pairing(&self) -> Result<Pairing, damasi_swiss::PairError> {
        berger::pair_round(
            self.entrants.len() as u32,
            self.rounds.len() as u32 + 1,
            self.double(),
        )
        .map_err(|e| damasi_swiss::PairError::InvalidTournament(e.to_string()))
    }

    /// The first half of [`Swiss::pair_next`]: the tournament as the pairing program must
    /// see it (withdrawn players have an entry for the round already, so they are not paired),
    /// or none when the tournament is over instead. The pairing of a large tournament takes
    /// a while: the director runs it on a thread of its own.
    pub fn to_pair(&mut self, now: i64) -> Result<Option<Tournament>, SwissError> {
        if self.status != Status::Started {
            return Err(SwissError::Refused(
                "not-started",
                "the tournament is not being played".into(),
            ));
        }
        if self.in_play().is_some() {
            return Err(SwissError::Refused(
                "round-in-play",
                "the round being played is not over".into(),
            ));
        }
        if self.rounds.len() as u32 >= self.settings.rounds
            || (self.active() < 2 && !self.settings.system.is_round_robin())
        {
            self.finish(now);
            return Ok(None);
        }
        let mut view = self.played.clone();
        for (p, e) in view.players.iter_mut().zip(&self.entrants) {
            if e.withdrawn {
                p.rounds.push(RoundEntry {
                    opponent: None,
                    colour: None,
                    result: ResultCode::ZeroPointBye,
                });
            }
        }
        Ok(Some(view))
    }

    /// The second half of [`Swiss::pair_next`]: the round the pairing program made of
    /// [`Swiss::to_pair`]'s view.
    pub fn paired(
        &mut self,
        pairing: Result<Pairing, damasi_swiss::PairError>,
        now: i64,
    ) -> Result<Option<&Round>, SwissError> {
        let pairing = match pairing {
            Ok(p) => p,
            // Everybody has met everybody they may meet: the tournament is over.
            Err(damasi_swiss::PairError::NoValidPairing) => {
                self.finish(now);
                return Ok(None);
            }
            Err(e) => return Err(SwissError::Pairing(e.to_string())),
        };
        let withdrawn = |n: u32| {
            self.entrants
                .get(n as usize - 1)
                .is_some_and(|e| e.withdrawn)
        };
        let round_robin = self.settings.system.is_round_robin();
        let boards = pairing
            .pairs
            .iter()
            // A round robin's game between two withdrawn players is not played: both rest.
            .filter(|&&(w, b)| !(round_robin && withdrawn(w) && withdrawn(b)))
            .map(|&(white, black)| Board {
                white,
                black,
                game: None,
                // A withdrawn player's game in a round robin is a forfeit, at once.
                result: match (round_robin, withdrawn(white), withdrawn(black)) {
                    (true, true, _) => Some(BoardResult::WhiteForfeits),
                    (true, _, true) => Some(BoardResult::BlackForfeits),
                    _ => None,
                },
            })
            .collect();
        self.rounds.push(Round {
            number: self.rounds.len() as u32 + 1,
            boards,
            bye: pairing.bye,
            paired_ms: now,
        });
        self.next_round_ms = None;
        let round = self.rounds.last().expect("just pushed");
        if round.complete() {
            // Only a bye, or only forfeits: the round is complete at once.
            self.complete_round(now);
            return Ok(self.rounds.last());
        }
        Ok(self.rounds.last())
    }

    /// Records the result of the game `game` of the round in play; answers whether that
    /// completed the round (which is then added to the rounds played).
    pub fn record(&mut self, game: &str, result: BoardResult, now: i64) -> bool {
        let Some(i) = self.in_play().and_then(|r| {
            r.boards
                .iter()
                .position(|b| b.game.as_deref() == Some(game) && b.result.is_none())
        }) else {
            return false;
        };
        self.record_board(i, result, now)
    }

    /// Records the result of board `i` of the round in play (a game that could not be made
    /// is recorded this way, as a forfeit); answers whether that completed the round.
    pub fn record_board(&mut self, i: usize, result: BoardResult, now: i64) -> bool {
        let Some(round) = self.rounds.last_mut() else {
            return false;
        };
        let Some(board) = round.boards.get_mut(i).filter(|b| b.result.is_none()) else {
            return false;
        };
        board.result = Some(result);
        let (w, b) = (board.white, board.black);
        let loser = match result {
            BoardResult::WhiteForfeits => Some(w),
            BoardResult::BlackForfeits => Some(b),
            _ => None,
        };
        let complete = round.complete();
        if let Some(n) = loser {
            let e = &mut self.entrants[n as usize - 1];
            e.forfeits += 1;
            if e.forfeits >= FORFEITS_TO_WITHDRAW {
                e.withdrawn = true;
            }
        }
        if complete {
            self.complete_round(now);
        }
        complete
    }

    fn complete_round(&mut self, now: i64) {
        let round = self.rounds.last().expect("a round was paired");
        let pairing = Pairing {
            pairs: round.boards.iter().map(|b| (b.white, b.black)).collect(),
            // A round robin's rest is a zero-point bye, which is what the report gives a
            // player paired with nobody.
            bye: round.bye.filter(|_| !self.settings.system.is_round_robin()),
        };
        let results: Vec<GameResult> = round
            .boards
            .iter()
            .map(|b| b.result.expect("the round is complete").fide())
            .collect();
        self.played
            .add_round(&pairing, &results)
            .expect("a round paired from this tournament fits it");
        if self.rounds.len() as u32 >= self.settings.rounds
            || (self.active() < 2 && !self.settings.system.is_round_robin())
        {
            self.finish(now);
        } else {
            self.next_round_ms = Some(now + self.settings.round_pause_ms);
        }
    }

    /// It is over, at `now` (Unix ms).
    fn finish(&mut self, now: i64) {
        self.status = Status::Finished;
        self.next_round_ms = None;
        self.finished_ms = Some(now);
    }

    /// Sets when the next round is paired (the first: when the tournament starts), as
    /// lichess's `schedule-next-round` does.
    pub fn schedule(&mut self, at: i64) -> Result<(), SwissError> {
        match self.status {
            Status::Created => self.settings.starts_ms = Some(at),
            Status::Started if self.in_play().is_none() => self.next_round_ms = Some(at),
            Status::Started => {
                return Err(SwissError::Refused(
                    "round-in-play",
                    "the round being played is not over".into(),
                ))
            }
            Status::Finished => {
                return Err(SwissError::Refused(
                    "tournament-finished",
                    "the tournament is over".into(),
                ))
            }
        }
        Ok(())
    }

    /// Ends the tournament at `now` (Unix ms; the organiser): the round in play counts with
    /// the results in; unfinished games are left out of the standings.
    pub fn close(&mut self, now: i64) {
        if let Some(last) = self.rounds.last() {
            if !last.complete() {
                self.rounds.pop();
            }
        }
        self.finish(now);
    }
}
