//! Maximum-weight matching in a general graph (Edmonds' blossom algorithm with dual
//! variables, the O(n³) form described by Galil, "Efficient algorithms for finding maximum
//! matching in graphs", ACM Computing Surveys 1986).
//!
//! Weights are [`Wide`] integers; they are doubled internally so that every dual variable
//! stays integral.
//!
//! The Dutch code uses [`Dynamic`]: one matching kept up to date over a round's hundreds of
//! decisions, each of which changes a few edges, instead of a new matching per decision
//! (that made a round of 1,000 players take hours). [`max_weight_matching`], the plain
//! algorithm, stays for the tests.

use crate::wide::Wide;

const NONE: usize = usize::MAX;

/// Computes a maximum-weight matching of the graph with `n` vertices and the given edges
/// `(u, v, weight)` (weights positive, no self loops, at most one edge per pair).
///
/// Returns `mate[v]`, the vertex matched to `v`, or `None`.
#[cfg(test)]
pub(crate) fn max_weight_matching<const N: usize>(
    n: usize,
    edges: &[(usize, usize, Wide<N>)],
) -> Vec<Option<usize>> {
    if n == 0 || edges.is_empty() {
        return vec![None; n];
    }
    let mut m = Matcher::new(n, edges);
    m.solve();
    m.mate
        .iter()
        .map(|&p| if p == NONE { None } else { Some(m.endpoint[p]) })
        .collect()
}

/// A maximum-weight matching of `players` vertices kept up to date while edge weights
/// change, for the Dutch system's long series of decisions where each one changes the
/// edges of one or two players.
///
/// The dual solution is kept between solves. Changing an edge only disturbs the solution
/// where it must: the endpoint is taken out of its blossoms (their duals move to its
/// vertices, so every other edge stays feasible), unmatched, and its dual raised until
/// its edges are feasible again; the next [`Dynamic::solve`] then only re-augments the
/// few vertices left exposed. Every pair is an edge, switched on by a non-zero weight; an
/// odd number of players gets a dummy vertex joined to all by weight-0 edges, so the
/// matching is perfect and the search runs in perfect mode (see [`Matcher::perfect`]).
/// Callers must keep a matching of all players (less one when odd) possible, which the
/// Dutch code's completion criterion does.
pub(crate) struct Dynamic<const N: usize> {
    m: Matcher<N>,
    players: usize,
    /// Nothing solved yet: the first solve starts from uniform duals.
    fresh: bool,
    /// Vertices whose duals must be raised to make their edges feasible before a solve.
    dirty: Vec<usize>,
    is_dirty: Vec<bool>,
}

impl<const N: usize> Dynamic<N> {
    /// `players` vertices and no edges.
    pub(crate) fn new(players: usize) -> Dynamic<N> {
        let nv = players + players % 2;
        let mut edges = Vec::with_capacity(nv * nv.saturating_sub(1) / 2);
        for a in 0..nv {
            for b in a + 1..nv {
                edges.push((a, b, Wide::ZERO));
            }
        }
        let mut m = Matcher::new(nv, &edges);
        m.perfect = true;
        for k in 0..edges.len() {
            m.set_edge(k, Wide::ZERO, false);
        }
        let mut d = Dynamic {
            m,
            players,
            fresh: true,
            dirty: Vec::new(),
            is_dirty: vec![false; nv],
        };
        if nv > players {
            for a in 0..players {
                let k = d.edge(a, players);
                d.m.set_edge(k, Wide::ZERO, true);
            }
        }
        d
    }

    /// The same graph with nothing solved: its next solve starts from scratch. The tests
    /// use it to check that the kept solution decides as a new one would.
    #[cfg(test)]
    pub(crate) fn rebuilt(&self) -> Dynamic<N> {
        let mut d = Dynamic::new(self.players);
        d.m.ew.clone_from(&self.m.ew);
        d.m.present.clone_from(&self.m.present);
        d.m.nbw.clone_from(&self.m.nbw);
        d.m.nbon.clone_from(&self.m.nbon);
        d
    }

    /// Index of the edge between `a` and `b`.
    fn edge(&self, a: usize, b: usize) -> usize {
        let (a, b) = if a < b { (a, b) } else { (b, a) };
        let n = self.m.nv;
        a * n - a * (a + 1) / 2 + (b - a - 1)
    }

