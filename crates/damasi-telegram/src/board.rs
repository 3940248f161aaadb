//! The board as a message's inline keyboard: 8 rows of 8 buttons (the top row rank 8, files a
//! to h from left to right, or turned for a view from Black), then the actions; and what each
//! button's press means (its callback data, at most 64 bytes as Telegram allows).

use damasi::{Color, Position, Role, Square};
use serde::{Deserialize, Serialize};

use crate::offers::{NONCE_LEN, TAG_LEN};
use crate::texts::{Lang, Text};

/// A button: its text and what pressing it does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Button {
    /// What the button shows.
    pub text: String,
    /// What it does.
    pub kind: ButtonKind,
}

/// What a button does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ButtonKind {
    /// Sends this callback data to the bot.
    Press(String),
    /// Opens this address.
    Url(String),
}

impl Button {
    fn press(text: impl Into<String>, press: &Press) -> Button {
        Button {
            text: text.into(),
            kind: ButtonKind::Press(press.encode()),
        }
    }

    /// The button that opens `page` (a game's or a tournament's) on the site, in `lang`.
    pub fn web(lang: Lang, page: String) -> Button {
        Button {
            text: lang.text(Text::OnTheWeb).into(),
            kind: ButtonKind::Url(page),
        }
    }
}

/// How pieces and squares look.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skin {
    /// The traditional one-colour Turkish board.
    Turkish,
    /// A board of two colours, as in chess.
    Checkered,
    /// Pieces on a bare board: the lightest to read.
    Plain,
}

impl Skin {
    /// Every skin, in the order of the `/skin` buttons.
    pub const ALL: [Skin; 3] = [Skin::Turkish, Skin::Checkered, Skin::Plain];

    /// The skin's name in settings and callback data.
    pub fn code(self) -> &'static str {
        match self {
            Skin::Turkish => "turkish",
            Skin::Checkered => "checkered",
            Skin::Plain => "plain",
        }
    }

    /// The skin called `code`.
    pub fn from_code(code: &str) -> Option<Skin> {
        Skin::ALL.into_iter().find(|s| s.code() == code)
    }

    /// The skin's letter in the callback data of an offer (which has little room).
    pub fn letter(self) -> char {
        match self {
            Skin::Turkish => 't',
            Skin::Checkered => 'c',
            Skin::Plain => 'p',
        }
    }

    /// A sample of the skin for its button: a man and a king of each side on its board.
    pub fn sample(self) -> String {
        let sq = Square::from_coords(0, 0).expect("a1");
        let man = |color| damasi::Piece {
            color,
            role: Role::Man,
        };
        let king = |color| damasi::Piece {
            color,
            role: Role::King,
        };
        format!(
            "{}{}{}{}{}",
            self.piece(man(Color::White)),
            self.piece(king(Color::White)),
            self.empty(sq),
            self.piece(man(Color::Black)),
            self.piece(king(Color::Black))
        )
    }

    fn piece(self, p: damasi::Piece) -> &'static str {
        match (p.color, p.role) {
            (Color::White, Role::Man) => "⚪",
            (Color::White, Role::King) => "🤍",
            (Color::Black, Role::Man) => "⚫",
            (Color::Black, Role::King) => "🖤",
        }
    }

    fn empty(self, sq: Square) -> &'static str {
        match self {
            Skin::Turkish => "🟫",
            Skin::Checkered if (sq.file() + sq.rank()) % 2 == 0 => "🟫",
            Skin::Checkered => "🟨",
            Skin::Plain => "·",
        }
    }
}

/// What pressing a button means.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Press {
    /// A square of the board.
    Square(Square),
    /// One route of several that end on the same square, by its landing notation.
    Route(String),
    /// An action of the row under the board.
    Action(Action),
    /// A square of a message whose game has not begun: it begins with this press.
    Start(Start),
    /// A language chosen with `/language`.
    Language(Lang),
    /// A skin chosen with `/skin`.
    Skin(Skin),
    /// An answer to a direct challenge told in the private chat: the game's id, and
    /// whether it is accepted. Only the one challenged can answer, so nothing needs signing.
    Challenge {
        /// The challenge's game.
        game: String,
        /// Accepted, or declined.
        accept: bool,
    },
    /// A button of a tournament's message in a group: join, leave or start it. The
    /// tournament's own rules decide who may (anybody joins; the organiser starts), so
    /// nothing needs signing.
    Event {
        /// What the press asks for.
        action: EventAction,
        /// A Swiss (or round robin) or an arena.
        kind: EventKind,
        /// The tournament's id.
        tournament: String,
    },
}

