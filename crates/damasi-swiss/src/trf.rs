//! Reading and writing FIDE Tournament Report Files (TRF, the 2016 layout).
//!
//! Only what pairing needs is interpreted: the tournament name (`012`), the players' lines
//! (`001`), the number of rounds (`XXR`) and the first round's colour of the top player
//! (`XXC white1` / `XXC black1`). Other lines are kept verbatim so that a file read and
//! written back keeps them.
//!
//! A player's line, by column (1-based): `001` in 1-3, pairing number in 5-8, sex in 10,
//! title in 11-13, name in 15-47, rating in 49-52, federation in 54-56, FIDE id in 58-68,
//! birth date in 70-79, points in 81-84, rank in 86-89, then one 10-column block per round
//! from column 92: opponent in 92-95 (`0000` for none), colour in 97 (`w`, `b` or `-`),
//! result in 99.

use std::fmt;

/// A piece colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Colour {
    /// White.
    White,
    /// Black.
    Black,
}

impl Colour {
    /// The other colour.
    pub fn invert(self) -> Colour {
        match self {
            Colour::White => Colour::Black,
            Colour::Black => Colour::White,
        }
    }
}

/// The result code of one round for one player (column 99 of a round block).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ResultCode {
    /// `1`: a win over the board.
    Win,
    /// `=`: a draw over the board.
    Draw,
    /// `0`: a loss over the board.
    Loss,
    /// `W`: a win in an unrated game.
    UnratedWin,
    /// `D`: a draw in an unrated game.
    UnratedDraw,
    /// `L`: a loss in an unrated game.
    UnratedLoss,
    /// `+`: a forfeit win (the opponent did not appear).
    ForfeitWin,
    /// `-`: a forfeit loss.
    ForfeitLoss,
    /// `H`: a half-point bye (not paired).
    HalfPointBye,
    /// `F`: a full-point bye (not paired).
    FullPointBye,
    /// `U`: the pairing-allocated bye.
    PairingAllocatedBye,
    /// `Z`: a zero-point bye (not paired).
    ZeroPointBye,
    /// A blank result: the player did not take part.
    Absent,
}

impl ResultCode {
    /// Parses the result character of a round block.
    pub fn from_char(c: char) -> Option<ResultCode> {
        Some(match c.to_ascii_uppercase() {
            '1' => ResultCode::Win,
            '=' => ResultCode::Draw,
            '0' => ResultCode::Loss,
            'W' => ResultCode::UnratedWin,
            'D' => ResultCode::UnratedDraw,
            'L' => ResultCode::UnratedLoss,
            '+' => ResultCode::ForfeitWin,
            '-' => ResultCode::ForfeitLoss,
            'H' => ResultCode::HalfPointBye,
            'F' => ResultCode::FullPointBye,
            'U' => ResultCode::PairingAllocatedBye,
            'Z' => ResultCode::ZeroPointBye,
            ' ' => ResultCode::Absent,
            _ => return None,
        })
    }

    /// The character written in a TRF file.
    pub fn to_char(self) -> char {
        match self {
            ResultCode::Win => '1',
            ResultCode::Draw => '=',
            ResultCode::Loss => '0',
            ResultCode::UnratedWin => 'W',
            ResultCode::UnratedDraw => 'D',
            ResultCode::UnratedLoss => 'L',
            ResultCode::ForfeitWin => '+',
            ResultCode::ForfeitLoss => '-',
            ResultCode::HalfPointBye => 'H',
            ResultCode::FullPointBye => 'F',
            ResultCode::PairingAllocatedBye => 'U',
            ResultCode::ZeroPointBye => 'Z',
            ResultCode::Absent => ' ',
        }
    }

    /// Whether the code is a game played over the board (needs an opponent and a colour).
    pub fn is_over_the_board(self) -> bool {
        matches!(
            self,
            ResultCode::Win
                | ResultCode::Draw
                | ResultCode::Loss
                | ResultCode::UnratedWin
                | ResultCode::UnratedDraw
                | ResultCode::UnratedLoss
        )
    }

