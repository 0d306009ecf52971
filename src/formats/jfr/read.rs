//! Reading a recording chunk by chunk: each chunk's types and constant pools, then its events,
//! their stacks resolved through the pools and added to the tree as they are met.

use super::chunk::{self, error, Cursor, Header, Keep, Pools, Types, Value, HEADER_LEN, MAGIC};
use super::events::{self, Plan, Role, Weight, CLASS, EVENTS, EXECUTION_SAMPLE, STACK_TRACE, STRING, THREAD};
use super::{Metrics, FORMAT, FRAME_TYPE};
use crate::diag::Diagnostics;
use crate::error::{ParseError, ParseErrorKind, Position};
use crate::model::{ChildIndex, FrameId, FrameKind, FrameRef, NodeId, Profile, TimedSample, Timeline, Value as Amount};
use rustc_hash::FxHashMap;
use std::cell::Cell;
use std::collections::BTreeMap;
use std::io::Read;

/// The pool types the reader resolves, by name: the ones whose entries it keeps.
const METHOD: &str = "jdk.types.Method";
const SYMBOL: &str = "jdk.types.Symbol";
const FRAME_TYPE_POOL: &str = "jdk.types.FrameType";

/// What is read across chunks: the profile, its tree's index, and the sampling periods found.
pub(super) struct Reader {
    profile: Profile,
    index: ChildIndex,
    /// Events read per metric ([`Metrics`]' order).
    counts: [u64; Metrics::COUNT],
    /// The events of every type in the recording, by the type's name as the recording writes it.
    held: BTreeMap<String, Held>,
    /// The ticks of a second in the chunk being read (the unit of durations).
    ticks_per_second: u64,
    /// The start of the chunk being read, in ns since the epoch and in ticks.
    chunk_start: (i64, u64),
    /// Each execution and native sample's time (ns since the epoch) and node.
    timeline: Vec<TimedSample>,
    /// The `period` settings of execution and native samples, in the order met, each once.
    periods: [Vec<String>; 2],
    /// The frames of stacks cut by JFR's depth limit.
    truncated: Option<FrameId>,
    chunks: u64,
    /// References to pool entries that are not there, in every chunk: how many, and the first.
    missing: (u64, Option<Missing>),
}

/// The events of a type in the recording: how many, how many of those the reader does not take
/// have a stack, and whether the reader takes them.
#[derive(Clone, Copy, Default)]
struct Held {
    events: u64,
    with_stack: u64,
    read: bool,
}