    /// The vertex matched to `v`, if any.
    fn mate_of(&self, v: usize) -> Option<usize> {
        let p = self.m.mate[v];
        (p != NONE).then(|| self.m.endpoint[p])
    }

    /// The weight between `a` and `b` as last set (zero: no edge).
    pub(crate) fn weight(&self, a: usize, b: usize) -> Wide<N> {
        let k = self.edge(a, b);
        if self.m.present[k] {
            // Stored four times over (see `set`).
            self.m.ew[k].shr1().shr1()
        } else {
            Wide::ZERO
        }
    }

    /// Sets the weight between `a` and `b` (zero: no edge). When the current solution must
    /// change, `a` is the endpoint taken out of it.
    pub(crate) fn set(&mut self, a: usize, b: usize, w: Wide<N>) {
        let k = self.edge(a, b);
        let w4 = w.shl(2);
        let present = !w.is_zero();
        if self.m.present[k] == present && (!present || self.m.ew[k] == w4) {
            return;
        }
        if !self.fresh {
            let m = &self.m;
            let disturbs = m.inblossom[a] == m.inblossom[b]
                || self.mate_of(a) == Some(b)
                || (present && m.dualvar[a].add(&m.dualvar[b]).sub(&w4).is_negative());
            if disturbs {
                self.touch(a);
            }
        }
        self.m.set_edge(k, w4, present);
    }

    /// Takes `v` out of the solution: out of every blossom, unmatched, its dual to be
    /// raised before the next solve.
    fn touch(&mut self, v: usize) {
        self.make_trivial(v);
        self.unmatch(v);
        if !self.is_dirty[v] {
            self.is_dirty[v] = true;
            self.dirty.push(v);
        }
    }

    fn unmatch(&mut self, v: usize) {
        if let Some(q) = self.mate_of(v) {
            self.m.mate[v] = NONE;
            self.m.mate[q] = NONE;
        }
    }

    /// Dissolves the blossoms around `v`, from the outermost in.
    fn make_trivial(&mut self, v: usize) {
        while self.m.inblossom[v] != v {
            let b = self.m.inblossom[v];
            self.dissolve(b);
        }
    }

    /// Dissolves the top-level blossom `b`: its dual moves to its vertices, which keeps
    /// every edge inside it as tight as it was and loosens the edges leaving it, so the
    /// base's matched edge (if the dual was not zero) is unmatched.
    fn dissolve(&mut self, b: usize) {
        let m = &mut self.m;
        let z = m.dualvar[b];
        let leaves = m.leaves_of(b);
        if !z.is_zero() {
            for &l in &leaves {
                m.dualvar[l] = m.dualvar[l].add(&z);
            }
        }
        let base = m.blossombase[b];
        let children = std::mem::take(&mut m.blossomchilds[b]);
        for &s in &children {
            m.blossomparent[s] = NONE;
            if s < m.nv {
                m.inblossom[s] = s;
            } else {
                for l in m.leaves_of(s) {
                    m.inblossom[l] = s;
                }
            }
        }
        m.label[b] = 0;
        m.labelend[b] = NONE;
        m.blossomendps[b] = Vec::new();
        m.blossombase[b] = NONE;
        m.blossombestedges[b] = None;
        m.bestedge[b] = NONE;
        m.dualvar[b] = Wide::ZERO;
        m.unusedblossoms.push(b);
        if !z.is_zero() {
            self.unmatch(base);
        }
    }

    /// Fixes the pair `a`-`b`, matched by the last solve: they stay matched to each other
    /// and leave the rest of the graph.
    pub(crate) fn fix(&mut self, a: usize, b: usize) {
        self.make_trivial(a);
        self.make_trivial(b);
        let k = self.edge(a, b);
        for v in [a, b] {
            self.is_dirty[v] = false;
            for i in 0..self.m.neighbend[v].len() {
                let p = self.m.neighbend[v][i];
                if p / 2 != k {
                    self.m.set_edge(p / 2, Wide::ZERO, false);
                }
            }
        }
        if self.mate_of(a) != Some(b) {
            self.unmatch(a);
            self.unmatch(b);
            // Only this edge is left at `a`: making it tight keeps every dual feasible.
            self.m.dualvar[a] = self.m.ew[k].sub(&self.m.dualvar[b]);
            let (u, _) = (self.m.eu[k], self.m.ev[k]);
            let (pa, pb) = if u == a {
                (2 * k + 1, 2 * k)
            } else {
                (2 * k, 2 * k + 1)
            };
            self.m.mate[a] = pa;
            self.m.mate[b] = pb;
        }
    }

