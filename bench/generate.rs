//! Generates a large synthetic profile in any registered format, for `bench/run.sh`.
//!
//! ```console
//! cargo run --release --example generate -- lispworks 100000000 big.tree
//! ```
//!
//! The tree is a random depth-first walk (deterministic: a fixed seed) over a pool of Lisp-looking
//! function names, with thread roots, recursion and skewed self counts, sized so that the written
//! file is at least the requested number of bytes (pprof: written as the protocol buffer, not
//! gzipped, so that its size is what a reader parses).

use proftool::convert::{self, ConvertOptions};
use proftool::diag::Diagnostics;
use proftool::formats::sampler::FrameOrder;
use proftool::model::{FrameId, FrameKind, FrameRef, Metric, NodeId, Repr, Unit, Value};
use proftool::{Format, Profile};
use std::io::{BufWriter, Write};

mod android;
#[path = "generate_perfetto.rs"]
mod perfetto_trace;
#[path = "generate_tables.rs"]
mod tables;
#[path = "generate_valgrind.rs"]
mod valgrind;

/// xorshift64*: enough randomness for a benchmark input, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const PACKAGES: [&str; 6] = ["CL-USER", "SYSTEM", "CAPI", "COMMON-LISP", "HCL", "APP.ORDERS"];
const VERBS: [&str; 10] = ["PROCESS", "COMPUTE", "READ", "WRITE", "PARSE", "RENDER", "UPDATE", "CHECK", "MAP", "FIND"];
const NOUNS: [&str; 10] = ["ORDER", "ITEM", "BUFFER", "STREAM", "TABLE", "NODE", "WIDGET", "RECORD", "QUEUE", "CACHE"];

fn profile_with_nodes(nodes: usize, seed: u64) -> Profile {
    let mut rng = Rng(seed | 1);
    let mut p = Profile::new(vec![Metric::samples()]);
    let names: Vec<FrameId> = (0..5000)
        .map(|i| {
            let name = format!(
                "{}::{}-{}-{i}",
                PACKAGES[i % PACKAGES.len()],
                VERBS[(i / 7) % VERBS.len()],
                NOUNS[(i / 3) % NOUNS.len()]
            );
            p.frames.intern(FrameRef::function(&name))
        })
        .collect();
    let threads: Vec<FrameId> =
        (0..4).map(|i| p.frames.intern(FrameRef::named(&format!("Worker Process {i}"), FrameKind::Thread))).collect();
    // The open path, each node with the frames of its children so far: a profiler never writes two
    // siblings with the same function.
    let mut path: Vec<NodeId> = Vec::new();
    let mut siblings: Vec<Vec<FrameId>> = vec![Vec::new()];
    for i in 0..nodes {
        // Walk: deeper, climbing back now and then (never above the thread root); a quarter of the
        // nodes under each of the four thread roots.
        let depth = path.len();
        if i % nodes.div_ceil(threads.len()) == 0 {
            path.clear();
        } else if depth > 3 && rng.below(100) < 30 {
            let climb = 1 + rng.below((depth - 1).min(12) as u64) as usize;
            path.truncate(depth - climb);
        }
        if depth > 60 {
            path.truncate(20);
        }
        siblings.truncate(path.len() + 1);
        let taken = &siblings[path.len()];
        let pick = |rng: &mut Rng| match path.last() {
            None => threads[i / nodes.div_ceil(threads.len())],
            // Zipf-ish: a few hot functions, a long tail.
            Some(_) => names[(rng.below(5000) * rng.below(5000) / 5000) as usize],
        };
        // When the hot names are taken among the siblings, one of the many closures of a big program
        // (20,000 of them), or failing that a fresh one.
        let frame = match (0..8).map(|_| pick(&mut rng)).find(|f| !taken.contains(f)) {
            Some(frame) => frame,
            None => {
                let closure = (0..8).map(|_| rng.below(20_000)).find(|&k| !taken.contains(&closure_id(&mut p, k)));
                closure_id(&mut p, closure.unwrap_or(20_000 + i as u64))
            }
        };
        siblings[path.len()].push(frame);
        siblings.push(Vec::new());
        let node = p.tree.push(path.last().copied(), frame);
        let self_samples = if rng.below(3) == 0 { rng.below(200) as i64 } else { 0 };
        p.tree.set_self(0, node, Value::Int(self_samples));
        path.push(node);
    }
    p
}

/// The profile as a Dyalog `]PROFILE` tree reports it: under each function, the lines it ran (a
/// line row per callee's calling line, and a few lines that call nothing), the callees under their
/// line; APL names; calls per row; times in ms with three decimals, as `]PROFILE` 1.37 prints them.
fn dyalog_shape(src: &Profile, seed: u64) -> Profile {
    let mut rng = Rng(seed | 1);
    let (calls, time) = (Metric::entries("calls"), Metric::time(Unit::Milliseconds, Repr::Float));
    let mut p = Profile::new(vec![calls, time]);
    let apl_name = |name: &str| format!("#.{}", name.replace("::", ".").replace(['-', ' ', '(', ')'], "_"));
    let mut new_node: Vec<NodeId> = vec![NodeId(0); src.tree.len()];
    let add = |p: &mut Profile, parent: Option<NodeId>, frame: FrameRef<'_>, rng: &mut Rng| {
        let id = p.frames.intern(frame);
        let node = p.tree.push(parent, id);
        p.tree.set_self(0, node, Value::Int(1 + rng.below(40) as i64));
        p.tree.set_self(1, node, Value::Float(rng.below(5000) as f64 / 1000.0));
        node
    };
    for visit in src.tree.walk() {
        let node = visit.node;
        let name = apl_name(&src.frames.get(src.tree.frame(node)).name);
        let parent = src.tree.parent(node).map(|parent| {
            // The calling line of the parent function: one line row per callee.
            let caller = &p.frames.get(p.tree.frame(new_node[parent.index()])).name.clone();
            // A function calls a given function from the same line.
            let line = 1 + (src.tree.frame(node).0 % 40);
            add(
                &mut p,
                Some(new_node[parent.index()]),
                FrameRef { line: Some(line), kind: FrameKind::Line, ..FrameRef::function(caller) },
                &mut rng,
            )
        });
        let function = add(&mut p, parent, FrameRef::function(&name), &mut rng);
        for _ in 0..rng.below(3) {
            let line = 41 + rng.below(5) as u32;
            add(
                &mut p,
                Some(function),
                FrameRef { line: Some(line), kind: FrameKind::Line, ..FrameRef::function(&name) },
                &mut rng,
            );
        }
        new_node[node.index()] = function;
    }
    p
}

