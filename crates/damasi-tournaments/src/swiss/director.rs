//! The director's side of Swiss tournaments and round robins: made, joined and left,
//! started, each round paired (on a blocking thread when it is large) and its games made in
//! the online service, results counted as games end, and the tournament picked up again from
//! the store.

use crate::*;

impl Tournaments {
    /// The tournament `id` in memory, loaded from the database if needed.
    pub(crate) async fn event(&self, id: &str) -> Result<Arc<Event<Swiss>>, ApiError> {
        self.listen()?;
        if let Some(e) = lock(&self.inner.events).get(id) {
            return Ok(e.clone());
        }
        self.load(id).await
    }

    async fn load(&self, id: &str) -> Result<Arc<Event<Swiss>>, ApiError> {
        let row = self
            .online()
            .db()
            .tournament(id)
            .await?
            .filter(|r| r.kind == "swiss")
            .ok_or_else(|| ApiError::NotFound(format!("no tournament {id}")))?;
        let swiss: Swiss = serde_json::from_str(&row.data)
            .map_err(|e| ApiError::Internal(format!("tournament {id} is unreadable: {e}")))?;
        let event = {
            let mut events = lock(&self.inner.events);
            if let Some(e) = events.get(id) {
                return Ok(e.clone());
            }
            let mut games = lock(&self.inner.games);
            if let Some(r) = swiss.in_play() {
                for b in &r.boards {
                    if let (Some(g), None) = (&b.game, b.result) {
                        games.insert(g.clone(), id.to_string());
                    }
                }
            }
            let e = {
                let v = view(&swiss);
                let by = swiss.created_by;
                Event::new(swiss, v, by)
            };
            events.insert(id.to_string(), e.clone());
            e
        };
        // Games made before a restart, and results missed while away.
        let mut s = event.state.lock().await;
        self.make_games(&mut s).await;
        self.collect_results(&event, &mut s).await;
        Ok(event.clone())
    }

    /// Creates a Swiss tournament organised by `by`.
    pub async fn create(&self, by: &Player, new: NewSwiss) -> Result<Value, ApiError> {
        let mut settings = new.settings;
        entry::check_new(
            by,
            settings.initial_ms,
            settings.increment_ms,
            settings.rated,
            settings.rules,
            new.password,
            &mut settings.entry,
        )?;
        self.listen()?;
        self.count_new(by)?;
        let first = if new_game_id()?.as_bytes()[0] % 2 == 0 {
            Colour::White
        } else {
            Colour::Black
        };
        let swiss = Swiss::new(
            new_game_id()?,
            (by.id, by.name.clone()),
            now_ms(),
            settings,
            first,
        )
        .map_err(api)?;
        let id = swiss.id.clone();
        let event = {
            let v = view(&swiss);
            Event::new(swiss, v, by.id)
        };
        let s = event.state.lock().await;
        self.save(&event, &s).await?;
        lock(&self.inner.events).insert(id, event.clone());
        Ok(view(&s))
    }

    /// The tournament as the page and the API show it.
    pub async fn show(&self, id: &str) -> Result<Value, ApiError> {
        Ok((*self.event(id).await?.view()).clone())
    }

    /// A copy of the tournament's state.
    pub async fn get(&self, id: &str) -> Result<Swiss, ApiError> {
        let event = self.event(id).await?;
        let s = event.state.lock().await;
        Ok(s.clone())
    }

    /// The tournament's view now and its next ones (the live page).
    pub async fn watch(
        &self,
        id: &str,
    ) -> Result<(Value, broadcast::Receiver<Arc<Value>>), ApiError> {
        let event = self.event(id).await?;
        let rx = event.updates.subscribe();
        Ok(((*event.view()).clone(), rx))
    }

    /// `player` joins tournament `id` (`password` if it needs one).
    pub async fn join(
        &self,
        id: &str,
        player: &Player,
        password: Option<&str>,
    ) -> Result<(), ApiError> {
        self.join_from(id, player, password, None).await
    }

    /// [`Tournaments::join`] from the address `from` (counted in the wrong-password limit per
    /// address, see [`limits`]).
    pub async fn join_from(
        &self,
        id: &str,
        player: &Player,
        password: Option<&str>,
        from: Option<IpAddr>,
    ) -> Result<(), ApiError> {
        let event = self.event(id).await?;
        self.enter((id, &event), player, password, from).await
    }

    /// `player` leaves tournament `id`.
    pub async fn withdraw(&self, id: &str, player: &Player) -> Result<(), ApiError> {
        let event = self.event(id).await?;
        let mut s = event.state.lock().await;
        self.commit(&event, &mut s, |s| s.withdraw(player.id).map_err(api))
            .await
    }

