//! The statistics of `diff`'s CI gate: whether a function's growth stands out of the noise of its
//! metric (docs/gate.md).
//!
//! A sampling profiler sees a function in `x` of its `N` samples: `x` is binomial, and the share
//! `x / N` of two runs of one program differs by chance, by about `sqrt(p (1 - p) (1/N₁ + 1/N₂))`
//! (2.3 points for a 20 % share on 300 samples a side). A sampled quantity (bytes, a delay) is as
//! noisy as the samples behind it ([`sampling_variance`]). Real runs vary beyond sampling too
//! (scheduling, caches, a JIT, a collector): a floor of a share of each share where a side has one
//! run, which cannot measure it; with several runs, their dispersion over all functions and each
//! function's own spread. A fixed threshold of points fires on that noise; the gate asks that a
//! growth be both clear and large:
//!
//! - **Clear**: a one-sided test that the share grew. With one run a side, a z test whose variance
//!   is the sampling one at the pooled share (as the null hypothesis has it: one share for both)
//!   and the floor's. With several runs a side, a moderated Welch's t: each side's variance weighs
//!   the model's (sampling times the side's dispersion, and the floor) against the function's own
//!   runs' spread by their degrees of freedom (the model's estimated from all functions' spreads,
//!   [`prior_freedom`]), never below the model's, so that three runs that
//!   happen to agree closely do not make any change look clear and a function whose share jumps
//!   between runs is judged by its jumps. A metric not known to be sampled is tested by its runs'
//!   spread alone, and not at all with one run a side.
//! - **Across the functions that could pass the limits**: their p-values go through
//!   Benjamini–Hochberg at a false discovery rate `q` (default 5 %): of the functions it flags, a
//!   share of at most `q` are expected to be false alarms, and when nothing changed at all the run
//!   fails with a probability of at most `q`.
//! - **Large**: the limits of [`Limits`] (points, relative growth, an absolute floor), all of them.

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// A function's value in one run: `count` of the run's `of`, and the sums of the squared weights of
/// the samples behind each (a count of samples: the count itself, each sample weighing 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Count {
    /// The function's value: the samples it is in (its total) or on top of (its self value), or
    /// their weight (time, bytes).
    pub count: f64,
    /// The run's value.
    pub of: f64,
    /// The sum of the squared weights of the samples behind `count`.
    pub squares: f64,
    /// The sum of the squared weights of the samples behind `of`.
    pub squares_of: f64,
}

impl Count {
    /// The function's share of the run's samples, 0 for an empty run.
    pub fn share(self) -> f64 {
        if self.of > 0.0 {
            self.count / self.of
        } else {
            0.0
        }
    }
}

/// What the test knows of the noise of the runs it compares.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Model {
    /// How much more each side's runs spread than sampling makes them ([`dispersion`]; 1 for one
    /// run).
    pub dispersions: (f64, f64),
    /// How much each side's runs vary beyond that at least, as a fraction of a share (the standard
    /// deviation of a run's share over the share): real runs vary beyond sampling (scheduling,
    /// caches, a JIT, a collector), and one run cannot measure how much.
    pub floors: (f64, f64),
    /// Whether the sampling variance is known (a sampled metric); else only the runs' spread.
    pub sampled: bool,
    /// How many degrees of freedom each side's model variance is worth beside a function's own
    /// runs' spread ([`prior_freedom`]); `None`: as good as known (the functions' spreads scatter
    /// about the model as sampling alone makes them).
    pub prior_freedoms: (Option<f64>, Option<f64>),
}

/// The variance that decided a test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Sampling, from the samples behind each value, and how much runs vary beyond it.
    Sampling,
    /// The spread of the function's own runs (Welch's t), at least the floor.
    Spread,
}

