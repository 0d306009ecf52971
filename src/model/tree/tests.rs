//! Tests of the call tree.

use super::*;

fn tree_abc() -> CallTree {
    // a -> b -> c, a -> d, root e
    let mut t = CallTree::new(&[Metric::samples()]);
    let a = t.push(None, FrameId(0));
    let b = t.push(Some(a), FrameId(1));
    let c = t.push(Some(b), FrameId(2));
    let _d = t.push(Some(a), FrameId(3));
    let _e = t.push(None, FrameId(4));
    t.set_self(0, c, Value::Int(5));
    t.set_self(0, a, Value::Int(1));
    t
}

#[test]
fn walk_parts_make_up_the_walk() {
    let t = tree_abc();
    let whole: Vec<Visit> = t.walk().collect();
    for cut in 0..=6 {
        let parts: Vec<Visit> = [0..cut, cut..6].into_iter().flat_map(|r| t.walk_part(r).unwrap()).collect();
        assert_eq!(parts, whole, "cut at {cut}");
    }
    assert_eq!(t.ancestors(NodeId(2)), vec![NodeId(0), NodeId(1)]);
    assert_eq!(t.ancestors(NodeId(4)), vec![]);
    let mut unordered = tree_abc();
    unordered.push(Some(NodeId(1)), FrameId(5));
    assert!(unordered.walk_part(0..3).is_none());
}

/// Every stack a walk visits (its frames from the root down) and whether it ends at a leaf.
fn stacks_of(t: &CallTree, walk: Walk<'_>) -> Vec<(Vec<FrameId>, bool)> {
    let mut stacks = Vec::new();
    t.for_each_stack(walk, |visit, frames| {
        stacks.push((frames.to_vec(), visit.is_leaf));
        Ok::<(), ()>(())
    })
    .unwrap();
    stacks
}

/// Stretches of a walk through child lists make up the walk, each starting from the path to
/// its first node, whatever their size: one root's tree is cut below the root.
#[test]
fn walk_stretches_make_up_the_walk() {
    let mut t = CallTree::new(&[Metric::samples()]);
    let root = t.push(None, FrameId(0));
    let kids: Vec<NodeId> = (1..=50).map(|f| t.push(Some(root), FrameId(f))).collect();
    for grandkid in 100..103 {
        for &kid in &kids {
            t.push(Some(kid), FrameId(grandkid));
        }
    }
    t.push(None, FrameId(200));
    assert!(!t.is_preorder());
    let children = t.children();
    let whole = stacks_of(&t, t.walk_with(t.children()));
    assert_eq!(whole.len(), t.len());
    for size in [1, 2, 5, 7, 20, 201, 202, 1000] {
        let parts = t.walk_stretches(&children, size);
        assert_eq!(parts.len() > 1, size < 202, "{} parts of {size} nodes", parts.len());
        let walked: Vec<_> = parts.iter().flat_map(|part| stacks_of(&t, t.walk_stretch(&children, part))).collect();
        assert_eq!(walked, whole, "parts of {size} nodes");
    }
}

/// A deep chain with a wide fan at its bottom is cut where rebuilding the path to a part's first
/// node costs no more than the part before it: the paths rebuilt add up to no more than the
/// nodes, and the fan still goes to several parts.
#[test]
fn walk_stretches_of_a_deep_chain_rebuild_little() {
    let mut t = CallTree::new(&[Metric::samples()]);
    let root = t.push(None, FrameId(0));
    let mut at = root;
    for depth in 1..1_000 {
        at = t.push(Some(at), FrameId(depth % 3));
    }
    t.push(Some(root), FrameId(7));
    for leaf in 0..10_000 {
        t.push(Some(at), FrameId(8 + leaf));
    }
    assert!(!t.is_preorder());
    let children = t.children();
    let parts = t.walk_stretches(&children, 16);
    assert!(parts.len() > 5, "{} parts", parts.len());
    let rebuilt: usize = parts.iter().map(|part| t.walk_stretch(&children, part).ancestors().len()).sum();
    assert!(rebuilt <= t.len(), "paths rebuilt: {rebuilt} frames for {} nodes", t.len());
    let walked: Vec<_> = parts.iter().flat_map(|part| stacks_of(&t, t.walk_stretch(&children, part))).collect();
    assert_eq!(walked, stacks_of(&t, t.walk_with(t.children())));
}

#[test]
fn walk_is_preorder_with_depths() {
    let t = tree_abc();
    assert!(t.is_preorder());
    let expected = vec![(0, 0, false), (1, 1, false), (2, 2, true), (3, 1, true), (4, 0, true)];
    let arena: Vec<_> = t.walk().map(|v| (v.node.0, v.depth, v.is_leaf)).collect();
    assert_eq!(arena, expected);
    let lists: Vec<_> = t.walk_with(t.children()).map(|v| (v.node.0, v.depth, v.is_leaf)).collect();
    assert_eq!(lists, expected);
}

