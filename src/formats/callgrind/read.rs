//! Reading a callgrind file into its call graphs (one per thread), which [`super::graph`] turns into
//! a tree: lines are split and cost lines' numbers parsed on a second thread, names and costs
//! gathered on this one.

use super::graph::{self, Graph, Names};
use super::FORMAT;
use crate::diag::Diagnostics;
use crate::error::{excerpt, ParseError, ParseErrorKind, Position};
use crate::formats::ReadOptions;
use crate::model::Profile;
use crate::text::Line;
use rustc_hash::FxHashMap;
use std::io::Read;

/// Reads a callgrind file.
pub(crate) fn read(
    input: &mut (dyn Read + Send),
    options: &ReadOptions,
    diag: &mut Diagnostics,
) -> Result<Profile, ParseError> {
    let mut reader = Reader::default();
    crate::text::pipeline_with_parts(crate::text::Blocks::new(input, FORMAT), tokenize, |line, kind, tokens| {
        line.warn_if_cut_short("its last count may have lost digits", diag);
        reader.end = Position::line(line.position.line.unwrap_or(0) + 1, line.position.byte + line.text.len() as u64);
        reader.line(&line, kind, tokens)
    })?;
    let max_nodes = match options.max_graph_nodes {
        0 => crate::files::DEFAULT_MAX_GRAPH_NODES,
        given => given,
    };
    reader.finish(max_nodes, diag)
}

/// One number of a cost line as written: absolute (decimal or `0x` hex), or relative to the same
/// sub-position of the line before (`+n`, `-n`, `*`).
#[derive(Clone, Copy)]
enum Token {
    Decimal(u64),
    Hex(u64),
    Plus(u64),
    Minus(u64),
    Same,
}

/// What the reading thread makes of a line.
enum Kind {
    /// Blank or a comment.
    Skip,
    /// A cost line, its numbers among the block's tokens.
    Cost(std::ops::Range<usize>),
    /// A cost line with a number that is none, at this byte of the line.
    BadNumber(usize),
    /// Any other line, read on the consuming thread.
    Other,
}

/// Splits a line into its kind, and a cost line into its numbers.
fn tokenize(text: &str, tokens: &mut Vec<Token>) -> Kind {
    let Some(&first) = text.as_bytes().iter().find(|b| !b.is_ascii_whitespace()) else { return Kind::Skip };
    match first {
        b'#' => Kind::Skip,
        b'0'..=b'9' | b'+' | b'-' | b'*' => {
            let start = tokens.len();
            let base = text.as_ptr() as usize;
            for word in text.split_ascii_whitespace() {
                match token(word) {
                    Some(t) => tokens.push(t),
                    None => return Kind::BadNumber(word.as_ptr() as usize - base),
                }
            }
            Kind::Cost(start..tokens.len())
        }
        _ => Kind::Other,
    }
}

fn token(word: &str) -> Option<Token> {
    let digits = |s: &str| crate::text::is_digits(s).then(|| s.parse().ok()).flatten();
    match word.as_bytes()[0] {
        b'*' if word.len() == 1 => Some(Token::Same),
        b'+' => digits(&word[1..]).map(Token::Plus),
        b'-' => digits(&word[1..]).map(Token::Minus),
        _ => match word.strip_prefix("0x").or_else(|| word.strip_prefix("0X")) {
            Some(hex) => u64::from_str_radix(hex, 16).ok().map(Token::Hex),
            None => digits(word).map(Token::Decimal),
        },
    }
}

/// The compressed names of one kind (`(id) name`): files, functions or objects.
#[derive(Default)]
struct Compressed(FxHashMap<u64, u32>);

/// What a body line does, by its key.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Key {
    Ob,
    Cob,
    Fl,
    Fi,
    Fe,
    Fn,
    Cfi,
    Cfn,
    Calls,
    Jump,
    Jfi,
    Jfn,
}

impl Key {
    fn of(key: &str) -> Option<Key> {
        Some(match key {
            "ob" => Key::Ob,
            "cob" => Key::Cob,
            "fl" => Key::Fl,
            "fi" => Key::Fi,
            "fe" => Key::Fe,
            "fn" => Key::Fn,
            "cfi" | "cfl" => Key::Cfi,
            "cfn" => Key::Cfn,
            "calls" => Key::Calls,
            "jump" | "jcnd" => Key::Jump,
            "jfi" => Key::Jfi,
            "jfn" => Key::Jfn,
            _ => return None,
        })
    }
}