/// The result of testing one function's growth from BASE's runs to NEW's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Test {
    /// The mean share of each side, as fractions.
    pub shares: (f64, f64),
    /// The half width of each side's 95 % confidence interval of its share, by the test's method.
    pub margins: (f64, f64),
    /// The test statistic: the growth of the share in standard errors.
    pub statistic: f64,
    /// The probability of a growth at least this large if the share did not change (one-sided).
    pub p: f64,
    /// The runs a side compared.
    pub runs: usize,
    /// The variance that decided.
    pub method: Method,
    /// The degrees of freedom of Student's t, where a side's variance was estimated from its runs.
    pub freedom: Option<f64>,
}

/// A side's mean share, the variance of that mean, its runs, and whether the variance is the runs'
/// own spread (estimated, with `runs - 1` degrees of freedom) or the model's (known).
struct Side {
    mean: f64,
    variance: f64,
    runs: usize,
    /// The degrees of freedom of the variance, where the runs' spread is part of it.
    freedom: Option<f64>,
}

/// The spread of the shares of `runs` about their mean (0 for one run), and that mean.
fn spread(runs: &[Count]) -> (f64, f64) {
    let n = runs.len() as f64;
    let mean = runs.iter().map(|r| r.share()).sum::<f64>() / n;
    let spread = match runs.len() {
        1 => 0.0,
        _ => runs.iter().map(|r| (r.share() - mean).powi(2)).sum::<f64>() / (n - 1.0),
    };
    (spread, mean)
}

/// The variance of a run's share `share` by sampling alone, where the samples behind the function
/// weigh `weight` on average (weighted by weight: their squares over their sum) and those of the
/// run `run.squares_of / run.of`: `share ((1 − 2 share) weight + share run_weight) / of`, the
/// delta method's variance of a ratio of two sums of weights, which is `share (1 − share) / of`
/// for counts of samples (every weight 1): the two-proportion test's.
fn sampling_variance(share: f64, weight: f64, run: &Count) -> f64 {
    if run.of <= 0.0 {
        return 0.0;
    }
    let run_weight = run.squares_of / run.of;
    (share * ((1.0 - 2.0 * share) * weight + share * run_weight) / run.of).max(0.0)
}

/// The mean weight (by weight) of the samples behind a function in `runs`, for its sampling
/// variance; the runs' own where the function is in none of them.
fn weight_of(runs: &[&Count]) -> f64 {
    let (squares, count) = runs.iter().fold((0.0, 0.0), |(s, c), r| (s + r.squares, c + r.count));
    let (squares_of, of) = runs.iter().fold((0.0, 0.0), |(s, c), r| (s + r.squares_of, c + r.of));
    match (count > 0.0, of > 0.0) {
        (true, _) => squares / count,
        (false, true) => squares_of / of,
        _ => 1.0,
    }
}

/// The spread of the shares of `runs` about their mean, that mean, and the mean variance sampling
/// alone gives a run's share at it.
fn spread_and_sampling(runs: &[Count]) -> (f64, f64, f64) {
    let (spread, mean) = spread(runs);
    let weight = weight_of(&runs.iter().collect::<Vec<_>>());
    let sampling = runs.iter().map(|r| sampling_variance(mean, weight, r)).sum::<f64>() / runs.len() as f64;
    (spread, mean, sampling)
}

/// How much more the shares of a side's runs spread than sampling alone makes them, over all the
/// functions of the side (`functions`, each its runs' values): the sum of each function's squared
/// deviations over the sum of what sampling would give, at least 1. Runs that differ as a whole (a
/// machine busier in one run) spread every function's share, and all of them tell how much.
pub fn dispersion<'a>(functions: impl IntoIterator<Item = &'a [Count]>) -> f64 {
    let (mut seen, mut expected) = (0.0, 0.0);
    for runs in functions.into_iter().filter(|runs| runs.len() > 1) {
        let (spread, _, sampling) = spread_and_sampling(runs);
        let free = runs.len() as f64 - 1.0;
        seen += free * spread;
        expected += free * sampling;
    }
    if expected > 0.0 {
        (seen / expected).max(1.0)
    } else {
        1.0
    }
}

