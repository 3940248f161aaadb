//! What the organiser chooses, and the checks on it.

use damasi_swiss::berger;
use serde::{Deserialize, Serialize};

use super::{SwissError, MAX_PLAYERS, MAX_ROUNDS};
use crate::tiebreak::Tiebreak;

/// Who may join.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Entry {
    /// Anybody with an account.
    Anyone,
    /// Whoever knows the password (stored as its SHA-256).
    Password {
        /// The password's hash.
        hash: String,
    },
    /// The accounts named (case-insensitively).
    List {
        /// The names.
        names: Vec<String>,
    },
}

/// How the rounds are paired.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum System {
    /// The FIDE Dutch system, round after round.
    #[default]
    Swiss,
    /// A round robin by FIDE's Berger tables: everybody meets everybody once.
    RoundRobin,
    /// A double round robin: everybody meets everybody twice, the second time with the
    /// colours reversed.
    DoubleRoundRobin,
}

impl System {
    /// Whether the rounds come from the Berger tables.
    pub fn is_round_robin(self) -> bool {
        self != System::Swiss
    }

    /// Its name in the API (`swiss`, `roundRobin`; a double round robin is `roundRobin` with
    /// `double`).
    pub fn key(self) -> &'static str {
        match self {
            System::Swiss => "swiss",
            System::RoundRobin | System::DoubleRoundRobin => "roundRobin",
        }
    }
}

/// What the organiser chose.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SwissSettings {
    /// The name.
    pub name: String,
    /// Number of rounds.
    pub rounds: u32,
    /// Time each side starts with (ms).
    pub initial_ms: i64,
    /// Increment per move (ms).
    pub increment_ms: i64,
    /// Whether the games are rated.
    pub rated: bool,
    /// When the first round is paired (Unix ms); none: when the organiser starts it.
    pub starts_ms: Option<i64>,
    /// Pause between the end of a round and the pairing of the next (ms).
    pub round_pause_ms: i64,
    /// Who may join.
    pub entry: Entry,
    /// The tie-breaks, in order.
    pub tiebreaks: Vec<Tiebreak>,
    /// The rules every game is played under (lichess's `variant`; stored as its key,
    /// tournaments stored before it was chosen are the federation's).
    #[serde(default, with = "damasi_online::variant::serde_rules")]
    pub rules: damasi::RuleSet,
    /// How the rounds are paired (tournaments stored before it are Swiss). For a round robin
    /// `rounds` is set when it starts, from the number of players.
    #[serde(default)]
    pub system: System,
    /// Whether BOT accounts may join (lichess's `conditions.bots`; off unless the organiser
    /// allows them).
    #[serde(default)]
    pub allow_bots: bool,
}

impl SwissSettings {
    /// Checks the settings; the time control is checked by the online service.
    pub fn check(&self) -> Result<(), SwissError> {
        check_name(&self.name)?;
        if self.system.is_round_robin() {
            if let Entry::List { names } = &self.entry {
                let n = names.len() as u32;
                if !(berger::MIN_PLAYERS..=berger::MAX_PLAYERS).contains(&n) {
                    return Err(SwissError::Invalid(format!(
                        "conditions.allowList: a round robin has {} to {} players, the list \
                         names {n}",
                        berger::MIN_PLAYERS,
                        berger::MAX_PLAYERS
                    )));
                }
            }
        } else if !(1..=MAX_ROUNDS).contains(&self.rounds) {
            return Err(SwissError::Invalid(format!(
                "a tournament has 1 to {MAX_ROUNDS} rounds"
            )));
        }
        if !(0..=7 * 24 * 3_600_000).contains(&self.round_pause_ms) {
            return Err(SwissError::Invalid(
                "the pause between rounds is 0 seconds to 7 days".into(),
            ));
        }
        if self.tiebreaks.is_empty() || self.tiebreaks.len() > 4 {
            return Err(SwissError::Invalid("choose 1 to 4 tie-breaks".into()));
        }
        if let Entry::List { names } = &self.entry {
            if names.is_empty() || names.len() > MAX_PLAYERS {
                return Err(SwissError::Invalid(format!(
                    "a list of players has 1 to {MAX_PLAYERS} names"
                )));
            }
        }
        Ok(())
    }
}

/// Checks a tournament's name: 2 to 80 characters, none a control character nor an invisible
/// format character ([`is_format`]: direction overrides and marks, zero-width characters),
/// which would make a name show as another, or turn the text around it on a page.
pub(crate) fn check_name(name: &str) -> Result<(), SwissError> {
    let len = name.chars().count();
    if !(2..=80).contains(&len) {
        return Err(SwissError::Invalid(
            "name: a tournament's name has 2 to 80 characters".into(),
        ));
    }
    if let Some(c) = name.chars().find(|c| c.is_control() || is_format(*c)) {
        return Err(SwissError::Invalid(format!(
            "name: U+{:04X} is a control or invisible formatting character (direction \
             overrides, zero-width characters): write the name without it",
            c as u32
        )));
    }
    Ok(())
}

/// Whether `c` is one of Unicode's format characters (general category Cf): invisible, they
/// change how the text around them shows (U+202E turns it right to left, U+200B is a space
/// of no width).
pub fn is_format(c: char) -> bool {
    matches!(c as u32,
        0x00AD
        | 0x0600..=0x0605
        | 0x061C
        | 0x06DD
        | 0x070F
        | 0x0890..=0x0891
        | 0x08E2
        | 0x180E
        | 0x200B..=0x200F
        | 0x202A..=0x202E
        | 0x2060..=0x2064
        | 0x2066..=0x206F
        | 0xFEFF
        | 0xFFF9..=0xFFFB
        | 0x110BD
        | 0x110CD
        | 0x13430..=0x1343F
        | 0x1BCA0..=0x1BCA3
        | 0x1D173..=0x1D17A
        | 0xE0001
        | 0xE0020..=0xE007F)
}
