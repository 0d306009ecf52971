//! The generator's shapes of sampled and instrumented call stacks that proftool reads only, each
//! written by the generator's own writer in its producer's layout (the fixtures' make-fixtures
//! scripts and docs/formats/ say where each comes from): Intel VTune's top-down CSV (`vtune`),
//! Visual Studio's call tree summary (`vsprof`), the JDK's HPROF text (`hprof`), xperf's exported
//! CPU sampling table (`xperf`) and Very Sleepy's capture (`sleepy`, 0.92; `sleepy-0.90`, the
//! one-line call stacks gprof2dot reads).

use super::{capitalise, CountingWriter, Rng, NOUNS, VERBS};
use std::collections::{HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::io::{Seek, Write};

const KINDS: [&str; 8] = ["Table", "Index", "Cache", "Builder", "Parser", "Pool", "Queue", "Session"];
/// The functions of a program, its system's aside, and the layers of its call graph.
const FUNCTIONS: usize = 6000;
const LAYERS: usize = 48;
/// A frame is a function's call site: `function * SITES + site` (the top frame's site, the line
/// sampled in it).
const SITES: u32 = 16;

/// The language a program's functions are named in, as its profiler names them.
#[derive(Clone, Copy, PartialEq)]
enum Lang {
    /// C++ on Windows, names without their parameters (xperf, Very Sleepy).
    Cpp,
    /// C++ on Windows, with them (VTune: overloads told apart; commas, so quoted in its CSV).
    CppSignatures,
    /// C# as Visual Studio's profiler names methods, with IL parameter types.
    CSharp,
    /// Java, `package.Class.method`, with the class's source file.
    Java,
}

/// A program's call graph: functions named in its language, each in its module (or, for Java,
/// its source file) from a first line (0: none, a native method); its own functions in 48 layers
/// (a program's, callers above their callees), each calling 2 to 8 functions of the next two
/// layers (one in twelve a system function, which calls nothing), one in sixteen itself too
/// (recursion); each thread started through a chain of the system's functions, the main thread's
/// first. Layered, not a random graph: gprof2dot's cycle finder recurses along the graph (Python's
/// limit, 1,000 calls), and a random graph's paths run through thousands of functions, no
/// program's.
struct Graph {
    names: Vec<String>,
    modules: Vec<&'static str>,
    files: Vec<String>,
    lines: Vec<u32>,
    callees: Vec<Vec<u32>>,
    starts: Vec<Vec<u32>>,
}

impl Graph {
    fn new(lang: Lang, rng: &mut Rng) -> Graph {
        let mut g = Graph {
            names: Vec::new(),
            modules: Vec::new(),
            files: Vec::new(),
            lines: Vec::new(),
            callees: Vec::new(),
            starts: Vec::new(),
        };
        let add = |g: &mut Graph, name: String, module: &'static str, file: String, line: u32| {
            g.names.push(name);
            g.modules.push(module);
            g.files.push(file);
            g.lines.push(line);
            g.callees.push(Vec::new());
            g.names.len() as u32 - 1
        };
        for i in 0..FUNCTIONS {
            let (name, module, file) = own_function(lang, i);
            add(&mut g, name, module, file, 20 + rng.below(1500) as u32);
        }
        let system: Vec<u32> = system_functions(lang)
            .iter()
            .map(|&(name, module, line)| add(&mut g, name.to_string(), module, file_of(lang, name), line))
            .collect();
        let per_layer = (FUNCTIONS / LAYERS) as u64;
        for f in 0..FUNCTIONS {
            let below = f as u64 / per_layer + 1 + rng.below(2);
            g.callees[f] = (0..2 + rng.below(7))
                .map(|_| match rng.below(12) {
                    _ if below as usize >= LAYERS => system[rng.below(system.len() as u64) as usize],
                    0 => system[rng.below(system.len() as u64) as usize],
                    _ => (below * per_layer + rng.below(per_layer)) as u32,
                })
                .collect();
            if f % 16 == 0 {
                g.callees[f].push(f as u32);
            }
        }
        for chain in thread_starts(lang) {
            let chain: Vec<u32> = chain
                .iter()
                .map(|&(name, module, line)| {
                    // A function of two chains (RtlUserThreadStart) is one function.
                    match g.names.iter().position(|n| n == name) {
                        Some(f) => f as u32,
                        None => add(&mut g, name.to_string(), module, file_of(lang, name), line),
                    }
                })
                .collect();
            for pair in chain.windows(2) {
                if !g.callees[pair[0] as usize].contains(&pair[1]) {
                    g.callees[pair[0] as usize].push(pair[1]);
                }
            }
            // The thread's own code: 6 to 12 functions of the program's top 2 layers.
            let entry = *chain.last().unwrap_or(&0) as usize;
            let top = (2 * FUNCTIONS / LAYERS) as u64;
            g.callees[entry] = (0..6 + rng.below(7)).map(|_| rng.below(top) as u32).collect();
            g.starts.push(chain);
        }
        g
    }

    /// A stack, outermost first, a frame a call site: a thread's start (the main thread's half of
    /// the time), then down 3 to 27 calls (one in five 40 more), the hot callees more often (a few
    /// paths taken again and again, a long tail), ending early in a system function; the top
    /// frame's site one of 8 lines of its function.
    fn walk(&self, rng: &mut Rng) -> Vec<u32> {
        self.thread_walk(rng).1
    }

    /// A stack as `walk` makes it, and the thread start it is of.
    fn thread_walk(&self, rng: &mut Rng) -> (usize, Vec<u32>) {
        let thread = match rng.below(2) {
            0 => 0,
            _ => rng.below(self.starts.len() as u64) as usize,
        };
        let start = &self.starts[thread];
        let mut frames: Vec<u32> = Vec::with_capacity(64);
        for pair in start.windows(2) {
            let k = self.callees[pair[0] as usize].iter().position(|&c| c == pair[1]).unwrap_or(0);
            frames.push(pair[0] * SITES + k as u32);
        }
        let mut f = start[start.len() - 1];
        let depth = 3 + rng.below(25) + if rng.below(5) == 0 { rng.below(40) } else { 0 };
        for _ in 0..depth {
            let callees = &self.callees[f as usize];
            if callees.is_empty() {
                break;
            }
            let n = callees.len() as u64;
            let k = (rng.below(n) * rng.below(n) / n) as u32;
            frames.push(f * SITES + k);
            f = callees[k as usize];
        }
        frames.push(f * SITES + rng.below(8) as u32);
        (thread, frames)
    }

    /// The line of a frame: its function's first line and 2 a site after it (0 stays 0: none).
    fn line(&self, frame: u32) -> u32 {
        match self.lines[(frame / SITES) as usize] {
            0 => 0,
            line => line + 2 * (frame % SITES),
        }
    }
}