    /// The outcome: 2 for a win, 1 for a draw, 0 for a loss (byes count as the points they
    /// give).
    fn outcome(self) -> u8 {
        match self {
            ResultCode::Win
            | ResultCode::UnratedWin
            | ResultCode::ForfeitWin
            | ResultCode::FullPointBye
            | ResultCode::PairingAllocatedBye => 2,
            ResultCode::Draw | ResultCode::UnratedDraw | ResultCode::HalfPointBye => 1,
            _ => 0,
        }
    }

    /// Points scored in tenths (win 1, draw ½, pairing-allocated bye 1).
    pub fn points_tenths(self) -> u32 {
        match self.outcome() {
            2 => 10,
            1 => 5,
            _ => 0,
        }
    }
}

/// One round of one player: a TRF round block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoundEntry {
    /// The opponent's pairing number, if any.
    pub opponent: Option<u32>,
    /// The colour played, if any.
    pub colour: Option<Colour>,
    /// The result.
    pub result: ResultCode,
}

impl RoundEntry {
    /// Whether a game was played over the board.
    pub fn game_played(&self) -> bool {
        self.opponent.is_some() && self.colour.is_some() && self.result.is_over_the_board()
    }

    /// Whether the player was paired in that round (against an opponent, including forfeits,
    /// or given the pairing-allocated bye).
    pub fn participated(&self) -> bool {
        self.opponent.is_some()
            || matches!(
                self.result,
                ResultCode::PairingAllocatedBye | ResultCode::ForfeitWin
            )
    }

    /// An entry for a round the player took no part in.
    pub fn absent() -> RoundEntry {
        RoundEntry {
            opponent: None,
            colour: None,
            result: ResultCode::Absent,
        }
    }
}

/// A player: one `001` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Player {
    /// Pairing number (starting rank), 1-based.
    pub number: u32,
    /// Sex (column 10), blank if unknown.
    pub sex: String,
    /// Title (columns 11-13).
    pub title: String,
    /// Name.
    pub name: String,
    /// Rating, 0 if none.
    pub rating: u32,
    /// Federation (columns 54-56).
    pub federation: String,
    /// FIDE id (columns 58-68).
    pub fide_id: String,
    /// Birth date (columns 70-79).
    pub birth_date: String,
    /// Points in tenths as written in the file.
    pub points_tenths: u32,
    /// Rank as written in the file, if any.
    pub rank: Option<u32>,
    /// The rounds, in order (`rounds[0]` is round 1).
    pub rounds: Vec<RoundEntry>,
}

impl Player {
    /// Points in tenths computed from the results of the first `rounds` rounds.
    pub fn score_after(&self, rounds: usize) -> u32 {
        self.rounds
            .iter()
            .take(rounds)
            .map(|r| r.result.points_tenths())
            .sum()
    }
}

/// A tournament as read from a TRF file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tournament {
    /// Tournament name (`012`).
    pub name: Option<String>,
    /// Players ordered by pairing number.
    pub players: Vec<Player>,
    /// Total number of rounds (`XXR`), if given.
    pub total_rounds: Option<u32>,
    /// Colour of the top player in round 1 (`XXC white1` / `XXC black1`), if given.
    pub initial_colour: Option<Colour>,
    /// Other lines, kept verbatim.
    pub other_lines: Vec<String>,
}

/// An error reading a TRF file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrfError {
    /// 1-based line number, 0 when the error concerns the file as a whole.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for TrfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "TRF: {}", self.message)
        } else {
            write!(f, "TRF line {}: {}", self.line, self.message)
        }
    }
}

impl std::error::Error for TrfError {}

fn err(line: usize, message: impl Into<String>) -> TrfError {
    TrfError {
        line,
        message: message.into(),
    }
}

