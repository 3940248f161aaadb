//! The rules an online game is played under, as the API names them. lichess calls this a
//! game's *variant* (`variant=standard`, and `variant: {key, name}` in its JSON); here a
//! variant is a [`RuleSet`] of the rules crate, the one owner of rule-set names
//! ([`RuleSet::name`], [`RuleSet::from_name`]):
//!
//! - `standard` (lichess's word, what lichess clients send when they say nothing else) and
//!   `turkish` are the federation's rules, the default;
//! - any other rule-set name the rules crate reads is that rule set, e.g.
//!   `turkish; no-capture-limit 50` or `turkish; king-beats-lone-man`.
//!
//! A game's JSON says `variant: {key, name}`: the key is `standard` for the default and the
//! rule set's name otherwise, so the key sent back in a request asks for the same rules.
//!
//! ```
//! use damasi::RuleSet;
//! use damasi_online::variant;
//!
//! assert_eq!(variant::parse("variant", Some("standard")).unwrap(), RuleSet::default());
//! let kings = variant::parse("variant", Some("turkish; king-beats-lone-man")).unwrap();
//! assert!(kings.king_beats_lone_man);
//! assert_eq!(variant::key(&kings), "turkish; king-beats-lone-man");
//! assert_eq!(variant::key(&RuleSet::default()), "standard");
//! let e = variant::parse("variant", Some("atomic")).unwrap_err();
//! assert!(e.message().starts_with("variant: "));
//! ```

use damasi::RuleSet;
use serde_json::Value;

use crate::error::ApiError;

/// The key of the federation's rules, lichess's name for a game without a variant.
pub const STANDARD: &str = "standard";

/// The federation's rules, [`RuleSet::default`] as a constant (for `const` games).
pub const FEDERATION: RuleSet = RuleSet {
    no_capture_limit: None,
    king_beats_lone_man: false,
};

/// Reads the variant a client asked for in `field` (its name in the request, for the error):
/// nothing, `standard` or `turkish` is the default rule set; any other text is read as a
/// rule-set name by [`RuleSet::from_name`]. Anything else is a 400 naming the field.
pub fn parse(field: &str, text: Option<&str>) -> Result<RuleSet, ApiError> {
    let text = text.map(str::trim).unwrap_or("");
    if text.is_empty() || text.eq_ignore_ascii_case(STANDARD) {
        return Ok(RuleSet::default());
    }
    RuleSet::from_name(text).map_err(|e| {
        ApiError::BadRequest(format!(
            "{field}: '{text}' is not a variant: {} (use '{STANDARD}' for the federation's \
             rules, or a rule-set name such as 'turkish; no-capture-limit 50' or \
             'turkish; king-beats-lone-man')",
            e.0
        ))
    })
}

/// The key of `rules` in the API: `standard` for the default, the rule set's name otherwise.
pub fn key(rules: &RuleSet) -> String {
    if *rules == RuleSet::default() {
        STANDARD.to_string()
    } else {
        rules.name()
    }
}

/// The variant as lichess's JSON writes it, `{key, name}`, with the rule set's name as the
/// rules crate writes it (`rules`, e.g. `turkish` for the default) and its options one by one
/// (`noCaptureLimit`: plies, or null; `kingBeatsLoneMan`), so a page can word them in its
/// language without reading the name.
pub fn of(rules: &RuleSet) -> crate::messages::Variant {
    let standard = *rules == RuleSet::default();
    crate::messages::Variant {
        key: key(rules),
        name: if standard {
            "Standard".to_string()
        } else {
            rules.name()
        },
        rules: rules.name(),
        no_capture_limit: rules.no_capture_limit,
        king_beats_lone_man: rules.king_beats_lone_man,
    }
}

/// [`of`] as a JSON value, for answers that are not typed messages.
pub fn json(rules: &RuleSet) -> Value {
    serde_json::to_value(of(rules)).expect("a variant serializes")
}

/// `serde` for a [`RuleSet`] field: written as its [`key`], read by [`parse`]; a missing
/// field is the default (use with `#[serde(default, with = "variant::serde_rules")]`).
pub mod serde_rules {
    use damasi::RuleSet;
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes the rule set's key.
    pub fn serialize<S: Serializer>(rules: &RuleSet, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::key(rules))
    }

    /// Reads a key or a rule-set name; null is the default.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<RuleSet, D::Error> {
        let text = Option::<String>::deserialize(d)?;
        super::parse("variant", text.as_deref()).map_err(|e| serde::de::Error::custom(e.message()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_federation_constant_is_the_default_and_keys_read_back() {
        assert_eq!(FEDERATION, RuleSet::default());
        for name in [
            "standard",
            "turkish",
            "turkish; no-capture-limit 50",
            "turkish; king-beats-lone-man",
            "turkish; no-capture-limit 4; king-beats-lone-man",
        ] {
            let rules = parse("variant", Some(name)).unwrap();
            assert_eq!(parse("variant", Some(&key(&rules))).unwrap(), rules);
        }
        assert_eq!(parse("variant", None).unwrap(), FEDERATION);
        assert_eq!(parse("variant", Some(" Standard ")).unwrap(), FEDERATION);
        for bad in [
            "atomic",
            "turkish; no-capture-limit 0",
            "turkish; flying-men",
        ] {
            let e = parse("variant", Some(bad)).unwrap_err();
            assert!(matches!(e, ApiError::BadRequest(_)), "{bad}");
            assert!(e.message().starts_with("variant: "), "{}", e.message());
        }
    }
}