/// The name, module and source file of the program's own function `i`: a namespace (a package)
/// and class of each, a method of each verb and noun.
fn own_function(lang: Lang, i: usize) -> (String, &'static str, String) {
    let (space, noun, kind) = (NOUNS[i % 10].to_lowercase(), capitalise(NOUNS[(i / 10) % 10]), KINDS[(i / 100) % 8]);
    // (A verb per 800 functions, turned by the namespace: the names stay distinct.)
    let verb = VERBS[(i / 800 + i * 7) % 10].to_lowercase();
    let object = capitalise(NOUNS[(i * 7 + i / 10) % 10]);
    let class = format!("{noun}{kind}");
    let template = if i.is_multiple_of(9) { "<std::string>" } else { "" };
    let cpp_file = format!("C:\\src\\orderd\\{space}\\{}_{}.cpp", noun.to_lowercase(), kind.to_lowercase());
    let cpp_module = if i.is_multiple_of(5) { "ordercore.dll" } else { "orderd.exe" };
    match lang {
        Lang::Cpp => (format!("{space}::{class}{template}::{verb}_{}", object.to_lowercase()), cpp_module, cpp_file),
        Lang::CppSignatures => {
            const PARAMS: [&str; 8] = [
                "",
                "int",
                "std::string const &",
                "unsigned __int64, bool",
                "orders::Order const &",
                "char const *, unsigned __int64",
                "std::vector<int, std::allocator<int> > const &",
                "Slice<char>, int",
            ];
            let name = format!("{space}::{class}{template}::{verb}_{}({})", object.to_lowercase(), PARAMS[(i / 3) % 8]);
            (name, cpp_module, cpp_file)
        }
        Lang::CSharp => {
            const PARAMS: [&str; 8] = [
                "",
                "string",
                "int32",
                "class Shop.Orders.Order",
                "valuetype System.Decimal,string",
                "class System.Collections.Generic.List`1<class Shop.Orders.Item>",
                "bool,int32",
                "uint8[]",
            ];
            let space = capitalise(NOUNS[i % 10]);
            let verb = capitalise(VERBS[(i / 800 + i * 7) % 10]);
            let name = format!("Shop.{space}.{class}.{verb}{object}({})", PARAMS[(i / 3) % 8]);
            (name, if i.is_multiple_of(5) { "Shop.Core.dll" } else { "Shop.exe" }, String::new())
        }
        Lang::Java => {
            let name = format!("com.example.shop.{space}.{class}.{verb}{object}");
            (name, "", format!("{class}.java"))
        }
    }
}

