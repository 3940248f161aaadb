//! Tests of `matching`.

use super::*;

fn w(x: u64) -> Wide<2> {
    Wide::from_u64(x)
}

fn brute(edges: &[(usize, usize, u64)]) -> u64 {
    fn rec(used: u32, edges: &[(usize, usize, u64)], from: usize) -> u64 {
        let mut best = 0;
        for k in from..edges.len() {
            let (a, b, x) = edges[k];
            if used & (1 << a) == 0 && used & (1 << b) == 0 {
                best = best.max(x + rec(used | 1 << a | 1 << b, edges, k + 1));
            }
        }
        best
    }
    rec(0, edges, 0)
}

#[test]
fn small_graphs_against_brute_force() {
    let mut seed: u64 = 12345;
    let mut rnd = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..400 {
        let n = 2 + (rnd() % 9) as usize;
        let mut edges = Vec::new();
        for a in 0..n {
            for b in a + 1..n {
                if rnd() % 3 != 0 {
                    edges.push((a, b, 1 + rnd() % 20));
                }
            }
        }
        let wide: Vec<_> = edges.iter().map(|&(a, b, x)| (a, b, w(x))).collect();
        let mate = max_weight_matching(n, &wide);
        let mut total = 0;
        for &(a, b, x) in &edges {
            if mate[a] == Some(b) {
                assert_eq!(mate[b], Some(a));
                total += x;
            }
        }
        assert_eq!(total, brute(&edges), "n={n} edges={edges:?}");
    }
}

/// Best `(pairs, weight)` over the matchings of `free` vertices by brute force.
fn brute_card(n: usize, wt: &[Vec<u64>], free: &[bool]) -> (u32, u64) {
    fn rec(v: usize, n: usize, wt: &[Vec<u64>], used: &mut Vec<bool>) -> (u32, u64) {
        let Some(v) = (v..n).find(|&v| !used[v]) else {
            return (0, 0);
        };
        used[v] = true;
        let mut best = rec(v + 1, n, wt, used);
        for u in v + 1..n {
            if !used[u] && wt[v][u] > 0 {
                used[u] = true;
                let (c, x) = rec(v + 1, n, wt, used);
                best = best.max((c + 1, x + wt[v][u]));
                used[u] = false;
            }
        }
        used[v] = false;
        best
    }
    let mut used: Vec<bool> = free.iter().map(|f| !f).collect();
    rec(0, n, wt, &mut used)
}

/// A [`Dynamic`] matching, changed one vertex or a few edges at a time and with pairs
/// fixed on the way, gives after each solve the largest number of pairs and, among
/// those, the largest weight (checked by brute force).
#[test]
#[allow(clippy::needless_range_loop)] // indices are vertices of a matrix
fn dynamic_matching_against_brute_force() {
    let mut seed: u64 = 777;
    let mut rnd = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut checked = 0;
    for _ in 0..300 {
        let n = 2 + (rnd() % 10) as usize;
        let mut wt = vec![vec![0u64; n]; n];
        let mut free = vec![true; n];
        let mut d = Dynamic::<2>::new(n);
        for a in 0..n {
            for b in a + 1..n {
                if rnd() % 4 != 0 {
                    let x = 1 + rnd() % 30;
                    wt[a][b] = x;
                    wt[b][a] = x;
                    d.set(a, b, w(x));
                }
            }
        }
        for _step in 0..12 {
            let (pairs, best) = brute_card(n, &wt, &free);
            let live = free.iter().filter(|&&f| f).count();
            if (pairs as usize) < live / 2 {
                break; // no near-perfect matching: outside what Dynamic promises
            }
            let mate = d.solve();
            let mut total = 0;
            let mut count = 0;
            for v in 0..n {
                if let Some(u) = mate[v] {
                    assert_eq!(mate[u], Some(v));
                    if free[v] && v < u {
                        assert!(wt[v][u] > 0, "matched along a missing edge");
                        total += wt[v][u];
                        count += 1;
                    }
                }
            }
            assert_eq!(
                (count, total),
                (pairs, best),
                "n={n} wt={wt:?} free={free:?}"
            );
            checked += 1;
            match rnd() % 3 {
                // Fix a matched pair.
                0 => {
                    if let Some(v) = (0..n).find(|&v| free[v] && mate[v].is_some()) {
                        let u = mate[v].unwrap();
                        d.fix(v, u);
                        free[v] = false;
                        free[u] = false;
                        for x in 0..n {
                            if x != u {
                                wt[v][x] = 0;
                                wt[x][v] = 0;
                            }
                            if x != v {
                                wt[u][x] = 0;
                                wt[x][u] = 0;
                            }
                        }
                    }
                }
                // New weights on the edges of one vertex.
                1 => {
                    let v = (rnd() % n as u64) as usize;
                    if free[v] {
                        for x in 0..n {
                            if x != v && free[x] {
                                let y = if rnd() % 5 == 0 { 0 } else { 1 + rnd() % 30 };
                                wt[v][x] = y;
                                wt[x][v] = y;
                                d.set(v, x, w(y));
                            }
                        }
                    }
                }
                // A few edges anywhere.
                _ => {
                    for _ in 0..3 {
                        let a = (rnd() % n as u64) as usize;
                        let b = (rnd() % n as u64) as usize;
                        if a != b && free[a] && free[b] {
                            let y = if rnd() % 5 == 0 { 0 } else { 1 + rnd() % 30 };
                            wt[a][b] = y;
                            wt[b][a] = y;
                            d.set(a, b, w(y));
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 500, "only {checked} solves checked");
}
