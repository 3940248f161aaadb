//! Online play's storage through the service, the same checks in both stores: SQLite (in
//! memory) always, PostgreSQL too when `DAMASI_TEST_POSTGRES` names a server
//! (`scripts/with-postgres` starts one; the test script does), and `DAMASI_REQUIRE_POSTGRES=1`
//! makes its absence a failure. The accounts and messages the Telegram bot keeps, a player's
//! tournament found by a game of it, BOT and closed accounts, reports, marks, refunds and the
//! moderation log, e-mail addresses and the mailed links, second factors and API tokens'
//! scopes, and the fair-play screen's scores and reports. (The tests that need PostgreSQL
//! itself, a restart over it, or the web's sessions are `crates/damasi-web/tests/online_postgres.rs`.)

use damasi_online::accounts::Player;
use damasi_online::command::Command;
use damasi_online::db::{OnlineDb, SecretKind};
use damasi_online::{NewGame, Online, OnlineConfig};

fn url() -> Option<String> {
    match std::env::var("DAMASI_TEST_POSTGRES") {
        Ok(u) if !u.is_empty() => Some(u),
        _ => {
            assert!(
                std::env::var("DAMASI_REQUIRE_POSTGRES").as_deref() != Ok("1"),
                "DAMASI_REQUIRE_POSTGRES=1 but DAMASI_TEST_POSTGRES is not set"
            );
            eprintln!("PostgreSQL skipped: no DAMASI_TEST_POSTGRES");
            None
        }
    }
}

/// Names unique to this run, so the test needs no empty database.
fn name(base: &str) -> String {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_micros()
        % 1_000_000_000;
    format!("{base}{t}")
}

/// A rated game of `winner` (White) and `loser` (Black): one move each, then `loser`
/// resigns. Answers the game's id. (As `rated_win` of damasi-web's `tests/support/players.rs`.)
async fn rated_win(online: &Online, winner: &Player, loser: &Player) -> String {
    let blitz = NewGame {
        initial_ms: 180_000,
        increment_ms: 2_000,
        rated: true,
        chat: true,
        rules: damasi_online::variant::FEDERATION,
    };
    let t = online.create_paired(winner, loser, blitz).await.unwrap();
    for (player, text) in [(winner, "c3-c4"), (loser, "f6-f5")] {
        let text = text.to_string();
        online
            .run(&t.id, player, Command::Move { text })
            .await
            .unwrap();
    }
    online.run(&t.id, loser, Command::Resign).await.unwrap();
    t.id.clone()
}