/// The system functions a program's own call (its runtime's, its OS's): name, module, first line
/// (0 for native code, or none known).
fn system_functions(lang: Lang) -> &'static [(&'static str, &'static str, u32)] {
    match lang {
        Lang::Cpp | Lang::CppSignatures => &[
            ("memcpy", "VCRUNTIME140.dll", 0),
            ("memset", "VCRUNTIME140.dll", 0),
            ("malloc", "ucrtbase.dll", 0),
            ("free", "ucrtbase.dll", 0),
            ("strlen", "ucrtbase.dll", 0),
            ("RtlAllocateHeap", "ntdll.dll", 0),
            ("RtlFreeHeap", "ntdll.dll", 0),
            ("RtlEnterCriticalSection", "ntdll.dll", 0),
            ("NtWaitForSingleObject", "ntdll.dll", 0),
            ("NtReadFile", "ntdll.dll", 0),
            ("NtWriteFile", "ntdll.dll", 0),
            ("WriteFile", "KERNELBASE.dll", 0),
            ("SwitchToThread", "KERNELBASE.dll", 0),
            ("recv", "WS2_32.dll", 0),
            ("send", "WS2_32.dll", 0),
            ("BCryptHashData", "bcrypt.dll", 0),
        ],
        Lang::CSharp => &[
            ("System.Collections.Generic.Dictionary`2.TryGetValue(!0,!1&)", "mscorlib.dll", 0),
            ("System.Collections.Generic.List`1.Add(!0)", "mscorlib.dll", 0),
            ("System.String.Concat(string,string)", "mscorlib.dll", 0),
            ("System.String.Format(class System.IFormatProvider,string,object[])", "mscorlib.dll", 0),
            ("System.Text.StringBuilder.Append(string)", "mscorlib.dll", 0),
            ("System.Decimal.op_Multiply(valuetype System.Decimal,valuetype System.Decimal)", "mscorlib.dll", 0),
            ("System.Threading.Monitor.Enter(object,bool&)", "mscorlib.dll", 0),
            ("System.IO.FileStream.Write(uint8[],int32,int32)", "mscorlib.dll", 0),
            ("System.Console.WriteLine(string)", "mscorlib.dll", 0),
            ("System.Net.Sockets.Socket.Receive(uint8[])", "System.dll", 0),
            ("System.Text.RegularExpressions.Regex.Match(string)", "System.dll", 0),
            (
                "System.Linq.Enumerable.ToList(class System.Collections.Generic.IEnumerable`1<!!0>)",
                "System.Core.dll",
                0,
            ),
        ],
        Lang::Java => &[
            ("java.util.HashMap.hash", "", 339),
            ("java.util.HashMap.getNode", "", 571),
            ("java.lang.String.equals", "", 977),
            ("java.lang.AbstractStringBuilder.append", "", 136),
            ("java.util.Arrays.copyOf", "", 3332),
            ("java.lang.System.arraycopy", "", 0),
            ("java.util.concurrent.ConcurrentHashMap.putVal", "", 1012),
            ("java.lang.Integer.parseInt", "", 580),
            ("java.util.regex.Pattern$Slice.match", "", 3999),
            ("java.net.SocketInputStream.socketRead0", "", 0),
            ("java.io.FileOutputStream.writeBytes", "", 0),
            ("sun.misc.Unsafe.park", "", 0),
            ("java.lang.Object.wait", "", 0),
        ],
    }
}

/// Each thread's start, outermost first: the main thread's, then the workers'.
fn thread_starts(lang: Lang) -> Vec<Vec<(&'static str, &'static str, u32)>> {
    const NTDLL: (&str, &str, u32) = ("RtlUserThreadStart", "ntdll.dll", 0);
    const KERNEL32: (&str, &str, u32) = ("BaseThreadInitThunk", "KERNEL32.DLL", 0);
    match lang {
        Lang::Cpp | Lang::CppSignatures => {
            let thread_start = match lang {
                Lang::Cpp => ("thread_start", "ucrtbase.dll", 0),
                _ => ("thread_start<unsigned int (__cdecl*)(void *),1>", "ucrtbase.dll", 0),
            };
            vec![
                vec![NTDLL, KERNEL32, ("__scrt_common_main_seh", "orderd.exe", 288), ("main", "orderd.exe", 41)],
                vec![NTDLL, KERNEL32, thread_start, ("net::WorkerPool::run", "orderd.exe", 77)],
                vec![NTDLL, KERNEL32, thread_start, ("net::IoService::run", "orderd.exe", 130)],
                vec![
                    NTDLL,
                    KERNEL32,
                    ("TppWorkerThread", "ntdll.dll", 0),
                    ("cache::Flusher::tick", "ordercore.dll", 52),
                ],
            ]
        }
        Lang::CSharp => {
            const THREAD_START: (&str, &str, u32) = ("System.Threading.ThreadHelper.ThreadStart()", "mscorlib.dll", 0);
            vec![
                vec![("Shop.Program.Main(string[])", "Shop.exe", 0)],
                vec![THREAD_START, ("Shop.Workers.Pool.Run(object)", "Shop.exe", 0)],
                vec![THREAD_START, ("Shop.Feed.Poller.Loop()", "Shop.exe", 0)],
            ]
        }
        Lang::Java => {
            const THREAD_RUN: (&str, &str, u32) = ("java.lang.Thread.run", "", 748);
            vec![
                vec![("com.example.shop.Main.main", "", 17)],
                vec![
                    THREAD_RUN,
                    ("java.util.concurrent.ThreadPoolExecutor$Worker.run", "", 624),
                    ("java.util.concurrent.ThreadPoolExecutor.runWorker", "", 1149),
                    ("com.example.shop.net.RequestHandler.run", "", 44),
                ],
                vec![THREAD_RUN, ("com.example.shop.feed.Poller.run", "", 30)],
            ]
        }
    }
}

/// A Java method's source file (its class's, the outer class of a `$` one); no file elsewhere.
fn file_of(lang: Lang, name: &str) -> String {
    match lang {
        Lang::Java => {
            let class = name.rsplit('.').nth(1).unwrap_or(name);
            format!("{}.java", class.split('$').next().unwrap_or(class))
        }
        _ => String::new(),
    }
}

/// Stacks merged root first, by function (as a top-down view merges them): each node's function,
/// parent, children, depth (node 0, the root, at 0), the samples that ended there and the stacks
/// that went through it.
struct CallTree {
    function: Vec<u32>,
    parent: Vec<u32>,
    children: Vec<Vec<u32>>,
    depth: Vec<u32>,
    hits: Vec<u64>,
    visits: Vec<u64>,
    index: HashMap<(u32, u32), u32>,
}

impl CallTree {
    fn new(root: u32) -> CallTree {
        CallTree {
            function: vec![root],
            parent: vec![0],
            children: vec![Vec::new()],
            depth: vec![0],
            hits: vec![0],
            visits: vec![0],
            index: HashMap::new(),
        }
    }

