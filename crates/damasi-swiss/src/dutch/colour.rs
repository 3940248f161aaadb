//! The colours of a pair (Article 5).

use super::{compatible_prefs, Pl};
use crate::trf::Colour;

/// Colour given to `p` when paired with `o` (Article 5).
pub(super) fn choose_colour(p: &Pl, o: &Pl, initial: Colour) -> Colour {
    let neutral = if compatible_prefs(p.pref, o.pref) {
        p.pref.or(o.pref.map(Colour::invert))
    } else if p.absolute() && (p.imbalance > o.imbalance || !o.absolute()) {
        p.pref
    } else if o.absolute() && (o.imbalance > p.imbalance || !p.absolute()) {
        o.pref.map(Colour::invert)
    } else if p.strong && !o.strong {
        p.pref
    } else if o.strong && !p.strong {
        o.pref.map(Colour::invert)
    } else {
        // Go back to the last round in which the two had different colours.
        let mut a = p.colours.iter().rev();
        let mut b = o.colours.iter().rev();
        loop {
            match (a.next(), b.next()) {
                (Some(x), Some(y)) if x == y => continue,
                (Some(_), Some(y)) => break Some(*y),
                _ => break None,
            }
        }
    };
    if let Some(c) = neutral {
        return c;
    }
    let p_lower = (p.score, o.rank) < (o.score, p.rank);
    match p.pref {
        None => {
            if p_lower {
                if o.rank % 2 == 1 {
                    initial
                } else {
                    initial.invert()
                }
            } else if p.rank % 2 == 1 {
                initial.invert()
            } else {
                initial
            }
        }
        Some(pref) => {
            if p_lower {
                o.pref.map(Colour::invert).unwrap_or(pref)
            } else {
                pref
            }
        }
    }
}
