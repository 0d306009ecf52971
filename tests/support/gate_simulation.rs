//! The gate's false alarms and power, by simulation: pairs of profiles drawn from one known
//! distribution (the stacks of a real profile, `fixtures/cpuprofile/work.cpuprofile`, node's own
//! `--cpu-prof` output), each compared by `diff`'s own code ([`proftool::report::diff::compare`]).
//!
//! A profile of N samples is N draws of a stack, each stack drawn with the probability of its share
//! of the real profile's samples (a multinomial sample). Two profiles of one distribution are two
//! runs of one program: any function the gate flags is a false alarm. To measure power, NEW's
//! stacks through one function are weighed up so that its total share grows by a known amount.
//!
//! A sampled quantity (bytes or a delay per sample, as Go's heap and block profiles and JFR's
//! allocation samples are) is drawn the same way, each stack's samples weighing a size of their
//! own, drawn once from a lognormal distribution (σ 1.5: the largest of a profile's stacks weigh a
//! hundred times the median; the boosted function's weigh the median): the profile's time metric,
//! which weighs its samples, holds them.
//!
//! Shared by the test (`tests/gate.rs`, few pairs) and `bench/gate.sh` (1,000 pairs a row).

use proftool::diag::Diagnostics;
use proftool::model::{MetricKind, NodeId, Value};
use proftool::report::diff::{compare, DiffOptions, Side};
use proftool::report::{ReportOptions, View};
use proftool::{Format, Profile, ReadOptions};
use rand::distributions::{Distribution, WeightedIndex};
use rand::rngs::StdRng;
use rand::SeedableRng;

/// The median size of a sample of the quantity drawn (in the time metric's unit).
const MEDIAN_SIZE: f64 = 20.0;

/// The real profile the stacks are drawn from: its samples metric only, one node per stack.
pub struct Stacks {
    /// The real profile: its samples metric is the one drawn (its time is left as read, unused).
    profile: Profile,
    pub samples: usize,
    /// The samples of each node on top of the stack (its self count), the weight of its stack.
    weights: Vec<f64>,
    /// The nodes under which the boosted function is, and its total share.
    boosted: Vec<bool>,
    /// The boosted function's name and share of the real profile.
    pub function: String,
    pub share: f64,
    /// The metric of the weights of the samples (the profile's time), and what each node's samples
    /// weigh there when a case draws a sampled quantity.
    quantity: usize,
    sizes: Vec<f64>,
}

impl Stacks {
    /// The real profile's stacks; the function whose share is closest to `share` is the one a
    /// regression grows.
    pub fn of_fixture(share: f64) -> Stacks {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/cpuprofile/work.cpuprofile");
        let bytes = std::fs::read(path).expect("the fixture");
        let profile =
            Format::Cpuprofile.read(&mut &bytes[..], &ReadOptions::default(), &mut Diagnostics::default()).unwrap();
        let samples = profile.metrics().iter().position(|m| m.kind == MetricKind::Samples).unwrap();
        let weights: Vec<f64> = profile.tree.nodes().map(|n| profile.tree.self_value(samples, n).as_f64()).collect();
        let total: f64 = weights.iter().sum();
        // Each function's total share: the weight of the stacks it is in, once a stack.
        let mut shares: std::collections::BTreeMap<String, f64> = Default::default();
        for node in profile.tree.nodes() {
            let mut names: Vec<String> = on_stack(&profile, node);
            names.sort();
            names.dedup();
            for name in names {
                *shares.entry(name).or_default() += weights[node.index()] / total;
            }
        }
        let (function, found) =
            shares.into_iter().min_by(|a, b| (a.1 - share).abs().total_cmp(&(b.1 - share).abs())).unwrap();
        let boosted: Vec<bool> = profile.tree.nodes().map(|n| on_stack(&profile, n).contains(&function)).collect();
        let quantity = profile.metrics().iter().position(|m| m.kind == MetricKind::Time).unwrap();
        let sizes = rand_distr::LogNormal::new(MEDIAN_SIZE.ln(), 1.5).unwrap();
        let mut rng = StdRng::seed_from_u64(45);
        // The boosted function's samples weigh the median, so that its share of the quantity is
        // near its share of the samples, and the other stacks' sizes scatter about it.
        let sizes = (profile.tree.nodes())
            .map(|n| if boosted[n.index()] { MEDIAN_SIZE } else { sizes.sample(&mut rng) })
            .collect();
        Stacks { profile, samples, weights, boosted, function, share: found, quantity, sizes }
    }

