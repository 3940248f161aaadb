//! The edge weights of the pairing and the matching they feed.

use super::{compatible_prefs, Ctx, Float, Pl};
use crate::trf::Colour;
use crate::wide::Wide;
use crate::PairError;

impl<const N: usize> Ctx<N> {
    pub(super) fn sh(&self, score: u32) -> u32 {
        self.shift[&score]
    }

    pub(super) fn compatible(&self, a: &Pl, b: &Pl) -> bool {
        !a.met.contains(&b.number)
            && (!a.absolute()
                || !b.absolute()
                || a.pref != b.pref
                || (self.last_round
                    && (a.score > self.top_threshold || b.score > self.top_threshold)))
    }

    pub(super) fn bye_candidate(&self, p: &Pl) -> bool {
        p.bye_ok && p.score <= self.bye_score
    }

    /// The unplayed games `p` brings to the C9 field when paired: those of a player who may
    /// receive the bye, once C9 is in force.
    pub(super) fn c9_games(&self, p: &Pl) -> u32 {
        if self.c9 && self.bye_candidate(p) {
            p.unplayed
        } else {
            0
        }
    }

    /// The weight of pairing `h` (ranked higher) with `l`, where `l` is in the current
    /// bracket (`in_cur`) or in the next score group (`in_next`).
    pub(super) fn base_weight(&self, h: usize, l: usize, in_cur: bool, in_next: bool) -> Wide<N> {
        let (hp, lp) = (&self.ps[h], &self.ps[l]);
        if !self.compatible(hp, lp) {
            return Wide::<N>::ZERO;
        }
        let w_bits = self.w_bits;
        let s_bits = self.s_bits;
        let mut w = Wide::<N>::from_u64(
            1 + !self.bye_candidate(hp) as u64 + !self.bye_candidate(lp) as u64,
        );
        let push = |w: &mut Wide<N>, width: u32, v: Wide<N>| *w = w.shl(width).add(&v);
        let small = |b: bool| Wide::<N>::from_u64(b as u64);
        // C6, C7: pairs and their scores in the current bracket.
        push(&mut w, w_bits, small(in_cur));
        push(
            &mut w,
            s_bits,
            if in_cur {
                Wide::<N>::bit(self.sh(hp.score))
            } else {
                Wide::<N>::ZERO
            },
        );
        // C8: pairs and scores in the next bracket.
        push(&mut w, w_bits, small(in_next));
        push(
            &mut w,
            s_bits,
            if in_next {
                Wide::<N>::bit(self.sh(hp.score))
            } else {
                Wide::<N>::ZERO
            },
        );
        // C9: the unplayed games of the players who may get the bye, counted when paired,
        // so that the one left out has the fewest.
        push(
            &mut w,
            self.u_bits,
            Wide::<N>::from_u64((self.c9_games(hp) + self.c9_games(lp)) as u64),
        );
        // C10: topscorers' colour difference beyond ±2.
        push(
            &mut w,
            w_bits,
            small(
                in_cur
                    && (!lp.absolute_imbalance() || !hp.absolute_imbalance() || lp.pref != hp.pref),
            ),
        );
        // C11: topscorers' same colour three times in a row.
        let c11 = !lp.absolute()
            || !hp.absolute()
            || lp.pref != hp.pref
            || if lp.imbalance == hp.imbalance {
                lp.repeated.is_none() || lp.repeated != hp.repeated
            } else {
                let less = if lp.imbalance > hp.imbalance { hp } else { lp };
                less.repeated != lp.pref.map(Colour::invert)
            };
        push(&mut w, w_bits, small(in_cur && c11));
        // C12: colour preferences.
        push(
            &mut w,
            w_bits,
            small(in_cur && compatible_prefs(lp.pref, hp.pref)),
        );
        // C13: strong colour preferences.
        let c13 = (!lp.strong && !lp.absolute())
            || (!hp.strong && !hp.absolute())
            || (lp.absolute() && hp.absolute())
            || lp.pref != hp.pref;
        push(&mut w, w_bits, small(in_cur && c13));
        // C14-C17: repeated floats, one then two rounds back.
        for back in 1..=2usize {
            if self.played < back {
                continue;
            }
            let down = if in_cur {
                (lp.floats[back] == Float::Down) as u64
                    + (hp.score <= lp.score && hp.floats[back] == Float::Down) as u64
            } else {
                0
            };
            push(&mut w, w_bits, Wide::<N>::from_u64(down));
            let up = in_cur && !(hp.score > lp.score && lp.floats[back] == Float::Up);
            push(&mut w, w_bits, small(up));
        }
        // C18-C21: scores of the repeated floaters.
        for back in 1..=2usize {
            if self.played < back {
                continue;
            }
            let mut down = Wide::<N>::ZERO;
            if in_cur {
                if lp.floats[back] == Float::Down {
                    down = down.add(&Wide::<N>::bit(self.sh(lp.score)));
                }
                if hp.floats[back] == Float::Down {
                    down = down.add(&Wide::<N>::bit(self.sh(hp.score)));
                }
            }
            push(&mut w, s_bits, down);
            let up = in_cur && !(lp.floats[back] == Float::Up && hp.score > lp.score);
            push(
                &mut w,
                s_bits,
                if up {
                    Wide::<N>::bit(self.sh(hp.score))
                } else {
                    Wide::<N>::ZERO
                },
            );
        }
        // Room for the ordering rules of the bracket.
        w = w.shl(3 * w_bits + 1);
        w
    }

