//! The generator's valgrind shapes (`generate massif`, `generate dhat`): the heap of a C++ program
//! as valgrind's massif and DHAT write it, formats proftool reads only. Both are written by the
//! generator's own writers, in the layout valgrind 3.19 gives them (fixtures/dhat/make-fixtures.sh
//! makes the fixtures with it).

use super::tables::long_tail;
use super::{capitalise, CountingWriter, Rng, NOUNS, VERBS};
use std::collections::{HashMap, HashSet};
use std::io::Write;

const KINDS: [&str; 8] = ["Table", "Index", "Cache", "Builder", "Parser", "Pool", "Queue", "Session"];
const PARAMS: [&str; 8] = [
    "",
    "int",
    "std::string const&",
    "unsigned long, bool",
    "app::Order const&",
    "char const*, unsigned long",
    "std::vector<int, std::allocator<int> > const&",
    "app::Slice<char>, int",
];
/// The functions of the C++ program, its libraries' aside.
const FUNCTIONS: usize = 4000;
/// A frame's call site: `function * SITES + site`, the site of a call to the allocator `ALLOC`.
const SITES: u32 = 16;
const ALLOC: u32 = 15;
const STDCXX: &str = "/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30";

/// A function of the program: its demangled name, where valgrind places it (a source file and
/// first line, or `in` a library), its code address and the functions it calls.
struct Function {
    name: String,
    file: &'static str,
    source: Option<(String, u32)>,
    address: u64,
    callees: Vec<u32>,
}

/// A C++ program as valgrind describes its code: `main` and 4 worker threads (started through
/// glibc's `clone` and libstdc++'s `std::thread`), 4,000 functions in 800 source files, each
/// calling 2 to 8 others (chosen at random: cycles are recursion) from call sites of its own, whose
/// return addresses are a stack's frames, and 6 allocation helpers of the standard library's
/// headers (`std::__new_allocator<…>::allocate`, a string's `_M_create`) that code allocates
/// through as often as directly.
struct Program {
    functions: Vec<Function>,
    /// `main`, and the first of the thread's chain (`clone`, `start_thread`, …, the workers).
    main: u32,
    clone: u32,
    helpers: Vec<u32>,
    /// The static initialisation of libstdc++ (its emergency pool, 72,704 bytes from ld.so's
    /// `_dl_init`), which every C++ program's heap has.
    static_init: Vec<u32>,
}