#[test]
fn derived_inclusive_decimal_drops_the_noise_of_adding_and_keeps_one_value_whole() {
    let time = Metric::time(crate::model::Unit::Milliseconds, crate::model::Repr::Float);
    let mut t = CallTree::new(&[time]);
    let root = t.push(None, FrameId(0));
    let a = t.push(Some(root), FrameId(1));
    let b = t.push(Some(root), FrameId(2));
    let alone = t.push(None, FrameId(3));
    t.set_self(0, a, Value::Float(0.1));
    t.set_self(0, b, Value::Float(0.2));
    t.set_self(0, alone, Value::Float(0.8205615629464091));
    // 0.1 + 0.2 is 0.30000000000000004 in binary: 0.3 by hand.
    assert_eq!(t.derived_inclusive(0).get(0).as_f64(), 0.30000000000000004);
    let decimal = t.derived_inclusive_decimal(0);
    assert_eq!((0..4).map(|n| decimal.get(n).as_f64()).collect::<Vec<_>>(), [0.3, 0.1, 0.2, 0.8205615629464091]);
}

#[test]
fn derived_inclusive_sums_subtrees() {
    let t = tree_abc();
    assert_eq!(t.derived_inclusive(0), Values::Int(vec![6, 5, 5, 0, 0]));
}

#[test]
fn deep_paths_do_not_recurse() {
    let mut t = CallTree::new(&[Metric::samples()]);
    t.push_chain(1_000_000, |_| FrameId(0));
    assert_eq!(t.walk().count(), 1_000_000);
    assert_eq!(t.walk_with(t.children()).count(), 1_000_000);
    assert_eq!(t.depths()[999_999], 999_999);
}

#[test]
fn out_of_order_pushes_are_walked_through_child_lists() {
    let mut t = tree_abc(); // a b c d e
    t.push(Some(NodeId(1)), FrameId(5)); // under b, after e: not pre-order any more
    assert!(!t.is_preorder());
    let order: Vec<u32> = t.walk().map(|v| v.node.0).collect();
    assert_eq!(order, vec![0, 1, 2, 5, 3, 4]);
}

#[test]
fn duplicate_siblings_are_noticed_while_reading_in_preorder() {
    let mut t = tree_abc();
    assert!(!t.has_duplicate_siblings(6));
    t.push(Some(NodeId(4)), FrameId(1));
    t.push(Some(NodeId(4)), FrameId(2));
    assert!(!t.has_duplicate_siblings(6));
    t.push(None, FrameId(0)); // a second root "a"
    assert!(t.has_duplicate_siblings(6));
}

/// Stacks added through the index, against the tree worked out by hand; a chain of new frames
/// leaves the table alone until one of its nodes gets a second child.
#[test]
fn child_index_keeps_only_children_out_of_its_table() {
    let mut t = CallTree::new(&[Metric::samples()]);
    let mut index = ChildIndex::default();
    fn add(index: &mut ChildIndex, t: &mut CallTree, stack: &[u32]) -> Option<u32> {
        let mut node = None;
        for &frame in stack {
            node = Some(index.child_or_insert(t, node, FrameId(frame)));
        }
        node.map(|n| n.0)
    }
    // Nodes: 0 a, 1 b, 2 c, 3 d (a second child of b), 4 e (of a); then found again.
    assert_eq!(add(&mut index, &mut t, &[0, 1, 2]), Some(2));
    assert_eq!(index.table.len(), 1, "only the root is in the table");
    assert_eq!(add(&mut index, &mut t, &[0, 1, 3]), Some(3));
    assert_eq!(add(&mut index, &mut t, &[0, 4]), Some(4));
    assert_eq!(
        [add(&mut index, &mut t, &[0, 1, 2]), add(&mut index, &mut t, &[0, 1, 3]), add(&mut index, &mut t, &[0, 4])],
        [Some(2), Some(3), Some(4)]
    );
    let shape: Vec<_> = t.nodes().map(|n| (t.parent(n).map(|p| p.0), t.frame(n).0)).collect();
    assert_eq!(shape, [(None, 0), (Some(0), 1), (Some(1), 2), (Some(1), 3), (Some(0), 4)]);
    // A chain a thousand deep is one entry, and is found again node by node.
    let chain: Vec<u32> = (10..1010).collect();
    assert_eq!(add(&mut index, &mut t, &chain), Some(1004));
    assert_eq!(index.table.len(), 6);
    assert_eq!(add(&mut index, &mut t, &chain), Some(1004));
    assert_eq!(t.len(), 1005);
    assert!(!t.has_duplicate_siblings(1010));
}

#[test]
fn duplicate_siblings_are_noticed_past_the_inline_list() {
    let mut t = CallTree::new(&[Metric::samples()]);
    let root = t.push(None, FrameId(0));
    for f in 1..=20 {
        t.push(Some(root), FrameId(f));
    }
    assert!(!t.has_duplicate_siblings(21));
    t.push(Some(root), FrameId(17));
    assert!(t.has_duplicate_siblings(21));
}