/// Columns `from..=to` (1-based) of the line, blank past its end.
fn cols(chars: &[char], from: usize, to: usize) -> String {
    (from..=to)
        .map(|c| chars.get(c - 1).copied().unwrap_or(' '))
        .collect()
}

fn parse_uint(text: &str, line: usize, what: &str) -> Result<Option<u32>, TrfError> {
    let t = text.trim();
    if t.is_empty() {
        return Ok(None);
    }
    if !t.bytes().all(|b| b.is_ascii_digit()) || t.len() > 9 {
        return Err(err(line, format!("{what} is not a number: {t:?}")));
    }
    Ok(Some(
        t.parse()
            .map_err(|_| err(line, format!("bad {what}: {t:?}")))?,
    ))
}

/// Parses points such as `3.5`, `3,5`, `4` into tenths.
fn parse_points(text: &str, line: usize) -> Result<u32, TrfError> {
    let t = text.trim().replace(',', ".");
    let bad = || err(line, format!("points are not a number: {:?}", text.trim()));
    if t.is_empty() {
        return Err(bad());
    }
    let (int, frac) = match t.split_once('.') {
        Some((i, f)) => (i, f),
        None => (t.as_str(), ""),
    };
    if int.is_empty() && frac.is_empty()
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
        || frac.len() > 1
        || int.len() > 6
    {
        return Err(bad());
    }
    let i: u32 = if int.is_empty() {
        0
    } else {
        int.parse().map_err(|_| bad())?
    };
    let f: u32 = if frac.is_empty() {
        0
    } else {
        frac.parse().map_err(|_| bad())?
    };
    Ok(i * 10 + f)
}

fn parse_player(text: &str, line: usize) -> Result<Player, TrfError> {
    let chars: Vec<char> = text.trim_end().chars().collect();
    let number = parse_uint(&cols(&chars, 5, 8), line, "pairing number")?
        .ok_or_else(|| err(line, "missing pairing number (columns 5-8)"))?;
    if number == 0 {
        return Err(err(line, "pairing number 0"));
    }
    let rating = parse_uint(&cols(&chars, 49, 52), line, "rating")?.unwrap_or(0);
    let points_tenths = parse_points(&cols(&chars, 81, 84), line)?;
    let rank = parse_uint(&cols(&chars, 86, 89), line, "rank")?;
    let mut rounds = Vec::new();
    let mut start = 92;
    while start <= chars.len() {
        let block = cols(&chars, start, start + 7);
        let bc: Vec<char> = block.chars().collect();
        let round = rounds.len() + 1;
        let opp_owned: String = bc[0..4].iter().collect();
        let opp_text = opp_owned.as_str();
        let opponent = if opp_text.trim().is_empty() || opp_text == "0000" {
            None
        } else {
            let o = parse_uint(opp_text, line, &format!("round {round} opponent"))?.unwrap_or(0);
            if o == 0 {
                return Err(err(
                    line,
                    format!("round {round}: bad opponent {opp_text:?}"),
                ));
            }
            if o == number {
                return Err(err(
                    line,
                    format!("round {round}: player paired with itself"),
                ));
            }
            Some(o)
        };
        if bc[4] != ' ' || bc[6] != ' ' {
            return Err(err(
                line,
                format!("round {round}: malformed block {block:?} (expected \"OOOO C R\")"),
            ));
        }
        let colour = match bc[5] {
            'w' | 'W' => Some(Colour::White),
            'b' | 'B' => Some(Colour::Black),
            '-' | ' ' => None,
            c => return Err(err(line, format!("round {round}: bad colour {c:?}"))),
        };
        let result = ResultCode::from_char(bc[7])
            .ok_or_else(|| err(line, format!("round {round}: bad result {:?}", bc[7])))?;
        if result.is_over_the_board() && (opponent.is_none() || colour.is_none()) {
            return Err(err(
                line,
                format!("round {round}: a game result needs an opponent and a colour"),
            ));
        }
        if opponent.is_some()
            && !result.is_over_the_board()
            && !matches!(result, ResultCode::ForfeitWin | ResultCode::ForfeitLoss)
        {
            return Err(err(
                line,
                format!("round {round}: result {:?} cannot have an opponent", bc[7]),
            ));
        }
        if opponent.is_none() && colour.is_some() {
            return Err(err(
                line,
                format!("round {round}: a colour without an opponent"),
            ));
        }
        rounds.push(RoundEntry {
            opponent,
            colour,
            result,
        });
        start += 10;
    }
    // Trailing blank blocks are not rounds.
    while rounds.last().is_some_and(|r| *r == RoundEntry::absent()) {
        rounds.pop();
    }
    Ok(Player {
        number,
        sex: cols(&chars, 10, 10).trim().to_string(),
        title: cols(&chars, 11, 13).trim().to_string(),
        name: cols(&chars, 15, 47).trim().to_string(),
        rating,
        federation: cols(&chars, 54, 56).trim().to_string(),
        fide_id: cols(&chars, 58, 68).trim().to_string(),
        birth_date: cols(&chars, 70, 79).trim().to_string(),
        points_tenths,
        rank,
        rounds,
    })
}