impl Program {
    fn new(rng: &mut Rng) -> Program {
        let mut functions: Vec<Function> = (0..FUNCTIONS)
            .map(|i| {
                let (namespace, noun, kind) =
                    (NOUNS[i % 10].to_lowercase(), capitalise(NOUNS[(i / 10) % 10]), KINDS[(i / 100) % 8]);
                let verb = VERBS[(i / 800 + i * 7) % 10].to_lowercase();
                let object = NOUNS[(i * 7 + i / 10) % 10].to_lowercase();
                let name = match i % 9 {
                    0 => format!("app::{namespace}::{noun}{kind}<std::string>::{verb}_{object}({})", PARAMS[i % 8]),
                    _ => format!("app::{namespace}::{noun}{kind}::{verb}_{object}({})", PARAMS[(i / 3) % 8]),
                };
                let file = format!("src/{namespace}/{}_{}.cpp", noun.to_lowercase(), kind.to_lowercase());
                Function {
                    name,
                    file: "",
                    source: Some((file, 20 + rng.below(1800) as u32)),
                    address: 0x10_A000 + i as u64 * 0x2c0,
                    callees: (0..2 + rng.below(7)).map(|_| rng.below(FUNCTIONS as u64) as u32).collect(),
                }
            })
            .collect();
        let mut add = |name: &str, file: &'static str, source: Option<(&str, u32)>, address: u64, callees: Vec<u32>| {
            let source = source.map(|(file, line)| (file.to_string(), line));
            functions.push(Function { name: name.to_string(), file, source, address, callees });
            functions.len() as u32 - 1
        };
        let main = add("main", "", Some(("src/main.cpp", 41)), 0x10_9F20, (0..12).collect());
        // The workers' chain: each calls the next; the last, the 4 workers (the first functions).
        let workers: Vec<u32> = (12..16).collect();
        let run = add(
            "std::thread::_State_impl<std::thread::_Invoker<std::tuple<void (app::WorkerPool::*)(int), app::WorkerPool*, int> > >::_M_run()",
            "",
            Some(("std_thread.h", 210)),
            0x10_8E40,
            workers,
        );
        let unknown = add("???", STDCXX, None, 0x4928_4A90, vec![run]);
        let start = add("start_thread", "", Some(("pthread_create.c", 442)), 0x4B1_71E0, vec![unknown]);
        let clone = add("clone", "", Some(("clone.S", 100)), 0x4B9_6B40, vec![start]);
        let helpers = [
            ("std::__new_allocator<app::Order>::allocate(unsigned long, void const*)", "new_allocator.h", 137),
            ("std::__new_allocator<std::_Rb_tree_node<std::pair<std::string const, app::Record> > >::allocate(unsigned long, void const*)", "new_allocator.h", 137),
            ("std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::_M_create(unsigned long&, unsigned long)", "basic_string.tcc", 155),
            ("std::vector<app::Item, std::allocator<app::Item> >::_M_realloc_insert<app::Item const&>(__gnu_cxx::__normal_iterator<app::Item*, std::vector<app::Item, std::allocator<app::Item> > >, app::Item const&)", "vector.tcc", 440),
            ("std::__detail::_Hashtable_alloc<std::allocator<std::__detail::_Hash_node<std::pair<unsigned long const, app::Session>, false> > >::_M_allocate_buckets(unsigned long)", "hashtable_policy.h", 2017),
            ("std::_Function_base::_Base_manager<app::Task>::_M_init_functor(std::_Any_data&, app::Task&&)", "std_function.h", 161),
        ];
        let helpers = helpers
            .iter()
            .enumerate()
            .map(|(i, (name, file, line))| add(name, "", Some((file, *line)), 0x10_7A00 + i as u64 * 0x60, Vec::new()));
        let helpers = helpers.collect();
        let dl = add("???", "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", None, 0x401_AB90, Vec::new());
        let dl_init = add("_dl_init", "", Some(("dl-init.c", 121)), 0x400_4AC0, Vec::new());
        let call_init = add("call_init", "", Some(("dl-init.c", 26)), 0x400_4A00, Vec::new());
        let pool = add("???", STDCXX, None, 0x48F_97A0, Vec::new());
        Program { functions, main, clone, helpers, static_init: vec![dl, dl_init, call_init, pool] }
    }

    /// The text valgrind gives frame `frame` (a function's call site): `0xADDRESS: NAME
    /// (FILE:LINE)`, or `(in LIBRARY)` where the code has no debug information.
    fn frame(&self, frame: u32) -> String {
        let f = &self.functions[(frame / SITES) as usize];
        let site = frame % SITES;
        let address = f.address + 0x19 + u64::from(site) * 0x1b;
        match &f.source {
            Some((file, line)) => format!("{address:#X}: {} ({file}:{})", f.name, line + 2 * site),
            None => format!("{address:#X}: {} (in {})", f.name, f.file),
        }
    }

    /// An allocation's stack, outermost first (a frame a call site): from `main` (three in four) or
    /// a worker thread down 8 to 69 calls (one in eight 120 more: recursive descent, visitors), the
    /// hot callees more often, then the allocation, one time in three through a helper.
    fn stack(&self, rng: &mut Rng) -> Vec<u32> {
        let mut frames = Vec::new();
        let mut f = match rng.below(4) {
            0 => {
                // clone → start_thread → ??? → _M_run → a worker
                let mut f = self.clone;
                for _ in 0..3 {
                    frames.push(f * SITES);
                    f = self.functions[f as usize].callees[0];
                }
                let workers = self.functions[f as usize].callees.len() as u64;
                let w = rng.below(workers) as u32;
                frames.push(f * SITES + w);
                self.functions[f as usize].callees[w as usize]
            }
            _ => self.main,
        };
        let depth = 8 + rng.below(62) + if rng.below(8) == 0 { rng.below(120) } else { 0 };
        for _ in 0..depth {
            let callees = &self.functions[f as usize].callees;
            let n = callees.len() as u64;
            let k = (rng.below(n) * rng.below(n) / n) as u32;
            frames.push(f * SITES + k);
            f = callees[k as usize];
        }
        if rng.below(3) == 0 {
            frames.push(f * SITES + ALLOC - 1);
            f = self.helpers[rng.below(self.helpers.len() as u64) as usize];
        }
        frames.push(f * SITES + ALLOC);
        frames
    }
}