/// The weight, in degrees of freedom, of the model's variance beside a function's own runs' spread
/// where too few functions tell how much it is worth ([`MIN_FUNCTIONS_FOR_FREEDOM`]): three runs
/// (two degrees of freedom) that happen to agree do not make a change look clear, and five that
/// disagree outweigh the model.
pub const PRIOR_FREEDOM: f64 = 4.0;

/// The least number of functions whose spreads estimate how much the model's variance is worth.
const MIN_FUNCTIONS_FOR_FREEDOM: usize = 5;

/// The least number of samples a run (on average) behind a function whose spread joins that
/// estimate: fewer, and a count's spread is too lumpy for a chi-square's (one sample or none).
const MIN_SAMPLES_FOR_FREEDOM: f64 = 10.0;

/// How many degrees of freedom the model's variance of a side's runs is worth beside a function's
/// own runs' spread, from all the functions' spreads (`functions`, each its runs' values; the side's
/// `dispersion` and `floor`), as limma's empirical Bayes estimates it (Smyth 2004): where each
/// function's spread scatters about the model's variance as a chi-square of the runs' degrees of
/// freedom does, the model is as good as known (`None`), and a doubled function is judged against
/// sampling and the runs' dispersion alone; where spreads scatter more (a collector's or a lock's
/// functions jump between runs while others do not), the model is worth fewer degrees of freedom,
/// and each function's own spread counts more. [`PRIOR_FREEDOM`] where too few functions tell.
pub fn prior_freedom<'a>(functions: impl IntoIterator<Item = &'a [Count]>, dispersion: f64, floor: f64) -> Option<f64> {
    let mut runs_of = 0;
    let log_ratios: Vec<f64> = (functions.into_iter())
        .filter(|runs| runs.len() > 1)
        .filter_map(|runs| {
            runs_of = runs.len();
            let (spread, mean, sampling) = spread_and_sampling(runs);
            let (count, squares) = runs.iter().fold((0.0, 0.0), |(c, s), r| (c + r.count, s + r.squares));
            let samples = if squares > 0.0 { count * count / squares / runs.len() as f64 } else { 0.0 };
            let expected = sampling * dispersion + (floor * mean).powi(2);
            (samples >= MIN_SAMPLES_FOR_FREEDOM && spread > 0.0 && expected > 0.0).then(|| (spread / expected).ln())
        })
        .collect();
    if log_ratios.len() < MIN_FUNCTIONS_FOR_FREEDOM {
        return Some(PRIOR_FREEDOM);
    }
    freedom_of_log_ratios(&log_ratios, runs_of as f64 - 1.0)
}