    /// The organiser's button: starts the tournament now, or pairs the next round now (the
    /// previous one complete).
    pub async fn next_round_now(&self, id: &str, by: &Player) -> Result<(), ApiError> {
        let event = self.event(id).await?;
        let mut s = event.state.lock().await;
        entry::check_organiser(s.created_by, by)?;
        self.advance(&event, &mut s, true).await
    }

    /// The organiser's button without waiting for the pairing: what
    /// [`Tournaments::next_round_now`] does, answered as soon as the round is being paired
    /// (the pairing of a large round takes seconds, on a blocking thread) with
    /// [`Begun::Pairing`]; its games are made once it is done, and the tournament's view says
    /// `"pairing": true` meanwhile. What is refused (not the organiser, a round in play, too
    /// few players) is refused here as there.
    pub async fn begin_next_round(&self, id: &str, by: &Player) -> Result<Begun, ApiError> {
        let event = self.event(id).await?;
        if event.pairing.load(Ordering::SeqCst) {
            entry::check_organiser(event.organiser, by)?;
            return Ok(Begun::Pairing);
        }
        let (tx, rx) = tokio::sync::oneshot::channel();
        let (t, by) = (self.clone(), by.clone());
        tokio::spawn(async move {
            let mut s = event.state.lock().await;
            let mut told = Some(tx);
            let done = match entry::check_organiser(s.created_by, &by) {
                Ok(()) => t.advance_told(&event, &mut s, true, &mut told).await,
                Err(e) => Err(e),
            };
            match (told.take(), done) {
                (Some(tx), done) => {
                    let _ = tx.send(done.map(|()| Begun::Done(s.status)));
                }
                (None, Err(e)) => eprintln!("damasi: tournament {}: {e:?}", s.id),
                (None, Ok(())) => {}
            }
        });
        rx.await
            .map_err(|_| ApiError::Internal("the organiser's button was dropped".into()))?
    }

    /// The organiser sets when the next round (or the first) is paired.
    pub async fn schedule(&self, id: &str, by: &Player, at: i64) -> Result<(), ApiError> {
        let event = self.event(id).await?;
        let mut s = event.state.lock().await;
        entry::check_organiser(s.created_by, by)?;
        self.commit(&event, &mut s, |s| s.schedule(at).map_err(api))
            .await
    }

    /// The organiser ends the tournament now: the round in play is dropped if not complete.
    pub async fn close(&self, id: &str, by: &Player) -> Result<(), ApiError> {
        let event = self.event(id).await?;
        let mut s = event.state.lock().await;
        entry::check_organiser(s.created_by, by)?;
        self.commit(&event, &mut s, |s| {
            s.close(now_ms());
            Ok(())
        })
        .await
    }

    /// Starts the tournament or pairs its next round when it is time (or `now_asked`).
    pub(crate) async fn advance(
        &self,
        event: &Event<Swiss>,
        s: &mut Swiss,
        now_asked: bool,
    ) -> Result<(), ApiError> {
        self.advance_told(event, s, now_asked, &mut None).await
    }

    /// [`Tournaments::advance`], sending [`Begun::Pairing`] on `told` (taken) when the pairing
    /// begins.
    async fn advance_told(
        &self,
        event: &Event<Swiss>,
        s: &mut Swiss,
        now_asked: bool,
        told: &mut Option<tokio::sync::oneshot::Sender<Result<Begun, ApiError>>>,
    ) -> Result<(), ApiError> {
        let now = now_ms();
        match s.status {
            Status::Finished => {
                return Err(ApiError::conflict(
                    "tournament-finished",
                    "the tournament is over",
                ))
            }
            Status::Created => {
                let due = s.settings.starts_ms.is_some_and(|t| t <= now);
                if !(now_asked || due) {
                    return Ok(());
                }
                if let Err(e) = s.start() {
                    if due && !now_asked && matches!(e, SwissError::Refused("too-few-players", _)) {
                        // Nobody to play: the tournament is called off.
                        s.close(now);
                        return self.save(event, s).await;
                    }
                    return Err(api(e));
                }
            }
            Status::Started => {
                let due = s.next_round_ms.is_some_and(|t| t <= now);
                if !(now_asked || due) {
                    return Ok(());
                }
            }
        }
        let before = s.clone();
        let view = match s.to_pair(now) {
            Ok(v) => v,
            Err(e) => {
                *s = before;
                return Err(api(e));
            }
        };
        if view.is_some() && s.settings.system.is_round_robin() {
            // A round robin's round is read from the Berger tables: nothing to wait for.
            let pairing = s.berger_pairing();
            if let Err(e) = s.paired(pairing, now) {
                *s = before;
                return Err(api(e));
            }
        } else if let Some(view) = view {
            // Pairing a large tournament takes seconds: not on the server's threads, and the
            // organiser's button is answered meanwhile.
            event.pairing.store(true, Ordering::SeqCst);
            let mut shown = self::view(s);
            shown["pairing"] = json!(true);
            event.publish(shown);
            if let Some(tx) = told.take() {
                let _ = tx.send(Ok(Begun::Pairing));
            }
            let pairing =
                tokio::task::spawn_blocking(move || damasi_swiss::pair_next_round(&view)).await;
            event.pairing.store(false, Ordering::SeqCst);
            let pairing = match pairing {
                Ok(p) => p,
                Err(e) => {
                    *s = before;
                    event.publish(self::view(s));
                    return Err(ApiError::Internal(format!("the pairing stopped: {e}")));
                }
            };
            if let Err(e) = s.paired(pairing, now) {
                *s = before;
                event.publish(self::view(s));
                return Err(api(e));
            }
        }
        // Store the pairing before making its games: after a crash, the games not made yet
        // are made when the tournament is loaded again.
        if let Err(e) = self.save(event, s).await {
            *s = before;
            return Err(e);
        }
        self.make_games(s).await;
        self.save(event, s).await
    }