    /// Brings the matching back to a maximum-weight one and returns each player's mate.
    pub(crate) fn solve(&mut self) -> Vec<Option<usize>> {
        let m = &mut self.m;
        if self.fresh {
            self.fresh = false;
            let mut maxweight = Wide::ZERO;
            for k in 0..m.ew.len() {
                if m.present[k] && m.ew[k] > maxweight {
                    maxweight = m.ew[k];
                }
            }
            let maxweight = maxweight.shr1();
            for v in 0..m.nv {
                m.dualvar[v] = maxweight;
            }
        }
        for v in std::mem::take(&mut self.dirty) {
            if !self.is_dirty[v] {
                continue;
            }
            self.is_dirty[v] = false;
            if m.mate[v] != NONE {
                continue;
            }
            let mut need: Option<Wide<N>> = None;
            for (i, &p) in m.neighbend[v].iter().enumerate() {
                if m.nbon[v][i] {
                    let r = m.nbw[v][i].sub(&m.dualvar[m.endpoint[p]]);
                    if need.is_none_or(|n| r > n) {
                        need = Some(r);
                    }
                }
            }
            if let Some(r) = need {
                if r > m.dualvar[v] {
                    m.dualvar[v] = r;
                }
            }
        }
        m.solve();
        (0..self.players)
            .map(|v| self.mate_of(v).filter(|&u| u < self.players))
            .collect()
    }
}

struct Matcher<const N: usize> {
    nv: usize,
    /// Edge endpoints.
    eu: Vec<usize>,
    ev: Vec<usize>,
    /// Four times each edge's weight: the doubled weight the duals are measured against,
    /// doubled once more so that the slack needs no shift.
    ew: Vec<Wide<N>>,
    /// `endpoint[2k] = eu[k]`, `endpoint[2k+1] = ev[k]`.
    endpoint: Vec<usize>,
    /// For each vertex, the remote endpoints of its edges.
    neighbend: Vec<Vec<usize>>,
    /// For each vertex, `ew` and `present` of its edges in the order of `neighbend`: the scan
    /// of a vertex's edges, the inner loop, then reads memory in order.
    nbw: Vec<Vec<Wide<N>>>,
    nbon: Vec<Vec<bool>>,
    /// Where edge `k` is in `neighbend[eu[k]]` and `neighbend[ev[k]]`.
    nbpos: Vec<[usize; 2]>,
    /// For each vertex, the remote endpoint of its matched edge, or NONE.
    mate: Vec<usize>,
    /// Label of each vertex / blossom: 0 free, 1 S, 2 T (bit 4 is a scan mark).
    label: Vec<u8>,
    labelend: Vec<usize>,
    inblossom: Vec<usize>,
    blossomparent: Vec<usize>,
    blossomchilds: Vec<Vec<usize>>,
    blossombase: Vec<usize>,
    blossomendps: Vec<Vec<usize>>,
    bestedge: Vec<usize>,
    blossombestedges: Vec<Option<Vec<usize>>>,
    unusedblossoms: Vec<usize>,
    dualvar: Vec<Wide<N>>,
    allowedge: Vec<bool>,
    queue: Vec<usize>,
    /// Whether each edge exists (a [`Dynamic`] matching keeps every pair as an edge and
    /// switches them on and off).
    present: Vec<bool>,
    /// Perfect-matching mode: vertex duals may go negative and the search only stops when
    /// no augmenting path is left (no `delta1`), so a warm start with exposed vertices of
    /// unequal duals is still solved to optimality.
    perfect: bool,
}