fn closure_id(p: &mut Profile, k: u64) -> FrameId {
    p.frames.intern(FrameRef::function(&format!("(SUBFUNCTION {k} CL-USER::DISPATCH-LOOP)")))
}

fn write(format: Format, profile: &Profile, out: &mut dyn Write) -> u64 {
    let mut counter = CountingWriter { inner: out, bytes: 0 };
    if format == Format::GhcProf {
        ghc_prof_text(profile, &mut counter).expect("writing the generated profile");
        return counter.bytes;
    }
    let mut diag = Diagnostics::default();
    // A generated input may be as large as asked: no --max-samples cap, no --max-output-size
    // limit (br's 1 GB row is more than its default of 1 GiB or 100 times the input).
    let mut options = ConvertOptions::default();
    options.max_samples = u64::MAX;
    options.max_output_size = Some(u64::MAX);
    options.formats.set(proftool::formats::sampler::Options { order: FrameOrder::LeafFirst });
    if format == Format::Pprof {
        // pprof's writer gzips; the bench sizes and reads the protocol buffer itself (a `.pb`), the
        // bytes a reader of a `.pb.gz` parses once it is decompressed.
        let mut raw = flate2::write::GzDecoder::new(&mut counter);
        convert::write(profile.clone(), format, &mut raw, &options, &mut diag).expect("writing the generated profile");
        raw.finish().expect("decompressing the generated profile");
    } else {
        convert::write(profile.clone(), format, &mut counter, &options, &mut diag)
            .expect("writing the generated profile");
    }
    counter.bytes
}

/// Writes `profile` as a GHC `+RTS -P` text report (proftool reads this format only; the bench
/// needs one): a `MAIN` root above the generated roots, labels without spaces, a module per
/// package prefix, self samples as ticks and a kilobyte allocated per tick.
fn ghc_prof_text(profile: &Profile, out: &mut dyn Write) -> std::io::Result<()> {
    let tree = &profile.tree;
    let names: Vec<(String, String)> = profile
        .frames
        .iter()
        .map(|(_, f)| {
            let (module, label) = f.name.split_once("::").unwrap_or(("Main", &f.name));
            let module: String = module.split(['-', '.', ' ', '(']).filter(|w| !w.is_empty()).map(capitalise).collect();
            let module = if module.is_empty() { "Main".to_string() } else { module };
            (label.replace(' ', "_"), format!("App.{module}"))
        })
        .collect();
    let inclusive = tree.derived_inclusive(0);
    let total = profile.total(0).as_count().max(1);
    let depths = tree.depths();
    let label_width = tree
        .nodes()
        .map(|n| depths[n.index()] as usize + 1 + names[tree.frame(n).index()].0.len())
        .max()
        .unwrap_or(4)
        .max(11);
    let module_width = names.iter().map(|(_, m)| m.len()).max().unwrap_or(6).max(6);
    let pct = |v: i64| v as f64 * 100.0 / total as f64;
    writeln!(out, "\tSat Nov 21 19:00 2026 Time and Allocation Profiling Report  (Final)\n")?;
    writeln!(out, "\t   bench +RTS -P -RTS\n")?;
    writeln!(out, "\ttotal time  = {:11.2} secs   ({total} ticks @ 1000 us, 1 processor)", total as f64 / 1000.0)?;
    writeln!(out, "\ttotal alloc = {} bytes  (excludes profiling overheads)\n", total * 1000)?;
    writeln!(out, "COST CENTRE MODULE SRC %time %alloc  ticks     bytes\n\n")?;
    let src = "<no location info>";
    writeln!(
        out,
        "{:w$} {:m$} {:18} {:>7} {:>11}  individual      inherited",
        "",
        "",
        "",
        "",
        "",
        w = label_width,
        m = module_width
    )?;
    writeln!(
        out,
        "{:w$} {:m$} {:18} {:>7} {:>11} {:>6} {:>6} {:>7} {:>6} {:>6} {:>9}\n",
        "COST CENTRE",
        "MODULE",
        "SRC",
        "no.",
        "entries",
        "%time",
        "%alloc",
        "%time",
        "%alloc",
        "ticks",
        "bytes",
        w = label_width,
        m = module_width
    )?;
    let row = |out: &mut dyn Write, depth: usize, label: &str, module: &str, no: usize, own: i64, all: i64| {
        writeln!(
            out,
            "{:depth$}{label:w$} {module:m$} {src:18} {no:>7} {:>11} {:>6.1} {:>6.1} {:>7.1} {:>6.1} {own:>6} {:>9}",
            "",
            no % 1000,
            pct(own),
            pct(own),
            pct(all),
            pct(all),
            own * 1000,
            w = label_width - depth,
            m = module_width
        )
    };
    row(out, 0, "MAIN", "MAIN", 1, 0, total)?;
    for (n, visit) in tree.walk().enumerate() {
        let (label, module) = &names[tree.frame(visit.node).index()];
        let own = tree.self_value(0, visit.node).as_count();
        row(out, visit.depth as usize + 1, label, module, n + 2, own, inclusive.get(visit.node.index()).as_count())?;
    }
    Ok(())
}

fn capitalise(word: &str) -> String {
    let lower = word.to_ascii_lowercase();
    let mut chars = lower.chars();
    chars.next().map_or(String::new(), |c| c.to_ascii_uppercase().to_string() + chars.as_str())
}

struct CountingWriter<'a> {
    inner: &'a mut dyn Write,
    bytes: u64,
}