/// The reading state: names, the graphs, where the body is.
#[derive(Default)]
struct Reader {
    names: Names,
    files: Compressed,
    functions: Compressed,
    objects: Compressed,
    /// The events (`events:`), once given.
    events: Option<Vec<String>>,
    /// The sub-positions of a cost line, and which is the line.
    positions: usize,
    line_column: Option<usize>,
    has_addresses: bool,
    /// The last cost line's position values.
    last: Vec<u64>,
    /// The last cost line's counts (0 for those it left out), which a count `*`, `+n` or `-n` is
    /// relative to, as speedscope's importer reads one.
    last_counts: Vec<u64>,
    /// Object numbers used without a definition (`cob=(8)`): how many, and the first line.
    undefined_objects: (u64, Option<Position>),
    graphs: Vec<Graph>,
    /// The graph of the thread being read.
    graph: usize,
    /// The file of cost lines (`fl=`, `fi=`, `fe=`), the function's own (`fl=`), the function's
    /// name (`fn=`) and the function.
    file: Option<u32>,
    function_file: Option<u32>,
    function_name: Option<u32>,
    function: Option<u32>,
    /// The callee's file named by `cfi=` for the next `cfn=`, and the callee.
    callee_file: Option<u32>,
    callee: Option<u32>,
    /// A `calls=` line waiting for its cost line: count, callee, where it was.
    call: Option<(i64, u32, Position)>,
    /// Whether a body line was read: header facts are kept from the first dump only.
    in_body: bool,
    title: Option<String>,
    attrs: Vec<(String, String)>,
    /// `summary:` and `totals:` added up over the dumps.
    summary: Option<Vec<i64>>,
    totals: Option<Vec<i64>>,
    objects_seen: bool,
    jumps: u64,
    /// Where the input ends.
    end: Position,
}

impl Reader {
    fn line(&mut self, line: &Line<'_>, kind: Kind, tokens: &[Token]) -> Result<(), ParseError> {
        match kind {
            Kind::Skip => Ok(()),
            Kind::BadNumber(at) => {
                let word = line.text[at..].split_ascii_whitespace().next().unwrap_or("");
                Err(line
                    .error_at(at, ParseErrorKind::InvalidNumber { field: "a position or count", text: word.into() }))
            }
            Kind::Cost(range) => self.cost_line(line, &tokens[range]),
            Kind::Other => {
                if let Some((_, _, at)) = self.call {
                    return Err(expected_call_cost(line, at));
                }
                let text = line.text.trim_start();
                match text.split_once('=') {
                    Some((key, value)) if key.bytes().all(|b| b.is_ascii_lowercase()) => match Key::of(key) {
                        Some(key) => self.assignment(line, key, value),
                        None => Err(line.error(ParseErrorKind::Unexpected {
                            expected:
                                "a callgrind line: `key: value`, `fl=`, `fn=`, `cfn=`, `calls=` …, or a cost line"
                                    .into(),
                            found: excerpt(text.as_bytes()),
                        })),
                    },
                    _ => match text.split_once(':') {
                        Some((key, value)) => self.header(line, key.trim(), value),
                        None => Err(line.error(ParseErrorKind::Unexpected {
                            expected: "a callgrind line: `key: value`, `key=value` or a cost line".into(),
                            found: excerpt(text.as_bytes()),
                        })),
                    },
                }
            }
        }
    }

    fn header(&mut self, line: &Line<'_>, key: &str, value: &str) -> Result<(), ParseError> {
        let value = value.strip_prefix(' ').unwrap_or(value);
        match key {
            "version" => {
                if !matches!(value.trim(), "0" | "1") {
                    return Err(line.error(ParseErrorKind::Unexpected {
                        expected: "version 1 (the callgrind format proftool and callgrind_annotate read)".into(),
                        found: excerpt(value.as_bytes()),
                    }));
                }
                // A dump of its own (`--combine-dumps=yes`): of no thread until it says which.
                self.select_thread(None);
            }
            "thread" => self.select_thread(Some(value.trim().to_string())),
            "positions" => {
                let names: Vec<&str> = value.split_ascii_whitespace().collect();
                if let Some(bad) = names.iter().find(|n| !matches!(**n, "line" | "instr" | "addr")) {
                    return Err(line.error(ParseErrorKind::Unexpected {
                        expected: "positions of `instr` and `line`".into(),
                        found: excerpt(bad.as_bytes()),
                    }));
                }
                self.positions = names.len();
                self.line_column = names.iter().position(|n| *n == "line");
                self.has_addresses |= names.iter().any(|n| *n != "line");
                self.last = vec![0; names.len()];
            }
            "events" => {
                let events: Vec<String> = value.split_ascii_whitespace().map(String::from).collect();
                if events.is_empty() {
                    return Err(line.error(ParseErrorKind::Unexpected {
                        expected: "the names of the events".into(),
                        found: "none".into(),
                    }));
                }
                match &self.events {
                    Some(known) if *known != events => {
                        return Err(line.error(ParseErrorKind::Unexpected {
                            expected: format!("the events of the first dump ({})", known.join(" ")),
                            found: excerpt(value.as_bytes()),
                        }))
                    }
                    Some(_) => {}
                    None => self.events = Some(events),
                }
            }
            "summary" | "totals" => {
                let counts = self.counts(line, value)?;
                let sum = if key == "summary" { &mut self.summary } else { &mut self.totals };
                let sum = sum.get_or_insert_with(|| vec![0; counts.len()]);
                sum.iter_mut().zip(counts).for_each(|(s, c)| *s = s.saturating_add(c));
            }
            "cmd" if !self.in_body => self.title = Some(value.trim().to_string()),
            _ if !self.in_body => self.attrs.push((format!("callgrind.{key}"), value.to_string())),
            // Header facts of later dumps: the first dump's stand for the file.
            _ => {}
        }
        Ok(())
    }