impl<const N: usize> Matcher<N> {
    fn new(n: usize, edges: &[(usize, usize, Wide<N>)]) -> Matcher<N> {
        let ne = edges.len();
        let mut eu = Vec::with_capacity(ne);
        let mut ev = Vec::with_capacity(ne);
        let mut ew = Vec::with_capacity(ne);
        let mut endpoint = Vec::with_capacity(2 * ne);
        let mut neighbend = vec![Vec::new(); n];
        let mut nbw = vec![Vec::new(); n];
        let mut nbpos = Vec::with_capacity(ne);
        let mut maxweight = Wide::ZERO;
        for (k, &(u, v, w)) in edges.iter().enumerate() {
            let w2 = w.shl(1);
            if w2 > maxweight {
                maxweight = w2;
            }
            eu.push(u);
            ev.push(v);
            ew.push(w2.shl(1));
            endpoint.push(u);
            endpoint.push(v);
            nbpos.push([neighbend[u].len(), neighbend[v].len()]);
            neighbend[u].push(2 * k + 1);
            neighbend[v].push(2 * k);
            nbw[u].push(w2.shl(1));
            nbw[v].push(w2.shl(1));
        }
        let nbon = neighbend.iter().map(|l| vec![true; l.len()]).collect();
        let mut dualvar = vec![maxweight; n];
        dualvar.extend(std::iter::repeat_n(Wide::ZERO, n));
        Matcher {
            nv: n,
            eu,
            ev,
            ew,
            endpoint,
            neighbend,
            nbw,
            nbon,
            nbpos,
            mate: vec![NONE; n],
            label: vec![0; 2 * n],
            labelend: vec![NONE; 2 * n],
            inblossom: (0..n).collect(),
            blossomparent: vec![NONE; 2 * n],
            blossomchilds: vec![Vec::new(); 2 * n],
            blossombase: (0..n).chain(std::iter::repeat_n(NONE, n)).collect(),
            blossomendps: vec![Vec::new(); 2 * n],
            bestedge: vec![NONE; 2 * n],
            blossombestedges: vec![None; 2 * n],
            unusedblossoms: (n..2 * n).collect(),
            dualvar,
            allowedge: vec![false; ne],
            queue: Vec::new(),
            present: vec![true; ne],
            perfect: false,
        }
    }

    /// Sets edge `k`'s weight (four times the weight) and whether it exists.
    fn set_edge(&mut self, k: usize, w4: Wide<N>, on: bool) {
        self.ew[k] = w4;
        self.present[k] = on;
        for (v, pos) in [self.eu[k], self.ev[k]].into_iter().zip(self.nbpos[k]) {
            self.nbw[v][pos] = w4;
            self.nbon[v][pos] = on;
        }
    }

    fn slack(&self, k: usize) -> Wide<N> {
        self.dualvar[self.eu[k]]
            .add(&self.dualvar[self.ev[k]])
            .sub(&self.ew[k])
    }

    fn leaves(&self, b: usize, out: &mut Vec<usize>) {
        if b < self.nv {
            out.push(b);
        } else {
            for &t in &self.blossomchilds[b] {
                self.leaves(t, out);
            }
        }
    }

    fn leaves_of(&self, b: usize) -> Vec<usize> {
        let mut v = Vec::new();
        self.leaves(b, &mut v);
        v
    }

    fn assign_label(&mut self, w: usize, t: u8, p: usize) {
        let b = self.inblossom[w];
        self.label[w] = t;
        self.label[b] = t;
        self.labelend[w] = p;
        self.labelend[b] = p;
        self.bestedge[w] = NONE;
        self.bestedge[b] = NONE;
        if t == 1 {
            let leaves = self.leaves_of(b);
            self.queue.extend(leaves);
        } else if t == 2 {
            let base = self.blossombase[b];
            let mb = self.mate[base];
            self.assign_label(self.endpoint[mb], 1, mb ^ 1);
        }
    }

    fn scan_blossom(&mut self, mut v: usize, mut w: usize) -> usize {
        let mut path = Vec::new();
        let mut base = NONE;
        while v != NONE || w != NONE {
            let mut b = self.inblossom[v];
            if self.label[b] & 4 != 0 {
                base = self.blossombase[b];
                break;
            }
            path.push(b);
            self.label[b] = 5;
            if self.labelend[b] == NONE {
                v = NONE;
            } else {
                v = self.endpoint[self.labelend[b]];
                b = self.inblossom[v];
                v = self.endpoint[self.labelend[b]];
            }
            if w != NONE {
                std::mem::swap(&mut v, &mut w);
            }
        }
        for b in path {
            self.label[b] = 1;
        }
        base
    }

