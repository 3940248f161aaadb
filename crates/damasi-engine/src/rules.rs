//! TEMPORARY: the rule-set options, until `damasi::game::RuleSet` lands in the rules library.

/// Optional rules, both off by default (RULES.md "End of the game").
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct RuleSet {
    /// Draw after this many plies without a capture (`None`: no such rule).
    pub no_capture_limit: Option<u32>,
    /// A king against a single man wins for the king's side instead of the 1-v-1 draw.
    pub king_beats_lone_man: bool,
}