/// A massif profile (`valgrind --tool=massif --detailed-freq=1 --depth=200`: every snapshot
/// detailed, stacks whole) of at least `size` bytes. ms_print's time grows with the detailed
/// snapshots and their trees (proftool reads the peak's alone), so every snapshot is a tree as
/// massif prints it: 2,500 allocation stacks of the program (and libstdc++'s static pool) merged
/// innermost first (the allocation functions on top, each node's callers below it, one space
/// deeper), the children of a node by bytes, largest first, those below the threshold (1% of the
/// heap) one `in N places` line. Each stack's bytes follow the run: it starts allocating at some
/// point, a Zipf share of the heap (a few sites hold most of it) ramping up and varying snapshot to
/// snapshot, a third freeing everything later, all of them less and less in the last tenth of the
/// run as the program exits; the peak is the snapshot of most bytes. As many snapshots as the size
/// asks (massif keeps up to `--max-snapshots`, at most 1,000: past that the threshold is halved, as
/// one asks for more of the tree; 0.5% at 100 MB). Returns the snapshots and the bytes written.
pub(super) fn massif(size: u64, out: &mut impl Write) -> (usize, u64) {
    const STACKS: usize = 2500;
    let mut rng = Rng(0x6d61_7373);
    let program = Program::new(&mut rng);
    // The tree of every stack, innermost first: nodes in the order made (a parent before its
    // children), each stack's bytes at its last node.
    let mut tree = Tree { frame: vec![u32::MAX], parent: vec![0], children: vec![Vec::new()], index: HashMap::new() };
    let mut sites: Vec<Site> = Vec::with_capacity(STACKS + 1);
    // ld.so's ??? → _dl_init → call_init (its two lines) → libstdc++'s ??? → malloc
    let [dl, dl_init, call_init, pool] = program.static_init[..] else { unreachable!() };
    let stack = [dl * SITES, dl_init * SITES, call_init * SITES + 1, call_init * SITES, pool * SITES + ALLOC];
    sites.push(Site { leaf: tree.insert(&stack), bytes: 72_704, start: 0.001, end: 2.0, ramp: 0.0 });
    while sites.len() <= STACKS {
        let stack = program.stack(&mut rng);
        let rank = sites.len() as f64;
        let start = if rng.below(4) == 0 { 0.0 } else { rng.below(800) as f64 / 1000.0 };
        let end = if rng.below(3) == 0 { start + 0.05 + rng.below(600) as f64 / 1000.0 } else { 2.0 };
        let bytes = (4e8 / rank * (0.5 + rng.below(1000) as f64 / 1000.0)) as u64;
        sites.push(Site { leaf: tree.insert(&stack), bytes, start, end, ramp: 0.02 + rng.below(300) as f64 / 1000.0 });
    }
    // As many snapshots as the size needs: estimated on 20 of them (times spread over the run),
    // then made sure of by writing them all to a sink.
    let mut threshold = 1.0;
    let mut snapshots = loop {
        let mut sink = CountingWriter { inner: &mut std::io::sink(), bytes: 0 };
        for k in 0..20 {
            let heap = heap_at(&sites, &tree, 0.05 + 0.9 * k as f64 / 19.0, &mut Rng(0x5eed + k));
            massif_tree(&program, &tree, &heap, threshold, &mut sink);
        }
        let n = (size as f64 * 1.02 / (sink.bytes as f64 / 20.0)).ceil() as usize + 1;
        if n <= 1000 {
            break n.max(3);
        }
        threshold /= 2.0;
    };
    let seed = rng.next();
    loop {
        let written = massif_snapshots(&program, &tree, &sites, (snapshots, threshold), seed, &mut std::io::sink());
        if written >= size {
            break;
        }
        snapshots = snapshots * size as usize / written as usize + 2;
    }
    let written = massif_snapshots(&program, &tree, &sites, (snapshots, threshold), seed, out);
    (snapshots, written)
}