    /// The weights with the boosted function's stacks weighed so that its share is `share`.
    pub fn weights_for(&self, share: f64) -> Vec<f64> {
        let total: f64 = self.weights.iter().sum();
        let (inside, outside) = self.weights.iter().zip(&self.boosted).fold((0.0, 0.0), |(i, o), (w, &b)| {
            if b {
                (i + w / total, o)
            } else {
                (i, o + w / total)
            }
        });
        // inside × k / (inside × k + outside) = share.
        let k = share * outside / (inside * (1.0 - share));
        self.weights.iter().zip(&self.boosted).map(|(w, &b)| if b { w * k } else { *w }).collect()
    }

    /// A profile of `n` samples drawn with `weights`, its quantity metric each node's samples times
    /// their size.
    pub fn draw(&self, weights: &WeightedIndex<f64>, n: usize, rng: &mut StdRng) -> Profile {
        let mut counts = vec![0i64; self.weights.len()];
        for _ in 0..n {
            counts[weights.sample(rng)] += 1;
        }
        let mut profile = self.profile.clone();
        let nodes: Vec<NodeId> = profile.tree.nodes().collect();
        for (node, count) in nodes.into_iter().zip(counts) {
            profile.tree.set_self(self.samples, node, Value::Int(count));
            let size = count as f64 * self.sizes[node.index()];
            let quantity = match profile.tree.self_value(self.quantity, node) {
                Value::Int(_) => Value::Int(size.round() as i64),
                Value::Float(_) => Value::Float(size),
            };
            profile.tree.set_self(self.quantity, node, quantity);
        }
        profile
    }
}

/// The names of the frames on `node`'s stack, root first.
fn on_stack(profile: &Profile, node: NodeId) -> Vec<String> {
    let tree = &profile.tree;
    tree.ancestors(node).into_iter().chain([node]).map(|n| profile.frame_name(tree.frame(n)).into_owned()).collect()
}

/// What a row of the simulation measured: the share of pairs the gate failed, and the share in
/// which it flagged the boosted function.
#[derive(Debug)]
pub struct Rates {
    pub failed: f64,
    pub caught: f64,
}

/// One row of the simulation: BASE's runs drawn with the boosted function at share `shares.0`,
/// NEW's at `shares.1` (the same for false alarms), each run's share moved by a normal deviation
/// of `jitter` (a function whose share changes from run to run of one program, as a collector's
/// does), `runs` runs a side of `samples` samples each; the gate compares their counts, or the
/// sampled quantity they weigh where `quantity` is set.
#[derive(Clone, Copy, Debug)]
pub struct Case {
    pub shares: (f64, f64),
    pub jitter: f64,
    pub samples: usize,
    pub runs: usize,
    pub quantity: bool,
}

/// `pairs` comparisons of `case`, gated with `options`, drawn from `seed`.
pub fn simulate(stacks: &Stacks, case: Case, pairs: usize, seed: u64, options: &DiffOptions) -> Rates {
    let mut rng = StdRng::seed_from_u64(seed);
    let jitter = rand_distr::Normal::new(0.0, case.jitter).unwrap();
    let (mut failed, mut caught) = (0usize, 0usize);
    let view_options = ReportOptions::default();
    for _ in 0..pairs {
        let mut side = |share: f64| {
            let drawn: Vec<Profile> = (0..case.runs)
                .map(|_| {
                    let share = (share + jitter.sample(&mut rng)).clamp(0.001, 0.999);
                    let weights = WeightedIndex::new(stacks.weights_for(share)).unwrap();
                    stacks.draw(&weights, case.samples, &mut rng)
                })
                .collect();
            let mut merged = drawn.iter().skip(1).fold(drawn[0].clone(), |mut all, run| {
                for node in run.tree.nodes() {
                    all.tree.add_self(stacks.samples, node, run.tree.self_value(stacks.samples, node));
                }
                all
            });
            let compared =
                stacks.profile.metrics()[if case.quantity { stacks.quantity } else { stacks.samples }].name.clone();
            merged.choose_metric(&compared).unwrap();
            let view = View::new(merged, &view_options).unwrap();
            match case.runs {
                1 => Side::of_one_run(view),
                _ => Side::of_runs(view, drawn, &view_options).unwrap(),
            }
        };
        let (base, new) = (side(case.shares.0), side(case.shares.1));
        let comparison = compare(&base, &new, ("base", "new"), options).unwrap();
        failed += usize::from(comparison.regression);
        caught += usize::from(comparison.judged().iter().any(|g| g.failed && g.name == stacks.function));
    }
    Rates { failed: failed as f64 / pairs as f64, caught: caught as f64 / pairs as f64 }
}