/// The prior degrees of freedom `d₀` from the logs of spreads over the model's variances, each of
/// `freedom` degrees: their variance beyond a chi-square's, `trigamma(freedom / 2)`, is
/// `trigamma(d₀ / 2)`; `None` where there is none beyond (limma's `fitFDist`).
fn freedom_of_log_ratios(log_ratios: &[f64], freedom: f64) -> Option<f64> {
    let n = log_ratios.len() as f64;
    let mean = log_ratios.iter().sum::<f64>() / n;
    let variance = log_ratios.iter().map(|z| (z - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let beyond = variance - trigamma(freedom / 2.0);
    (beyond > 0.0).then(|| 2.0 * inverse_trigamma(beyond))
}

/// The trigamma function ψ₁(x), x > 0: the recurrence ψ₁(x) = ψ₁(x + 1) + 1/x² up to 10, then its
/// asymptotic series (Abramowitz and Stegun 6.4.12), good to 1e-12.
fn trigamma(x: f64) -> f64 {
    let (mut x, mut sum) = (x, 0.0);
    while x < 10.0 {
        sum += 1.0 / (x * x);
        x += 1.0;
    }
    let y = 1.0 / (x * x);
    sum + 1.0 / x + y / 2.0 + y / x * (1.0 / 6.0 - y * (1.0 / 30.0 - y * (1.0 / 42.0 - y / 30.0)))
}

/// The x > 0 whose trigamma is `value` (> 0), by bisection on its logarithm: trigamma falls from
/// infinity to 0 as x grows.
fn inverse_trigamma(value: f64) -> f64 {
    let (mut low, mut high) = (-30.0_f64, 30.0_f64);
    for _ in 0..100 {
        let middle = (low + high) / 2.0;
        if trigamma(middle.exp()) > value {
            low = middle;
        } else {
            high = middle;
        }
    }
    ((low + high) / 2.0).exp()
}

/// What the model says of one side's runs: their dispersion, floor and prior degrees of freedom.
#[derive(Clone, Copy)]
struct SideNoise {
    dispersion: f64,
    floor: f64,
    prior_freedom: Option<f64>,
}

/// The mean share of `runs` and the variance of that mean under `model`, at the share `at` (the
/// pooled one for the test, the side's own for its interval). The model's variance of a run: where
/// sampled, the sampling variance of each run times the side's `dispersion`, plus the floor's
/// `(floor × at)²`; where not, the floor alone. With several runs, the runs' own spread moderates
/// it: where sampled, the two weighed by their degrees of freedom (the side's prior freedom for the
/// model's: [`prior_freedom`]; none where the model is as good as known), so that a function whose share jumps between runs (a collector, a JIT) is judged by
/// its spread; where not, the spread alone, at least the floor.
fn side(runs: &[Count], at: f64, weight: f64, noise: SideNoise, model: &Model) -> Side {
    let SideNoise { dispersion, floor, prior_freedom } = noise;
    let n = runs.len() as f64;
    let (spread, mean) = spread(runs);
    let floor = (floor * at).powi(2);
    let expected = match model.sampled {
        true => runs.iter().map(|r| sampling_variance(at, weight, r)).sum::<f64>() / n * dispersion + floor,
        false => floor,
    };
    let free = n - 1.0;
    let (variance, freedom) = match (runs.len(), model.sampled) {
        (1, _) => (expected, None),
        // Never below the model: runs that agree closer than sampling lets them do so by chance.
        (_, true) => match prior_freedom {
            Some(prior) => {
                let moderated = (prior * expected + free * spread) / (prior + free);
                (moderated.max(expected), Some(prior + free))
            }
            None => (expected, None),
        },
        (_, false) => (spread.max(floor), Some(free)),
    };
    Side { mean, variance: variance / n, runs: runs.len(), freedom }
}

/// Tests whether the share of a function grew from `base`'s runs to `new`'s (each at least one)
/// under `model`; `None` where nothing can tell its noise: a metric not known to be sampled, with
/// one run on a side.
pub fn test_growth(base: &[Count], new: &[Count], model: &Model) -> Option<Test> {
    if !model.sampled && (base.len() < 2 || new.len() < 2) {
        return None;
    }
    let (seen, of) = base.iter().chain(new).fold((0.0, 0.0), |(c, n), r| (c + r.count, n + r.of));
    let pooled = if of > 0.0 { seen / of } else { 0.0 };
    let weight = weight_of(&base.iter().chain(new).collect::<Vec<_>>());
    let of_base =
        SideNoise { dispersion: model.dispersions.0, floor: model.floors.0, prior_freedom: model.prior_freedoms.0 };
    let of_new =
        SideNoise { dispersion: model.dispersions.1, floor: model.floors.1, prior_freedom: model.prior_freedoms.1 };
    let (b, n) = (side(base, pooled, weight, of_base, model), side(new, pooled, weight, of_new, model));
    let growth = n.mean - b.mean;
    let error = (b.variance + n.variance).sqrt();
    let statistic = match error > 0.0 {
        true => growth / error,
        // No variance: the function is in none of the samples, or in all of them, on both sides.
        false => 0.0,
    };
    // Welch–Satterthwaite, over the sides whose variance is estimated from their runs.
    let estimated = |s: &Side| s.freedom.map_or(0.0, |df| s.variance.powi(2) / df);
    let denominator = estimated(&b) + estimated(&n);
    let freedom = (denominator > 0.0).then(|| (b.variance + n.variance).powi(2) / denominator);
    let p = upper_tail(statistic, freedom);
    // Each side's interval from its own share, by the same variance as the test's.
    let margin = |runs: &[Count], of: SideNoise| {
        let own = side(runs, spread(runs).1, weight_of(&runs.iter().collect::<Vec<_>>()), of, model);
        quantile(0.975, own.freedom) * own.variance.sqrt()
    };
    let margins = (margin(base, of_base), margin(new, of_new));
    let method = if b.freedom.is_some() || n.freedom.is_some() { Method::Spread } else { Method::Sampling };
    Some(Test { shares: (b.mean, n.mean), margins, statistic, p, runs: b.runs.max(n.runs), method, freedom })
}

/// The probability above `x` of Student's t with `freedom` degrees (the normal one without),
/// computed as such, so that a clear growth's p-value keeps its digits (1 − 0.999… would lose them).
fn upper_tail(x: f64, freedom: Option<f64>) -> f64 {
    match freedom.and_then(|df| StudentsT::new(0.0, 1.0, df).ok()) {
        Some(t) => t.sf(x),
        None => standard_normal().sf(x),
    }
}

/// The quantile `p` of Student's t with `freedom` degrees (the normal one without).
fn quantile(p: f64, freedom: Option<f64>) -> f64 {
    match freedom.and_then(|df| StudentsT::new(0.0, 1.0, df).ok()) {
        Some(t) => t.inverse_cdf(p),
        None => standard_normal().inverse_cdf(p),
    }
}

fn standard_normal() -> Normal {
    // Mean 0 and deviation 1 are valid.
    Normal::standard()
}

/// Benjamini–Hochberg at false discovery rate `q`: which of `p` are discoveries. The largest `k`
/// whose `k`-th smallest p-value is at most `k q / m` makes the `k` smallest discoveries.
pub fn discoveries(p: &[f64], q: f64) -> Vec<bool> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let k = (1..=m).rev().find(|&k| p[order[k - 1]] <= k as f64 * q / m as f64).unwrap_or(0);
    let mut found = vec![false; m];
    order[..k].iter().for_each(|&i| found[i] = true);
    found
}

/// The runs a side that would likely decide a growth `test` found not clear (80 % power at the
/// level `alpha` the gate asks of the clearest of its functions): the statistic grows with the
/// square root of the runs (or of the samples, which more runs add). `None` where the share did not
/// grow, so that no number of runs would show a growth.
pub fn runs_to_decide(test: &Test, alpha: f64) -> Option<u64> {
    if test.statistic <= 0.0 {
        return None;
    }
    let needed = quantile(1.0 - alpha, None) + quantile(0.8, None);
    let factor = (needed / test.statistic).powi(2);
    Some((test.runs as f64 * factor).ceil().max(test.runs as f64 + 1.0) as u64)
}

/// The limits of "large": a growth fails the gate only where it passes all of them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// The least growth of the share, in points (`--threshold`).
    pub points: f64,
    /// The least growth of the share relative to BASE's (`--relative`, a fraction: 0.1 is 10 %).
    pub relative: Option<f64>,
    /// The least growth of the value, in BASE's unit (`--min-abs`).
    pub floor: Option<f64>,
}