impl Write for CountingWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Folded stacks of one of the two shapes issue 21 measures, written straight as text until the file
/// has `size` bytes: `folded-stacks`, independent stacks 3 to 40 deep over 50,000 names (nearly
/// every node distinct, as a sampled program with deep, varied stacks gives); `folded-walks`, random
/// walks 5 to 60 deep of a call graph of 20,000 functions with 2 to 12 callees each, from 8 entry
/// points (long Java-like names, stacks that share their first frames).
fn folded_shape(shape: &str, size: u64, out: &mut impl Write) -> (u64, u64) {
    // SEED (an environment variable) makes other stacks of the same shape, for many distinct inputs.
    let seed = std::env::var("SEED").ok().and_then(|s| s.parse::<u64>().ok()).unwrap_or(0);
    let mut rng = Rng(0x5eed ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let (mut lines, mut written) = (0u64, 0u64);
    let mut line = String::new();
    let walks = shape == "folded-walks";
    let names: Vec<String> = if walks {
        (0..20_000)
            .map(|i| {
                format!(
                    "com.example.{}.{}Service.{}{}",
                    NOUNS[i % 10].to_lowercase(),
                    NOUNS[(i / 10) % 10],
                    VERBS[(i / 100) % 10].to_lowercase(),
                    i
                )
            })
            .collect()
    } else {
        (0..50_000).map(|i| format!("{}::{}-{i}", PACKAGES[i % 6], VERBS[(i / 7) % 10])).collect()
    };
    // The call graph of the walks: each function's callees.
    let callees: Vec<Vec<u32>> =
        (0..names.len()).map(|_| (0..2 + rng.below(11)).map(|_| rng.below(20_000) as u32).collect()).collect();
    while written < size {
        line.clear();
        if walks {
            let depth = 5 + rng.below(56);
            let mut f = rng.below(8) as usize;
            for d in 0..depth {
                if d > 0 {
                    line.push(';');
                    f = callees[f][rng.below(callees[f].len() as u64) as usize] as usize;
                }
                line.push_str(&names[f]);
            }
        } else {
            let depth = 3 + rng.below(38);
            for d in 0..depth {
                if d > 0 {
                    line.push(';');
                }
                let pick = if d == 0 { rng.below(50) } else { rng.below(50_000) };
                line.push_str(&names[pick as usize]);
            }
        }
        line.push_str(&format!(" {}\n", 1 + rng.below(100)));
        out.write_all(line.as_bytes()).expect("writing the output");
        written += line.len() as u64;
        lines += 1;
    }
    (lines, written)
}

/// `perf script` text of `perf record -g` (default fields, `cpu-clock` at 4 kHz) until the file has
/// `size` bytes: samples of 4 threads, each a random walk of a call graph written innermost first
/// with addresses and offsets, as perf prints them. Two shapes: `perf-script`, walks 5 to 40 deep of
/// 5,000 functions with 2 to 6 callees each from 4 entry points (stacks that repeat), and
/// `perf-random`, walks 5 to 60 deep of 20,000 functions with 2 to 12 callees each from 8 entry
/// points (stacks that rarely repeat, as `folded-walks`); the functions spread over 4 DSOs.
fn perf_script(shape: &str, size: u64, out: &mut impl Write) -> (u64, u64) {
    let random = shape == "perf-random";
    let (functions, callees_max, depth_max, entries) = if random { (20_000, 12, 60, 8) } else { (5_000, 6, 40, 4) };
    let mut rng = Rng(if random { 0x7a4d } else { 0x9e7f });
    let dsos = ["/usr/bin/server", "/usr/lib/x86_64-linux-gnu/libc.so.6", "[kernel.kallsyms]", "/usr/lib/libssl.so.3"];
    let names: Vec<String> =
        (0..functions).map(|i| format!("{}::{}_{i}", PACKAGES[i % 6], VERBS[(i / 7) % 10].to_lowercase())).collect();
    let callees: Vec<Vec<u32>> = (0..functions)
        .map(|_| (0..2 + rng.below(callees_max - 1)).map(|_| rng.below(functions as u64) as u32).collect())
        .collect();
    let (mut records, mut written, mut time) = (0u64, 0u64, 1000.0f64);
    let mut record = String::new();
    let mut stack: Vec<usize> = Vec::new();
    while written < size {
        record.clear();
        stack.clear();
        let thread = rng.below(4);
        time += 0.00025;
        record.push_str(&format!("server {} [00{thread}] {time:12.6}:     250000 cpu-clock:pppH: \n", 4100 + thread));
        let mut f = rng.below(entries) as usize;
        for d in 0..5 + rng.below(depth_max - 4) {
            if d > 0 {
                f = callees[f][rng.below(callees[f].len() as u64) as usize] as usize;
            }
            stack.push(f);
        }
        for &f in stack.iter().rev() {
            let address = 0x40_0000 + f as u64 * 0x40 + rng.below(0x40);
            let name = &names[f];
            let dso = dsos[f % dsos.len()];
            record.push_str(&format!("\t{address:16x} {name}+0x{:x} ({dso})\n", rng.below(0x40)));
        }
        record.push('\n');
        out.write_all(record.as_bytes()).expect("writing the output");
        written += record.len() as u64;
        records += 1;
    }
    (records, written)
}

/// The utility functions of `callgrind`'s program, called from everywhere.
const CALLGRIND_UTILITIES: usize = 200;

/// A callgrind file as valgrind writes one for a large program (`positions: line`, `events: Ir Dr
/// Dw`, compressed names, sub-position compression), of at least `size` bytes: functions in 500
/// source files, each called from one caller (function `i` from `i / 4`, so that the graph is as
/// deep as a program's), a third of them also calling one of 200 utility functions (leaves called
/// from everywhere, as `memcpy` or `malloc`), with 5 to 40 cost lines each, and every call's
/// inclusive cost what its callee's costs add up to (a utility's shared among its callers). Not
/// written through proftool's callgrind writer: a tree of random stacks written as a graph is a
/// graph of random calls, which no program has. Returns the functions and the bytes written.
fn callgrind(size: u64, out: &mut impl Write) -> (usize, u64) {
    const UTILITIES: usize = CALLGRIND_UTILITIES;
    const BYTES_PER_FUNCTION: u64 = 410;
    let mut rng = Rng(0xca11_9121);
    let functions = UTILITIES + (size / BYTES_PER_FUNCTION) as usize;
    // Own costs per line (line, Ir, Dr, Dw) and the utility each calls, if any.
    let mut lines: Vec<Vec<(u64, [u64; 3])>> = Vec::with_capacity(functions);
    let mut utility: Vec<Option<usize>> = Vec::with_capacity(functions);
    for f in 0..functions {
        let mut line = 10 + rng.below(2000);
        let n = 5 + rng.below(36);
        let own = (0..n)
            .map(|_| {
                line += 1 + rng.below(4);
                let ir = 1 + rng.below(50) * rng.below(50);
                (line, [ir, ir / 3, ir / 7])
            })
            .collect();
        lines.push(own);
        utility.push((f >= UTILITIES && rng.below(3) == 0).then(|| rng.below(UTILITIES as u64) as usize));
    }
    let own = |f: usize| lines[f].iter().fold([0u64; 3], |a, (_, c)| [a[0] + c[0], a[1] + c[1], a[2] + c[2]]);
    let CallCosts { per_call, inclusive, callees } =
        CallCosts::of(&(0..functions).map(own).collect::<Vec<_>>(), &utility);
    let name = |f: usize| match f < UTILITIES {
        true => format!("util_{}", ["memcpy", "malloc", "free", "hash", "compare"][f % 5].to_owned() + &f.to_string()),
        false => format!("{}_{}_{f}", VERBS[f % 10].to_lowercase(), NOUNS[(f / 10) % 10].to_lowercase()),
    };
    let file_of = |f: usize| match f < UTILITIES {
        true => format!("lib/util{}.c", f % 20),
        false => format!("src/{}/{}.c", NOUNS[f % 10].to_lowercase(), f % 480),
    };
    let mut out = CountingWriter { inner: out, bytes: 0 };
    let mut named_files = std::collections::HashMap::new();
    let mut named_fns = vec![false; functions];
    let totals = (0..functions).map(own).fold([0u64; 3], |a, c| [a[0] + c[0], a[1] + c[1], a[2] + c[2]]);
    let w = &mut out;
    writeln!(w, "# callgrind format\nversion: 1\ncreator: proftool-bench\npid: 1\ncmd: ./big\npart: 1\n").unwrap();
    writeln!(w, "positions: line\nevents: Ir Dr Dw\nsummary: {} {} {}\n", totals[0], totals[1], totals[2]).unwrap();
    let compressed = |named: bool, id: usize, text: String| match named {
        true => format!("({id})"),
        false => format!("({id}) {text}"),
    };
    for f in 0..functions {
        let file = file_of(f);
        let next = named_files.len() + 1;
        let (file_id, file_named) = match named_files.get(&file) {
            Some(&id) => (id, true),
            None => {
                named_files.insert(file.clone(), next);
                (next, false)
            }
        };
        writeln!(w, "fl={}", compressed(file_named, file_id, file)).unwrap();
        writeln!(w, "fn={}", compressed(named_fns[f], f + 1, name(f))).unwrap();
        named_fns[f] = true;
        let mut last = 0;
        for &(line, c) in &lines[f] {
            match last {
                0 => write!(w, "{line}").unwrap(),
                _ => write!(w, "+{}", line - last).unwrap(),
            }
            last = line;
            writeln!(w, " {} {} {}", c[0], c[1], c[2]).unwrap();
        }
        let calls = callees[f].iter().map(|&g| (g, inclusive[g])).chain(utility[f].map(|u| (u, per_call[u])));
        for (g, cost) in calls {
            if file_of(g) != file_of(f) {
                let callee_file = file_of(g);
                let next = named_files.len() + 1;
                let id = *named_files.entry(callee_file.clone()).or_insert(next);
                writeln!(w, "cfi={}", compressed(id != next, id, callee_file)).unwrap();
            }
            writeln!(w, "cfn={}", compressed(named_fns[g], g + 1, name(g))).unwrap();
            named_fns[g] = true;
            writeln!(w, "calls=1 {}\n* {} {} {}", lines[g][0].0, cost[0], cost[1], cost[2]).unwrap();
        }
        writeln!(w).unwrap();
    }
    writeln!(w, "totals: {} {} {}", totals[0], totals[1], totals[2]).unwrap();
    (functions, out.bytes)
}

/// What `callgrind`'s calls cost: function `i` called from `i / 4` past the utilities, and some
/// calling a utility.
struct CallCosts {
    /// What one call of each utility costs: its own costs shared equally among its calls.
    per_call: Vec<[u64; 3]>,
    /// Each function's inclusive costs.
    inclusive: Vec<[u64; 3]>,
    /// Each function's callees but the utility it calls.
    callees: Vec<Vec<usize>>,
}

impl CallCosts {
    /// The costs of the functions whose own costs are `own`, `utility` naming the utility each calls.
    fn of(own: &[[u64; 3]], utility: &[Option<usize>]) -> CallCosts {
        const UTILITIES: usize = CALLGRIND_UTILITIES;
        let functions = own.len();
        let caller = |f: usize| (f > UTILITIES).then(|| UTILITIES + (f - UTILITIES - 1) / 4);
        // Inclusive costs, callees (higher numbers) first; a utility's calls share its total equally.
        let mut calls_to = vec![0u64; UTILITIES];
        utility.iter().flatten().for_each(|&u| calls_to[u] += 1);
        let per_call: Vec<[u64; 3]> = (0..UTILITIES).map(|u| own[u].map(|c| c / calls_to[u].max(1))).collect();
        let mut inclusive = own.to_vec();
        for f in (UTILITIES..functions).rev() {
            if let Some(u) = utility[f] {
                (0..3).for_each(|e| inclusive[f][e] += per_call[u][e]);
            }
            if let Some(c) = caller(f) {
                let add = inclusive[f];
                (0..3).for_each(|e| inclusive[c][e] += add[e]);
            }
        }
        let mut callees: Vec<Vec<usize>> = vec![Vec::new(); functions];
        for f in UTILITIES + 1..functions {
            if let Some(c) = caller(f) {
                callees[c].push(f);
            }
        }
        CallCosts { per_call, inclusive, callees }
    }
}

/// A Python pstats file (`marshal.dumps` of the stats dict, as cProfile's `dump_stats` writes it,
/// marshal version 4: keys and names written once and named again by ref) of at least `size`
/// bytes: a program's call graph as `callgrind`'s shape is (function `i` called from `i / 4`, a
/// third also calling one of 200 utilities called from everywhere), every 50th function also
/// recursive, each entry `(cc, nc, tt, ct, callers)` with cProfile's `(nc, cc, tt, ct)` per
/// caller and every cumulative time what its own time and its callees' add up to. Not written
/// through proftool (which does not write pstats). Returns the functions and the bytes written.
fn pstats(size: u64, out: &mut impl Write) -> (usize, u64) {
    const UTILITIES: usize = 200;
    const BYTES_PER_FUNCTION: u64 = 105;
    let mut rng = Rng(0x9574_7a75);
    let functions = UTILITIES + (size / BYTES_PER_FUNCTION) as usize;
    let caller = |f: usize| (f > UTILITIES).then(|| UTILITIES + (f - UTILITIES - 1) / 4);
    let own: Vec<f64> = (0..functions).map(|_| (1 + rng.below(50) * rng.below(50)) as f64 * 1e-7).collect();
    let calls: Vec<u64> = (0..functions).map(|_| 1 + rng.below(20)).collect();
    let utility: Vec<Option<usize>> = (0..functions)
        .map(|f| (f >= UTILITIES && rng.below(3) == 0).then(|| rng.below(UTILITIES as u64) as usize))
        .collect();
    let recursive = |f: usize| f > UTILITIES && f.is_multiple_of(50);
    // A utility's calls and time shared among its callers, equally per call.
    let mut callers_of: Vec<Vec<usize>> = vec![Vec::new(); functions];
    utility.iter().enumerate().for_each(|(f, u)| u.iter().for_each(|&u| callers_of[u].push(f)));
    let mut inclusive = own.clone();
    for f in (UTILITIES..functions).rev() {
        if let Some(u) = utility[f] {
            inclusive[f] += own[u] / callers_of[u].len() as f64;
        }
        if let Some(c) = caller(f) {
            inclusive[c] += inclusive[f];
        }
    }
    let mut w = CountingWriter { inner: out, bytes: 0 };
    let mut refs = 0u32;
    let mut key_ref: Vec<Option<u32>> = vec![None; functions];
    let mut file_ref: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
    let file_of = |f: usize| match f < UTILITIES {
        true => format!("/usr/lib/python3.11/util{}.py", f % 20),
        false => format!("/srv/app/{}/{}.py", NOUNS[f % 10].to_lowercase(), f % 480),
    };
    let name = |f: usize| match f < UTILITIES {
        true => format!("{}_{f}", ["copy", "get", "join", "hash", "compare"][f % 5]),
        false => format!("{}_{}_{f}", VERBS[f % 10].to_lowercase(), NOUNS[(f / 10) % 10].to_lowercase()),
    };
    // A key: `(file, line, name)` flagged for refs, its file named by ref after its first time.
    let mut key = |w: &mut CountingWriter<'_>, f: usize, refs: &mut u32| {
        if let Some(r) = key_ref[f] {
            return w.write_all(b"r").and_then(|()| w.write_all(&r.to_le_bytes()));
        }
        key_ref[f] = Some(*refs);
        *refs += 1;
        w.write_all(&[b')' | 0x80, 3])?;
        let file = file_of(f);
        match file_ref.get(&file) {
            Some(&r) => w.write_all(b"r").and_then(|()| w.write_all(&r.to_le_bytes()))?,
            None => {
                file_ref.insert(file.clone(), *refs);
                *refs += 1;
                w.write_all(&[b'Z' | 0x80, file.len() as u8]).and_then(|()| w.write_all(file.as_bytes()))?
            }
        }
        w.write_all(b"i")?;
        w.write_all(&(1 + (f as i32 % 900)).to_le_bytes())?;
        let name = name(f);
        w.write_all(&[b'z', name.len() as u8]).and_then(|()| w.write_all(name.as_bytes()))
    };
    let int =
        |w: &mut CountingWriter<'_>, v: u64| w.write_all(b"i").and_then(|()| w.write_all(&(v as i32).to_le_bytes()));
    let float = |w: &mut CountingWriter<'_>, v: f64| w.write_all(b"g").and_then(|()| w.write_all(&v.to_le_bytes()));
    let figures = |w: &mut CountingWriter<'_>, (a, b, tt, ct): (u64, u64, f64, f64)| {
        int(w, a)?;
        int(w, b)?;
        float(w, tt)?;
        float(w, ct)
    };
    w.write_all(&[b'{' | 0x80]).unwrap();
    refs += 1;
    for f in 0..functions {
        key(&mut w, f, &mut refs).unwrap();
        let extra = if recursive(f) { calls[f] * 3 } else { 0 };
        let nc = if f < UTILITIES { callers_of[f].len() as u64 } else { calls[f] } + extra;
        let cc = nc - extra;
        w.write_all(&[b')', 5]).unwrap();
        figures(&mut w, (cc, nc, own[f], inclusive[f])).unwrap();
        w.write_all(b"{").unwrap();
        let mut edge = |w: &mut CountingWriter<'_>, c: usize, e: (u64, u64, f64, f64)| {
            key(w, c, &mut refs)?;
            w.write_all(&[b')', 4])?;
            figures(w, e)
        };
        if f < UTILITIES {
            let share = own[f] / callers_of[f].len().max(1) as f64;
            for &c in &callers_of[f] {
                edge(&mut w, c, (1, 1, share, share)).unwrap();
            }
        } else if let Some(c) = caller(f) {
            let tt = own[f] * cc as f64 / nc as f64;
            edge(&mut w, c, (cc, cc, tt, inclusive[f])).unwrap();
            if extra > 0 {
                let tt = own[f] - tt;
                edge(&mut w, f, (extra, 0, tt, tt)).unwrap();
            }
        }
        w.write_all(b"0").unwrap();
    }
    w.write_all(b"0").unwrap();
    (functions, w.bytes)
}