/// The massif file of `snapshots` snapshots of the stacks' heap (the threshold `threshold`), their
/// times drawn from `seed`; the bytes written.
fn massif_snapshots(
    program: &Program,
    tree: &Tree,
    sites: &[Site],
    (snapshots, threshold): (usize, f64),
    seed: u64,
    out: &mut impl Write,
) -> u64 {
    let heap = |k: usize| match k {
        0 => Heap { bytes: vec![0; tree.frame.len()], places: vec![0; tree.frame.len()] },
        k => heap_at(sites, tree, k as f64 / snapshots as f64, &mut Rng(0x5eed + k as u64)),
    };
    // The peak: the snapshot of most bytes (a pass of its own: a heap a snapshot is too much to keep).
    let peak = (0..snapshots).max_by_key(|&k| heap(k).bytes[0]).unwrap_or(0);
    let mut w = CountingWriter { inner: out, bytes: 0 };
    let mut options = String::from("--detailed-freq=1 --depth=200");
    if snapshots > 100 {
        options += &format!(" --max-snapshots={snapshots}");
    }
    if threshold != 1.0 {
        options += &format!(" --threshold={threshold}");
    }
    writeln!(w, "desc: {options}\ncmd: ./orderd --config etc/orderd.conf --replay day.log\ntime_unit: i").unwrap();
    let (mut time, mut rng) = (0u64, Rng(seed | 1));
    for k in 0..snapshots {
        let heap = heap(k);
        let total = heap.bytes[0];
        let kind = if k == peak { "peak" } else { "detailed" };
        writeln!(w, "#-----------\nsnapshot={k}\n#-----------\ntime={time}").unwrap();
        writeln!(w, "mem_heap_B={total}\nmem_heap_extra_B={}\nmem_stacks_B=0\nheap_tree={kind}", total / 48 / 8 * 8)
            .unwrap();
        massif_tree(program, tree, &heap, threshold, &mut w);
        time += 1_810_715 + rng.below(90_000_000);
    }
    w.bytes
}

/// An allocation stack: its node in the tree, its share of the heap and when it holds it (in
/// fractions of the run).
struct Site {
    leaf: u32,
    bytes: u64,
    start: f64,
    end: f64,
    ramp: f64,
}

/// The stacks merged innermost first: each node's frame, parent and children; node 0 the
/// allocation functions.
struct Tree {
    frame: Vec<u32>,
    parent: Vec<u32>,
    children: Vec<Vec<u32>>,
    index: HashMap<(u32, u32), u32>,
}

impl Tree {
    /// The node of `stack` (outermost first), made where it is new.
    fn insert(&mut self, stack: &[u32]) -> u32 {
        let mut node = 0;
        for &frame in stack.iter().rev() {
            node = match self.index.get(&(node, frame)) {
                Some(&child) => child,
                None => {
                    let child = self.frame.len() as u32;
                    self.frame.push(frame);
                    self.parent.push(node);
                    self.children.push(Vec::new());
                    self.children[node as usize].push(child);
                    self.index.insert((node, frame), child);
                    child
                }
            };
        }
        node
    }
}

/// Each node's bytes at a snapshot and the stacks below it that have allocated so far.
struct Heap {
    bytes: Vec<u64>,
    places: Vec<u32>,
}

/// The heap at `t` (a fraction of the run): each started stack's bytes, up to its share as it
/// ramps up, 80 to 120% of it from one snapshot to the next, none once freed, less and less in the
/// last tenth as the program exits; summed up the tree.
fn heap_at(sites: &[Site], tree: &Tree, t: f64, rng: &mut Rng) -> Heap {
    let mut heap = Heap { bytes: vec![0; tree.frame.len()], places: vec![0; tree.frame.len()] };
    let exit = if t > 0.9 { (1.0 - t) * 10.0 } else { 1.0 };
    for site in sites.iter().filter(|site| t >= site.start) {
        let ramp = if site.ramp > 0.0 { ((t - site.start) / site.ramp).min(1.0) } else { 1.0 };
        let live =
            if t < site.end { site.bytes as f64 * ramp * (0.8 + rng.below(400) as f64 / 1000.0) * exit } else { 0.0 };
        heap.bytes[site.leaf as usize] += live as u64 / 8 * 8;
        heap.places[site.leaf as usize] += 1;
    }
    for node in (1..tree.frame.len()).rev() {
        let parent = tree.parent[node] as usize;
        heap.bytes[parent] += heap.bytes[node];
        heap.places[parent] += heap.places[node];
    }
    heap
}