    /// The counts of a `summary:` or `totals:` line, one per event.
    fn counts(&self, line: &Line<'_>, value: &str) -> Result<Vec<i64>, ParseError> {
        let n_events = self.n_events(line)?;
        let mut counts = vec![0; n_events];
        for (i, word) in value.split_ascii_whitespace().enumerate() {
            let at = word.as_ptr() as usize - line.text.as_ptr() as usize;
            let count = word.parse::<i64>().ok().filter(|&c| c >= 0);
            let count = count.ok_or_else(|| {
                line.error_at(at, ParseErrorKind::InvalidNumber { field: "a count", text: word.into() })
            })?;
            match counts.get_mut(i) {
                Some(slot) => *slot = count,
                None => return Err(too_many_counts(line, at, n_events)),
            }
        }
        Ok(counts)
    }

    fn n_events(&self, line: &Line<'_>) -> Result<usize, ParseError> {
        self.events.as_ref().map(Vec::len).ok_or_else(|| {
            line.error(ParseErrorKind::Unexpected {
                expected: "the `events:` line before any count".into(),
                found: excerpt(line.text.as_bytes()),
            })
        })
    }

    fn select_thread(&mut self, thread: Option<String>) {
        self.graph = match self.graphs.iter().position(|g| g.thread == thread) {
            Some(i) => i,
            None => {
                self.graphs.push(Graph::new(thread));
                self.graphs.len() - 1
            }
        };
    }

    fn assignment(&mut self, line: &Line<'_>, key: Key, value: &str) -> Result<(), ParseError> {
        self.in_body = true;
        match key {
            Key::Ob | Key::Cob => {
                self.objects_seen = true;
                // Objects are not kept: one never defined (gprof2dot's test file's `cob=(8)`, which
                // callgrind_annotate reads) is no error, only counted.
                if name(line, value, &mut self.objects, &mut self.names.objects).is_err() {
                    self.undefined_objects.0 += 1;
                    self.undefined_objects.1.get_or_insert(line.position);
                }
            }
            Key::Fl | Key::Fi | Key::Fe => {
                if key != Key::Fl && self.function_name.is_none() {
                    return Err(line.error(ParseErrorKind::Unexpected {
                        expected: "`fn=` before the inlined code of a function (`fi=`, `fe=`)".into(),
                        found: excerpt(line.text.as_bytes()),
                    }));
                }
                let file = name(line, value, &mut self.files, &mut self.names.files)?;
                self.file = Some(file);
                if key == Key::Fl {
                    self.function_file = Some(file);
                    self.function = self.function_name.map(|f| self.names.function(file, f));
                }
            }
            Key::Fn => {
                let function = name(line, value, &mut self.functions, &mut self.names.strings)?;
                // A function's code is in its own file (`fl=`) until `fi=` says otherwise.
                let file = *self.function_file.get_or_insert_with(|| self.names.files.intern(super::UNKNOWN_FILE));
                self.file = Some(file);
                self.function_name = Some(function);
                self.function = Some(self.names.function(file, function));
            }
            Key::Cfi => self.callee_file = Some(name(line, value, &mut self.files, &mut self.names.files)?),
            Key::Cfn => {
                let function = name(line, value, &mut self.functions, &mut self.names.strings)?;
                let file = match self.callee_file.take().or(self.file) {
                    Some(file) => file,
                    None => self.names.files.intern(super::UNKNOWN_FILE),
                };
                self.callee = Some(self.names.function(file, function));
            }
            Key::Calls => {
                let count = value.split_ascii_whitespace().next();
                let at = count.map_or(line.text.len(), |c| c.as_ptr() as usize - line.text.as_ptr() as usize);
                let count = count.unwrap_or("");
                let count = count.parse::<i64>().ok().filter(|&c| c >= 0).ok_or_else(|| {
                    line.error_at(at, ParseErrorKind::InvalidNumber { field: "the count of calls", text: count.into() })
                })?;
                let callee = self.callee.ok_or_else(|| {
                    line.error(ParseErrorKind::Unexpected {
                        expected: "`cfn=` naming the function called before `calls=`".into(),
                        found: excerpt(line.text.as_bytes()),
                    })
                })?;
                self.call = Some((count, callee, line.position));
            }
            Key::Jump => self.jumps += 1,
            Key::Jfi => {
                name(line, value, &mut self.files, &mut self.names.files)?;
            }
            Key::Jfn => {
                name(line, value, &mut self.functions, &mut self.names.strings)?;
            }
        }
        Ok(())
    }