/// What a press on a tournament's message asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventAction {
    /// Join (or come back from a pause in an arena).
    Join,
    /// Leave (withdraw from a Swiss, pause in an arena).
    Leave,
    /// Start it (the organiser).
    Start,
}

/// Which kind of tournament a group's message shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EventKind {
    /// A Swiss tournament (its page `/swiss/{id}`).
    Swiss,
    /// An arena (its page `/tournament/{id}`).
    Arena,
}

/// The actions under the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Resign.
    Resign,
    /// Offer a draw.
    OfferDraw,
    /// Accept the opponent's draw offer.
    AcceptDraw,
    /// Decline the opponent's draw offer.
    DeclineDraw,
    /// Turn the board over.
    Flip,
    /// Forget the piece picked (and the routes offered).
    Cancel,
}

impl Action {
    fn code(self) -> &'static str {
        match self {
            Action::Resign => "r",
            Action::OfferDraw => "d",
            Action::AcceptDraw => "da",
            Action::DeclineDraw => "dn",
            Action::Flip => "f",
            Action::Cancel => "c",
        }
    }
}

/// How a game from an inline query is to begin: carried by the buttons of its first message,
/// since Telegram tells the bot nothing else about a message it has not edited yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Start {
    /// The Telegram user who sent the inline query: White.
    pub creator: i64,
    /// Minutes on each clock.
    pub minutes: u32,
    /// Seconds added a move.
    pub increment: u32,
    /// The engine's level (1 to 10) for a game against it; 0 for a game between people.
    pub level: u8,
    /// Rated (both players need a linked damasi account).
    pub rated: bool,
    /// Sent in a group (the stricter edit limit applies).
    pub group: bool,
    /// The language of the message (the creator's).
    pub lang: Lang,
    /// How the board looks (the creator's choice).
    pub skin: Skin,
    /// When the offer was made, in minutes since the Unix epoch (it is taken within
    /// [`crate::offers::OFFER_LIFETIME`]).
    pub issued: u32,
    /// A random name of this offer ([`crate::offers::NONCE_LEN`] hexadecimal digits): each
    /// offer begins one game at most.
    pub nonce: String,
    /// The bot's signature of the rest ([`crate::offers::PressKey`]): presses with data the
    /// bot did not make begin nothing.
    pub tag: String,
}

impl Start {
    /// Everything the tag signs: the callback data without the tag.
    pub fn signed_part(&self) -> String {
        format!(
            "J{}:{}:{}:{}:{}:{}:{}:{:x}:{}",
            self.creator,
            self.minutes,
            self.increment,
            self.level,
            u8::from(self.rated) | (u8::from(self.group) << 1),
            self.lang.code(),
            self.skin.letter(),
            self.issued,
            self.nonce
        )
    }
}

impl Press {
    /// The callback data (at most 64 bytes).
    pub fn encode(&self) -> String {
        match self {
            Press::Square(sq) => format!("s{sq}"),
            Press::Route(landing) => format!("m{landing}"),
            Press::Action(a) => format!("a{}", a.code()),
            Press::Start(s) => format!("{}{}", s.signed_part(), s.tag),
            Press::Language(l) => format!("L{}", l.code()),
            Press::Skin(s) => format!("K{}", s.code()),
            Press::Challenge { game, accept } => {
                format!("C{}{game}", if *accept { 'a' } else { 'd' })
            }
            Press::Event {
                action,
                kind,
                tournament,
            } => {
                let a = match action {
                    EventAction::Join => 'j',
                    EventAction::Leave => 'l',
                    EventAction::Start => 's',
                };
                let k = match kind {
                    EventKind::Swiss => 's',
                    EventKind::Arena => 'a',
                };
                format!("E{a}{k}{tournament}")
            }
        }
    }