/// A snapshot's tree as massif prints it: the nodes of stacks that have allocated, each node's
/// children of at least `threshold`% of the heap by bytes, largest first, and the rest one line.
fn massif_tree(program: &Program, tree: &Tree, heap: &Heap, threshold: f64, w: &mut CountingWriter<'_>) {
    // A node of no bytes is never significant (`n0: 0 in 1 place, below massif's threshold`).
    let least = ((heap.bytes[0] as f64 * threshold / 100.0) as u64).max(1);
    massif_node(program, tree, heap, (least, threshold), 0, 0, w);
}

/// `node`'s line at `depth`, then its children's.
fn massif_node(
    program: &Program,
    tree: &Tree,
    heap: &Heap,
    (least, threshold): (u64, f64),
    node: u32,
    depth: usize,
    w: &mut CountingWriter<'_>,
) {
    let children = tree.children[node as usize].iter().filter(|&&c| heap.places[c as usize] > 0);
    let (mut big, small): (Vec<u32>, Vec<u32>) = children.partition(|&&c| heap.bytes[c as usize] >= least);
    big.sort_by_key(|&c| std::cmp::Reverse(heap.bytes[c as usize]));
    let count = big.len() + usize::from(!small.is_empty());
    let bytes = heap.bytes[node as usize];
    match node {
        0 => writeln!(w, "n{count}: {bytes} (heap allocation functions) malloc/new/new[], --alloc-fns, etc."),
        _ => writeln!(w, "{:depth$}n{count}: {bytes} {}", "", program.frame(tree.frame[node as usize])),
    }
    .unwrap();
    for child in big {
        massif_node(program, tree, heap, (least, threshold), child, depth + 1, w);
    }
    if !small.is_empty() {
        let bytes: u64 = small.iter().map(|&c| heap.bytes[c as usize]).sum();
        let places = match small.len() {
            1 => "1 place,".to_string(),
            n => format!("{n} places, all"),
        };
        writeln!(w, "{:1$}n0: {bytes} in {places} below massif's threshold ({threshold:.2}%)", "", depth + 1).unwrap();
    }
}