impl Limits {
    /// Whether a share that went from `shares.0` to `shares.1` (fractions), a value that grew by
    /// `growth`, passes every limit.
    pub fn crossed(&self, shares: (f64, f64), growth: f64) -> bool {
        let points = (shares.1 - shares.0) * 100.0;
        let relative = self.relative.is_none_or(|r| shares.0 <= 0.0 || shares.1 >= shares.0 * (1.0 + r));
        points > self.points && relative && self.floor.is_none_or(|floor| growth >= floor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sampling model alone: no floor between runs, no dispersion.
    const SAMPLING: Model = Model {
        dispersions: (1.0, 1.0),
        floors: (0.0, 0.0),
        sampled: true,
        prior_freedoms: (Some(PRIOR_FREEDOM), Some(PRIOR_FREEDOM)),
    };

    /// `count` samples of `of`, each weighing 1.
    fn samples(count: f64, of: f64) -> Count {
        Count { count, of, squares: count, squares_of: of }
    }

    fn one(count: f64, of: f64) -> Vec<Count> {
        vec![samples(count, of)]
    }

    /// The two-proportion test by hand: 60 of 300 against 69 of 300 (20 % to 23 %): pooled 129/600
    /// = 0.215, error sqrt(0.215 × 0.785 × 2/300) = 0.033541, z = 0.03 / 0.033541 = 0.8944,
    /// p = 1 − Φ(0.8944) = 0.1855 (tables: Φ(0.89) = 0.8133, Φ(0.90) = 0.8159).
    #[test]
    fn one_run_a_side_is_the_two_proportion_test() {
        let test = test_growth(&one(60.0, 300.0), &one(69.0, 300.0), &SAMPLING).unwrap();
        assert!((test.statistic - 0.8944).abs() < 1e-4, "{test:?}");
        assert!((test.p - 0.1855).abs() < 1e-3, "{test:?}");
        // Its 95 % interval: 1.96 × sqrt(0.2 × 0.8 / 300) = 0.04526.
        assert!((test.margins.0 - 0.04526).abs() < 1e-4, "{test:?}");
    }

    /// A moderated Welch's t by hand on shares 0.10, 0.12, 0.11 against 0.20, 0.22, 0.21 (each of
    /// 100,000 samples): the runs' spread 1e-4 (2 degrees of freedom) and the sampling variance at
    /// the pooled 0.155, 0.155 × 0.845 / 100,000 = 1.30975e-6 (4), weighed: (4 × 1.30975e-6 + 2 ×
    /// 1e-4) / 6 = 3.42065e-5, over 3 runs 1.14022e-5 a side; error sqrt(2 × 1.14022e-5) =
    /// 4.7754e-3, t = 0.1 / 4.7754e-3 = 20.94 on 12 degrees of freedom.
    #[test]
    fn several_runs_a_side_is_a_moderated_welch_s_t_on_their_shares() {
        let runs = |shares: [f64; 3]| shares.map(|s| samples(s * 1e5, 1e5)).to_vec();
        let test = test_growth(&runs([0.10, 0.12, 0.11]), &runs([0.20, 0.22, 0.21]), &SAMPLING).unwrap();
        assert_eq!(test.method, Method::Spread);
        assert!((test.statistic - 20.94).abs() < 1e-2, "{test:?}");
        assert!((test.freedom.unwrap() - 12.0).abs() < 1e-9, "{test:?}");
        // Runs that agree exactly keep their sampling variance: 3 runs of 30 of 300 against 3 of 36
        // of 300 are as one run of 90/900 against 108/900: z = 0.02 / sqrt(0.11 × 0.89 / 900 × 2)
        // = 1.3559.
        let same = |count: f64| vec![samples(count, 300.0); 3];
        let test = test_growth(&same(30.0), &same(36.0), &SAMPLING).unwrap();
        assert!((test.statistic - 1.3559).abs() < 1e-3, "{test:?}");
    }

    /// Trigamma by hand: ψ₁(1) = π²/6, ψ₁(1/2) = π²/2, ψ₁(10) = π²/6 − (1 + 1/4 + … + 1/81) =
    /// 0.1051663357; and its inverse.
    #[test]
    fn trigamma_and_its_inverse() {
        let pi2 = std::f64::consts::PI.powi(2);
        assert!((trigamma(1.0) - pi2 / 6.0).abs() < 1e-10);
        assert!((trigamma(0.5) - pi2 / 2.0).abs() < 1e-10);
        let tenth = pi2 / 6.0 - (1..10).map(|k| 1.0 / (k * k) as f64).sum::<f64>();
        assert!((trigamma(10.0) - tenth).abs() < 1e-10 && (tenth - 0.1051663357).abs() < 1e-9);
        assert!((inverse_trigamma(trigamma(3.7)) - 3.7).abs() < 1e-9);
    }

    /// The prior degrees of freedom by hand: six log-ratios ±a of two degrees of freedom each vary
    /// by 6a²/5; at a² = (ψ₁(1) + ψ₁(2)) × 5/6 that is ψ₁(1) beyond the chi-square's, whose d₀/2 is 2:
    /// d₀ = 4. Log-ratios that vary less than a chi-square's leave the model as good as known.
    #[test]
    fn the_model_is_worth_what_the_spreads_scatter_beyond_a_chi_square() {
        let a = ((trigamma(1.0) + trigamma(2.0)) * 5.0 / 6.0).sqrt();
        let scattered = [a, -a, a, -a, a, -a];
        assert!((freedom_of_log_ratios(&scattered, 2.0).unwrap() - 4.0).abs() < 1e-6);
        assert_eq!(freedom_of_log_ratios(&[0.1, -0.1, 0.2, 0.0, -0.2, 0.1], 2.0), None);
        // Too few functions with samples enough: the constant.
        let few = [samples(30.0, 300.0), samples(36.0, 300.0)];
        assert_eq!(prior_freedom([&few[..], &few[..]], 1.0, 0.0), Some(PRIOR_FREEDOM));
    }

    /// A function in no sample on either side has no growth to test.
    #[test]
    fn no_samples_is_no_evidence() {
        let test = test_growth(&one(0.0, 100.0), &one(0.0, 100.0), &SAMPLING).unwrap();
        assert_eq!((test.statistic, test.p), (0.0, 0.5));
    }

    /// Weights of samples by hand: a function of 10 samples of 100 bytes each (1,000 of a run of
    /// 10,000 bytes in 100 samples of 100 bytes) has the variance of 10 samples of 100: its share's
    /// variance is that of 10 of 100 samples, 0.1 × 0.9 / 100 = 9e-4, whatever the unit. One sample
    /// of 1,000 bytes instead (squares 1e6, the run's 1e6 + 90 × 1e4, a weight of 190 a byte): 0.1 ×
    /// ((1 − 0.2) × 1,000 + 0.1 × 190) / 10,000 = 8.19e-3, about nine times as noisy.
    #[test]
    fn a_quantity_is_as_noisy_as_the_samples_behind_it() {
        let even = Count { count: 1000.0, of: 10_000.0, squares: 10.0 * 1e4, squares_of: 100.0 * 1e4 };
        let weight = weight_of(&[&even]);
        assert!((sampling_variance(0.1, weight, &even) - 9e-4).abs() < 1e-12);
        let lumpy = Count { squares: 1e6, squares_of: 1e6 + 90.0 * 1e4, ..even };
        let weight = weight_of(&[&lumpy]);
        assert!((sampling_variance(0.1, weight, &lumpy) - 8.19e-3).abs() < 1e-9);
    }

    /// The floor by hand: 2,000 of 10,000 samples against 2,200 (20 % to 22 %): sampling alone,
    /// pooled 0.21, error sqrt(0.21 × 0.79 / 10,000 × 2) = 0.005760, z = 3.47; with a floor of
    /// 10 % of the share, each side adds (0.1 × 0.21)² = 4.41e-4: error sqrt(2 × (1.659e-5 +
    /// 4.41e-4)) = 0.030252, z = 0.661.
    #[test]
    fn runs_vary_beyond_sampling_by_the_floor() {
        let test = test_growth(&one(2000.0, 1e4), &one(2200.0, 1e4), &SAMPLING).unwrap();
        assert!((test.statistic - 3.472).abs() < 1e-3, "{test:?}");
        let floored = Model { floors: (0.1, 0.1), ..SAMPLING };
        let test = test_growth(&one(2000.0, 1e4), &one(2200.0, 1e4), &floored).unwrap();
        assert!((test.statistic - 0.661).abs() < 1e-3, "{test:?}");
    }

    /// A metric not known to be sampled: one run a side cannot be tested; several are tested by
    /// their spread alone.
    #[test]
    fn unstated_sampling_is_tested_by_the_runs_spread() {
        let unstated = Model { sampled: false, ..SAMPLING };
        assert!(test_growth(&one(60.0, 300.0), &one(90.0, 300.0), &unstated).is_none());
        let runs = |shares: [f64; 3]| shares.map(|s| samples(s * 1e5, 1e5)).to_vec();
        let test = test_growth(&runs([0.10, 0.12, 0.11]), &runs([0.20, 0.22, 0.21]), &unstated).unwrap();
        assert!((test.statistic - 12.247).abs() < 1e-3, "{test:?}");
        assert_eq!(test.method, Method::Spread);
    }

    /// The dispersion by hand: two functions of shares 0.2, 0.3 (mean 0.25) and 0.8, 0.7 (0.75) in
    /// runs of 1,000 samples: spreads 0.005 each, sampling 0.25 × 0.75 / 1,000 = 1.875e-4 each: 0.01
    /// over 3.75e-4, 26.67.
    #[test]
    fn runs_spread_beyond_sampling_by_their_dispersion() {
        let runs = |a: f64, b: f64| vec![samples(a * 1e3, 1e3), samples(b * 1e3, 1e3)];
        let functions = [runs(0.2, 0.3), runs(0.8, 0.7)];
        let measured = dispersion(functions.iter().map(Vec::as_slice));
        assert!((measured - 26.667).abs() < 1e-3, "{measured}");
        assert_eq!(dispersion([&one(1.0, 2.0)[..]]), 1.0);
    }

    /// Benjamini–Hochberg by hand, q = 0.05, m = 4: thresholds 0.0125, 0.025, 0.0375, 0.05. The
    /// sorted p-values 0.001, 0.03, 0.035, 0.2: the largest k with p(k) ≤ k q/m is 3 (0.035 ≤
    /// 0.0375), although 0.03 alone is above 0.025.
    #[test]
    fn benjamini_hochberg_by_hand() {
        assert_eq!(discoveries(&[0.2, 0.035, 0.001, 0.03], 0.05), [false, true, true, true]);
        assert_eq!(discoveries(&[0.2, 0.04, 0.02], 0.05), [false, false, false]);
        assert!(discoveries(&[], 0.05).is_empty());
    }

    /// z = 1.0 with one run: (Φ⁻¹(0.95) + Φ⁻¹(0.8))² = (1.6449 + 0.8416)² = 6.18, so 7 runs.
    #[test]
    fn more_runs_decide_a_growth_in_proportion_to_its_square() {
        let test = Test {
            shares: (0.1, 0.12),
            margins: (0.0, 0.0),
            statistic: 1.0,
            p: 0.16,
            runs: 1,
            method: Method::Sampling,
            freedom: None,
        };
        assert_eq!(runs_to_decide(&test, 0.05), Some(7));
        assert_eq!(runs_to_decide(&Test { statistic: -1.0, ..test }, 0.05), None);
    }

    #[test]
    fn a_growth_is_large_when_it_passes_every_limit() {
        let limits = Limits { points: 1.0, relative: Some(0.1), floor: Some(5.0) };
        assert!(limits.crossed((0.10, 0.12), 5.0));
        // 1.5 points on 30 % is 5 % relative.
        assert!(!limits.crossed((0.30, 0.315), 5.0));
        assert!(!limits.crossed((0.10, 0.12), 4.0));
        assert!(!limits.crossed((0.10, 0.105), 5.0));
        // A new function has grown by any factor.
        assert!(limits.crossed((0.0, 0.02), 5.0));
    }
}