    /// Reads callback data; `None` for data the bot never sends.
    pub fn decode(data: &str) -> Option<Press> {
        let mut chars = data.chars();
        let tag = chars.next()?;
        let rest = chars.as_str();
        Some(match tag {
            's' => Press::Square(rest.parse().ok()?),
            'm' if !rest.is_empty() && rest.len() < 64 => Press::Route(rest.to_string()),
            'a' => Press::Action(match rest {
                "r" => Action::Resign,
                "d" => Action::OfferDraw,
                "da" => Action::AcceptDraw,
                "dn" => Action::DeclineDraw,
                "f" => Action::Flip,
                "c" => Action::Cancel,
                _ => return None,
            }),
            'J' => {
                let f: Vec<&str> = rest.split(':').collect();
                let [creator, minutes, increment, level, flags, lang, skin, issued, signed] = f[..]
                else {
                    return None;
                };
                let flags: u8 = flags.parse().ok().filter(|f| *f < 4)?;
                let mut skin = skin.chars();
                let (Some(skin), None) = (skin.next(), skin.next()) else {
                    return None;
                };
                let (nonce, tag) = signed.split_at_checked(NONCE_LEN)?;
                let hex = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_hexdigit());
                if !hex(issued) || !hex(nonce) || tag.len() != TAG_LEN {
                    return None;
                }
                Press::Start(Start {
                    creator: creator.parse().ok()?,
                    minutes: minutes.parse().ok()?,
                    increment: increment.parse().ok()?,
                    level: level.parse().ok().filter(|l| *l <= 10)?,
                    rated: flags & 1 != 0,
                    group: flags & 2 != 0,
                    lang: Lang::ALL.into_iter().find(|l| l.code() == lang)?,
                    skin: Skin::ALL.into_iter().find(|s| s.letter() == skin)?,
                    issued: u32::from_str_radix(issued, 16).ok()?,
                    nonce: nonce.to_string(),
                    tag: tag.to_string(),
                })
            }
            'L' => Press::Language(Lang::ALL.into_iter().find(|l| l.code() == rest)?),
            'K' => Press::Skin(Skin::from_code(rest)?),
            'C' => {
                let (answer, game) = rest.split_at_checked(1)?;
                if !is_id(game) {
                    return None;
                }
                Press::Challenge {
                    game: game.to_string(),
                    accept: match answer {
                        "a" => true,
                        "d" => false,
                        _ => return None,
                    },
                }
            }
            'E' => {
                let (codes, tournament) = rest.split_at_checked(2)?;
                if !is_id(tournament) {
                    return None;
                }
                let (action, kind) = codes.split_at(1);
                Press::Event {
                    action: match action {
                        "j" => EventAction::Join,
                        "l" => EventAction::Leave,
                        "s" => EventAction::Start,
                        _ => return None,
                    },
                    kind: match kind {
                        "s" => EventKind::Swiss,
                        "a" => EventKind::Arena,
                        _ => return None,
                    },
                    tournament: tournament.to_string(),
                }
            }
            _ => return None,
        })
    }
}

/// Whether `id` may be a game's or a tournament's id (letters and digits, at most 16).
fn is_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 16 && id.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// Everything the keyboard shows.
#[derive(Clone, Debug)]
pub struct BoardView<'a> {
    /// The position.
    pub position: &'a Position,
    /// Turned for a view from Black.
    pub flipped: bool,
    /// How it looks.
    pub skin: Skin,
    /// The picked piece and where it may go (the end squares of its legal moves).
    pub picked: Option<(Square, Vec<Square>)>,
    /// Routes to choose from (their landing notation), when several end on the pressed square.
    pub routes: Vec<String>,
    /// What every square's press means: `None` for a game being played, or the start of a
    /// game not begun.
    pub start: Option<Start>,
    /// The game is being played (the action row offers resigning and draws).
    pub playing: bool,
    /// The opponent of the person to act offers a draw.
    pub draw_offered: bool,
    /// The game's page, for a button that opens it.
    pub page: Option<String>,
    /// The language of the buttons.
    pub lang: Lang,
}

/// The squares top row first, left to right, as seen from White (or Black when `flipped`).
pub fn squares_in_view(flipped: bool) -> Vec<Vec<Square>> {
    (0..8u8)
        .map(|row| {
            (0..8u8)
                .map(|col| {
                    let (file, rank) = if flipped {
                        (7 - col, row)
                    } else {
                        (col, 7 - row)
                    };
                    Square::from_coords(file, rank).expect("on the board")
                })
                .collect()
        })
        .collect()
}

