//! What the bot says, in Turkish, English, Azerbaijani and Russian: the language of a person's
//! Telegram app unless they chose another with `/language`.

use damasi::{Color, DrawReason, Outcome, WinReason};

/// A language the bot speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lang {
    /// Türkçe.
    Tr,
    /// English.
    En,
    /// Azərbaycanca.
    Az,
    /// Русский.
    Ru,
}

impl Lang {
    /// Every language, in the order of the `/language` buttons.
    pub const ALL: [Lang; 4] = [Lang::Tr, Lang::En, Lang::Az, Lang::Ru];

    /// The language of an IETF tag as Telegram sends it (`tr`, `en-GB`, `ru`); English for
    /// any other or none.
    pub fn from_code(code: Option<&str>) -> Lang {
        let primary = code
            .unwrap_or("")
            .split(['-', '_'])
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        match primary.as_str() {
            "tr" => Lang::Tr,
            "az" => Lang::Az,
            "ru" | "uk" | "be" | "kk" => Lang::Ru,
            _ => Lang::En,
        }
    }

    /// The two-letter code (`tr`, `en`, `az`, `ru`).
    pub fn code(self) -> &'static str {
        match self {
            Lang::Tr => "tr",
            Lang::En => "en",
            Lang::Az => "az",
            Lang::Ru => "ru",
        }
    }

    /// The language's own name, for its button.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Tr => "Türkçe",
            Lang::En => "English",
            Lang::Az => "Azərbaycanca",
            Lang::Ru => "Русский",
        }
    }

    fn pick(self, [tr, en, az, ru]: [&'static str; 4]) -> &'static str {
        match self {
            Lang::Tr => tr,
            Lang::En => en,
            Lang::Az => az,
            Lang::Ru => ru,
        }
    }

    /// The text `t` in this language; `{}` marks where [`Lang::fill`] puts values.
    pub fn text(self, t: Text) -> &'static str {
        use Text::*;
        self.pick(match t {
            InlineTitle => ["Dama oyna", "Play Dama", "Dama oyna", "Играть в даму"],
            InlineDescription => [
                "Sen beyazsın; ilk basan siyahla oynar",
                "You play White; the first to press plays Black",
                "Sən ağsan; ilk basan qara ilə oynayır",
                "Вы играете белыми; первый нажавший играет чёрными",
            ],
            EngineTitle => [
                "Motora karşı oyna, seviye {}",
                "Play the engine, level {}",
                "Mühərrikə qarşı oyna, səviyyə {}",
                "Играть с движком, уровень {}",
            ],
            RatedTitle => [
                "Puanlı Dama oyna",
                "Play rated Dama",
                "Reytinqli Dama oyna",
                "Играть в даму на рейтинг",
            ],
            Waiting => [
                "{} beyazla oynuyor. Siyahla oynamak için bir kareye bas.",
                "{} plays White. Press any square to play Black.",
                "{} ağla oynayır. Qara ilə oynamaq üçün bir xanaya bas.",
                "{} играет белыми. Нажмите любую клетку, чтобы играть чёрными.",
            ],
            WaitingEngine => [
                "{}, motora karşı (seviye {}). Başlamak için bir taşına bas.",
                "{} against the engine (level {}). Press one of your pieces to start.",
                "{}, mühərrikə qarşı (səviyyə {}). Başlamaq üçün daşına bas.",
                "{} против движка (уровень {}). Нажмите свою шашку, чтобы начать.",
            ],
            EngineName => [
                "Motor (seviye {})",
                "Engine (level {})",
                "Mühərrik (səviyyə {})",
                "Движок (уровень {})",
            ],
            ToMove => ["Sıra: {}", "To move: {}", "Növbə: {}", "Ходит: {}"],
            LastMove => [
                "Son hamle: {}",
                "Last move: {}",
                "Son gediş: {}",
                "Последний ход: {}",
            ],
            FirstMove => [
                "İlk hamle için {} sn",
                "{} s for the first move",
                "İlk gediş üçün {} san",
                "{} с на первый ход",
            ],
            DrawOffered => [
                "{} beraberlik teklif ediyor",
                "{} offers a draw",
                "{} heç-heçə təklif edir",
                "{} предлагает ничью",
            ],
            White => ["Beyaz", "White", "Ağ", "Белые"],
            Black => ["Siyah", "Black", "Qara", "Чёрные"],
            Wins => ["{} kazandı", "{} wins", "{} qalib gəldi", "{} побеждают"],
            Drawn => ["Berabere", "Draw", "Heç-heçə", "Ничья"],
            Aborted => [
                "Oyun iptal edildi",
                "Game aborted",
                "Oyun ləğv edildi",
                "Партия отменена",
            ],
            NotYourGame => [
                "Bu oyun {} ile {} arasında",
                "This game is between {} and {}",
                "Bu oyun {} ilə {} arasındadır",
                "Это партия {} и {}",
            ],
            NotYourTurn => [
                "Sıra sende değil",
                "It is not your move",
                "Növbə səndə deyil",
                "Сейчас не ваш ход",
            ],
            GameOver => [
                "Oyun bitti",
                "The game is over",
                "Oyun bitdi",
                "Партия окончена",
            ],
            PickPiece => [
                "Oynayabilen taşlarından birine bas",
                "Press one of your pieces that can move",
                "Gedə bilən daşlarından birinə bas",
                "Нажмите свою шашку, которая может ходить",
            ],
            MustCapture => [
                "Almak zorundasın: alabilen bir taşa bas",
                "You must capture: press a piece that can capture",
                "Vurmalısan: vura bilən daşa bas",
                "Бить обязательно: нажмите шашку, которая может бить",
            ],
            PickSquare => [
                "Şimdi gideceği kareye bas",
                "Now press the square it goes to",
                "İndi gedəcəyi xanaya bas",
                "Теперь нажмите клетку, куда она пойдёт",
            ],
            NotLegal => [
                "Bu taş oraya gidemez",
                "That piece cannot go there",
                "Bu daş ora gedə bilməz",
                "Эта шашка не может туда пойти",
            ],
            ChooseRoute => [
                "Oraya iki yoldan gidilir: birini seç",
                "Two capture routes end there: choose one",
                "Ora iki yolla gedilir: birini seç",
                "Туда ведут два пути взятия: выберите один",
            ],
            OwnGame => [
                "Beyazla sen oynuyorsun: bir rakip bekle",
                "You play White: wait for an opponent",
                "Ağla sən oynayırsan: rəqib gözlə",
                "Вы играете белыми: дождитесь соперника",
            ],
            Joined => [
                "Siyahla oynuyorsun",
                "You play Black",
                "Qara ilə oynayırsan",
                "Вы играете чёрными",
            ],
            EngineGameOf => [
                "Bu, {} ile motorun oyunu",
                "This is {}'s game against the engine",
                "Bu, {} ilə mühərrikin oyunudur",
                "Это партия {} против движка",
            ],
            Played => ["Oynandı: {}", "Played: {}", "Oynanıldı: {}", "Сыграно: {}"],
            Resign => ["🏳 Terk", "🏳 Resign", "🏳 Təslim", "🏳 Сдаться"],
            OfferDraw => ["½ Beraberlik", "½ Draw", "½ Heç-heçə", "½ Ничья"],
            AcceptDraw => [
                "✅ Beraberliği kabul et",
                "✅ Accept the draw",
                "✅ Heç-heçəni qəbul et",
                "✅ Принять ничью",
            ],
            DeclineDraw => ["❌ Reddet", "❌ Decline", "❌ Rədd et", "❌ Отклонить"],
            Flip => ["🔄 Çevir", "🔄 Flip", "🔄 Çevir", "🔄 Перевернуть"],
            OnTheWeb => [
                "🌐 Sitede aç",
                "🌐 Open on the web",
                "🌐 Saytda aç",
                "🌐 Открыть на сайте",
            ],
            Cancel => ["↩ Vazgeç", "↩ Cancel", "↩ İmtina", "↩ Отмена"],
            Help => [
                "Dama oynamak için herhangi bir sohbette @{} yaz ve \"Dama oyna\"yı seç. \
                 Motora karşı: @{} motor 5. Dil: /language. Taşlar: /skin. \
                 damasi hesabını bağlamak için: /link KOD (kod hesap sayfasında); bağı kaldırmak için: /unlink. \
                 Grupta turnuva: beni gruba ekle, /swiss 5+3 5 ya da /arena 3+2 30.",
                "To play Dama, type @{} in any chat and choose \"Play Dama\". \
                 Against the engine: @{} engine 5. Language: /language. Pieces: /skin. \
                 To link your damasi account: /link CODE (the code is on your account page); to undo it: /unlink. \
                 A tournament in a group: add me to it, then /swiss 5+3 5 or /arena 3+2 30.",
                "Dama oynamaq üçün istənilən söhbətdə @{} yaz və \"Dama oyna\"nı seç. \
                 Mühərrikə qarşı: @{} engine 5. Dil: /language. Daşlar: /skin. \
                 damasi hesabını bağlamaq üçün: /link KOD (kod hesab səhifəsindədir); ayırmaq üçün: /unlink. \
                 Qrupda turnir: məni qrupa əlavə et, /swiss 5+3 5 və ya /arena 3+2 30.",
                "Чтобы играть, напишите @{} в любом чате и выберите «Играть в даму». \
                 С движком: @{} engine 5. Язык: /language. Шашки: /skin. \
                 Привязать аккаунт damasi: /link КОД (код на странице аккаунта); отвязать: /unlink. \
                 Турнир в группе: добавьте меня в неё, затем /swiss 5+3 5 или /arena 3+2 30.",
            ],
            ChooseLanguage => ["Dil seç", "Choose a language", "Dil seç", "Выберите язык"],
            LanguageSet => [
                "Dil: Türkçe",
                "Language: English",
                "Dil: Azərbaycanca",
                "Язык: русский",
            ],
            ChooseSkin => [
                "Taş görünümü seç",
                "Choose how pieces look",
                "Daşların görünüşünü seç",
                "Выберите вид шашек",
            ],
            SkinSet => ["Taşlar: {}", "Pieces: {}", "Daşlar: {}", "Шашки: {}"],
            Linked => [
                "Bağlandı: damasi hesabın {}. Oyunların artık puanlı olabilir.",
                "Linked: your damasi account is {}. Your games can now be rated.",
                "Bağlandı: damasi hesabın {}. Oyunların indi reytinqli ola bilər.",
                "Привязано: ваш аккаунт damasi — {}. Теперь партии могут быть рейтинговыми.",
            ],
            BadCode => [
                "Bu kod geçerli değil veya süresi doldu",
                "That code is not valid or has expired",
                "Bu kod etibarlı deyil və ya vaxtı bitib",
                "Код недействителен или устарел",
            ],
            LinkUsage => [
                "Kullanım: /link KOD (kodu damasi hesap sayfandan al)",
                "Usage: /link CODE (get the code on your damasi account page)",
                "İstifadə: /link KOD (kodu damasi hesab səhifəndən al)",
                "Использование: /link КОД (код на странице аккаунта damasi)",
            ],
            BadOffer => [
                "Bu düğme geçersiz veya süresi doldu: yeni bir oyun gönder",
                "This button is not valid or has expired: send a new game",
                "Bu düymə etibarsızdır və ya vaxtı bitib: yeni oyun göndər",
                "Эта кнопка недействительна или устарела: отправьте новую партию",
            ],
            TooManyGames => [
                "Çok fazla yeni oyun: biraz bekle",
                "Too many new games: wait a little",
                "Çox yeni oyun: bir az gözlə",
                "Слишком много новых партий: подождите немного",
            ],
            Blocked => [
                "{} ile oynayamazsın: biriniz diğerini engelliyor",
                "You and {} cannot play: one blocks the other",
                "{} ilə oynaya bilməzsən: biriniz digərini bloklayıb",
                "Вы и {} не можете играть: один из вас заблокировал другого",
            ],
            Unlinked => [
                "Bağlantı kaldırıldı: Telegram kullanıcın artık {} hesabına bağlı değil",
                "Unlinked: your Telegram user is no longer tied to the account {}",
                "Bağlantı silindi: Telegram istifadəçin artıq {} hesabına bağlı deyil",
                "Привязка снята: ваш пользователь Telegram больше не связан с аккаунтом {}",
            ],
            NotLinked => [
                "Telegram kullanıcın bir damasi hesabına bağlı değil",
                "Your Telegram user is not linked to a damasi account",
                "Telegram istifadəçin damasi hesabına bağlı deyil",
                "Ваш пользователь Telegram не привязан к аккаунту damasi",
            ],
            RatedNeedsLink => [
                "Puanlı oyun için önce damasi hesabını bağla: /link",
                "Link your damasi account for rated games first: /link",
                "Reytinqli oyun üçün əvvəlcə damasi hesabını bağla: /link",
                "Для рейтинговых партий сначала привяжите аккаунт damasi: /link",
            ],
            Refused => [
                "Olmadı: {}",
                "Not done: {}",
                "Alınmadı: {}",
                "Не получилось: {}",
            ],
            Busy => [
                "Sunucu meşgul, birazdan tekrar dene",
                "The server is busy: try again in a moment",
                "Server məşğuldur, bir azdan yenə cəhd et",
                "Сервер занят, попробуйте чуть позже",
            ],
            EventGameBegun => [
                "🏆 Turnuva oyunun başladı: {} ile",
                "🏆 Your tournament game has begun: against {}",
                "🏆 Turnir oyunun başladı: {} ilə",
                "🏆 Ваша турнирная партия началась: против {}",
            ],
            ChallengeFrom => [
                "⚔ {} seni oyuna davet ediyor ({})",
                "⚔ {} challenges you to a game ({})",
                "⚔ {} səni oyuna dəvət edir ({})",
                "⚔ {} вызывает вас на партию ({})",
            ],
            AcceptChallenge => ["✅ Kabul et", "✅ Accept", "✅ Qəbul et", "✅ Принять"],
            DeclineChallenge => ["❌ Reddet", "❌ Decline", "❌ Rədd et", "❌ Отклонить"],
            ChallengeAccepted => [
                "Kabul edildi: oyun başladı",
                "Accepted: the game has begun",
                "Qəbul edildi: oyun başladı",
                "Принято: партия началась",
            ],
            ChallengeDeclined => [
                "Davet reddedildi",
                "Challenge declined",
                "Dəvət rədd edildi",
                "Вызов отклонён",
            ],
            EventRounds => ["{} tur", "{} rounds", "{} tur", "туров: {}"],
            EventMinutes => ["{} dakika", "{} minutes", "{} dəqiqə", "{} мин."],
            RatedEvent => ["puanlı", "rated", "reytinqli", "рейтинговый"],
            CasualEvent => ["puansız", "casual", "reytinqsiz", "без рейтинга"],
            EventWaiting => [
                "Oyuncular bekleniyor: Katıl'a bas. {} başlatır.",
                "Waiting for players: press Join. {} starts it.",
                "Oyunçular gözlənilir: Qoşul düyməsini bas. {} başladır.",
                "Ждём игроков: нажмите «Участвовать». Начинает {}.",
            ],
            EventRound => ["Tur {} / {}", "Round {} of {}", "Tur {} / {}", "Тур {} из {}"],
            EventEndsIn => [
                "Bitişe {} dakika",
                "Ends in {} minutes",
                "Bitməsinə {} dəqiqə",
                "До конца {} мин.",
            ],
            EventFinished => ["Bitti", "Finished", "Bitdi", "Завершён"],
            EventPlayers => ["Oyuncular ({}):", "Players ({}):", "Oyunçular ({}):", "Игроки ({}):"],
            EventStandings => ["Sıralama:", "Standings:", "Sıralama:", "Таблица:"],
            FinalStandings => [
                "🏁 {}: son sıralama",
                "🏁 {}: final standings",
                "🏁 {}: yekun sıralama",
                "🏁 {}: итоговая таблица",
            ],
            BoardsInGroup => [
                "Oyunlar bu grupta tahta olarak gelir.",
                "Each game appears here as a board.",
                "Oyunlar bu qrupda taxta kimi gəlir.",
                "Каждая партия появится здесь доской.",
            ],
            BoardsInPrivate => [
                "Oyunlar oyuncuların @{} ile özel sohbetine gelir (önce orada /start).",
                "Each game goes to its players' private chat with @{} (send /start there first).",
                "Oyunlar oyunçuların @{} ilə şəxsi söhbətinə gəlir (əvvəlcə orada /start).",
                "Партии приходят игрокам в личный чат с @{} (сначала отправьте там /start).",
            ],
            JoinEvent => ["➕ Katıl", "➕ Join", "➕ Qoşul", "➕ Участвовать"],
            LeaveEvent => ["➖ Ayrıl", "➖ Leave", "➖ Ayrıl", "➖ Выйти"],
            StartEvent => ["▶ Başlat", "▶ Start", "▶ Başlat", "▶ Начать"],
            EventJoined => ["Katıldın", "You are in", "Qoşuldun", "Вы участвуете"],
            EventLeft => ["Ayrıldın", "You left", "Ayrıldın", "Вы вышли"],
            EventStarted => ["Başladı", "Started", "Başladı", "Начали"],
            EventUsage => [
                "Grupta turnuva aç: /swiss 5+3 5 (süre, tur sayısı) ya da /arena 3+2 30 (süre, \
                 dakika). Puanlı için rated, oyunları özel sohbette almak için private ekle.",
                "Start a tournament in a group: /swiss 5+3 5 (time control, rounds) or /arena \
                 3+2 30 (time control, minutes). Add rated for a rated event, private for the \
                 boards in the players' private chats.",
                "Qrupda turnir aç: /swiss 5+3 5 (vaxt, tur sayı) və ya /arena 3+2 30 (vaxt, \
                 dəqiqə). Reytinqli üçün rated, oyunları şəxsi söhbətdə almaq üçün private əlavə et.",
                "Турнир в группе: /swiss 5+3 5 (контроль, туры) или /arena 3+2 30 (контроль, \
                 минуты). Добавьте rated для рейтингового, private — чтобы доски приходили в \
                 личный чат.",
            ],
            OrganiseNeedsLink => [
                "Turnuva açmak için damasi hesabını bağla: benimle özel sohbette /link",
                "Link your damasi account to organise a tournament: /link in a private chat with me",
                "Turnir açmaq üçün damasi hesabını bağla: mənimlə şəxsi söhbətdə /link",
                "Чтобы проводить турниры, привяжите аккаунт damasi: /link в личном чате со мной",
            ],
            YourMove => [
                "♟ Sıra sende: {} ile oyunun",
                "♟ Your move in your game with {}",
                "♟ Növbə səndədir: {} ilə oyunun",
                "♟ Ваш ход в партии с {}",
            ],
            TimeLeft => [
                "Kalan süre: {}",
                "Time left: {}",
                "Qalan vaxt: {}",
                "Осталось времени: {}",
            ],
            DaysAMove => [
                "hamle başına {} gün",
                "{} days a move",
                "gediş başına {} gün",
                "{} дн. на ход",
            ],
        })
    }

    /// A correspondence turn's time in days and hours (`2d 5h`, `2g 5s`, `2д 5ч`), rounded
    /// up to the hour; under an hour, in minutes.
    pub fn days_hours(self, ms: u64) -> String {
        let [d, h, m] = match self {
            Lang::Tr | Lang::Az => ["g", "s", "dk"],
            Lang::En => ["d", "h", "min"],
            Lang::Ru => ["д", "ч", "мин"],
        };
        if ms < 3_600_000 {
            return format!("{} {m}", ms.div_ceil(60_000));
        }
        let hours = ms.div_ceil(3_600_000);
        match (hours / 24, hours % 24) {
            (0, h_) => format!("{h_}{h}"),
            (days, 0) => format!("{days}{d}"),
            (days, h_) => format!("{days}{d} {h_}{h}"),
        }
    }

    /// `text` with each `{}` replaced by the next of `values`.
    pub fn fill(text: &str, values: &[&str]) -> String {
        let mut out = String::with_capacity(text.len() + 16);
        let mut values = values.iter();
        let mut rest = text;
        while let Some(at) = rest.find("{}") {
            out.push_str(&rest[..at]);
            out.push_str(values.next().copied().unwrap_or(""));
            rest = &rest[at + 2..];
        }
        out.push_str(rest);
        out
    }

    /// The text `t` with `values` filled in.
    pub fn say(self, t: Text, values: &[&str]) -> String {
        Lang::fill(self.text(t), values)
    }

    /// The colour's name.
    pub fn color(self, c: Color) -> &'static str {
        self.text(match c {
            Color::White => Text::White,
            Color::Black => Text::Black,
        })
    }

    /// How a game ended, in one line: who won, or a draw, and why.
    pub fn outcome(self, o: &Outcome) -> String {
        match *o {
            Outcome::Win { winner, reason } => {
                let why = self.win_reason(reason);
                format!("{} ({why})", self.say(Text::Wins, &[self.color(winner)]))
            }
            Outcome::Draw(reason) => {
                format!("{} ({})", self.text(Text::Drawn), self.draw_reason(reason))
            }
            Outcome::Aborted => self.text(Text::Aborted).to_string(),
        }
    }

    fn win_reason(self, r: WinReason) -> &'static str {
        self.pick(match r {
            WinReason::NoPieces => [
                "taş kalmadı",
                "no pieces left",
                "daş qalmadı",
                "не осталось шашек",
            ],
            WinReason::Blocked => ["hamle kalmadı", "blocked", "gediş qalmadı", "нет ходов"],
            WinReason::KingBeatsLoneMan => [
                "dama tek taşa karşı",
                "king against a lone man",
                "dama tək daşa qarşı",
                "дамка против одной шашки",
            ],
            WinReason::Resignation => ["terk", "resignation", "təslim", "сдача"],
            WinReason::Time => ["süre bitti", "on time", "vaxt bitdi", "по времени"],
            WinReason::Abandonment => [
                "oyun terk edildi",
                "abandoned",
                "oyun tərk edildi",
                "неявка",
            ],
            _ => [
                "hakem kararı",
                "adjudication",
                "hakim qərarı",
                "решение судьи",
            ],
        })
    }

    fn draw_reason(self, r: DrawReason) -> &'static str {
        match r {
            DrawReason::Agreement => self.pick(["anlaşma", "agreed", "razılaşma", "по согласию"]),
            DrawReason::OnePieceEach => self.pick([
                "birer taş",
                "one piece each",
                "bir daş hərəyə",
                "по одной шашке",
            ]),
            DrawReason::Repetition => self.pick(["tekrar", "repetition", "təkrar", "повторение"]),
            _ => self.pick(["kural", "by rule", "qayda ilə", "по правилам"]),
        }
    }
}