    /// The node of `functions` (outermost first) under `node`, made where new (`made` told of each
    /// node made), `hits` samples added to it and a visit to each node on the way.
    fn insert(&mut self, mut node: u32, functions: &[u32], hits: u64, mut made: impl FnMut(u32, u32)) -> u32 {
        self.visits[node as usize] += 1;
        for &f in functions {
            node = match self.index.get(&(node, f)) {
                Some(&child) => child,
                None => {
                    let child = self.function.len() as u32;
                    let depth = self.depth[node as usize] + 1;
                    self.function.push(f);
                    self.parent.push(node);
                    self.children.push(Vec::new());
                    self.depth.push(depth);
                    self.hits.push(0);
                    self.visits.push(0);
                    self.children[node as usize].push(child);
                    self.index.insert((node, f), child);
                    made(depth, f);
                    child
                }
            };
            self.visits[node as usize] += 1;
        }
        self.hits[node as usize] += hits;
        node
    }
}

/// Samples of a stack: most 1 to 3, some many (a hot loop).
fn samples(rng: &mut Rng) -> u64 {
    match rng.below(10) {
        0 => 1 + long_tail(rng, 12),
        _ => 1 + rng.below(3),
    }
}

/// A number below 2^`bits`, of a long tail: below 2^k for k below `bits` at random (as many below
/// 2 as from 2^10 to 2^11).
pub(super) fn long_tail(rng: &mut Rng, bits: u64) -> u64 {
    let k = rng.below(bits);
    rng.below(1 << k)
}

/// `value` with two decimals and its thousands grouped (`1,600.25`), in quotes where grouped, as
/// Visual Studio writes numbers in its CSV in an English locale.
fn grouped(value: f64, decimals: bool) -> String {
    let text = if decimals { format!("{value:.2}") } else { format!("{value:.0}") };
    let (whole, fraction) = text.split_at(text.find('.').unwrap_or(text.len()));
    if whole.len() <= 3 {
        return text;
    }
    let mut out = String::with_capacity(text.len() + 8);
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    format!("\"{out}{fraction}\"")
}

/// VTune's top-down call stacks as CSV (`vtune -report top-down -call-stack-mode all
/// -column="CPU Time:Self","Module" -format csv -csv-delimiter comma`, the layout
/// inferno-collapse-vtune reads) of at least `size` bytes: `Total`, then the samples of a C++
/// service's threads (and VTune's `[Outside any known module]`) merged by function, each node a
/// line indented a space a level below its caller, its own CPU time in seconds (1 ms samples, to
/// the microsecond) and its module; signatures with commas in quotes. Returns the nodes and the
/// bytes written.
pub(super) fn vtune(size: u64, out: &mut impl Write) -> (usize, u64) {
    const HEADER: &str = "Function Stack,CPU Time:Self,Module\n";
    let mut rng = Rng(0x7a7e_0001);
    let graph = Graph::new(Lang::CppSignatures, &mut rng);
    let name = |f: u32| match f {
        u32::MAX => "[Outside any known module]".to_string(),
        f if graph.names[f as usize].contains(',') => format!("\"{}\"", graph.names[f as usize]),
        f => graph.names[f as usize].clone(),
    };
    let module = |f: u32| if f == u32::MAX { "[Unknown]" } else { graph.modules[f as usize] };
    let mut tree = CallTree::new(u32::MAX - 1);
    // The lines' bytes, each time as the shortest (`0.0`: a caller's time is often none).
    let line = |depth: u32, f: u32| u64::from(depth) + name(f).len() as u64 + 6 + module(f).len() as u64;
    let mut bytes = (HEADER.len() + "Total,0.0,[Unknown]\n".len()) as u64;
    tree.insert(0, &[u32::MAX], 40, |depth, f| bytes += line(depth, f));
    while bytes < size {
        let functions: Vec<u32> = graph.walk(&mut rng).iter().map(|frame| frame / SITES).collect();
        tree.insert(0, &functions, samples(&mut rng), |depth, f| bytes += line(depth, f));
    }
    let mut w = CountingWriter { inner: out, bytes: 0 };
    w.write_all(HEADER.as_bytes()).unwrap();
    let mut open = vec![0u32];
    while let Some(node) = open.pop() {
        let (depth, f, hits) =
            (tree.depth[node as usize] as usize, tree.function[node as usize], tree.hits[node as usize]);
        let time = match hits {
            0 => "0.0".to_string(),
            hits => format!("{:.6}", hits as f64 * 0.001 + rng.below(1000) as f64 * 1e-6),
        };
        match node {
            0 => writeln!(w, "Total,{time},[Unknown]"),
            _ => writeln!(w, "{:depth$}{},{time},{}", "", name(f), module(f)),
        }
        .unwrap();
        open.extend(tree.children[node as usize].iter().rev());
    }
    (tree.function.len(), w.bytes)
}