/// The tables the Telegram bot keeps: accounts reached from another service, and the
/// messages that show games; the same answers from PostgreSQL and SQLite.
#[tokio::test]
async fn outside_accounts_and_shown_games_in_both_stores() {
    let mut stores = vec![OnlineDb::in_memory()];
    if let Some(url) = url() {
        stores.push(OnlineDb::connect(&url).await.expect("connect"));
    }
    for db in stores {
        let online = Online::new(db.clone(), OnlineConfig::default());
        let a = online.accounts().add_bot(&name("oa"), 0).await.unwrap();
        let b = online.accounts().add_bot(&name("ob"), 0).await.unwrap();
        let outside = name("7");
        assert_eq!(
            db.outside_account("telegram", &outside).await.unwrap(),
            None
        );
        db.set_outside_account("telegram", &outside, a.id, r#"{"name":"Ali"}"#)
            .await
            .unwrap();
        let found = db
            .outside_account("telegram", &outside)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (found.user.id, found.settings.as_str()),
            (a.id, r#"{"name":"Ali"}"#)
        );
        // Linking moves it to another account; another service's id of the same text is
        // another person.
        db.set_outside_account("telegram", &outside, b.id, "{}")
            .await
            .unwrap();
        let found = db
            .outside_account("telegram", &outside)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(found.user.id, b.id);
        assert_eq!(db.outside_account("matrix", &outside).await.unwrap(), None);

        let new = NewGame {
            initial_ms: 60_000,
            increment_ms: 0,
            rated: false,
            chat: false,
            rules: damasi_online::variant::FEDERATION,
        };
        let game = online.create_paired(&a, &b, new).await.unwrap();
        let message = format!("tg:{}", name("IM"));
        let shown = damasi_online::db::ShownGame {
            message: message.clone(),
            game_id: game.id.clone(),
            settings: r#"{"level":0}"#.into(),
        };
        db.add_shown_game(shown.clone()).await.unwrap();
        let again = db.add_shown_game(shown.clone()).await.unwrap_err();
        assert_eq!(again.code(), "message-taken");
        assert_eq!(db.shown_game(&message).await.unwrap(), Some(shown.clone()));
        assert!(db.shown_unfinished("tg:").await.unwrap().contains(&shown));
        assert!(!db.shown_unfinished("xx:").await.unwrap().contains(&shown));
        online.run(&game.id, &a, Command::Abort).await.unwrap();
        assert!(!db.shown_unfinished("tg:").await.unwrap().contains(&shown));

        // A group's message about a tournament, and the bot's notes of what it posted.
        let group = name("tge:-100");
        let event = damasi_online::db::ShownEvent {
            message: format!("{group}:5"),
            tournament_id: name("T"),
            settings: r#"{"kind":"swiss"}"#.into(),
        };
        assert_eq!(db.shown_event(&event.message).await.unwrap(), None);
        db.add_shown_event(event.clone()).await.unwrap();
        let again = db.add_shown_event(event.clone()).await.unwrap_err();
        assert_eq!(again.code(), "message-taken");
        assert_eq!(
            db.shown_event(&event.message).await.unwrap(),
            Some(event.clone())
        );
        // By prefix, with LIKE's wildcards taken as themselves.
        assert_eq!(db.shown_events(&group).await.unwrap(), vec![event.clone()]);
        assert!(db.shown_events("tgf:").await.unwrap().is_empty());
        assert!(db
            .shown_events(&group.replace('-', "_"))
            .await
            .unwrap()
            .is_empty());
    }
}

/// The event a game was played in is found among its player's tournaments by the game's id
/// as the stored state quotes it (a PDN of the game names the event), in both stores: not a
/// tournament of others that names it, nor one that names a longer id.
#[tokio::test]
async fn a_players_tournament_is_found_by_a_game_of_it_in_both_stores() {
    use damasi_online::db::{TournamentFilter, TournamentRow};
    let mut stores = vec![OnlineDb::in_memory()];
    if let Some(url) = url() {
        stores.push(OnlineDb::connect(&url).await.expect("connect"));
    }
    for db in stores {
        let online = Online::new(db.clone(), OnlineConfig::default());
        let a = online.accounts().add_bot(&name("ta"), 0).await.unwrap();
        let b = online.accounts().add_bot(&name("tb"), 0).await.unwrap();
        let game = name("G");
        let row = |id: &str, data: String, players: Vec<i64>| TournamentRow {
            id: id.to_string(),
            kind: "swiss".into(),
            status: "started".into(),
            name: id.to_string(),
            created_ms: 0,
            starts_ms: None,
            data,
            players,
        };
        let (mine, others, longer) = (name("T1"), name("T2"), name("T3"));
        let names = |g: &str| format!(r#"{{"rounds":[{{"boards":[{{"game":"{g}"}}]}}]}}"#);
        db.save_tournament(row(&mine, names(&game), vec![a.id, b.id]))
            .await
            .unwrap();
        db.save_tournament(row(&others, names(&game), vec![b.id]))
            .await
            .unwrap();
        db.save_tournament(row(&longer, names(&format!("{game}x")), vec![a.id]))
            .await
            .unwrap();
        let ids = |rows: Vec<TournamentRow>| rows.into_iter().map(|r| r.id).collect::<Vec<_>>();
        let found = db
            .tournaments(
                TournamentFilter::PlayerGame {
                    player: a.id,
                    game: &game,
                },
                10,
            )
            .await
            .unwrap();
        assert_eq!(ids(found), std::slice::from_ref(&mine));
        let mut of_b = ids(db
            .tournaments(
                TournamentFilter::PlayerGame {
                    player: b.id,
                    game: &game,
                },
                10,
            )
            .await
            .unwrap());
        of_b.sort();
        let mut both = vec![mine.clone(), others.clone()];
        both.sort();
        assert_eq!(of_b, both);
        let mut of_a = ids(db
            .tournaments(TournamentFilter::Player(a.id), 10)
            .await
            .unwrap());
        of_a.sort();
        let mut expected = vec![mine, longer];
        expected.sort();
        assert_eq!(of_a, expected);
    }
}

#[tokio::test]
async fn bots_and_closed_accounts_in_both_stores() {
    let mut stores = vec![OnlineDb::in_memory()];
    if let Some(url) = url() {
        stores.push(OnlineDb::connect(&url).await.expect("connect"));
    }
    for db in stores {
        let online = Online::new(db.clone(), OnlineConfig::default());
        let acc = online.accounts();
        let (a, b) = (
            acc.add_bot(&name("ca"), 0).await.unwrap(),
            acc.add_bot(&name("cb"), 0).await.unwrap(),
        );
        let bot = acc.add_bot(&name("cr"), 0).await.unwrap();
        // A BOT, read back as one; an account with a game played cannot become one.
        assert!(acc.upgrade_to_bot(&bot).await.unwrap().bot);
        assert!(db.user(bot.id).await.unwrap().unwrap().bot);
        rated_win(&online, &a, &b).await;
        assert_eq!(
            acc.upgrade_to_bot(&b).await.unwrap_err().code(),
            "games-played"
        );
        assert!(!db.user(b.id).await.unwrap().unwrap().bot);

        // Closing a: renamed, closed, its token and follows gone, its old name out of use.
        let token = acc.issue(a.id, SecretKind::Token, 0).await.unwrap();
        online.relations().follow(&b, &a.name).await.unwrap();
        let new_name = online.close_account(&a, None).await.unwrap();
        let row = db.user(a.id).await.unwrap().unwrap();
        assert_eq!(row.name, new_name);
        assert!(row.closed_ms.is_some() && row.password.is_none());
        assert!(db.user_by_name(&a.name).await.unwrap().is_none());
        assert_eq!(
            acc.identify_by(Some(&token), None)
                .await
                .unwrap_err()
                .code(),
            "unauthorized"
        );
        assert!(online.relations().following(&b).await.unwrap().is_empty());
        for upper in [a.name.clone(), a.name.to_uppercase()] {
            assert_eq!(
                acc.add_bot(&upper, 0).await.unwrap_err().code(),
                "name-taken"
            );
        }
        // Its game stays, under the new name.
        assert_eq!(db.games_of(b.id, 10).await.unwrap().len(), 1);
        assert_eq!(db.record(a.id).await.unwrap().all, 1);
    }
}

#[tokio::test]
async fn reports_marks_refunds_and_the_log_in_both_stores() {
    use damasi_online::moderation::Action;
    let mut stores = vec![OnlineDb::in_memory()];
    if let Some(url) = url() {
        stores.push(OnlineDb::connect(&url).await.expect("connect"));
    }
    for db in stores {
        let online = Online::new(db.clone(), OnlineConfig::default());
        let acc = online.accounts();
        let cheat = acc.add_bot(&name("mc"), 0).await.unwrap();
        let victim = acc.add_bot(&name("mv"), 0).await.unwrap();
        let moderator = acc.add_bot(&name("mm"), 0).await.unwrap();
        let game = rated_win(&online, &cheat, &victim).await;
        let lost = -db.game(&game).await.unwrap().unwrap().0.diffs[1].unwrap();
        let before = db.rating(victim.id, "blitz").await.unwrap().unwrap().rating;
        let id = online
            .moderation()
            .report(&victim, &cheat.name, Some(&game), "cheating", "too good")
            .await
            .unwrap();
        assert!(id > 0);
        assert_eq!(
            online
                .moderation()
                .report_queue(&moderator)
                .await
                .unwrap_err()
                .code(),
            "not-a-moderator"
        );
        online
            .moderation()
            .set_moderator(&moderator.name, true)
            .await
            .unwrap();
        let queue = online.moderation().report_queue(&moderator).await.unwrap();
        let mine: Vec<_> = queue.iter().filter(|r| r["id"] == id).collect();
        assert_eq!(mine.len(), 1);
        assert_eq!(mine[0]["evidence"]["rated"], true);
        let mute = Action::Mute { minutes: 5 };
        online
            .moderation()
            .moderate(Some(&moderator), &cheat.name, mute)
            .await
            .unwrap();
        assert_eq!(
            online
                .moderation()
                .check_may_chat(cheat.id)
                .await
                .unwrap_err()
                .code(),
            "muted"
        );
        let done = online
            .moderation()
            .moderate(Some(&moderator), &cheat.name, Action::Engine)
            .await
            .unwrap();
        assert_eq!(done["refunds"][0]["points"], lost as f64);
        let again = online
            .moderation()
            .moderate(Some(&moderator), &cheat.name, Action::Engine)
            .await
            .unwrap();
        assert_eq!(again["refunds"], serde_json::json!([]));
        let after = db.rating(victim.id, "blitz").await.unwrap().unwrap().rating;
        assert!((after - before - lost as f64).abs() < 1e-6);
        let history = db.rating_history(victim.id).await.unwrap();
        assert!((history.last().unwrap().rating - after).abs() < 1e-6);
        let log = online
            .moderation()
            .moderation_log(None, Some(&cheat.name), 10)
            .await
            .unwrap();
        let actions: Vec<&str> = log.iter().filter_map(|l| l["action"].as_str()).collect();
        assert_eq!(actions, ["engine", "engine", "mute"]);
        assert!(online
            .moderation()
            .report_queue(&moderator)
            .await
            .unwrap()
            .iter()
            .all(|r| r["id"] != id));
    }
}

/// The e-mail address and the mailed links (`recovery`), the same in both stores: an address
/// unique whatever the case, a confirmation link used once, a reset link valid for an hour and
/// used once, older reset links void after a reset, sessions revoked and API tokens kept.
async fn mail_links_in(db: OnlineDb) {
    let accounts = Online::new(db, OnlineConfig::default()).accounts().clone();
    let (na, nb) = (name("ma"), name("mb"));
    let a = accounts
        .sign_up(&na, "a long password".into(), 0)
        .await
        .unwrap();
    let b = accounts
        .sign_up(&nb, "a long password".into(), 0)
        .await
        .unwrap();
    let now = damasi_online::now_ms();
    let address = format!("{na}@Dama.example");
    let confirm = accounts
        .change_email(&a, "a long password".into(), &address, now)
        .await
        .unwrap();
    let taken = accounts
        .change_email(&b, "a long password".into(), &address.to_uppercase(), 1_000)
        .await
        .unwrap_err();
    assert_eq!(taken.code(), "email-taken");
    // An unconfirmed address gets no reset link.
    assert!(accounts
        .reset_request(&address, 2_000)
        .await
        .unwrap()
        .is_none());
    // A session presented as a confirmation link confirms nothing and stays.
    let session = accounts
        .issue(a.id, SecretKind::Session, now)
        .await
        .unwrap();
    assert!(accounts.confirm_email(&session, now).await.is_err());
    assert!(accounts
        .identify_by(None, Some(&session))
        .await
        .unwrap()
        .is_some());
    let token = accounts.issue(a.id, SecretKind::Token, now).await.unwrap();
    assert_eq!(
        accounts.confirm_email(&confirm, now).await.unwrap().id,
        a.id
    );
    assert!(accounts.confirm_email(&confirm, now).await.is_err());
    let stored = accounts.email_of(&a).await.unwrap().unwrap();
    assert_eq!(stored.address, address);
    assert_eq!(stored.confirmed_ms, Some(now));

    let hour = 60 * 60 * 1000;
    let expired = accounts
        .reset_request(&address.to_lowercase(), now - hour - 1)
        .await
        .unwrap()
        .unwrap();
    assert!(accounts.reset_target(&expired.secret, now).await.is_err());
    let older = accounts
        .reset_request(&address, now)
        .await
        .unwrap()
        .unwrap();
    let used = accounts
        .reset_request(&address, now)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(used.player.id, a.id);
    let (who, revoked) = accounts
        .reset_password(&used.secret, "a new long password".into(), now + 1)
        .await
        .unwrap();
    assert_eq!(who.id, a.id);
    assert_eq!(revoked, 4, "the session and three reset links");
    assert!(accounts
        .identify_by(None, Some(&session))
        .await
        .unwrap()
        .is_none());
    assert!(accounts
        .identify_by(Some(&token), None)
        .await
        .unwrap()
        .is_some());
    for gone in [&older.secret, &used.secret] {
        let e = accounts
            .reset_password(gone, "another long one".into(), now + 2)
            .await
            .unwrap_err();
        assert_eq!(e.code(), "not-found");
    }
    assert!(accounts
        .log_in(&na, "a new long password".into())
        .await
        .is_ok());
    // The operator's address, and its removal.
    accounts
        .set_email_of(&nb, Some(&format!("{nb}@dama.example")), now)
        .await
        .unwrap();
    assert!(accounts
        .reset_request(&format!("{nb}@DAMA.example"), now)
        .await
        .unwrap()
        .is_some());
    accounts.set_email_of(&nb, None, now).await.unwrap();
    assert_eq!(accounts.email_of(&b).await.unwrap(), None);
}

#[tokio::test]
async fn mail_links_in_both_stores() {
    mail_links_in(OnlineDb::in_memory()).await;
    let Some(url) = url() else { return };
    mail_links_in(OnlineDb::connect(&url).await.unwrap()).await;
}

/// The second factor and tokens' scopes, the same in both stores: a pending secret turned on
/// by a code, each code accepted once and none of an earlier step, recovery codes used once
/// and only by their account, and a token's scopes stored and listed. The codes are RFC
/// 6238's published ones (Appendix B, the SHA-1 secret "12345678901234567890"; six digits are
/// the last six of the eight), not computed by the code under test.
async fn two_factors_in(db: OnlineDb) {
    let accounts = Online::new(db.clone(), OnlineConfig::default())
        .accounts()
        .clone();
    let (na, nb) = (name("tfa"), name("tfb"));
    let a = accounts
        .sign_up(&na, "a long password".into(), 0)
        .await
        .unwrap();
    let b = accounts
        .sign_up(&nb, "a long password".into(), 0)
        .await
        .unwrap();
    let rfc_secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";
    assert!(db
        .set_pending_two_factor(a.id, rfc_secret.into())
        .await
        .unwrap());
    let codes = accounts
        .enable_two_factor(&a, "050471", 1111111111)
        .await
        .unwrap();
    assert_eq!(codes.len(), 10);
    assert!(!db
        .set_pending_two_factor(a.id, "AAAA".into())
        .await
        .unwrap());
    let log_in = |code: Option<&'static str>, t: u64| {
        let (accounts, na) = (accounts.clone(), na.clone());
        async move {
            accounts
                .log_in_with_code(&na, "a long password".into(), code, t)
                .await
                .map(|p| p.id)
                .map_err(|e| e.code())
        }
    };
    assert_eq!(log_in(None, 1234567890).await, Err("two-factor-needed"));
    assert_eq!(log_in(Some("005924"), 1234567890).await, Ok(a.id));
    assert_eq!(
        log_in(Some("005924"), 1234567890).await,
        Err("two-factor-wrong")
    );
    assert_eq!(
        log_in(Some("050471"), 1111111111).await,
        Err("two-factor-wrong")
    );
    assert_eq!(log_in(Some("279037"), 2000000000).await, Ok(a.id));
    // A recovery code: not another account's, and once.
    assert!(!accounts
        .check_second_factor(b.id, &codes[0], 2000000000)
        .await
        .unwrap());
    assert!(accounts
        .check_second_factor(a.id, &codes[0], 2000000000)
        .await
        .unwrap());
    assert!(!accounts
        .check_second_factor(a.id, &codes[0], 2000000000)
        .await
        .unwrap());
    assert_eq!(db.recovery_codes_left(a.id).await.unwrap(), 9);
    accounts
        .disable_two_factor(&a, "a long password".into(), &codes[1], 2000000000)
        .await
        .unwrap();
    assert_eq!(db.two_factor(a.id).await.unwrap(), None);
    assert_eq!(db.recovery_codes_left(a.id).await.unwrap(), 0);
    assert_eq!(log_in(None, 2000000000).await, Ok(a.id));
    // Tokens' scopes.
    let token = accounts.issue(a.id, SecretKind::Token, 0).await.unwrap();
    let hash = damasi_online::accounts::secret_hash(&token);
    assert_eq!(db.token_scopes(hash.clone()).await.unwrap(), None);
    db.set_token_scopes(
        hash.clone(),
        Some("board:play challenge:read".into()),
        Some("my bot".into()),
    )
    .await
    .unwrap();
    assert_eq!(
        db.token_scopes(hash.clone()).await.unwrap().as_deref(),
        Some("board:play challenge:read")
    );
    let listed = db.tokens_of(a.id).await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].hash, hash);
    assert_eq!(listed[0].description.as_deref(), Some("my bot"));
}