    fn cost_line(&mut self, line: &Line<'_>, tokens: &[Token]) -> Result<(), ParseError> {
        self.in_body = true;
        let n_events = self.n_events(line)?;
        if self.positions == 0 {
            // `positions: line` is the default.
            (self.positions, self.line_column) = (1, Some(0));
            self.last = vec![0];
        }
        let Some(function) = self.function else {
            return Err(line.error(ParseErrorKind::Unexpected {
                expected: "`fn=` naming the function before its cost lines".into(),
                found: excerpt(line.text.as_bytes()),
            }));
        };
        if tokens.len() < self.positions {
            return Err(line.error(ParseErrorKind::Unexpected {
                expected: format!("{} position(s) before the counts (`positions:`)", self.positions),
                found: excerpt(line.text.as_bytes()),
            }));
        }
        for (last, token) in self.last.iter_mut().zip(tokens) {
            let value = match *token {
                Token::Decimal(v) | Token::Hex(v) => Some(v),
                Token::Plus(v) => last.checked_add(v),
                Token::Minus(v) => last.checked_sub(v),
                Token::Same => Some(*last),
            };
            *last = value.ok_or_else(|| {
                line.error(ParseErrorKind::Unexpected {
                    expected: "a relative position that stays between 0 and 2^64 − 1".into(),
                    found: excerpt(line.text.as_bytes()),
                })
            })?;
        }
        let source_line = self.line_column.map_or(0, |c| self.last[c]);
        let source_line = u32::try_from(source_line).map_err(|_| {
            line.error(ParseErrorKind::Unexpected {
                expected: "a line number below 2^32".into(),
                found: source_line.to_string(),
            })
        })?;
        let counts = &tokens[self.positions..];
        if counts.len() > n_events {
            let at = line.text.split_ascii_whitespace().nth(self.positions + n_events);
            let at = at.map_or(0, |w| w.as_ptr() as usize - line.text.as_ptr() as usize);
            return Err(too_many_counts(line, at, n_events));
        }
        self.counts_of(line, counts)?;
        let graph_index = match self.graphs.is_empty() {
            true => {
                self.select_thread(None);
                self.graph
            }
            false => self.graph,
        };
        let graph = &mut self.graphs[graph_index];
        let file = self.file.unwrap_or(0);
        let costs = match self.call.take() {
            Some((calls, callee, _)) => graph.call(function, (source_line, file), callee, calls, n_events),
            None => graph.cost(function, source_line, file, n_events),
        };
        for (cost, &count) in costs.iter_mut().zip(&self.last_counts[..counts.len()]) {
            let count = i64::try_from(count).map_err(|_| {
                line.error(ParseErrorKind::InvalidNumber { field: "a count below 2^63", text: count.to_string() })
            })?;
            *cost = cost.saturating_add(count);
        }
        Ok(())
    }