/// Visual Studio's call tree summary of an instrumented run (`VSPerfReport /summary:calltree`,
/// `NAME_CallTreeSummary.csv`: a byte-order mark, CRLF lines each ended by a comma) of at least
/// `size` bytes: the process a level-0 row, then a C# service's threads' calls merged by function,
/// each row at its level below its caller, with its number of calls, elapsed inclusive and
/// exclusive time as percentages of the run's (two decimals) and per call (ms), its module;
/// numbers of four digits or more grouped and in quotes. The calls of an instrumented run are all
/// counted: a row's own time is its calls' cost (1 to 80 µs each) and 1 ms for each walk that ends
/// there, a thread's start called once a thread. Most rows' exclusive time is `0.00`% (a million
/// rows share the run), as in Visual Studio's own reports of big programs: inferno reads the calls
/// alone. Returns the rows and the bytes written.
pub(super) fn vsprof(size: u64, out: &mut impl Write) -> (usize, u64) {
    let mut rng = Rng(0x7595_0001);
    let graph = Graph::new(Lang::CSharp, &mut rng);
    let per_call: Vec<f64> = (0..graph.names.len()).map(|_| (1 + rng.below(80)) as f64 * 1e-3).collect();
    let calls_per_visit: Vec<u64> = (0..graph.names.len()).map(|_| 1 + long_tail(&mut rng, 8)).collect();
    // A thread's start is called once a thread (none of them more than 8).
    let starts: HashSet<u32> = graph.starts.iter().flatten().copied().collect();
    let calls_per_visit: Vec<u64> = (0..graph.names.len() as u32)
        .map(|f| if starts.contains(&f) { 0 } else { calls_per_visit[f as usize] })
        .collect();
    let mut tree = CallTree::new(u32::MAX);
    let mut target = size + size / 20;
    loop {
        // Rows' bytes, their figures' about 40 (measured below).
        let row = |depth: u32, f: u32| {
            44 + u64::from(depth.ilog10() + 1)
                + graph.names[f as usize].len() as u64
                + graph.modules[f as usize].len() as u64
        };
        let mut bytes = 0u64;
        while bytes < target {
            let functions: Vec<u32> = graph.walk(&mut rng).iter().map(|frame| frame / SITES).collect();
            tree.insert(0, &functions, samples(&mut rng), |depth, f| bytes += row(depth, f));
        }
        let written = vsprof_rows(&graph, &tree, &per_call, &calls_per_visit, &mut std::io::sink());
        if written >= size {
            break;
        }
        target = size - written + size / 50;
    }
    let written = vsprof_rows(&graph, &tree, &per_call, &calls_per_visit, out);
    (tree.function.len(), written)
}

/// The rows of `tree` as Visual Studio writes them; the bytes written.
fn vsprof_rows(graph: &Graph, tree: &CallTree, per_call: &[f64], calls_per_visit: &[u64], out: &mut impl Write) -> u64 {
    let n = tree.function.len();
    let calls: Vec<u64> = (0..n)
        .map(|node| match node {
            0 => 0,
            node => match calls_per_visit[tree.function[node] as usize] {
                0 => tree.visits[node].min(8),
                per_visit => tree.visits[node] * per_visit,
            },
        })
        .collect();
    let own: Vec<f64> = (0..n)
        .map(|node| match node {
            0 => 0.0,
            node => tree.hits[node] as f64 + calls[node] as f64 * per_call[tree.function[node] as usize],
        })
        .collect();
    let mut inclusive = own.clone();
    for node in (1..n).rev() {
        inclusive[tree.parent[node] as usize] += inclusive[node];
    }
    let total = inclusive[0].max(1e-9);
    let mut w = CountingWriter { inner: out, bytes: 0 };
    w.write_all("\u{feff}Level,Function Name,Number of Calls,Elapsed Inclusive Time %,Elapsed Exclusive Time %,Avg Elapsed Inclusive Time,Avg Elapsed Exclusive Time,Module Name,\r\n".as_bytes()).unwrap();
    w.write_all(b"0,\"OrderService.exe\",0,100.00,0.00,0.00,0.00,\"\",\r\n").unwrap();
    let mut open: Vec<u32> = tree.children[0].iter().rev().copied().collect();
    while let Some(node) = open.pop() {
        let node = node as usize;
        let f = tree.function[node] as usize;
        let per = |t: f64| grouped(t / calls[node].max(1) as f64, true);
        writeln!(
            w,
            "{},\"{}\",{},{:.2},{:.2},{},{},\"{}\",\r",
            tree.depth[node],
            graph.names[f],
            grouped(calls[node] as f64, false),
            100.0 * inclusive[node] / total,
            100.0 * own[node] / total,
            per(inclusive[node]),
            per(own[node]),
            graph.modules[f]
        )
        .unwrap();
        open.extend(tree.children[node].iter().rev());
    }
    w.bytes
}