#[tokio::test]
async fn two_factors_and_token_scopes_in_both_stores() {
    two_factors_in(OnlineDb::in_memory()).await;
    let Some(url) = url() else { return };
    two_factors_in(OnlineDb::connect(&url).await.unwrap()).await;
}

/// The fair-play screen's storage: a rated game is found unscreened, claimed by one caller
/// (another is refused until the claim is stale), its sides kept once, read back newest
/// first; and a report with no reporter (the screen's) is kept and listed.
#[tokio::test]
async fn fair_play_screens_and_reports_in_both_stores() {
    use damasi_online::db::{ReportRow, ScreenRow};
    let mut stores = vec![OnlineDb::in_memory()];
    if let Some(url) = url() {
        stores.push(OnlineDb::connect(&url).await.expect("connect"));
    }
    for db in stores {
        let online = Online::new(db.clone(), OnlineConfig::default());
        let acc = online.accounts();
        let (a, b) = (
            acc.add_bot(&name("fa"), 0).await.unwrap(),
            acc.add_bot(&name("fb"), 0).await.unwrap(),
        );
        let game = rated_win(&online, &a, &b).await;
        let unscreened = db.unscreened_games(0, 0, 10_000).await.unwrap();
        assert!(unscreened.contains(&game));
        assert!(db.claim_screen(&game, 1_000, 0).await.unwrap());
        // Claimed at 1,000: refused to a second caller, not stale before 1,000.
        assert!(!db.claim_screen(&game, 2_000, 500).await.unwrap());
        assert!(!db
            .unscreened_games(0, 500, 10_000)
            .await
            .unwrap()
            .contains(&game));
        // A claim older than the stale mark is found again and taken over.
        assert!(db
            .unscreened_games(0, 1_500, 10_000)
            .await
            .unwrap()
            .contains(&game));
        assert!(db.claim_screen(&game, 3_000, 1_500).await.unwrap());
        let row = |color: i64, user: i64, at_ms: i64| ScreenRow {
            game_id: game.clone(),
            color,
            user_id: user,
            at_ms,
            moves: 20,
            agreed: 17 + color,
            loss_cm: 40,
            think_mean_ms: 1200,
            think_sd_ms: 300,
        };
        db.finish_screen(&game, vec![row(0, a.id, 4_000), row(1, b.id, 4_000)], 4_000)
            .await
            .unwrap();
        // Done: never claimed or listed again; a side kept twice stays one row.
        assert!(!db.claim_screen(&game, 9_000_000, 8_000_000).await.unwrap());
        assert!(!db
            .unscreened_games(0, i64::MAX, 10_000)
            .await
            .unwrap()
            .contains(&game));
        db.finish_screen(&game, vec![row(0, a.id, 5_000)], 5_000)
            .await
            .unwrap();
        assert_eq!(
            db.screens_of(a.id, 10).await.unwrap(),
            vec![row(0, a.id, 4_000)]
        );
        assert_eq!(
            db.screens_of(b.id, 10).await.unwrap(),
            vec![row(1, b.id, 4_000)]
        );

        let id = db
            .add_report(ReportRow {
                id: 0,
                created_ms: 6_000,
                reporter: None,
                reported: a.id,
                game_id: Some(game.clone()),
                reason: "cheating".into(),
                note: "fair-play screen".into(),
                evidence: "{}".into(),
                closed_ms: None,
            })
            .await
            .unwrap();
        let open = db.reports(true, Some(a.id), 10).await.unwrap();
        assert_eq!(open.len(), 1);
        assert_eq!((open[0].id, open[0].reporter), (id, None));
    }
}