/// The inline keyboard of `view`: the board's 8 rows, then the routes to choose from or the
/// actions.
pub fn keyboard(view: &BoardView<'_>) -> Vec<Vec<Button>> {
    let mut rows: Vec<Vec<Button>> = squares_in_view(view.flipped)
        .into_iter()
        .map(|row| {
            row.into_iter()
                .map(|sq| {
                    let text = match &view.picked {
                        Some((from, _)) if *from == sq => "🟡",
                        Some((_, to)) if to.contains(&sq) => "🟢",
                        _ => match view.position.piece_at(sq) {
                            Some(p) => view.skin.piece(p),
                            None => view.skin.empty(sq),
                        },
                    };
                    let press = match &view.start {
                        Some(start) => Press::Start(start.clone()),
                        None => Press::Square(sq),
                    };
                    Button::press(text, &press)
                })
                .collect()
        })
        .collect();
    let lang = view.lang;
    if !view.routes.is_empty() {
        for route in &view.routes {
            rows.push(vec![Button::press(
                route.clone(),
                &Press::Route(route.clone()),
            )]);
        }
        rows.push(vec![Button::press(
            lang.text(Text::Cancel),
            &Press::Action(Action::Cancel),
        )]);
        return rows;
    }
    if view.start.is_some() {
        return rows;
    }
    if view.playing && view.draw_offered {
        rows.push(vec![
            Button::press(
                lang.text(Text::AcceptDraw),
                &Press::Action(Action::AcceptDraw),
            ),
            Button::press(
                lang.text(Text::DeclineDraw),
                &Press::Action(Action::DeclineDraw),
            ),
        ]);
    }
    let mut actions = Vec::new();
    if view.playing {
        actions.push(Button::press(
            lang.text(Text::Resign),
            &Press::Action(Action::Resign),
        ));
        actions.push(Button::press(
            lang.text(Text::OfferDraw),
            &Press::Action(Action::OfferDraw),
        ));
    }
    actions.push(Button::press(
        lang.text(Text::Flip),
        &Press::Action(Action::Flip),
    ));
    if let Some(page) = &view.page {
        actions.push(Button::web(lang, page.clone()));
    }
    rows.push(actions);
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(name: &str) -> Square {
        name.parse().unwrap()
    }

    fn pressed(b: &Button) -> Press {
        match &b.kind {
            ButtonKind::Press(data) => Press::decode(data).unwrap(),
            ButtonKind::Url(u) => panic!("a link to {u}"),
        }
    }

    #[test]
    fn the_top_row_is_rank_8_from_a_to_h_and_turns_for_black() {
        let white = squares_in_view(false);
        assert_eq!(white[0][0], sq("a8"));
        assert_eq!(white[0][7], sq("h8"));
        assert_eq!(white[7][0], sq("a1"));
        let black = squares_in_view(true);
        assert_eq!(black[0][0], sq("h1"));
        assert_eq!(black[7][7], sq("a8"));
    }

    #[test]
    fn the_start_position_shows_each_sides_men_on_ranks_2_3_and_6_7() {
        // The rules: White's 16 men on the second and third ranks, Black's on the sixth and
        // seventh; the first and last ranks empty.
        let pos = Position::start();
        let view = BoardView {
            position: &pos,
            flipped: false,
            skin: Skin::Plain,
            picked: None,
            routes: vec![],
            start: None,
            playing: true,
            draw_offered: false,
            page: Some("https://dama.example/online/abc".into()),
            lang: Lang::En,
        };
        let rows = keyboard(&view);
        assert_eq!(rows.len(), 9);
        let texts: Vec<String> = rows[..8]
            .iter()
            .map(|r| r.iter().map(|b| b.text.as_str()).collect())
            .collect();
        assert_eq!(texts[0], "········");
        assert_eq!(texts[1], "⚫⚫⚫⚫⚫⚫⚫⚫");
        assert_eq!(texts[2], "⚫⚫⚫⚫⚫⚫⚫⚫");
        assert_eq!(texts[3], "········");
        assert_eq!(texts[5], "⚪⚪⚪⚪⚪⚪⚪⚪");
        assert_eq!(texts[6], "⚪⚪⚪⚪⚪⚪⚪⚪");
        assert_eq!(pressed(&rows[5][2]), Press::Square(sq("c3")));
        let actions: Vec<&str> = rows[8].iter().map(|b| b.text.as_str()).collect();
        assert_eq!(
            actions,
            ["🏳 Resign", "½ Draw", "🔄 Flip", "🌐 Open on the web"]
        );
        assert_eq!(
            rows[8][3].kind,
            ButtonKind::Url("https://dama.example/online/abc".into())
        );
    }

    #[test]
    fn a_picked_piece_and_its_destinations_are_marked() {
        let pos = Position::start();
        let view = BoardView {
            position: &pos,
            flipped: false,
            skin: Skin::Turkish,
            picked: Some((sq("c3"), vec![sq("c4")])),
            routes: vec![],
            start: None,
            playing: true,
            draw_offered: true,
            page: None,
            lang: Lang::Tr,
        };
        let rows = keyboard(&view);
        assert_eq!(rows[5][2].text, "🟡");
        assert_eq!(rows[4][2].text, "🟢");
        assert_eq!(rows[4][3].text, "🟫");
        // A draw offer adds its own row above the actions.
        assert_eq!(pressed(&rows[8][0]), Press::Action(Action::AcceptDraw));
        assert_eq!(rows.len(), 10);
    }

    #[test]
    fn routes_replace_the_actions() {
        let pos = Position::start();
        let view = BoardView {
            position: &pos,
            flipped: false,
            skin: Skin::Turkish,
            picked: None,
            routes: vec!["d4xd6xf6".into(), "d4xf4xf6".into()],
            start: None,
            playing: true,
            draw_offered: false,
            page: None,
            lang: Lang::En,
        };
        let rows = keyboard(&view);
        assert_eq!(rows.len(), 11);
        assert_eq!(pressed(&rows[8][0]), Press::Route("d4xd6xf6".into()));
        assert_eq!(pressed(&rows[10][0]), Press::Action(Action::Cancel));
    }

    #[test]
    fn callback_data_reads_back_and_fits_telegrams_64_bytes() {
        let presses = [
            Press::Square(sq("h8")),
            Press::Route("a1xa3xc3xc5xe5xe7xg7xg5xe5xe3xc3xa3".into()),
            Press::Action(Action::DeclineDraw),
            // Telegram's user ids have up to 52 bits.
            Press::Start(Start {
                creator: (1 << 52) - 1,
                minutes: 180,
                increment: 60,
                level: 10,
                rated: true,
                group: true,
                lang: Lang::Az,
                skin: Skin::Checkered,
                issued: u32::MAX,
                nonce: "ffffffff".into(),
                tag: "A".repeat(TAG_LEN),
            }),
            Press::Language(Lang::Ru),
            Press::Skin(Skin::Checkered),
            Press::Challenge {
                game: "abcdEFGH1234wxyz".into(),
                accept: true,
            },
            Press::Challenge {
                game: "abcd1234".into(),
                accept: false,
            },
            Press::Event {
                action: EventAction::Join,
                kind: EventKind::Swiss,
                tournament: "Ab12Cd34".into(),
            },
            Press::Event {
                action: EventAction::Start,
                kind: EventKind::Arena,
                tournament: "zz99".into(),
            },
        ];
        for p in presses {
            let data = p.encode();
            assert!(data.len() <= 64, "{data}");
            assert_eq!(Press::decode(&data), Some(p));
        }
        for junk in [
            "",
            "s",
            "sz9",
            "ax",
            "J1:2",
            "J1:2:3:11:0:en:p:1c0a0e0:0a1b2c3dAAAAAAAAAAAA",
            "J1:2:3:1:9:en:p:1c0a0e0:0a1b2c3dAAAAAAAAAAAA",
            // Unsigned (the data of the bot before offers were signed), a short tag.
            "J1:2:3:1:0:en:plain",
            "J1:2:3:1:0:en:p:1c0a0e0:0a1b2c3dAAAA",
            "Lxx",
            "C",
            "Ca",
            "Cxabcd1234",
            "Cdabc-1234",
            "Ca12345678901234567",
            "Kwood",
            "E",
            "Ej",
            "Ejs",
            "Exsabc",
            "Ejxabc",
            "Ejsab-c",
            "Ejs12345678901234567",
            "?",
        ] {
            assert_eq!(Press::decode(junk), None, "{junk}");
        }
    }
}