/// HPROF's text output of CPU samples (`java -agentlib:hprof=cpu=samples,depth=40`: the JDK 8
/// agent, `thread=n`, its default) of at least `size` bytes: its header, the threads' starts, a
/// `TRACE` per distinct stack (the top 40 frames, the top first, each `method(File.java:LINE)`,
/// `Native method` for native code), numbered from 300001 as made, then the `CPU SAMPLES` table,
/// a row per trace by count, largest first, with its percentages and top method. No frame is
/// `(Unknown Source)` (a generated accessor): gprof2dot's parser, timed beside proftool, stops
/// reading traces at the first, and would read a fraction of the file. Returns the traces and the
/// bytes written.
pub(super) fn hprof(size: u64, out: &mut impl Write) -> (usize, u64) {
    const DEPTH: usize = 40;
    let mut rng = Rng(0x6870_0001);
    let graph = Graph::new(Lang::Java, &mut rng);
    let mut w = CountingWriter { inner: out, bytes: 0 };
    writeln!(w, "JAVA PROFILE 1.0.1, created Mon Nov 30 08:00:00 2026\n").unwrap();
    writeln!(w, "Header for -agentlib:hprof (or -Xrunhprof) ASCII Output (JDK 5.0 JVMTI based)\n").unwrap();
    writeln!(w, "(The agent documents its records here.)\n\n--------\n").unwrap();
    let threads = ["main", "pool-1-thread-1", "pool-1-thread-2", "pool-1-thread-3", "pool-1-thread-4", "feed-poller"];
    writeln!(w, "THREAD START (obj=50000150, id = 200001, name=\"HPROF gc_finish watcher\", group=\"system\")")
        .unwrap();
    writeln!(w, "THREAD START (obj=50000150, id = 200002, name=\"Signal Dispatcher\", group=\"system\")").unwrap();
    for (i, name) in threads.iter().enumerate() {
        writeln!(
            w,
            "THREAD START (obj={:x}, id = {}, name=\"{name}\", group=\"main\")",
            0x5000_0190 + i * 2,
            200_003 + i
        )
        .unwrap();
    }
    writeln!(w, "THREAD END (id = 200003)").unwrap();
    let mut traces: HashMap<Vec<u32>, usize> = HashMap::new();
    // Each trace's count and top method, in the order made.
    let mut rows: Vec<(u64, u32)> = Vec::new();
    let mut table = 0u64;
    let mut text = String::new();
    while w.bytes + table < size {
        let mut frames = graph.walk(&mut rng);
        frames.reverse();
        frames.truncate(DEPTH);
        let count = samples(&mut rng);
        if let Some(&t) = traces.get(&frames) {
            rows[t].0 += count;
            continue;
        }
        traces.insert(frames.clone(), rows.len());
        text.clear();
        text += &format!("TRACE {}:\n", 300_001 + rows.len());
        for &frame in &frames {
            let f = (frame / SITES) as usize;
            match graph.line(frame) {
                0 => text += &format!("\t{}({}:Native method)\n", graph.names[f], graph.files[f]),
                line => text += &format!("\t{}({}:{line})\n", graph.names[f], graph.files[f]),
            }
        }
        w.write_all(text.as_bytes()).unwrap();
        rows.push((count, frames[0] / SITES));
        table += 35 + graph.names[(frames[0] / SITES) as usize].len() as u64;
    }
    let total: u64 = rows.iter().map(|r| r.0).sum();
    writeln!(
        w,
        "CPU SAMPLES BEGIN (total = {total}) Mon Nov 30 08:42:09 2026\nrank   self  accum   count trace method"
    )
    .unwrap();
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by_key(|&t| std::cmp::Reverse(rows[t].0));
    let mut accum = 0.0;
    for (rank, &t) in order.iter().enumerate() {
        let share = 100.0 * rows[t].0 as f64 / total as f64;
        accum += share;
        let method = &graph.names[rows[t].1 as usize];
        writeln!(w, "{:4} {share:5.2}% {accum:5.2}% {:7} {} {method}", rank + 1, rows[t].0, 300_001 + t).unwrap();
    }
    writeln!(w, "CPU SAMPLES END").unwrap();
    (rows.len(), w.bytes)
}