/// Every text the bot says (see [`Lang::text`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(missing_docs)]
pub enum Text {
    InlineTitle,
    InlineDescription,
    EngineTitle,
    RatedTitle,
    Waiting,
    WaitingEngine,
    EngineName,
    ToMove,
    LastMove,
    FirstMove,
    DrawOffered,
    White,
    Black,
    Wins,
    Drawn,
    Aborted,
    NotYourGame,
    NotYourTurn,
    GameOver,
    PickPiece,
    MustCapture,
    PickSquare,
    NotLegal,
    ChooseRoute,
    OwnGame,
    Joined,
    EngineGameOf,
    Played,
    Resign,
    OfferDraw,
    AcceptDraw,
    DeclineDraw,
    Flip,
    OnTheWeb,
    Cancel,
    Help,
    ChooseLanguage,
    LanguageSet,
    ChooseSkin,
    SkinSet,
    Linked,
    BadCode,
    LinkUsage,
    BadOffer,
    TooManyGames,
    Blocked,
    Unlinked,
    NotLinked,
    RatedNeedsLink,
    Refused,
    Busy,
    YourMove,
    TimeLeft,
    DaysAMove,
    EventGameBegun,
    ChallengeFrom,
    AcceptChallenge,
    DeclineChallenge,
    ChallengeAccepted,
    ChallengeDeclined,
    EventRounds,
    EventMinutes,
    RatedEvent,
    CasualEvent,
    EventWaiting,
    EventRound,
    EventEndsIn,
    EventFinished,
    EventPlayers,
    EventStandings,
    FinalStandings,
    BoardsInGroup,
    BoardsInPrivate,
    JoinEvent,
    LeaveEvent,
    StartEvent,
    EventJoined,
    EventLeft,
    EventStarted,
    EventUsage,
    OrganiseNeedsLink,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_come_from_telegrams_tags() {
        assert_eq!(Lang::from_code(Some("tr")), Lang::Tr);
        assert_eq!(Lang::from_code(Some("en-GB")), Lang::En);
        assert_eq!(Lang::from_code(Some("az")), Lang::Az);
        assert_eq!(Lang::from_code(Some("ru")), Lang::Ru);
        assert_eq!(Lang::from_code(Some("de")), Lang::En);
        assert_eq!(Lang::from_code(None), Lang::En);
    }