    fn add_blossom(&mut self, base: usize, k: usize) {
        let (mut v, mut w) = (self.eu[k], self.ev[k]);
        let bb = self.inblossom[base];
        let mut bv = self.inblossom[v];
        let mut bw = self.inblossom[w];
        let b = self.unusedblossoms.pop().expect("blossom slot");
        self.blossombase[b] = base;
        self.blossomparent[b] = NONE;
        self.blossomparent[bb] = b;
        let mut path = Vec::new();
        let mut endps = Vec::new();
        while bv != bb {
            self.blossomparent[bv] = b;
            path.push(bv);
            endps.push(self.labelend[bv]);
            v = self.endpoint[self.labelend[bv]];
            bv = self.inblossom[v];
        }
        path.push(bb);
        path.reverse();
        endps.reverse();
        endps.push(2 * k);
        while bw != bb {
            self.blossomparent[bw] = b;
            path.push(bw);
            endps.push(self.labelend[bw] ^ 1);
            w = self.endpoint[self.labelend[bw]];
            bw = self.inblossom[w];
        }
        self.label[b] = 1;
        self.labelend[b] = self.labelend[bb];
        self.dualvar[b] = Wide::ZERO;
        self.blossomchilds[b] = path.clone();
        self.blossomendps[b] = endps;
        for v in self.leaves_of(b) {
            if self.label[self.inblossom[v]] == 2 {
                self.queue.push(v);
            }
            self.inblossom[v] = b;
        }
        let mut bestedgeto = vec![NONE; 2 * self.nv];
        for &bv in &path {
            let nblists: Vec<Vec<usize>> = match self.blossombestedges[bv].take() {
                None => self
                    .leaves_of(bv)
                    .into_iter()
                    .map(|v| self.neighbend[v].iter().map(|p| p / 2).collect())
                    .collect(),
                Some(list) => vec![list],
            };
            for nblist in nblists {
                for k in nblist {
                    if !self.present[k] {
                        continue;
                    }
                    let (mut i, mut j) = (self.eu[k], self.ev[k]);
                    if self.inblossom[j] == b {
                        std::mem::swap(&mut i, &mut j);
                    }
                    let _ = i;
                    let bj = self.inblossom[j];
                    if bj != b
                        && self.label[bj] == 1
                        && (bestedgeto[bj] == NONE || self.slack(k) < self.slack(bestedgeto[bj]))
                    {
                        bestedgeto[bj] = k;
                    }
                }
            }
            self.bestedge[bv] = NONE;
        }
        let list: Vec<usize> = bestedgeto.into_iter().filter(|&k| k != NONE).collect();
        let mut best = NONE;
        for &k in &list {
            if best == NONE || self.slack(k) < self.slack(best) {
                best = k;
            }
        }
        self.blossombestedges[b] = Some(list);
        self.bestedge[b] = best;
    }

    fn expand_blossom(&mut self, b: usize, endstage: bool) {
        let childs = self.blossomchilds[b].clone();
        for &s in &childs {
            self.blossomparent[s] = NONE;
            if s < self.nv {
                self.inblossom[s] = s;
            } else if endstage && self.dualvar[s].is_zero() {
                self.expand_blossom(s, endstage);
            } else {
                for v in self.leaves_of(s) {
                    self.inblossom[v] = s;
                }
            }
        }
        if !endstage && self.label[b] == 2 {
            let entrychild = self.inblossom[self.endpoint[self.labelend[b] ^ 1]];
            let len = childs.len() as isize;
            let mut j = childs
                .iter()
                .position(|&c| c == entrychild)
                .expect("entry child") as isize;
            let (jstep, endptrick): (isize, usize) = if j & 1 == 1 {
                j -= len;
                (1, 0)
            } else {
                (-1, 1)
            };
            let idx = |j: isize| -> usize { j.rem_euclid(len) as usize };
            let mut p = self.labelend[b];
            while j != 0 {
                let e = self.blossomendps[b][idx(j - endptrick as isize)];
                self.label[self.endpoint[p ^ 1]] = 0;
                self.label[self.endpoint[e ^ endptrick ^ 1]] = 0;
                self.assign_label(self.endpoint[p ^ 1], 2, p);
                self.allowedge[e / 2] = true;
                j += jstep;
                p = self.blossomendps[b][idx(j - endptrick as isize)] ^ endptrick;
                self.allowedge[p / 2] = true;
                j += jstep;
            }
            let bv = childs[idx(j)];
            let ep = self.endpoint[p ^ 1];
            self.label[ep] = 2;
            self.label[bv] = 2;
            self.labelend[ep] = p;
            self.labelend[bv] = p;
            self.bestedge[bv] = NONE;
            j += jstep;
            while childs[idx(j)] != entrychild {
                let bv = childs[idx(j)];
                if self.label[bv] == 1 {
                    j += jstep;
                    continue;
                }
                let mut found = NONE;
                for v in self.leaves_of(bv) {
                    if self.label[v] != 0 {
                        found = v;
                        break;
                    }
                }
                if found != NONE {
                    let v = found;
                    self.label[v] = 0;
                    let mb = self.mate[self.blossombase[bv]];
                    self.label[self.endpoint[mb]] = 0;
                    let le = self.labelend[v];
                    self.assign_label(v, 2, le);
                }
                j += jstep;
            }
        }
        self.label[b] = 0;
        self.labelend[b] = NONE;
        self.blossomchilds[b] = Vec::new();
        self.blossomendps[b] = Vec::new();
        self.blossombase[b] = NONE;
        self.blossombestedges[b] = None;
        self.bestedge[b] = NONE;
        self.unusedblossoms.push(b);
    }