/// xperf's CPU sampling table, "Export Full Table" of the summary table with its `Stack` column
/// (the columns of gprof2dot's test file and of fixtures/xperf; `, ` between fields, CRLF lines) of
/// at least `size` bytes: a row per sample (a few rows of 2 or 3), of 2 processes of a C++ service,
/// the Idle process (left out by both readers) and the kernel's; a stack `[Root]/module!function/…`
/// drawn from those sampled so far (hot ones again and again) or a new one, its row's function the
/// stack's last frame (one in twenty a function the stack walk missed below it; one in a hundred a
/// stack `?`); weights of about 1 ms, `% Weight` of the whole. Function names without commas: the
/// table is not quoted. Returns the rows and the bytes written.
pub(super) fn xperf(size: u64, out: &mut impl Write) -> (usize, u64) {
    const HEADER: &str = "Process Name, Display Name, Process, Stack, Module, Function, Address, Thread ID, CPU, Weight, % Weight, Count, TimeStamp\r\n";
    const PROCESSES: [(&str, &str, u32); 4] = [
        ("orderd.exe", "orderd.exe (4144)", 4148),
        ("orderd.exe", "orderd.exe (6032)", 6036),
        ("Idle", "Idle (0)", 0),
        ("System", "System (4)", 92),
    ];
    let mut rng = Rng(0x7e4f_0001);
    let graph = Graph::new(Lang::Cpp, &mut rng);
    let symbol = |frame: u32| {
        let f = (frame / SITES) as usize;
        format!("{}!{}", graph.modules[f], graph.names[f])
    };
    // The stacks sampled so far and each row's: process, stack (none: `?`), function, weight, count.
    let mut stacks: Vec<String> = Vec::new();
    let mut rows: Vec<(usize, Option<u32>, String, f64, u64)> = Vec::new();
    let mut bytes = HEADER.len() as u64;
    while bytes < size {
        let process = match rng.below(100) {
            0..=69 => 0,
            70..=89 => 1,
            90..=97 => 2,
            _ => 3,
        };
        let (stack, function) = match process {
            2 => (Some(u32::MAX), "ntoskrnl.exe!KiIdleLoop".to_string()),
            3 => (Some(u32::MAX - 1), "ntoskrnl.exe!ExpWorkerThread".to_string()),
            _ if rng.below(100) == 0 => (None, "ntoskrnl.exe!KiDpcInterruptBypass".to_string()),
            _ => {
                if stacks.is_empty() || rng.below(3) == 0 {
                    let frames = graph.walk(&mut rng);
                    let path: Vec<String> = frames.iter().map(|&frame| symbol(frame)).collect();
                    stacks.push(format!("[Root]/{}", path.join("/")));
                }
                let n = stacks.len() as u64;
                let s = (n - 1 - rng.below(n) * rng.below(n) / n) as u32;
                let last = stacks[s as usize].rsplit('/').next().unwrap_or_default().to_string();
                let function = match rng.below(20) {
                    0 => "ntdll.dll!RtlpLowFragHeapAllocFromContext".to_string(),
                    _ => last,
                };
                (Some(s), function)
            }
        };
        let weight = 0.999 + rng.below(2500) as f64 * 1e-6;
        let count = if rng.below(20) == 0 { 2 + rng.below(2) } else { 1 };
        let stack_len = match stack {
            None => 1,
            Some(u32::MAX) => 29,
            Some(s) if s == u32::MAX - 1 => 84,
            Some(s) => stacks[s as usize].len(),
        };
        // The row's bytes, its figures' at their fewest.
        bytes += (PROCESSES[process].0.len() * 2 + PROCESSES[process].1.len() + stack_len + function.len() + 69) as u64;
        rows.push((process, stack, function, weight, count));
    }
    let total: f64 = rows.iter().map(|r| r.3 * r.4 as f64).sum();
    let mut w = CountingWriter { inner: out, bytes: 0 };
    w.write_all(HEADER.as_bytes()).unwrap();
    let mut time = 0.5f64;
    for (i, (process, stack, function, weight, count)) in rows.iter().enumerate() {
        let (name, display, thread) = PROCESSES[*process];
        let stack = match *stack {
            None => "?",
            Some(u32::MAX) => "[Root]/ntoskrnl.exe!KiIdleLoop",
            Some(s) if s == u32::MAX - 1 => "[Root]/ntoskrnl.exe!KiStartSystemThread/ntoskrnl.exe!PspSystemThreadStartup/ntoskrnl.exe!ExpWorkerThread",
            Some(s) => &stacks[s as usize],
        };
        let (module, function) = function.split_once('!').unwrap_or(("?", function));
        time += 0.000_125 * (1 + rng.below(8)) as f64;
        write!(
            w,
            "{name}, {name}, {display}, {stack}, {module}, {function}, {:#018x}, ",
            0x7ff6_a1b2_0000u64 + (i as u64 * 0x3d) % 0x40_0000
        )
        .unwrap();
        let share = 100.0 * weight * *count as f64 / total;
        write!(
            w,
            "{}, {}, {weight:.6}, {share:.2}, {count}, {time:.9}\r\n",
            thread + 4 * rng.below(4) as u32,
            rng.below(8)
        )
        .unwrap();
    }
    (rows.len(), w.bytes)
}

