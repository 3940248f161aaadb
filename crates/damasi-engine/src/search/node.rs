//! Node kinds as types: the node function is generic over its kind, so each kind gets its own
//! compiled copy with the checks for the other kinds folded away (no boolean flag travels down
//! the tree, and a root or PV rule cannot leak into a null-window node by mistake).

/// What kind of node a search call is.
pub(super) trait NodeKind {
    /// The root: its moves are the root moves, scored and kept across iterations.
    const ROOT: bool;
    /// A principal-variation node: searched with an open window, keeps its PV, never pruned
    /// by the null-window shortcuts (TT cut-offs, reverse futility, ProbCut, late-move
    /// pruning).
    const PV: bool;
    /// The kind of the first child, searched with this node's own window.
    type FirstChild: NodeKind;
}

/// The root node.
pub(super) struct Root;

/// A node on the principal variation (open window).
pub(super) struct Pv;

/// A node searched with a null window (expected to fail high or low).
pub(super) struct NonPv;

impl NodeKind for Root {
    const ROOT: bool = true;
    const PV: bool = true;
    type FirstChild = Pv;
}

impl NodeKind for Pv {
    const ROOT: bool = false;
    const PV: bool = true;
    type FirstChild = Pv;
}

impl NodeKind for NonPv {
    const ROOT: bool = false;
    const PV: bool = false;
    type FirstChild = NonPv;
}