    fn augment_blossom(&mut self, b: usize, v: usize) {
        let mut t = v;
        while self.blossomparent[t] != b {
            t = self.blossomparent[t];
        }
        if t >= self.nv {
            self.augment_blossom(t, v);
        }
        let len = self.blossomchilds[b].len() as isize;
        let i = self.blossomchilds[b]
            .iter()
            .position(|&c| c == t)
            .expect("child") as isize;
        let mut j = i;
        let (jstep, endptrick): (isize, usize) = if i & 1 == 1 {
            j -= len;
            (1, 0)
        } else {
            (-1, 1)
        };
        let idx = |j: isize| -> usize { j.rem_euclid(len) as usize };
        while j != 0 {
            j += jstep;
            let t = self.blossomchilds[b][idx(j)];
            let p = self.blossomendps[b][idx(j - endptrick as isize)] ^ endptrick;
            if t >= self.nv {
                self.augment_blossom(t, self.endpoint[p]);
            }
            j += jstep;
            let t = self.blossomchilds[b][idx(j)];
            if t >= self.nv {
                self.augment_blossom(t, self.endpoint[p ^ 1]);
            }
            self.mate[self.endpoint[p]] = p ^ 1;
            self.mate[self.endpoint[p ^ 1]] = p;
        }
        let i = i as usize;
        self.blossomchilds[b].rotate_left(i);
        self.blossomendps[b].rotate_left(i);
        self.blossombase[b] = self.blossombase[self.blossomchilds[b][0]];
    }

    fn augment_matching(&mut self, k: usize) {
        let (v, w) = (self.eu[k], self.ev[k]);
        for (mut s, mut p) in [(v, 2 * k + 1), (w, 2 * k)] {
            loop {
                let bs = self.inblossom[s];
                if bs >= self.nv {
                    self.augment_blossom(bs, s);
                }
                self.mate[s] = p;
                if self.labelend[bs] == NONE {
                    break;
                }
                let t = self.endpoint[self.labelend[bs]];
                let bt = self.inblossom[t];
                s = self.endpoint[self.labelend[bt]];
                let j = self.endpoint[self.labelend[bt] ^ 1];
                if bt >= self.nv {
                    self.augment_blossom(bt, j);
                }
                self.mate[j] = self.labelend[bt];
                p = self.labelend[bt] ^ 1;
            }
        }
    }