/// Very Sleepy's capture (`.sleepy`, as its `ProfilerThread::saveData` writes it: a zip archive of
/// deflated text entries, then a stored `Version N required`) of a C++ service's threads, its
/// entries at least `size` bytes uncompressed: `Stats.txt`; `Symbols.txt`, a line per code address
/// sampled (every return address, and each instruction a sample was taken at), its module,
/// function, source file and line in quotes (`\` escaped); `Callstacks.txt`, each distinct call
/// stack of addresses (the top first) and the seconds (1 ms samples) each thread spent there
/// (`0.92`, with `Threads.txt`), or one line of seconds and addresses (`0.90`, with `IPCounts.txt`,
/// the seconds at each top address: the form gprof2dot reads). Sized by the entries, not the
/// archive: call stacks compress about 9 to 1 at Very Sleepy's level (deflate's default, 6), so an
/// archive of 100 MB would hold some 900 MB of call stacks (4 million distinct stacks), no capture
/// anyone takes, and near proftool's default --max-input-size (1 GiB an entry). Returns the call
/// stacks and the bytes of the archive.
pub(super) fn sleepy<W: Write + Seek>(version: &str, size: u64, out: &mut W) -> (usize, u64) {
    let mut rng = Rng(0x51ee_0001);
    let graph = Graph::new(Lang::Cpp, &mut rng);
    let base = |f: usize| sleepy_module_base(graph.modules[f]) + 0x1000 + f as u64 * 0x400;
    // A symbol's line: its address, module (no extension), function, file and line.
    let symbol = |a: u64, f: usize| {
        let module = graph.modules[f].rsplit_once('.').map_or(graph.modules[f], |(m, _)| m);
        let (file, line) = match graph.lines[f] {
            _ if graph.files[f].is_empty() => ("[unknown]".to_string(), 0),
            line => (graph.files[f].replace('\\', "\\\\"), line + ((a - base(f)) / 24) as u32),
        };
        format!("{a:#x} \"{module}\" \"{}\" \"{file}\" {line}\n", graph.names[f])
    };
    // The main thread, then the workers of each start.
    let threads: [&[(u32, &str)]; 4] = [
        &[(5104, "Main Thread")],
        &[(5132, "WorkerPool 1"), (5136, "WorkerPool 2"), (5140, "WorkerPool 3")],
        &[(5168, "")],
        &[(6020, ""), (6024, "")],
    ];
    let mut addresses: HashMap<u64, usize> = HashMap::new();
    let mut symbols_bytes = 0u64;
    let mut seen: HashSet<u64> = HashSet::new();
    let mut ip_seconds: HashMap<u64, f64> = HashMap::new();
    let mut callstacks: Vec<u8> = Vec::new();
    let (mut stacks, mut seconds) = (0usize, 0.0f64);
    let mut text = String::new();
    while callstacks.len() as u64 + symbols_bytes < size {
        let (start, frames) = graph.thread_walk(&mut rng);
        // The top frame: the instruction sampled (any of the function's); the others return addresses.
        let top = frames.len() - 1;
        let stack: Vec<(u64, usize)> = frames
            .iter()
            .enumerate()
            .map(|(i, &frame)| {
                let f = (frame / SITES) as usize;
                match i == top {
                    true => (base(f) + rng.below(0x3c0), f),
                    false => (base(f) + 0x25 + u64::from(frame % SITES) * 0x1d, f),
                }
            })
            .rev()
            .collect();
        let mut hasher = std::hash::DefaultHasher::new();
        stack.hash(&mut hasher);
        if !seen.insert(hasher.finish()) {
            continue;
        }
        for &(a, f) in &stack {
            if addresses.insert(a, f).is_none() {
                symbols_bytes += symbol(a, f).len() as u64;
            }
        }
        let pool = threads[start.min(3)];
        let mut spent: Vec<(u32, f64)> = Vec::new();
        for &(id, _) in pool {
            if rng.below(pool.len() as u64 + 1) > 0 {
                spent.push((id, samples(&mut rng) as f64 * 0.001 + rng.below(1000) as f64 * 1e-6));
            }
        }
        let spent = if spent.is_empty() { vec![(pool[0].0, 0.001)] } else { spent };
        let total: f64 = spent.iter().map(|s| s.1).sum();
        seconds += total;
        let ids: Vec<String> = stack.iter().map(|(a, _)| format!("{a:#x}")).collect();
        text.clear();
        match version {
            "0.92" => {
                text += &format!(" {}\n", ids.join(" "));
                spent.iter().for_each(|(id, s)| text += &format!(" {id} {s:.6}"));
                text.push('\n');
            }
            _ => {
                text += &format!("{total:.6} {}\n", ids.join(" "));
                *ip_seconds.entry(stack[0].0).or_default() += total;
            }
        }
        callstacks.extend_from_slice(text.as_bytes());
        stacks += 1;
    }
    let mut sorted: Vec<(u64, usize)> = addresses.into_iter().collect();
    sorted.sort_unstable();
    let symbols: String = sorted.iter().map(|&(a, f)| symbol(a, f)).collect();
    let stats = format!(
        "Filename: C:\\src\\orderd\\x64\\Release\\orderd.exe\nDuration: {:.6}\nDate: Mon Nov 30 08:00:00 2026\nSamples: {}\n",
        seconds / 4.0,
        (seconds * 1000.0) as u64
    );
    let mut entries: Vec<(&str, Vec<u8>)> = vec![("Stats.txt", stats.into_bytes())];
    if version != "0.92" {
        entries.push(("IPCounts.txt", sleepy_ipcounts(seconds, &ip_seconds)));
    }
    entries.push(("Symbols.txt", symbols.into_bytes()));
    entries.push(("Callstacks.txt", callstacks));
    if version == "0.92" {
        let names: String =
            threads.iter().flat_map(|pool| pool.iter()).map(|(id, name)| format!("{id}\n{name}\n")).collect();
        entries.push(("Threads.txt", names.into_bytes()));
    }
    (stacks, sleepy_archive(version, entries, out))
}

/// Very Sleepy 0.90's `IPCounts.txt`: the seconds of the capture, then those at each top address.
fn sleepy_ipcounts(seconds: f64, ip_seconds: &HashMap<u64, f64>) -> Vec<u8> {
    let mut ipcounts = format!("{seconds:.6}\n");
    let mut tops: Vec<(&u64, &f64)> = ip_seconds.iter().collect();
    tops.sort_by_key(|t| *t.0);
    tops.iter().for_each(|(a, s)| ipcounts += &format!("{a:#x} {s:.6}\n"));
    ipcounts.into_bytes()
}

/// Where Very Sleepy saw `module` loaded.
fn sleepy_module_base(module: &str) -> u64 {
    match module {
        "orderd.exe" => 0x7ff6_a1b2_0000,
        "ordercore.dll" => 0x7ffc_5a31_0000,
        "ntdll.dll" => 0x7ffd_1c8e_0000,
        "KERNEL32.DLL" => 0x7ffd_1b67_0000,
        "KERNELBASE.dll" => 0x7ffd_19e4_0000,
        "ucrtbase.dll" => 0x7ffd_19a1_0000,
        "VCRUNTIME140.dll" => 0x7ffc_f2f0_0000,
        _ => 0x7ffd_1a20_0000,
    }
}

/// Writes a capture's `entries` as Very Sleepy's archive does (deflated, then a stored `Version N
/// required`); returns its size.
fn sleepy_archive<W: Write + Seek>(version: &str, entries: Vec<(&str, Vec<u8>)>, out: &mut W) -> u64 {
    use zip::write::SimpleFileOptions;
    let mut zip = zip::ZipWriter::new(out);
    let deflate =
        SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated).compression_level(Some(6));
    for (name, bytes) in entries {
        zip.start_file(name, deflate).expect("writing the archive");
        zip.write_all(&bytes).expect("writing the archive");
    }
    let stored = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    zip.start_file(format!("Version {version} required"), stored).expect("writing the archive");
    zip.write_all(format!("{version}\n").as_bytes()).expect("writing the archive");
    let out = zip.finish().expect("writing the archive");
    out.stream_position().expect("the archive's size")
}