/// A V8 tick log (`node --prof`) of at least `size` bytes: V8's header records, two libraries,
/// 1,000 builtins and 5,000 JavaScript functions whose code is created (and every 20th moved, and
/// created again at a new tier), then ticks 4 to 40 frames deep, each in a function's code, a
/// builtin or a library, their return addresses in the code of the functions that call them.
/// Returns the ticks and the bytes written.
fn v8_log(size: u64, out: &mut impl Write) -> (u64, u64) {
    const BUILTINS: u64 = 1000;
    const FUNCTIONS: u64 = 5000;
    const CODE: u64 = 0x3a84_0000_0000;
    const SFI: u64 = 0x4555_0000_0000;
    let mut rng = Rng(0x7e8b_10c5);
    let mut w = CountingWriter { inner: out, bytes: 0 };
    let put = |w: &mut CountingWriter<'_>, line: String| w.write_all(line.as_bytes()).expect("writing the output");
    put(&mut w, "v8-version,11,3,244,8,-node.38,0\nv8-platform,linux,linux\n".into());
    put(&mut w, "shared-library,/usr/bin/node,0x400000,0x2601000,0\n".into());
    put(&mut w, "shared-library,/usr/lib/x86_64-linux-gnu/libc.so.6,0x7f06d8bfe000,0x7f06d8d7a000,0\n".into());
    put(&mut w, "profiler,begin,1000\n".into());
    for b in 0..BUILTINS {
        put(
            &mut w,
            format!("code-creation,Builtin,2,{b},{:#x},256,{}Builtin{b}\n", CODE + b * 0x100, VERBS[(b % 10) as usize]),
        );
    }
    // Function `f`'s code: 0x200 bytes at its slot, after the builtins; moved ones 0x1000_0000 up.
    let code = |f: u64, moved: bool| CODE + (BUILTINS + f) * 0x200 + if moved { 0x1000_0000 } else { 0 };
    for f in 0..FUNCTIONS {
        let name = format!(
            "{}_{}_{f} /srv/app/{}.js:{}:{}",
            VERBS[(f % 10) as usize].to_lowercase(),
            NOUNS[(f / 10 % 10) as usize].to_lowercase(),
            f % 480,
            1 + f % 900,
            1 + f % 40
        );
        put(&mut w, format!("code-creation,JS,10,{f},{:#x},512,{name},{:#x},~\n", code(f, false), SFI + f * 0x40));
        if f % 20 == 0 {
            put(&mut w, format!("code-move,{:#x},{:#x}\n", code(f, false), code(f, true)));
            put(&mut w, format!("code-creation,JS,10,{f},{:#x},512,{name},{:#x},*\n", code(f, false), SFI + f * 0x40));
        }
    }
    let mut ticks = 0u64;
    while w.bytes < size {
        let depth = 4 + rng.below(37);
        let mut frame = rng.below(FUNCTIONS);
        let mut stack = Vec::with_capacity(depth as usize);
        for _ in 0..depth {
            stack.push(format!(
                "{:#x}",
                code(frame, frame.is_multiple_of(20) && rng.below(2) == 0) + 0x10 + rng.below(0x1f0)
            ));
            frame = frame / 3 + rng.below(3);
        }
        let pc = match rng.below(10) {
            0 => 0x400000 + rng.below(0x2000000),
            1 => CODE + rng.below(BUILTINS) * 0x100 + 0x10,
            _ => code(rng.below(FUNCTIONS), false) + 0x10,
        };
        put(&mut w, format!("tick,{pc:#x},{},0,0x0,0,{}\n", ticks * 1000, stack.join(",")));
        ticks += 1;
    }
    (ticks, w.bytes)
}