    /// Makes the games of the round in play that have none yet.
    async fn make_games(&self, s: &mut Swiss) {
        let Some(round) = s.rounds.last() else { return };
        if round.boards.iter().all(|b| b.game.is_some()) {
            return;
        }
        let new = NewGame {
            initial_ms: s.settings.initial_ms,
            increment_ms: s.settings.increment_ms,
            rated: s.settings.rated,
            chat: true,
            rules: s.settings.rules,
        };
        let count = round.boards.len();
        for i in 0..count {
            let board = &s.rounds.last().expect("a round").boards[i];
            if board.game.is_some() || board.result.is_some() {
                continue;
            }
            let (w, b) = (board.white, board.black);
            let made = async {
                let white = self.player(s.entrants[w as usize - 1].user).await?;
                let black = self.player(s.entrants[b as usize - 1].user).await?;
                let event = format!("swiss/{}", s.id);
                self.online()
                    .create_paired_in(&white, &black, new, event)
                    .await
            }
            .await;
            match made {
                Ok(table) => {
                    lock(&self.inner.games).insert(table.id.clone(), s.id.clone());
                    s.rounds.last_mut().expect("a round").boards[i].game = Some(table.id.clone());
                }
                Err(e) => {
                    // An account gone or a store away: the game is not played; the player
                    // who could not be seated forfeits (White, when it is unknown).
                    eprintln!("damasi: tournament {}: cannot make a game: {e:?}", s.id);
                    s.record_board(i, BoardResult::WhiteForfeits, now_ms());
                }
            }
        }
    }

    pub(crate) async fn count_result(
        &self,
        event: &Event<Swiss>,
        s: &mut Swiss,
        game: &str,
        outcome: Option<Outcome>,
    ) {
        let result = board_result(outcome, self.plies(game, outcome).await);
        let recorded = self
            .commit(event, s, |s| Ok(s.record(game, result, now_ms())))
            .await;
        let completed = match recorded {
            Ok(completed) => completed,
            Err(e) => {
                eprintln!("damasi: tournament {}: cannot store a result: {e:?}", s.id);
                return;
            }
        };
        lock(&self.inner.games).remove(game);
        if completed && s.settings.round_pause_ms == 0 && s.status == Status::Started {
            if let Err(e) = self.advance(event, s, true).await {
                eprintln!(
                    "damasi: tournament {}: cannot pair the next round: {e:?}",
                    s.id
                );
            }
        }
    }

    /// Reads from the store the games of the round in play that ended unnoticed (on another
    /// process, or while this one was away): a game over in the database counts, whoever
    /// ended it. One query for the whole round; done on every tick.
    pub(crate) async fn collect_results(&self, event: &Event<Swiss>, s: &mut Swiss) {
        let Some(round) = s.in_play() else { return };
        let games: Vec<String> = round
            .boards
            .iter()
            .filter(|b| b.result.is_none())
            .filter_map(|b| b.game.clone())
            .collect();
        let ended = match self.online().db().ended_among(&games).await {
            Ok(ended) => ended,
            Err(e) => {
                eprintln!("damasi: tournament {}: cannot read its games: {e:?}", s.id);
                return;
            }
        };
        for (g, outcome) in ended {
            let outcome = outcome.as_deref().and_then(|o| o.parse().ok());
            self.count_result(event, s, &g, outcome).await;
        }
    }

    /// The tournament as FIDE's tournament report file (TRF-16), with the standings' ranks.
    pub async fn trf(&self, id: &str) -> Result<String, ApiError> {
        let s = self.get(id).await?;
        Ok(export_trf(&s))
    }
}
