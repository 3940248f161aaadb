//! The brackets, from the top score down: each decision keeps the whole round completable.

use super::colour::choose_colour;
use super::{Ctx, Setup};
use crate::matching::Dynamic;
use crate::trf::Colour;
use crate::wide::Wide;
use crate::{PairError, Pairing};

/// The pairing proper, with weights of `64 * N` bits.
pub(super) fn pair_with<const N: usize>(setup: Setup) -> Result<Pairing, PairError> {
    let Setup {
        ps,
        w_bits,
        s_bits,
        u_bits,
        shift,
        played,
        last_round,
        initial,
    } = setup;
    let n = ps.len();
    let mut cx = Ctx::<N> {
        ps,
        w_bits,
        s_bits,
        shift,
        played,
        last_round,
        top_threshold: (played as u32 * 10) / 2,
        bye_score: 0,
        u_bits,
        c9: false,
        matching: Dynamic::new(n),
        fin: vec![None; n],
    };

    // Completability, and the score of the player who will get the bye.
    if n % 2 == 1 {
        let top = cx.ps[0].score;
        for a in 0..n {
            for b in a + 1..n {
                let (h, l) = (&cx.ps[a], &cx.ps[b]);
                let w = if cx.compatible(h, l) {
                    let v = 1 + !h.bye_ok as u64 + !l.bye_ok as u64;
                    Wide::<N>::from_u64(v)
                        .shl(s_bits)
                        .add_u64((cx.sh(h.score) + cx.sh(l.score)) as u64)
                        .shl(w_bits)
                        .add_u64((l.score >= top) as u64)
                } else {
                    Wide::<N>::ZERO
                };
                cx.set(a, b, w);
            }
        }
        let m = cx.compute();
        let unmatched: Vec<usize> = (0..n).filter(|&v| m[v] == v).collect();
        if unmatched.len() > 1 {
            return Err(PairError::NoValidPairing);
        }
        cx.bye_score = cx.ps[unmatched[0]].score;
        cx.matching = Dynamic::new(n);
    }
    for a in 0..n {
        for b in a + 1..n {
            let w = cx.base_weight(a, b, false, false);
            cx.set(a, b, w);
        }
    }
    // With an even number of players, the first bracket's matching (the first solve: the
    // completion criterion outweighs the rest) tells whether everybody can be paired.
    let mut check_complete = n % 2 == 0;

    let mut matched = vec![false; n];
    let mut next_start = 0;
    let mut bracket: Vec<usize> = Vec::new();
    while next_start < n && cx.ps[next_start].score >= cx.ps[0].score {
        bracket.push(next_start);
        next_start += 1;
    }
    let mut n_mdp = 0;
    let mut sgbv = 0;
    while bracket.len() > 1 || next_start < n {
        let cur_end = bracket.len();
        if next_start >= n && n_mdp == cur_end {
            // Only moved-down players are left and no bracket to take them: pair them as
            // the matching says.
            let mut m = cx.compute();
            if cx.c9_applies(&bracket, n, &m) {
                cx.start_c9();
                m = cx.compute();
            }
            for &v in &bracket {
                if cx.fin[v].is_none() && m[v] != v {
                    let u = m[v];
                    cx.finalize(v, u)?;
                }
            }
            break;
        }
        let nsgbv = sgbv + (cur_end - n_mdp);
        if next_start < n {
            let s = cx.ps[next_start].score;
            while next_start < n && cx.ps[next_start].score >= s {
                bracket.push(next_start);
                next_start += 1;
            }
        }
        let len = bracket.len();
        let mut base = vec![vec![Wide::<N>::ZERO; len]; len];
        let set_base = |cx: &mut Ctx<N>, base: &mut Vec<Vec<Wide<N>>>| {
            for b in n_mdp..len {
                for a in 0..b {
                    let w = cx.base_weight(bracket[a], bracket[b], b < cur_end, b >= cur_end);
                    base[b][a] = w;
                    cx.set(bracket[a], bracket[b], w);
                }
            }
        };
        set_base(&mut cx, &mut base);
        let in_res = |u: usize| u >= sgbv && u < nsgbv;
        let mut m = cx.compute();
        if check_complete {
            check_complete = false;
            if (0..n).any(|v| m[v] == v) {
                return Err(PairError::NoValidPairing);
            }
        }
        if cx.c9_applies(&bracket[..cur_end], nsgbv, &m) {
            cx.start_c9();
            set_base(&mut cx, &mut base);
            m = cx.compute();
        }

        // Which moved-down players are paired in this bracket.
        let mut cur_score = 0;
        let mut remaining = 0usize;
        let mut remaining_matched = 0usize;
        for idx in 0..n_mdp {
            let v = bracket[idx];
            if idx == 0 || cx.ps[v].score < cur_score {
                cur_score = cx.ps[v].score;
                remaining = 0;
                remaining_matched = 0;
                let mut j = idx;
                while j < len && cx.ps[bracket[j]].score >= cur_score {
                    remaining += 1;
                    if in_res(m[bracket[j]]) {
                        remaining_matched += 1;
                    }
                    j += 1;
                }
            }
            if remaining_matched == 0 {
                continue;
            }
            if remaining <= remaining_matched {
                matched[v] = true;
                continue;
            }
            remaining -= 1;
            if !in_res(m[v]) {
                for r in n_mdp..cur_end {
                    let bw = base[r][idx];
                    if !bw.is_zero() {
                        cx.set(v, bracket[r], bw.or_u64(1));
                    }
                }
                m = cx.compute();
            }
            if in_res(m[v]) {
                matched[v] = true;
                remaining_matched -= 1;
                for r in n_mdp..cur_end {
                    let bw = base[r][idx];
                    if !bw.is_zero() {
                        cx.set(
                            v,
                            bracket[r],
                            bw.or_u64((cur_end - n_mdp) as u64).add_u64(1),
                        );
                    }
                }
            }
        }

        // Their opponents: the highest-ranked resident that keeps the matching optimal.
        for idx in 0..n_mdp {
            let v = bracket[idx];
            if !matched[v] {
                continue;
            }
            let mut addend = len as u64;
            for r in (n_mdp..cur_end).rev() {
                let u = bracket[r];
                if matched[u] {
                    continue;
                }
                let bw = base[r][idx];
                if !bw.is_zero() {
                    cx.set(v, u, bw.add_u64(addend));
                    addend += 1;
                }
            }
            m = cx.compute();
            let u = m[v];
            matched[u] = true;
            cx.finalize(v, u)?;
        }

        // The remainder (homogeneous part): S1 and S2.
        let mut rem: Vec<usize> = Vec::new();
        let mut rem_pairs = 0usize;
        for (r, &v) in bracket.iter().enumerate().take(cur_end).skip(n_mdp) {
            if m[v] < sgbv {
                continue;
            }
            rem.push(r);
            if m[v] < v {
                rem_pairs += 1;
            }
        }
        if !rem.is_empty() {
            let w2 = 2 * w_bits;
            let ewc = |base: &Vec<Vec<Wide<N>>>, a: usize, b: usize, a_rem: usize| -> Wide<N> {
                let bw = base[b][a];
                if bw.is_zero() {
                    return bw;
                }
                let addend = Wide::<N>::from_u64((a_rem < rem_pairs) as u64)
                    .shl(w2)
                    .sub_u64(a_rem as u64)
                    .shl(1);
                bw.add(&addend)
            };
            for (ai, &a) in rem.iter().enumerate() {
                for &b in &rem[ai + 1..] {
                    let w = ewc(&base, a, b, ai);
                    cx.set(bracket[a], bracket[b], w);
                }
            }
            m = cx.compute();
            let head = |m: &Vec<usize>, v: usize| m[v] > v && m[v] < nsgbv;
            let exchange_count = rem[..rem_pairs]
                .iter()
                .filter(|&&r| !head(&m, bracket[r]))
                .count();

            // Exchange the lowest S1 players first.
            let mut ex_rem = exchange_count;
            let mut pos = rem_pairs;
            while pos > 0 && ex_rem > 0 {
                pos -= 1;
                let pi = rem[pos];
                let pv = bracket[pi];
                if head(&m, pv) {
                    for &o in &rem[pos + 1..] {
                        let w = ewc(&base, pi, o, pos);
                        if !w.is_zero() {
                            cx.set(pv, bracket[o], w.sub_u64(1));
                        }
                    }
                    m = cx.compute();
                }
                let exchange = !head(&m, pv);
                if exchange {
                    ex_rem -= 1;
                }
                for &o in &rem[pos + 1..] {
                    if exchange {
                        base[o][pi] = Wide::<N>::ZERO;
                    }
                    let w = ewc(&base, pi, o, pos);
                    cx.set(pv, bracket[o], w);
                }
            }

            // And the highest S2 players.
            let mut ex_rem = exchange_count;
            let mut pos = rem_pairs;
            while pos < rem.len() && ex_rem > 1 {
                let qi = rem[pos];
                let qv = bracket[qi];
                let already = head(&m, qv);
                if !already {
                    for &o in &rem[pos + 1..] {
                        let w = ewc(&base, qi, o, pos);
                        if !w.is_zero() {
                            cx.set(qv, bracket[o], w.add_u64(1));
                        }
                    }
                    m = cx.compute();
                }
                if head(&m, qv) {
                    ex_rem -= 1;
                    for &o in &rem[..pos] {
                        base[qi][o] = Wide::<N>::ZERO;
                        cx.set(qv, bracket[o], Wide::<N>::ZERO);
                    }
                    for nx in cur_end..len {
                        base[nx][qi] = Wide::<N>::ZERO;
                        cx.set(qv, bracket[nx], Wide::<N>::ZERO);
                    }
                }
                if !already {
                    for &o in &rem[pos + 1..] {
                        let w = ewc(&base, qi, o, pos);
                        cx.set(qv, bracket[o], w);
                    }
                }
                pos += 1;
            }

            // Fix the new S1: its players may only pair downwards, the others upwards.
            for (ai, &a) in rem.iter().enumerate() {
                let av = bracket[a];
                for &b in &rem[ai + 1..] {
                    let bv = bracket[b];
                    if !head(&m, av) || head(&m, bv) {
                        base[b][a] = Wide::<N>::ZERO;
                    }
                    cx.set(av, bv, base[b][a]);
                }
            }

            // Each S1 player in turn takes the highest S2 player possible.
            for (ai, &a) in rem.iter().enumerate() {
                let av = bracket[a];
                if !head(&m, av) {
                    continue;
                }
                let mut addend = 0u64;
                for &b in rem[ai + 1..].iter().rev() {
                    let bv = bracket[b];
                    if matched[bv] {
                        continue;
                    }
                    let bw = base[b][a];
                    if !bw.is_zero() {
                        cx.set(av, bv, bw.add_u64(addend));
                    }
                    addend += 1;
                }
                m = cx.compute();
                let u = m[av];
                matched[av] = true;
                matched[u] = true;
                cx.finalize(av, u)?;
            }
        }

        // Unpaired players move down.
        let mut next = Vec::new();
        let mut next_mdp = 0;
        for (idx, &v) in bracket.iter().enumerate() {
            if idx < cur_end && matched[v] {
                continue;
            }
            next.push(v);
            if idx < cur_end {
                next_mdp += 1;
            }
        }
        bracket = next;
        n_mdp = next_mdp;
        sgbv = nsgbv;
    }

    // Collect the pairs and the bye, with colours.
    let mut pairs = Vec::new();
    let mut bye = None;
    for v in 0..n {
        match cx.fin[v] {
            Some(u) if u > v => {
                let (a, b) = if cx.ps[v].number < cx.ps[u].number {
                    (v, u)
                } else {
                    (u, v)
                };
                let c = choose_colour(&cx.ps[a], &cx.ps[b], initial);
                let (pa, pb) = (cx.ps[a].number, cx.ps[b].number);
                pairs.push(if c == Colour::White {
                    (pa, pb)
                } else {
                    (pb, pa)
                });
            }
            Some(_) => {}
            None => {
                if bye.is_some() {
                    return Err(PairError::NoValidPairing);
                }
                bye = Some(cx.ps[v].number);
            }
        }
    }
    // Order of publication: higher score of the pair, lower score, rank of the higher.
    let key = |&(w, b): &(u32, u32)| {
        let pw = cx.ps.iter().find(|p| p.number == w).expect("player");
        let pb = cx.ps.iter().find(|p| p.number == b).expect("player");
        let (hi, lo) = if (pw.score, pb.rank) >= (pb.score, pw.rank) {
            (pw, pb)
        } else {
            (pb, pw)
        };
        (
            std::cmp::Reverse(hi.score),
            std::cmp::Reverse(lo.score),
            hi.rank,
        )
    };
    pairs.sort_by_key(key);
    Ok(Pairing { pairs, bye })
}