    /// Reads the counts of a cost line into `last_counts`: decimal numbers, or, as speedscope's importer reads them, `*`,
    /// `+n` or `-n` relative to the same event's count of the cost line before (its counts after
    /// this one's are 0).
    fn counts_of(&mut self, line: &Line<'_>, counts: &[Token]) -> Result<(), ParseError> {
        self.last_counts.resize(counts.len().max(self.last_counts.len()), 0);
        for (e, token) in counts.iter().enumerate() {
            let last = self.last_counts[e];
            let value = match *token {
                Token::Decimal(v) => Some(v),
                Token::Same => Some(last),
                Token::Plus(v) => last.checked_add(v),
                Token::Minus(v) => last.checked_sub(v),
                Token::Hex(_) => {
                    return Err(line.error(ParseErrorKind::Unexpected {
                        expected: "counts as decimal numbers after the positions".into(),
                        found: excerpt(line.text.as_bytes()),
                    }))
                }
            };
            self.last_counts[e] = value.ok_or_else(|| {
                line.error(ParseErrorKind::Unexpected {
                    expected: format!(
                        "a count relative to the line before's ({last}) that stays between 0 and 2^64 − 1"
                    ),
                    found: excerpt(line.text.as_bytes()),
                })
            })?;
        }
        self.last_counts[counts.len()..].iter_mut().for_each(|c| *c = 0);
        Ok(())
    }

    fn finish(self, max_nodes: u64, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
        let error = |kind| ParseError { format: FORMAT, position: self.end, kind };
        if let Some((_, _, at)) = self.call {
            return Err(error(ParseErrorKind::Unexpected {
                expected: format!("the cost line of the call at {at}"),
                found: "the end of the input (the file is cut short)".into(),
            }));
        }
        let Some(events) = self.events else {
            return Err(error(ParseErrorKind::Unexpected {
                expected: "an `events:` line (a callgrind header)".into(),
                found: "the end of the input".into(),
            }));
        };
        if self.objects_seen {
            diag.warn("callgrind-objects", None, || {
                "object files (ob=, cob=) are not kept: functions are named by their source files".into()
            });
        }
        if let (n, Some(first)) = self.undefined_objects {
            diag.warn("callgrind-undefined-object", Some(first), || {
                format!("{n} object number(s) used without a definition (`cob=(N)` before any `(N) name`), read as no object, as callgrind_annotate reads them")
            });
        }
        if self.has_addresses {
            diag.warn("callgrind-addresses", None, || {
                "instruction addresses (positions: instr) are not kept: costs are kept per source line".into()
            });
        }
        if self.jumps > 0 {
            let jumps = self.jumps;
            diag.warn("callgrind-jumps", None, || format!("{jumps} jump lines (jump=, jcnd=) are not kept"));
        }
        let mut graphs = self.graphs;
        graphs.iter_mut().for_each(Graph::done_reading);
        let read = graph::Read {
            names: self.names,
            events,
            graphs,
            title: self.title,
            attrs: self.attrs,
            stated: [("summary:", self.summary), ("totals:", self.totals)],
        };
        let end = self.end;
        read.into_profile(max_nodes, diag).map_err(|graph::TooManyNodes { functions, calls }| ParseError {
            format: FORMAT,
            position: end,
            kind: ParseErrorKind::Unexpected {
                expected: format!(
                    "a call graph that expands into a tree of at most {max_nodes} nodes (--max-graph-nodes N raises the limit)"
                ),
                found: format!("a graph of {functions} functions and {calls} calls that expands into more"),
            },
        })
    }
}

/// The name `value` gives (`name`, `(id) name` defining `id`, or `(id)`), interned in `strings`.
fn name(line: &Line<'_>, value: &str, table: &mut Compressed, strings: &mut graph::Strings) -> Result<u32, ParseError> {
    let compressed = value.strip_prefix('(').and_then(|rest| {
        let close = rest.find(')')?;
        let id = rest[..close].parse::<u64>().ok()?;
        Some((id, &rest[close + 1..]))
    });
    let Some((id, rest)) = compressed else { return Ok(strings.intern(value)) };
    if rest.is_empty() {
        return table.0.get(&id).copied().ok_or_else(|| {
            line.error(ParseErrorKind::Unexpected {
                expected: format!("a name numbered ({id}) defined before (`({id}) name`)"),
                found: excerpt(line.text.as_bytes()),
            })
        });
    }
    let interned = strings.intern(rest.strip_prefix(' ').unwrap_or(rest));
    table.0.insert(id, interned);
    Ok(interned)
}

fn too_many_counts(line: &Line<'_>, at: usize, n_events: usize) -> ParseError {
    line.error_at(
        at,
        ParseErrorKind::Unexpected {
            expected: format!("at most {n_events} count(s), one per event of `events:`"),
            found: excerpt(&line.text.as_bytes()[at..]),
        },
    )
}

fn expected_call_cost(line: &Line<'_>, at: Position) -> ParseError {
    line.error(ParseErrorKind::Unexpected {
        expected: format!("the cost line of the call at {at}"),
        found: excerpt(line.text.as_bytes()),
    })
}