/// A GNU gprof report (`gprof -b`: the flat profile and the call graph, as `cg_print.c` prints
/// them) of at least `size` bytes: a program's call graph as `pstats`' shape is (function `i`
/// called from `(i - 1) / 4`, a third also calling one of 200 utilities called from everywhere,
/// each utility's time shared among its callers by their calls), every 50th function also
/// recursive (`n+m`), every 7th a C++ name of spaces and a template (no comma: run.sh's report
/// rows take a CSV's first field), self times whole samples of 0.01 s and each children time what
/// its callees' lines add up to. Not written through proftool (which does not write gprof).
/// Returns the functions and the bytes written.
fn gprof(size: u64, out: &mut impl Write) -> (usize, u64) {
    const UTILITIES: usize = 200;
    const BYTES_PER_FUNCTION: u64 = 370;
    let mut rng = Rng(0x6770_726f);
    let tree = 1 + (size / BYTES_PER_FUNCTION) as usize;
    let functions = tree + UTILITIES;
    // Tree functions are 0..tree (0 is main), utilities tree..functions; gprof's index is f + 1.
    let name = |f: usize| match f {
        0 => "main".to_string(),
        f if f >= tree => format!("util_{}", f - tree),
        f if f % 7 == 0 => format!("app::Table<std::string>::lookup_{f}(int const&) const"),
        f => format!("work_{f}"),
    };
    let samples: Vec<u64> = (0..functions).map(|_| rng.below(4) * rng.below(6)).collect();
    let calls: Vec<u64> = (0..functions).map(|f| if f == 0 { 0 } else { 1 + rng.below(20) }).collect();
    let utility: Vec<Option<usize>> =
        (0..tree).map(|_| (rng.below(3) == 0).then(|| tree + rng.below(UTILITIES as u64) as usize)).collect();
    let utility_calls: Vec<u64> = (0..tree).map(|_| 1 + rng.below(9)).collect();
    let mut callers_of: Vec<Vec<usize>> = vec![Vec::new(); functions];
    utility.iter().enumerate().for_each(|(f, u)| u.iter().for_each(|&u| callers_of[u].push(f)));
    let mut utility_total = vec![0u64; functions];
    for (f, u) in utility.iter().enumerate() {
        if let Some(u) = *u {
            utility_total[u] += utility_calls[f];
        }
    }
    let own = |f: usize| samples[f] as f64 * 0.01;
    // The utility's time due to caller f.
    let due = |f: usize, u: usize| own(u) * utility_calls[f] as f64 / utility_total[u] as f64;
    let mut children = vec![0.0f64; functions];
    for f in (1..tree).rev() {
        let mine = children[f] + utility[f].map_or(0.0, |u| due(f, u));
        children[f] = mine;
        children[(f - 1) / 4] += own(f) + mine;
    }
    children[0] += utility[0].map_or(0.0, |u| due(0, u));
    let total: f64 = (0..functions).map(own).sum();
    let mut w = CountingWriter { inner: out, bytes: 0 };
    let rows = (0..functions).map(|f| {
        let n = if f >= tree { utility_total[f] } else { calls[f] };
        (samples[f], n, own(f) + children[f], name(f))
    });
    gprof_flat(&mut w, rows.collect(), total);
    writeln!(w, "\n\u{c}\n\t\t\tCall graph\n\n").unwrap();
    writeln!(w, "granularity: each sample hit covers 2 byte(s) for 0.01% of {total:.2} seconds\n").unwrap();
    writeln!(w, "index % time    self  children    called     name").unwrap();
    let line = |w: &mut CountingWriter<'_>, s: f64, c: f64, called: String, f: usize| {
        writeln!(w, "            {s:8.2} {c:8.2} {called:>12}          {} [{}]", name(f), f + 1)
    };
    let dashes = "-----------------------------------------------";
    for f in 0..functions {
        let percent = if total > 0.0 { 100.0 * (own(f) + children[f]) / total } else { 0.0 };
        let recursive = f > 0 && f < tree && f % 50 == 0;
        let n = if f >= tree { utility_total[f] } else { calls[f] };
        if f == 0 {
            writeln!(w, "                                                 <spontaneous>").unwrap();
        } else if f >= tree {
            for &c in &callers_of[f] {
                line(&mut w, due(c, f), 0.0, format!("{}/{n}", utility_calls[c]), c).unwrap();
            }
        } else {
            if recursive {
                writeln!(w, "                             {:>8}             {} [{}]", n * 3, name(f), f + 1).unwrap();
            }
            line(&mut w, own(f), children[f], format!("{n}/{n}"), (f - 1) / 4).unwrap();
        }
        let called = match (n, recursive) {
            (0, _) => String::new(),
            (n, true) => format!("{n}+{}", n * 3),
            (n, false) => n.to_string(),
        };
        let index = format!("[{}]", f + 1);
        writeln!(
            w,
            "{index:<6} {percent:6.1} {:7.2} {:7.2} {called:>8}         {} {index}",
            own(f),
            children[f],
            name(f)
        )
        .unwrap();
        if f < tree {
            for child in (4 * f + 1..=4 * f + 4).filter(|&c| c < tree) {
                line(&mut w, own(child), children[child], format!("{}/{}", calls[child], calls[child]), child).unwrap();
            }
            if let Some(u) = utility[f] {
                line(&mut w, due(f, u), 0.0, format!("{}/{}", utility_calls[f], utility_total[u]), u).unwrap();
            }
        }
        writeln!(w, "{dashes}").unwrap();
    }
    writeln!(w, "\n\u{c}\nIndex by function name\n").unwrap();
    (functions, w.bytes)
}