    #[test]
    fn values_fill_the_marks_in_order() {
        assert_eq!(
            Lang::En.say(Text::NotYourGame, &["Ali", "Ayşe"]),
            "This game is between Ali and Ayşe"
        );
        assert_eq!(Lang::Tr.say(Text::Wins, &["Beyaz"]), "Beyaz kazandı");
    }

    #[test]
    fn correspondence_times_read_in_days_and_hours() {
        let hour = 3_600_000;
        assert_eq!(Lang::En.days_hours(3 * 24 * hour), "3d");
        assert_eq!(Lang::En.days_hours(2 * 24 * hour + 5 * hour - 1), "2d 5h");
        assert_eq!(Lang::Tr.days_hours(5 * hour), "5s");
        assert_eq!(Lang::Ru.days_hours(30 * 60_000), "30 мин");
    }

    #[test]
    fn outcomes_are_said_in_each_language() {
        let o: Outcome = "white:resignation".parse().unwrap();
        assert_eq!(Lang::En.outcome(&o), "White wins (resignation)");
        assert_eq!(Lang::Tr.outcome(&o), "Beyaz kazandı (terk)");
        let d: Outcome = "draw:one-piece-each".parse().unwrap();
        assert_eq!(Lang::Ru.outcome(&d), "Ничья (по одной шашке)");
    }
}