/// A chunk's constant pools, and the names resolved from them (once each).
struct Resolver<'a, 'b> {
    types: &'a Types,
    pools: &'a Pools<'b>,
    stack_trace: Option<usize>,
    method: Option<usize>,
    class: Option<usize>,
    symbol: Option<usize>,
    frame_type: Option<usize>,
    thread: Option<usize>,
    string: Option<usize>,
    threads: FxHashMap<u64, FrameId>,
    methods: FxHashMap<u64, String>,
    /// The frame of each class put below a stack, with what it is (allocated, monitor, parked).
    classes: FxHashMap<(u64, &'static str), Option<FrameId>>,
    frames: FxHashMap<StackFrame, FrameId>,
    /// The node of each (thread, stack trace) met.
    nodes: FxHashMap<(FrameId, u64), NodeId>,
    /// The frames of the stack trace being resolved, leaf first.
    stack: Vec<StackFrame>,
    /// References to pool entries that are not there: how many, and the first's place, type, id.
    missing: Cell<(u64, Option<Missing>)>,
}

/// A reference to a pool entry that is not there: where, of which type, which id.
type Missing = (u64, &'static str, u64);

/// What the reader takes of a `jdk.types.StackFrame`: its method's id, its line (0 for none),
/// its frame type's id.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
struct StackFrame {
    method: u64,
    line: i64,
    frame_type: u64,
}

impl Reader {
    pub(super) fn new() -> Reader {
        Reader {
            profile: Profile::new(Metrics::all()),
            index: ChildIndex::default(),
            counts: [0; Metrics::COUNT],
            held: BTreeMap::new(),
            ticks_per_second: 1,
            chunk_start: (0, 0),
            timeline: Vec::new(),
            periods: Default::default(),
            truncated: None,
            chunks: 0,
            missing: (0, None),
        }
    }

    /// Reads a whole recording, a chunk at a time.
    pub(super) fn read(mut self, input: &mut (dyn Read + Send), diag: &mut Diagnostics) -> Result<Profile, ParseError> {
        let mut at = 0u64;
        let mut bytes = Vec::new();
        loop {
            let mut head = [0u8; HEADER_LEN];
            let n = read_up_to(input, &mut head, at)?;
            if n == 0 && self.chunks > 0 {
                break;
            }
            if n < HEADER_LEN {
                if n < MAGIC.len() || &head[..4] != MAGIC {
                    let found = crate::error::excerpt(&head[..n.min(4)]);
                    return Err(error(at, "a chunk's magic \"FLR\\0\" (a JFR recording)", found));
                }
                let expected = format!("a chunk header of {HEADER_LEN} bytes");
                return Err(error(at + n as u64, expected, "the end of the input"));
            }
            let header = Header::parse(&head, at)?;
            bytes.clear();
            bytes.extend_from_slice(&head);
            let rest = header.size - HEADER_LEN as u64;
            input.take(rest).read_to_end(&mut bytes).map_err(|e| io_error(at, e))?;
            if (bytes.len() as u64) < header.size {
                let expected = format!("the rest of the chunk that starts at byte {at} ({} bytes)", header.size);
                return Err(error(at + bytes.len() as u64, expected, "the end of the input"));
            }
            if self.chunks == 0 {
                let meta = &mut self.profile.meta;
                meta.timestamp = Some(crate::formats::kit::time::format_time(header.start_nanos));
                meta.attrs.push(("jfr.version".into(), format!("{}.{}", header.major, header.minor)));
            }
            self.chunk(&bytes, at, &header)?;
            at += header.size;
            self.chunks += 1;
        }
        self.finish(at, diag)
    }

    /// Reads one chunk: its metadata, its checkpoints, then its events in order.
    fn chunk(&mut self, bytes: &[u8], at: u64, header: &Header) -> Result<(), ParseError> {
        let cursor = Cursor::new(bytes, at, header.compressed);
        // Offsets were checked against the chunk's size, which its bytes are.
        let offset = |o: u64| usize::try_from(o).unwrap_or(usize::MAX);
        let types = chunk::metadata(&cursor, offset(header.metadata))?;
        let named = |name: &str| types.named(name);
        let mut keep = vec![Keep::No; types.list.len()];
        for ty in [METHOD, CLASS, SYMBOL, FRAME_TYPE_POOL, THREAD, STRING].iter().filter_map(|name| named(name)) {
            keep[ty] = Keep::Value;
        }
        if let Some(ty) = named(STACK_TRACE) {
            keep[ty] = Keep::Place;
        }
        let mut pools = Pools::default();
        chunk::checkpoints(&cursor, offset(header.checkpoint), &types, &keep, &mut pools)?;
        let plans = events::plans(&types);
        let mut resolver = Resolver {
            types: &types,
            pools: &pools,
            stack_trace: named(STACK_TRACE),
            method: named(METHOD),
            class: named(CLASS),
            symbol: named(SYMBOL),
            frame_type: named(FRAME_TYPE_POOL),
            thread: named(THREAD),
            string: named(STRING),
            threads: FxHashMap::default(),
            methods: FxHashMap::default(),
            classes: FxHashMap::default(),
            frames: FxHashMap::default(),
            nodes: FxHashMap::default(),
            stack: Vec::new(),
            missing: Cell::new((0, None)),
        };
        let period_of =
            [named(EXECUTION_SAMPLE), named(events::NATIVE_SAMPLE)].map(|ty| ty.map(|ty| types.list[ty].id));
        self.ticks_per_second = header.ticks_per_second;
        self.chunk_start = (header.start_nanos, header.start_ticks);
        // Events of each type id, for what the recording holds that is not read; the types with a
        // stack field, by id, with the field's index.
        let mut seen: FxHashMap<u64, Held> = FxHashMap::default();
        let stacks: FxHashMap<u64, (usize, usize)> = (0..types.list.len())
            .filter(|&ty| types.list[ty].id > 1)
            .filter_map(|ty| Some((types.list[ty].id, (ty, events::stack_field(&types, ty)?))))
            .collect();
        let mut next = HEADER_LEN;
        while next < bytes.len() {
            let (mut event, kind) = cursor.event(next)?;
            let event_at = at + next as u64;
            next = event.event_end();
            let mut with_stack = false;
            match (plans.get(&kind), stacks.get(&kind)) {
                (Some((ty, plan)), _) => self.event(&mut resolver, event, (*ty, plan), event_at, &period_of)?,
                (None, Some(&stack)) => with_stack = events::has_stack(&types, stack, &mut event)?,
                (None, None) => {}
            }
            // Ids 0 and 1 are the metadata and checkpoints, not events of the recording's.
            if kind > 1 {
                let held = seen.entry(kind).or_default();
                held.events += 1;
                held.with_stack += u64::from(with_stack);
            }
        }
        for (kind, seen) in seen {
            if let Some(ty) = types.by_id(kind) {
                let held = self.held.entry(types.name(ty).to_string()).or_default();
                held.events += seen.events;
                held.with_stack += seen.with_stack;
                held.read = plans.contains_key(&kind);
            }
        }
        let (count, first) = resolver.missing.get();
        self.missing = (self.missing.0 + count, self.missing.1.or(first));
        Ok(())
    }

    /// Reads one event of a type the reader takes (`plan`, for its type `ty`) into the tree, or a
    /// setting into the periods found.
    fn event(
        &mut self,
        resolver: &mut Resolver<'_, '_>,
        mut event: Cursor<'_>,
        (ty, plan): (usize, &Plan),
        event_at: u64,
        period_of: &[Option<u64>; 2],
    ) -> Result<(), ParseError> {
        let types = resolver.types;
        let (mut thread, mut stack, mut weight, mut class, mut start) = (0, 0, None, 0, None);
        let (mut setting_id, mut setting_name, mut setting_value) = (None, None, None);
        for (field, &role) in types.list[ty].fields.iter().zip(&plan.roles) {
            let value = event.field(types, field, role != Role::Skip)?;
            match (role, value) {
                (Role::Thread, Value::Ref(id)) => thread = id,
                (Role::Stack, Value::Ref(id)) => stack = id,
                (Role::Weight, Value::Int(n)) => weight = Some(n),
                (Role::Class, Value::Ref(id)) => class = id,
                (Role::Start, Value::Int(ticks)) => start = Some(ticks),
                (Role::SettingId, Value::Int(n)) => setting_id = Some(n as u64),
                (Role::SettingName, name) => setting_name = resolver.string(&name, event_at).map(str::to_string),
                (Role::SettingValue, value) => setting_value = resolver.string(&value, event_at).map(str::to_string),
                _ => {}
            }
        }
        let Some(kind) = plan.event else {
            let which = period_of.iter().position(|&id| id.is_some() && id == setting_id);
            if let (Some(which), Some("period"), Some(value)) = (which, setting_name.as_deref(), setting_value) {
                if !self.periods[which].contains(&value) {
                    self.periods[which].push(value);
                }
            }
            return Ok(());
        };
        let amount = match kind.weight {
            Weight::One => 1,
            Weight::Field(_) => weight.unwrap_or(0).max(0),
            // Ticks as nanoseconds: exact where a tick is a nanosecond (the JDK's clock on Linux).
            Weight::Duration => {
                let ticks = u128::try_from(weight.unwrap_or(0)).unwrap_or(0);
                i64::try_from(ticks * 1_000_000_000 / u128::from(self.ticks_per_second)).unwrap_or(i64::MAX)
            }
        };
        let mut node = self.node(resolver, thread, stack, event_at)?;
        if let (Some(ticks), Metrics::SAMPLES | Metrics::NATIVE_SAMPLES) = (start, kind.metric) {
            self.timeline.push(TimedSample { time: self.nanoseconds(ticks), node, weight: 1 });
        }
        if let Some((_, what)) = kind.class {
            if let Some(frame) = resolver.class_frame(&mut self.profile, class, what, event_at) {
                node = self.index.child_or_insert(&mut self.profile.tree, Some(node), frame);
            }
        }
        self.profile.tree.add_self(kind.metric, node, Amount::Int(amount));
        self.counts[kind.metric] += 1;
        if let Some(count) = kind.count {
            self.profile.tree.add_self(count, node, Amount::Int(1));
            self.counts[count] += 1;
        }
        Ok(())
    }

    /// A time of the chunk being read (its ticks) in ns since the epoch.
    fn nanoseconds(&self, ticks: i64) -> i64 {
        let (nanos, start) = self.chunk_start;
        let since = i128::from(ticks) - i128::from(start);
        let since = since * 1_000_000_000 / i128::from(self.ticks_per_second);
        i64::try_from(i128::from(nanos) + since).unwrap_or(if since < 0 { i64::MIN } else { i64::MAX })
    }

    /// The node of a stack trace of a thread, made the first time they are met in the chunk.
    fn node(
        &mut self,
        resolver: &mut Resolver<'_, '_>,
        thread: u64,
        stack: u64,
        at: u64,
    ) -> Result<NodeId, ParseError> {
        let thread = resolver.thread(&mut self.profile, thread, at);
        if let Some(&node) = resolver.nodes.get(&(thread, stack)) {
            return Ok(node);
        }
        let mut node = self.index.child_or_insert(&mut self.profile.tree, None, thread);
        if resolver.stack_trace(stack, at)? == Some(true) {
            let truncated = *self
                .truncated
                .get_or_insert_with(|| self.profile.frames.intern(FrameRef::named("(truncated)", FrameKind::Pseudo)));
            node = self.index.child_or_insert(&mut self.profile.tree, Some(node), truncated);
        }
        // JFR stores a stack leaf first.
        for i in (0..resolver.stack.len()).rev() {
            let frame = resolver.frame(&mut self.profile, resolver.stack[i], at);
            node = self.index.child_or_insert(&mut self.profile.tree, Some(node), frame);
        }
        resolver.nodes.insert((thread, stack), node);
        Ok(node)
    }

    /// The profile, its metrics those the recording has events of, its interval the period of
    /// its execution samples where the recording states one.
    fn finish(mut self, end: u64, diag: &mut Diagnostics) -> Result<Profile, ParseError> {
        if let (count, Some((at, what, id))) = self.missing {
            diag.warn("jfr-missing-constant", Some(Position::byte(at)), || {
                format!(
                    "{count} reference(s) to constant pool entries that no checkpoint of their chunk holds, \
                     read as none as jfr reads them (the first: {what} id {id})"
                )
            });
        }
        self.say_what_is_not_read(end, diag)?;
        let keep: Vec<bool> = self.counts.iter().map(|&n| n > 0).collect();
        let [execution, native] = std::mem::take(&mut self.periods);
        let meta = &mut self.profile.meta;
        meta.attrs.push(("jfr.chunks".into(), self.chunks.to_string()));
        if self.counts[Metrics::SAMPLES] > 0 {
            // The execution samples come first: the lock and park times beside them are of
            // something else, not the time the samples measure.
            meta.weighed_by = Some(crate::model::MetricKind::Samples);
            match execution.as_slice() {
                [period] => meta.interval = super::parse_period(period),
                [] => diag.warn("jfr-no-period", None, || {
                    format!(
                        "no sampling interval: the recording states no period of {EXECUTION_SAMPLE} \
                         (record with jdk.ActiveSetting enabled)"
                    )
                }),
                several => diag.warn("jfr-periods", None, || {
                    format!("no sampling interval: {EXECUTION_SAMPLE} was sampled every {}", several.join(", then "))
                }),
            }
            if let [period] = execution.as_slice() {
                meta.attrs.push(("jfr.period".into(), period.clone()));
            }
        }
        if let ([period], true) = (native.as_slice(), self.counts[Metrics::NATIVE_SAMPLES] > 0) {
            meta.attrs.push(("jfr.native-period".into(), period.clone()));
        }
        self.profile.retain_metrics(&keep);
        self.profile.timeline = Timeline::new(std::mem::take(&mut self.timeline), None);
        Ok(self.profile)
    }

    /// Names on stderr the events with stacks that the reader does not take (counting those that
    /// have one, not every event of a type that can: `jdk.ThreadStart` of a thread the JVM
    /// started has none, `jdk.ExceptionStatistics` never one); where it took none,
    /// the error names what the recording holds instead (an empty profile, which no target would
    /// read back, is not written).
    fn say_what_is_not_read(&self, end: u64, diag: &mut Diagnostics) -> Result<(), ParseError> {
        let list = |events: Vec<(&String, u64)>| {
            let mut events = events;
            events.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
            events.iter().map(|(name, n)| format!("{name} ({n})")).collect::<Vec<_>>().join(", ")
        };
        let unread: Vec<_> =
            self.held.iter().filter(|(_, held)| !held.read && held.with_stack > 0).map(|(name, held)| (name, held.with_stack)).collect();
        if !unread.is_empty() {
            diag.warn("jfr-unread-events", None, || {
                format!("events with stacks that proftool does not read, left out: {}", list(unread))
            });
        }
        if self.counts.iter().all(|&n| n == 0) {
            let read = EVENTS.iter().map(|e| e.name).collect::<Vec<_>>().join(", ");
            let held: Vec<_> = self.held.iter().map(|(name, held)| (name, held.events)).collect();
            let held = if held.is_empty() { "no events".to_string() } else { format!("only {}", list(held)) };
            let expected = format!("events that proftool reads ({read})");
            return Err(error(end, expected, format!("{held} in the recording's {} chunk(s)", self.chunks)));
        }
        Ok(())
    }
}

impl<'a> Resolver<'a, '_> {
    /// The pool entry `id` of type `ty`, with where it is: `None` for id 0 (none), and, as the
    /// JDK's parser reads it, for an id no checkpoint of the chunk holds (a thread that ended
    /// before its checkpoint was written), which is counted with the first place (`at`) of one.
    fn entry(&self, ty: Option<usize>, id: u64, at: u64, what: &'static str) -> Option<(u64, &'a Value)> {
        let pools: &'a Pools<'_> = self.pools;
        let found = ty.and_then(|ty| pools.values.get(&(ty, id)));
        if found.is_none() && id != 0 {
            self.missing(at, what, id);
        }
        found.map(|(entry_at, value)| (*entry_at, value))
    }

    /// Counts a reference to a pool entry that is not there.
    fn missing(&self, at: u64, what: &'static str, id: u64) {
        let (count, first) = self.missing.get();
        self.missing.set((count + 1, first.or(Some((at, what, id)))));
    }

    /// The field `name` of `value`, a struct of type `ty`.
    fn field<'v>(&self, ty: usize, value: &'v Value, name: &str) -> Option<&'v Value> {
        match value {
            Value::Struct(fields) => fields.get(self.types.field(ty, name)?),
            _ => None,
        }
    }

    /// A string value's text (one of the string pool's for a reference), `None` for null.
    fn string<'v>(&self, value: &'v Value, at: u64) -> Option<&'v str>
    where
        'a: 'v,
    {
        match value {
            Value::Str(text) => Some(text),
            Value::StrRef(id) => match self.entry(self.string, *id, at, STRING)? {
                (_, Value::Str(text)) => Some(text),
                _ => None,
            },
            _ => None,
        }
    }

    /// The text of the string field `name` of a pool entry of type `ty`.
    fn text_of<'v>(&self, ty: usize, value: &'v Value, name: &str, at: u64) -> Option<&'v str>
    where
        'a: 'v,
    {
        self.string(self.field(ty, value, name)?, at)
    }

    /// The entry that the reference field `name` of a pool entry (of type `ty`, at `at`) names.
    fn follow(
        &self,
        ty: usize,
        value: &Value,
        name: &str,
        target: (Option<usize>, &'static str),
        at: u64,
    ) -> Option<(u64, &'a Value)> {
        match self.field(ty, value, name) {
            Some(Value::Ref(id)) => self.entry(target.0, *id, at, target.1),
            _ => None,
        }
    }

    /// The text of a symbol that the field `name` of a pool entry names.
    fn symbol(&self, ty: usize, value: &Value, name: &str, at: u64) -> Option<&'a str> {
        let (symbol_at, symbol) = self.follow(ty, value, name, (self.symbol, SYMBOL), at)?;
        self.text_of(self.symbol?, symbol, "string", symbol_at)
    }

    /// The frame of a thread: its Java name, else its OS name.
    fn thread(&mut self, profile: &mut Profile, id: u64, at: u64) -> FrameId {
        if let Some(&frame) = self.threads.get(&id) {
            return frame;
        }
        let name = match (self.entry(self.thread, id, at, THREAD), self.thread) {
            (Some((entry_at, thread)), Some(ty)) => {
                let java = self.text_of(ty, thread, "javaName", entry_at).filter(|n| !n.is_empty());
                let os = self.text_of(ty, thread, "osName", entry_at).filter(|n| !n.is_empty());
                java.or(os).map_or_else(|| format!("thread {id}"), str::to_string)
            }
            _ => "(no thread)".to_string(),
        };
        let frame = profile.frames.intern(FrameRef::named(&name, FrameKind::Thread));
        self.threads.insert(id, frame);
        frame
    }

    /// Reads the stack trace `id` (of an event at `at`) into `self.stack`, leaf first: whether JFR
    /// cut it short, `None` where the id is 0 and no pool holds it (no stack).
    fn stack_trace(&mut self, id: u64, at: u64) -> Result<Option<bool>, ParseError> {
        self.stack.clear();
        let Some(ty) = self.stack_trace else { return Ok(None) };
        let Some((_, place)) = self.pools.places.get(&(ty, id)) else {
            if id != 0 {
                self.missing(at, STACK_TRACE, id);
            }
            return Ok(None);
        };
        let (types, mut cursor, mut truncated) = (self.types, place.clone(), false);
        for field in &types.list[ty].fields {
            match field.name.as_str() {
                "truncated" => truncated = cursor.field(types, field, true)? == Value::Int(1),
                "frames" if field.array && !field.pool => {
                    for _ in 0..cursor.count("a stack trace's number of frames", 1)? {
                        let mut frame = StackFrame::default();
                        for part in &types.list[field.ty].fields {
                            let wanted = matches!(part.name.as_str(), "method" | "lineNumber" | "type");
                            match (part.name.as_str(), cursor.field(types, part, wanted)?) {
                                ("method", Value::Ref(id)) => frame.method = id,
                                ("lineNumber", Value::Int(n)) => frame.line = n,
                                ("type", Value::Ref(id)) => frame.frame_type = id,
                                _ => {}
                            }
                        }
                        self.stack.push(frame);
                    }
                }
                _ => _ = cursor.field(types, field, false)?,
            }
        }
        Ok(Some(truncated))
    }

    /// The frame of a stack frame of a stack trace (of an event at `at`): its method as
    /// `package.Class.method`, its line, and its frame type as a fact of the frame.
    fn frame(&mut self, profile: &mut Profile, frame: StackFrame, at: u64) -> FrameId {
        if let Some(&id) = self.frames.get(&frame) {
            return id;
        }
        if !self.methods.contains_key(&frame.method) {
            let name = self.method_name(frame.method, at);
            self.methods.insert(frame.method, name);
        }
        let name = self.methods.get(&frame.method).map_or("(unknown method)", String::as_str);
        let line = u32::try_from(frame.line).ok().filter(|&n| n > 0);
        let kind = if line.is_some() { FrameKind::Line } else { FrameKind::Function };
        let id = profile.frames.intern(FrameRef { name, module: None, line, clause: None, kind });
        if let (Some((type_at, value)), Some(ty)) =
            (self.entry(self.frame_type, frame.frame_type, at, FRAME_TYPE_POOL), self.frame_type)
        {
            if let Some(frame_type) = self.text_of(ty, value, "description", type_at) {
                add_frame_type(profile, id, frame_type);
            }
        }
        self.frames.insert(frame, id);
        id
    }

    /// The frame of the class `id` below the stack of an event (`what`: the frame type it is given,
    /// `Allocated class`, `Monitor class`, `Parked class`), `None` for none.
    fn class_frame(&mut self, profile: &mut Profile, id: u64, what: &'static str, at: u64) -> Option<FrameId> {
        if let Some(&frame) = self.classes.get(&(id, what)) {
            return frame;
        }
        let name = match (self.entry(self.class, id, at, CLASS), self.class) {
            (Some((class_at, class)), Some(ty)) => self.symbol(ty, class, "name", class_at),
            _ => None,
        };
        let frame = name.map(|name| {
            let frame = profile.frames.intern(FrameRef::named(&events::java_name(name), FrameKind::Function));
            add_frame_type(profile, frame, what);
            frame
        });
        self.classes.insert((id, what), frame);
        frame
    }

    /// A method's name, `package.Class.method` (`(unknown method)` for none).
    fn method_name(&self, id: u64, at: u64) -> String {
        let (Some((method_at, method)), Some(ty)) = (self.entry(self.method, id, at, METHOD), self.method) else {
            return "(unknown method)".to_string();
        };
        let name = self.symbol(ty, method, "name", method_at).unwrap_or("(unknown)");
        let class = match (self.follow(ty, method, "type", (self.class, CLASS), method_at), self.class) {
            (Some((class_at, class)), Some(class_ty)) => self.symbol(class_ty, class, "name", class_at),
            _ => None,
        };
        // A stub's class is empty (`itable stub`), which jfr prints as the name alone.
        match class.filter(|c| !c.is_empty()) {
            Some(class) => format!("{}.{name}", events::java_name(class)),
            None => name.to_string(),
        }
    }
}

/// Adds a frame type to the ones a frame was seen as (sorted, comma-separated).
fn add_frame_type(profile: &mut Profile, frame: FrameId, frame_type: &str) {
    let attrs = profile.frame_attrs.entry(frame).or_default();
    match attrs.iter_mut().find(|(k, _)| k == FRAME_TYPE) {
        None => attrs.push((FRAME_TYPE.to_string(), frame_type.to_string())),
        Some((_, seen)) => {
            if !seen.split(", ").any(|t| t == frame_type) {
                let mut all: Vec<&str> = seen.split(", ").chain([frame_type]).collect();
                all.sort_unstable();
                *seen = all.join(", ");
            }
        }
    }
}

/// Reads into `buf` until it is full or the input ends; how many bytes were read.
fn read_up_to(input: &mut (dyn Read + Send), buf: &mut [u8], at: u64) -> Result<usize, ParseError> {
    let mut n = 0;
    while n < buf.len() {
        match input.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io_error(at + n as u64, e)),
        }
    }
    Ok(n)
}

fn io_error(at: u64, e: std::io::Error) -> ParseError {
    ParseError { format: FORMAT, position: Position::byte(at), kind: ParseErrorKind::Io(e) }
}