    fn solve(&mut self) {
        let n = self.nv;
        for _ in 0..n {
            self.label.iter_mut().for_each(|l| *l = 0);
            self.bestedge.iter_mut().for_each(|e| *e = NONE);
            for b in n..2 * n {
                self.blossombestedges[b] = None;
            }
            self.allowedge.iter_mut().for_each(|a| *a = false);
            self.queue.clear();
            for v in 0..n {
                if self.mate[v] == NONE && self.label[self.inblossom[v]] == 0 {
                    self.assign_label(v, 1, NONE);
                }
            }
            let mut augmented = false;
            loop {
                while let Some(v) = self.queue.pop() {
                    if augmented {
                        break;
                    }
                    for pi in 0..self.neighbend[v].len() {
                        if !self.nbon[v][pi] {
                            continue;
                        }
                        let p = self.neighbend[v][pi];
                        let k = p / 2;
                        let w = self.endpoint[p];
                        if self.inblossom[v] == self.inblossom[w] {
                            continue;
                        }
                        let mut kslack = Wide::ZERO;
                        if !self.allowedge[k] {
                            kslack = self.dualvar[v].add(&self.dualvar[w]).sub(&self.nbw[v][pi]);
                            if kslack <= Wide::ZERO {
                                self.allowedge[k] = true;
                            }
                        }
                        if self.allowedge[k] {
                            if self.label[self.inblossom[w]] == 0 {
                                self.assign_label(w, 2, p ^ 1);
                            } else if self.label[self.inblossom[w]] == 1 {
                                let base = self.scan_blossom(v, w);
                                if base != NONE {
                                    self.add_blossom(base, k);
                                } else {
                                    self.augment_matching(k);
                                    augmented = true;
                                    break;
                                }
                            } else if self.label[w] == 0 {
                                self.label[w] = 2;
                                self.labelend[w] = p ^ 1;
                            }
                        } else if self.label[self.inblossom[w]] == 1 {
                            let b = self.inblossom[v];
                            if self.bestedge[b] == NONE || kslack < self.slack(self.bestedge[b]) {
                                self.bestedge[b] = k;
                            }
                        } else if self.label[w] == 0
                            && (self.bestedge[w] == NONE || kslack < self.slack(self.bestedge[w]))
                        {
                            self.bestedge[w] = k;
                        }
                    }
                }
                if augmented {
                    break;
                }
                // Dual adjustment.
                // Type 0: none found yet (only in perfect mode, where there is no type 1).
                let mut deltatype = 0;
                let mut delta = Wide::ZERO;
                if !self.perfect {
                    deltatype = 1;
                    delta = self.dualvar[..n]
                        .iter()
                        .min()
                        .copied()
                        .unwrap_or(Wide::ZERO);
                }
                let mut deltaedge = NONE;
                let mut deltablossom = NONE;
                for v in 0..n {
                    if self.label[self.inblossom[v]] == 0 && self.bestedge[v] != NONE {
                        let d = self.slack(self.bestedge[v]);
                        if deltatype == 0 || d < delta {
                            delta = d;
                            deltatype = 2;
                            deltaedge = self.bestedge[v];
                        }
                    }
                }
                for b in 0..2 * n {
                    if self.blossomparent[b] == NONE
                        && self.label[b] == 1
                        && self.bestedge[b] != NONE
                    {
                        let d = self.slack(self.bestedge[b]).shr1();
                        if deltatype == 0 || d < delta {
                            delta = d;
                            deltatype = 3;
                            deltaedge = self.bestedge[b];
                        }
                    }
                }
                for b in n..2 * n {
                    if self.blossombase[b] != NONE
                        && self.blossomparent[b] == NONE
                        && self.label[b] == 2
                        && (deltatype == 0 || self.dualvar[b] < delta)
                    {
                        delta = self.dualvar[b];
                        deltatype = 4;
                        deltablossom = b;
                    }
                }
                if deltatype == 0 {
                    // Perfect mode, and no augmenting path is left: the matching has the
                    // largest cardinality possible.
                    break;
                }
                for v in 0..n {
                    match self.label[self.inblossom[v]] {
                        1 => self.dualvar[v] = self.dualvar[v].sub(&delta),
                        2 => self.dualvar[v] = self.dualvar[v].add(&delta),
                        _ => {}
                    }
                }
                for b in n..2 * n {
                    if self.blossombase[b] != NONE && self.blossomparent[b] == NONE {
                        match self.label[b] {
                            1 => self.dualvar[b] = self.dualvar[b].add(&delta),
                            2 => self.dualvar[b] = self.dualvar[b].sub(&delta),
                            _ => {}
                        }
                    }
                }
                match deltatype {
                    1 => break,
                    2 => {
                        self.allowedge[deltaedge] = true;
                        let (mut i, j) = (self.eu[deltaedge], self.ev[deltaedge]);
                        if self.label[self.inblossom[i]] == 0 {
                            i = j;
                        }
                        self.queue.push(i);
                    }
                    3 => {
                        self.allowedge[deltaedge] = true;
                        self.queue.push(self.eu[deltaedge]);
                    }
                    _ => self.expand_blossom(deltablossom, false),
                }
            }
            if !augmented {
                break;
            }
            for b in n..2 * n {
                if self.blossomparent[b] == NONE
                    && self.blossombase[b] != NONE
                    && self.label[b] == 1
                    && self.dualvar[b].is_zero()
                {
                    self.expand_blossom(b, true);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;