impl Tournament {
    /// Reads a tournament from the text of a TRF file.
    ///
    /// Checks that pairing numbers are unique, that opponents exist and that both players of
    /// a game record it the same way (opposite colours, each other as opponent).
    pub fn from_trf(text: &str) -> Result<Tournament, TrfError> {
        let mut t = Tournament {
            name: None,
            players: Vec::new(),
            total_rounds: None,
            initial_colour: None,
            other_lines: Vec::new(),
        };
        let mut player_lines = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let line = raw.trim_end_matches('\r');
            if line.trim().is_empty() {
                continue;
            }
            let code: String = line.chars().take(3).collect();
            match code.as_str() {
                "001" => {
                    let p = parse_player(line, line_no)?;
                    player_lines.push(line_no);
                    t.players.push(p);
                }
                "012" => t.name = Some(line.chars().skip(4).collect::<String>().trim().to_string()),
                "XXR" => {
                    let rest: String = line.chars().skip(3).collect();
                    let n = parse_uint(&rest, line_no, "number of rounds")?
                        .ok_or_else(|| err(line_no, "XXR without a number"))?;
                    t.total_rounds = Some(n);
                }
                "XXC" => {
                    let rest: String = line.chars().skip(3).collect();
                    for word in rest.split_whitespace() {
                        match word.to_ascii_lowercase().as_str() {
                            "white1" => t.initial_colour = Some(Colour::White),
                            "black1" => t.initial_colour = Some(Colour::Black),
                            "rank" => {}
                            w => return Err(err(line_no, format!("unknown XXC option {w:?}"))),
                        }
                    }
                }
                _ => t.other_lines.push(line.to_string()),
            }
        }
        // Sort by pairing number, check uniqueness.
        let mut order: Vec<usize> = (0..t.players.len()).collect();
        order.sort_by_key(|&i| t.players[i].number);
        for w in order.windows(2) {
            if t.players[w[0]].number == t.players[w[1]].number {
                return Err(err(
                    player_lines[w[1]].max(player_lines[w[0]]),
                    format!("pairing number {} is repeated", t.players[w[0]].number),
                ));
            }
        }
        let lines: Vec<usize> = order.iter().map(|&i| player_lines[i]).collect();
        let mut sorted: Vec<Player> = order.iter().map(|&i| t.players[i].clone()).collect();
        std::mem::swap(&mut t.players, &mut sorted);
        // Cross-check games.
        for (pi, p) in t.players.iter().enumerate() {
            for (ri, r) in p.rounds.iter().enumerate() {
                let Some(o) = r.opponent else { continue };
                let Some(oi) = t.index_of(o) else {
                    return Err(err(
                        lines[pi],
                        format!("round {}: opponent {o} is not a player", ri + 1),
                    ));
                };
                let q = &t.players[oi];
                let ok = q.rounds.get(ri).is_some_and(|e| {
                    e.opponent == Some(p.number)
                        && (!r.game_played() || e.game_played() && e.colour != r.colour)
                        && (r.game_played() || !e.game_played())
                });
                if !ok {
                    return Err(err(
                        lines[pi],
                        format!(
                            "round {}: player {} against {o} contradicts {o}'s entry",
                            ri + 1,
                            p.number
                        ),
                    ));
                }
            }
        }
        Ok(t)
    }

    /// Index in [`Tournament::players`] of the player with that pairing number.
    pub fn index_of(&self, number: u32) -> Option<usize> {
        self.players
            .binary_search_by_key(&number, |p| p.number)
            .ok()
    }

    /// Writes the tournament as a TRF file (players' points and ranks as stored).
    pub fn to_trf(&self) -> String {
        let mut out = String::new();
        if let Some(name) = &self.name {
            out.push_str(&format!("012 {name}\n"));
        }
        for line in &self.other_lines {
            out.push_str(line);
            out.push('\n');
        }
        for p in &self.players {
            let rating = if p.rating == 0 {
                String::new()
            } else {
                p.rating.to_string()
            };
            let points = format!("{}.{}", p.points_tenths / 10, p.points_tenths % 10);
            let rank = p.rank.map(|r| r.to_string()).unwrap_or_default();
            let mut line = format!(
                "001 {:>4} {:1}{:>3} {:<33} {:>4} {:>3} {:>11} {:>10} {:>4} {:>4}",
                p.number,
                trunc(&p.sex, 1),
                trunc(&p.title, 3),
                trunc(&p.name, 33),
                rating,
                trunc(&p.federation, 3),
                trunc(&p.fide_id, 11),
                trunc(&p.birth_date, 10),
                points,
                rank
            );
            for r in &p.rounds {
                let opp = r
                    .opponent
                    .map(|o| format!("{o:>4}"))
                    .unwrap_or_else(|| "0000".into());
                let col = match r.colour {
                    Some(Colour::White) => 'w',
                    Some(Colour::Black) => 'b',
                    None => '-',
                };
                line.push_str(&format!("  {opp} {col} {}", r.result.to_char()));
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        if let Some(n) = self.total_rounds {
            out.push_str(&format!("XXR {n}\n"));
        }
        match self.initial_colour {
            Some(Colour::White) => out.push_str("XXC white1\n"),
            Some(Colour::Black) => out.push_str("XXC black1\n"),
            None => {}
        }
        out
    }
}

fn trunc(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "012 Test
001    1      Test0001 Player0001               2572                             1.5    1    16 w 1    10 b =
001    2      Test0002 Player0002               2472                             0.5    4    10 w 0    16 b =
001   10      Test0010 Player0010               2198                             1.5   16     2 b 1     1 w =
001   16      Test0016 Player0016               2078                             0.5   13     1 b 0     2 w =
XXR 9
";

    #[test]
    fn reads_sample() {
        let t = Tournament::from_trf(SAMPLE).unwrap();
        assert_eq!(t.players.len(), 4);
        assert_eq!(t.total_rounds, Some(9));
        let p = &t.players[0];
        assert_eq!(p.number, 1);
        assert_eq!(p.rating, 2572);
        assert_eq!(p.points_tenths, 15);
        assert_eq!(p.rounds.len(), 2);
        assert_eq!(p.rounds[0].opponent, Some(16));
        assert_eq!(p.rounds[0].colour, Some(Colour::White));
        assert_eq!(p.rounds[1].result, ResultCode::Draw);
        assert_eq!(p.score_after(2), 15);
    }

    #[test]
    fn round_trips() {
        let t = Tournament::from_trf(SAMPLE).unwrap();
        let again = Tournament::from_trf(&t.to_trf()).unwrap();
        assert_eq!(t, again);
    }
}