/// A DHAT profile (`valgrind --tool=dhat --num-callers=40`, heap mode, file version 2) of at
/// least `size` bytes, laid out as `dh_main.c` writes it: a program point a distinct allocation
/// stack of the program (innermost first, the allocator's frame on top, cut at 40 frames as
/// valgrind cuts them), its frames indices into `ftbl` in the order first used; figures as a heap
/// has them (a few points of millions of blocks, most of a few; the most live at once, at t-gmax
/// and at the end no more than allocated; bytes read and written), and the access histogram
/// (`acc`, run-length coded) where the point's blocks are all of one size of at most 1,024 bytes.
/// Returns the program points and the bytes written.
pub(super) fn dhat(size: u64, out: &mut impl Write) -> (usize, u64) {
    const DEPTH: usize = 40;
    const PRELOAD: &str = "/usr/libexec/valgrind/vgpreload_dhat-amd64-linux.so";
    const ALLOCATORS: [(&str, u64); 5] = [
        ("malloc", 0x0484_17B4),
        ("operator new(unsigned long)", 0x0484_3F93),
        ("calloc", 0x0484_65EF),
        ("realloc", 0x0484_8C2D),
        ("operator new[](unsigned long)", 0x0484_46A1),
    ];
    const SIZES: [u64; 12] = [8, 16, 24, 32, 40, 48, 64, 96, 128, 256, 512, 1024];
    let mut rng = Rng(0x0d4a_7000);
    let program = Program::new(&mut rng);
    let mut w = CountingWriter { inner: out, bytes: 0 };
    let (te, tg) = (48_213_577_120u64, 31_906_224_381u64);
    write!(w, "{{\"dhatFileVersion\":2\n,\"mode\":\"heap\",\"verb\":\"Allocated\"\n,\"bklt\":true,\"bkacc\":true\n")
        .unwrap();
    write!(w, ",\"tu\":\"instrs\",\"Mtu\":\"Minstr\"\n,\"tuth\":500\n,\"cmd\":\"./orderd --config etc/orderd.conf\"\n")
        .unwrap();
    write!(w, ",\"pid\":18342\n,\"te\":{te}\n,\"tg\":{tg}\n,\"pps\":\n").unwrap();
    // The frames in the order first used (an allocator's frame is `u32::MAX - its index`).
    let mut table: Vec<u32> = Vec::new();
    let mut index: HashMap<u32, usize> = HashMap::new();
    let mut seen: HashSet<Vec<u32>> = HashSet::new();
    let mut points = 0;
    let mut text = String::new();
    while w.bytes < size {
        let mut stack = program.stack(&mut rng);
        let helper = program.helpers.contains(&(stack[stack.len() - 1] / SITES));
        let allocator = if helper { 1 } else { [0, 0, 0, 1, 1, 2, 3, 4][rng.below(8) as usize] };
        stack.push(u32::MAX - allocator);
        stack.reverse();
        stack.truncate(DEPTH);
        if !seen.insert(stack.clone()) {
            continue;
        }
        // Blocks: a long tail (most points a few, some millions), one size or many.
        let blocks = 1 + long_tail(&mut rng, 22);
        let fixed = (rng.below(5) < 3).then(|| SIZES[rng.below(SIZES.len() as u64) as usize]);
        let mean = fixed.unwrap_or_else(|| 16 + 16 * long_tail(&mut rng, 14));
        let bytes = blocks * mean;
        let most = 1 + rng.below(blocks);
        let at_gmax = rng.below(most + 1);
        let at_end = if rng.below(6) == 0 { rng.below(most + 1) } else { 0 };
        let lifetime = blocks * (100 + long_tail(&mut rng, 26));
        let (read, written) = (bytes * rng.below(12) / 2, bytes * (1 + rng.below(6)) / 2);
        text.clear();
        text += &format!(
            " {}{{\"tb\":{bytes},\"tbk\":{blocks}\n  ,\"tl\":{lifetime}\n  ,\"mb\":{},\"mbk\":{most}\n",
            if points == 0 { '[' } else { ',' },
            most * mean
        );
        text +=
            &format!("  ,\"gb\":{},\"gbk\":{at_gmax}\n  ,\"eb\":{},\"ebk\":{at_end}\n", at_gmax * mean, at_end * mean);
        text += &format!("  ,\"rb\":{read},\"wb\":{written}\n");
        if let Some(block) = fixed {
            text += &format!("  ,\"acc\":[{}]\n", histogram(&mut rng, block, blocks));
        }
        let fs: Vec<String> = stack
            .iter()
            .map(|&frame| {
                let next = table.len() + 1;
                let i = *index.entry(frame).or_insert(next);
                if i == next {
                    table.push(frame);
                }
                i.to_string()
            })
            .collect();
        text += &format!("  ,\"fs\":[{}]\n  }}\n", fs.join(","));
        w.write_all(text.as_bytes()).unwrap();
        points += 1;
    }
    write!(w, " ]\n,\"ftbl\":\n [\"[root]\"\n").unwrap();
    for &frame in &table {
        let text = match u32::MAX - frame {
            a if (a as usize) < ALLOCATORS.len() => {
                let (name, address) = ALLOCATORS[a as usize];
                format!("{address:#X}: {name} (in {PRELOAD})")
            }
            _ => program.frame(frame),
        };
        writeln!(w, " ,\"{text}\"").unwrap();
    }
    writeln!(w, " ]\n}}").unwrap();
    (points, w.bytes)
}

/// An access histogram of `blocks` blocks of `block` bytes as DHAT writes it: the accesses of each
/// byte, a run of equal counts `-N,COUNT`. Fields of 4 or 8 bytes, each read or written as a
/// whole, a few never (padding), the hot ones many times a block (counts stop at 65,535).
fn histogram(rng: &mut Rng, block: u64, blocks: u64) -> String {
    let mut counts: Vec<u64> = Vec::with_capacity(block as usize);
    while (counts.len() as u64) < block {
        let field = if rng.below(3) == 0 { 4 } else { 8 };
        let count = match rng.below(6) {
            0 => 0,
            1 => blocks.min(65_535),
            _ => (blocks * (1 + rng.below(30))).min(65_535),
        };
        counts.extend(std::iter::repeat_n(count, field.min(block as usize - counts.len())));
    }
    let mut runs: Vec<String> = Vec::new();
    let mut i = 0;
    while i < counts.len() {
        let n = counts[i..].iter().take_while(|&&c| c == counts[i]).count();
        match n {
            1 => runs.push(counts[i].to_string()),
            n => runs.push(format!("-{n},{}", counts[i])),
        }
        i += n;
    }
    runs.join(",")
}