/// gprof's flat profile of `rows` (samples of 0.01 s, calls, self plus children, name), by self
/// time: its title, interval, header and a row each.
fn gprof_flat(w: &mut impl Write, mut rows: Vec<(u64, u64, f64, String)>, total: f64) {
    writeln!(w, "Flat profile:\n\nEach sample counts as 0.01 seconds.").unwrap();
    writeln!(w, "  %   cumulative   self              self     total           ").unwrap();
    writeln!(w, " time   seconds   seconds    calls  ms/call  ms/call  name    ").unwrap();
    rows.sort_by_key(|row| std::cmp::Reverse(row.0));
    let mut cumulative = 0.0;
    for (samples, n, inclusive, name) in rows {
        let own = samples as f64 * 0.01;
        cumulative += own;
        let percent = if total > 0.0 { 100.0 * own / total } else { 0.0 };
        let per = |t: f64| if n > 0 { 1e3 * t / n as f64 } else { 0.0 };
        let figures = format!("{percent:6.2} {cumulative:9.2} {own:8.2}");
        match n {
            0 => writeln!(w, "{figures}                             {name}").unwrap(),
            n => writeln!(w, "{figures} {n:8} {:8.2} {:8.2}  {name}", per(own), per(inclusive)).unwrap(),
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [shape @ ("folded-stacks" | "folded-walks"), size, path] => {
            write_input(path, shape, "stacks", |out| folded_shape(shape, min_bytes(size), out))
        }
        [shape @ ("perf-script" | "perf-random"), size, path] => {
            write_input(path, shape, "samples", |out| perf_script(shape, min_bytes(size), out))
        }
        ["callgrind", size, path] => write_input(path, "callgrind", "functions", |out| callgrind(min_bytes(size), out)),
        [shape @ ("pprof-legacy-cpu" | "pprof-legacy-heap"), size, path] => {
            write_input(path, shape, "stacks", |out| pprof_legacy(shape, min_bytes(size), out))
        }
        ["pstats", size, path] => write_input(path, "pstats", "functions", |out| pstats(min_bytes(size), out)),
        ["v8-log", size, path] => write_input(path, "v8-log", "ticks", |out| v8_log(min_bytes(size), out)),
        ["perfetto", size, path] => {
            write_input(path, "perfetto", "samples", |out| perfetto_trace::perfetto(min_bytes(size), out))
        }
        ["gprof", size, path] => write_input(path, "gprof", "functions", |out| gprof(min_bytes(size), out)),
        ["art-trace", size, path] => {
            write_input(path, "art-trace", "records", |out| android::art_trace(min_bytes(size), out))
        }
        ["simpleperf", size, path] => {
            write_input(path, "simpleperf", "samples", |out| android::simpleperf(min_bytes(size), out))
        }
        ["massif", size, path] => {
            write_input(path, "massif", "snapshots", |out| valgrind::massif(min_bytes(size), out))
        }
        ["dhat", size, path] => write_input(path, "dhat", "program points", |out| valgrind::dhat(min_bytes(size), out)),
        ["vtune", size, path] => write_input(path, "vtune", "nodes", |out| tables::vtune(min_bytes(size), out)),
        ["vsprof", size, path] => write_input(path, "vsprof", "rows", |out| tables::vsprof(min_bytes(size), out)),
        ["hprof", size, path] => write_input(path, "hprof", "traces", |out| tables::hprof(min_bytes(size), out)),
        ["xperf", size, path] => write_input(path, "xperf", "rows", |out| tables::xperf(min_bytes(size), out)),
        [shape @ ("sleepy" | "sleepy-0.90"), size, path] => {
            let version = if shape == "sleepy" { "0.92" } else { "0.90" };
            write_input(path, shape, "call stacks", |out| tables::sleepy(version, min_bytes(size), out))
        }
        [format, size, path] => generate_format(format, size, path, None),
        [format, size, path, nodes] => {
            generate_format(format, size, path, Some(nodes.parse().expect("NODES is a number")))
        }
        _ => {
            eprintln!("usage: generate FORMAT MIN_BYTES OUT [NODES] (FORMAT: a writable format, folded-stacks, folded-walks, perf-script, perf-random, callgrind, pprof-legacy-cpu, pprof-legacy-heap, pstats, gprof, v8-log, art-trace, simpleperf, perfetto, massif, dhat, vtune, vsprof, hprof, xperf, sleepy or sleepy-0.90)");
            std::process::exit(2);
        }
    }
}

/// A gperftools CPU profile (`pprof-legacy-cpu`: 64-bit little-endian words, 1 ms period) or heap
/// profile (`pprof-legacy-heap`: `heap_v2/524288`, in use and allocated) of at least `size` bytes:
/// distinct stacks 4 to 40 deep of 20,000 addresses in one mapping, then the memory map.
fn pprof_legacy(shape: &str, size: u64, out: &mut impl Write) -> (usize, u64) {
    const START: u64 = 0x5600_0000_0000;
    let mut rng = Rng(0x9e47_f7a5);
    let heap = shape == "pprof-legacy-heap";
    let mut written = 0u64;
    let mut put = |bytes: &[u8], written: &mut u64| {
        out.write_all(bytes).expect("writing the output");
        *written += bytes.len() as u64;
    };
    let words = |ws: &[u64]| ws.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>();
    match heap {
        true => put(b"heap profile:    1:  1 [   1:  1] @ heap_v2/524288\n", &mut written),
        false => put(&words(&[0, 3, 0, 1000, 0]), &mut written),
    }
    let mut stacks = 0;
    while written < size {
        let depth = 4 + rng.below(37);
        let addresses: Vec<u64> = (0..depth).map(|_| START + 0x1000 + rng.below(20_000) * 16).collect();
        let count = 1 + rng.below(100);
        match heap {
            true => {
                let bytes = count * (16 + rng.below(4096));
                let listed: Vec<String> = addresses.iter().map(|a| format!("{a:#x}")).collect();
                let line = format!("{count:6}: {bytes:8} [{:6}: {:8}] @ {}\n", count * 3, bytes * 3, listed.join(" "));
                put(line.as_bytes(), &mut written);
            }
            false => put(&words(&[&[count, depth][..], &addresses].concat()), &mut written),
        }
        stacks += 1;
    }
    let map = format!("{START:x}-{:x} r-xp 00001000 00:00 1 /usr/bin/bench\n", START + 0x100_0000);
    match heap {
        true => put(format!("\nMAPPED_LIBRARIES:\n{map}").as_bytes(), &mut written),
        false => {
            put(&words(&[0, 1, 0]), &mut written);
            put(map.as_bytes(), &mut written);
        }
    }
    (stacks, written)
}

/// The size asked for, `MIN_BYTES`.
fn min_bytes(size: &str) -> u64 {
    size.parse().expect("MIN_BYTES is a number")
}

/// Writes a generated input to `path` with `write`, which says how many `unit`s of `what` it wrote
/// and in how many bytes.
fn write_input<C: std::fmt::Display>(
    path: &str,
    what: &str,
    unit: &str,
    write: impl FnOnce(&mut BufWriter<std::fs::File>) -> (C, u64),
) {
    let file = std::fs::File::create(path).expect("creating the output");
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let (count, written) = write(&mut out);
    out.flush().expect("flushing the output");
    eprintln!("{path}: {what}, {count} {unit}, {written} bytes");
}

/// Writes a profile of `format` of at least `size` bytes to `path` (with `nodes`: a fixed tree whose
/// counts are scaled up).
fn generate_format(format: &str, size: &str, path: &str, nodes: Option<usize>) {
    let format = Format::from_name(format).unwrap_or_else(|| panic!("unknown format {format}"));
    let size: u64 = size.parse().expect("MIN_BYTES is a number");
    let profile = match nodes {
        // A fixed tree, its sample counts scaled until the file is large enough: few distinct stacks
        // repeated many times, as a long sampling run of a sample-per-record format has.
        Some(nodes) => {
            let mut profile = profile_with_nodes(nodes, 7);
            let once = write(format, &profile, &mut std::io::sink());
            let scale = (size as f64 / once as f64).ceil().max(1.0) as i64;
            for node in profile.tree.nodes() {
                let v = profile.tree.self_value(0, node).as_count();
                profile.tree.set_self(0, node, Value::Int(v * scale));
            }
            profile
        }
        // Bytes per node measured on a small tree, then as many nodes as the size needs, 5% spare.
        None => {
            let shaped = |nodes: usize| {
                let profile = profile_with_nodes(nodes, 7);
                match format {
                    Format::DyalogXml | Format::DyalogCsv => dyalog_shape(&profile, 11),
                    _ => profile,
                }
            };
            // Formats whose bytes per node fall as the tree grows (names shared in a table: pprof,
            // speedscope) are measured again at the size estimated, until it is large enough.
            let mut nodes = 20_000;
            let mut written = write(format, &shaped(nodes), &mut std::io::sink());
            while written < size {
                let per_node = written as f64 / nodes as f64;
                nodes = ((size as f64 / per_node) * 1.05) as usize + 1;
                written = write(format, &shaped(nodes), &mut std::io::sink());
            }
            shaped(nodes)
        }
    };
    let file = std::fs::File::create(path).expect("creating the output");
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let written = write(format, &profile, &mut out);
    out.flush().expect("flushing the output");
    eprintln!("{path}: {format}, {} nodes, {written} bytes", profile.tree.len());
}