    /// Sets the weight between `a` and `b`; `a` is the player whose decision it is (the one
    /// the matching re-examines when the change disturbs it).
    pub(super) fn set(&mut self, a: usize, b: usize, w: Wide<N>) {
        // A finalised pair has left the graph.
        if self.fin[a].is_none() && self.fin[b].is_none() {
            self.matching.set(a, b, w);
        }
    }

    /// Puts the bye criterion C9 in force (C.04.3 Article 2.4.4: minimise the number of
    /// unplayed games of the assignee of the pairing-allocated bye; it applies to the
    /// brackets that downfloat exactly one player, who will end up receiving the bye). The
    /// C9 field is added to every open edge that touches a player who may get the bye, the
    /// rest of each weight (the decisions of the brackets above) kept as it is.
    pub(super) fn start_c9(&mut self) {
        let n = self.ps.len();
        self.c9 = true;
        let touches: Vec<bool> = (0..n)
            .map(|v| self.fin[v].is_none() && self.c9_games(&self.ps[v]) > 0)
            .collect();
        let mut changes = Vec::new();
        for a in 0..n {
            for b in a + 1..n {
                if !(touches[a] || touches[b]) || self.fin[a].is_some() || self.fin[b].is_some() {
                    continue;
                }
                let current = self.matching.weight(a, b);
                if current.is_zero() {
                    continue;
                }
                self.c9 = true;
                let with = self.base_weight(a, b, false, false);
                self.c9 = false;
                let without = self.base_weight(a, b, false, false);
                if with != without {
                    changes.push((a, b, current.add(&with.sub(&without))));
                }
            }
        }
        self.c9 = true;
        for (a, b, w) in changes {
            self.set(a, b, w);
        }
    }

    /// Whether C9 comes into force with this bracket: the number of players is odd, the
    /// bracket is at or below the score of the bye and, by the matching `m` (which already
    /// has the bracket's number of pairs, C6), exactly one of its players `current` floats
    /// down (unpaired, or paired with a player below `end`, the first sorted index of the
    /// scoregroups below the bracket).
    pub(super) fn c9_applies(&self, current: &[usize], end: usize, m: &[usize]) -> bool {
        let Some(&lowest) = current.last() else {
            return false;
        };
        !self.c9
            && self.ps.len() % 2 == 1
            && self.ps[lowest].score <= self.bye_score
            && current
                .iter()
                .filter(|&&v| m[v] == v || m[v] >= end)
                .count()
                == 1
    }

    /// Maximum-weight matching of the players not finalised yet; `m[v] == v` when unmatched.
    pub(super) fn compute(&mut self) -> Vec<usize> {
        #[cfg(test)]
        if super::tests::FRESH_SOLVES.get() {
            self.matching = self.matching.rebuilt();
        }
        let mate = self.matching.solve();
        (0..self.ps.len())
            .map(|v| self.fin[v].or(mate[v]).unwrap_or(v))
            .collect()
    }

    pub(super) fn finalize(&mut self, a: usize, b: usize) -> Result<(), PairError> {
        if a == b || self.fin[a].is_some() || self.fin[b].is_some() {
            return Err(PairError::NoValidPairing);
        }
        self.fin[a] = Some(b);
        self.fin[b] = Some(a);
        self.matching.fix(a, b);
        Ok(())
    }
}
