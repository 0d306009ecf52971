//! Parsing an XML report on one thread while another builds the tree, as the LispWorks and CSV
//! readers do with lines ([`crate::text::pipeline`]): the reader's thread runs the XML parser (with
//! a helper thread of its own) and parses numbers; this thread interns names and builds. Rows travel
//! in batches. An input of less than a megabyte is parsed on the calling thread (and its helper).

use super::FORMAT;
use crate::error::{ParseError, ParseErrorKind, Position};
use crate::formats::dyalog::build::ReportBuilder;
use crate::formats::dyalog::{Column, Row};
use std::io::{BufRead, BufReader, Cursor, Read};
use std::sync::mpsc::{sync_channel, SyncSender};

/// Inputs up to this size are read without a second thread.
const SMALL: u64 = 1 << 20;
/// Rows per batch.
const BATCH: usize = 4096;

/// A batch of parsed rows: their names back to back in `names`.
#[derive(Default)]
struct Batch {
    names: String,
    rows: Vec<(usize, Row, Position)>,
}

enum Message {
    Columns(Vec<Column>),
    Rows(Batch),
}

/// Builds the profile from the messages, in input order.
struct Consumer {
    merge_lines: bool,
    builder: Option<ReportBuilder>,
}

impl Consumer {
    fn take(&mut self, message: Message) -> Result<(), ParseError> {
        match message {
            Message::Columns(columns) => {
                self.builder = Some(ReportBuilder::new(FORMAT, &columns, self.merge_lines));
            }
            Message::Rows(batch) => {
                let Some(builder) = &mut self.builder else { return Ok(()) };
                let mut start = 0;
                for (end, row, position) in &batch.rows {
                    let name = &batch.names[start..*end];
                    start = *end;
                    builder.add(name, None, row).map_err(|kind| ParseError {
                        format: FORMAT,
                        position: *position,
                        kind,
                    })?;
                }
            }
        }
        Ok(())
    }
}

/// The parser's side: where parsed columns and rows go.
pub(crate) struct RowSink<'c> {
    target: Target<'c>,
    batch: Batch,
}

enum Target<'c> {
    Direct(&'c mut Consumer),
    Channel(SyncSender<Message>),
    /// Rows are kept in the batch, to be handed on later ([`RowSink::append`]).
    Kept,
}

/// The rows a [`RowSink::keeping`] sink was given, in order.
pub(crate) struct Kept(Batch);

impl RowSink<'static> {
    /// A sink that keeps the rows it is given, for a block parsed ahead of its turn (after the
    /// report's columns were given).
    pub(crate) fn keeping() -> RowSink<'static> {
        RowSink { target: Target::Kept, batch: Batch::default() }
    }
}

impl RowSink<'_> {
    /// The rows a [`RowSink::keeping`] sink was given.
    pub(crate) fn into_kept(self) -> Kept {
        Kept(self.batch)
    }

    /// Takes the rows another sink kept, as if given them one by one now: batches go on where
    /// they would have, so that what the builder has seen when a later error stops the parser is
    /// what it would have seen reading in order.
    pub(crate) fn append(&mut self, kept: Kept) -> Result<(), ParseError> {
        let mut start = 0;
        for (end, row, position) in &kept.0.rows {
            self.row(&kept.0.names[start..*end], row, *position)?;
            start = *end;
        }
        Ok(())
    }

    /// The report's columns, before its first row.
    pub(crate) fn columns(&mut self, columns: &[Column]) -> Result<(), ParseError> {
        self.flush()?;
        self.send(Message::Columns(columns.to_vec()))
    }

    /// One row.
    pub(crate) fn row(&mut self, name: &str, row: &Row, position: Position) -> Result<(), ParseError> {
        self.batch.names.push_str(name);
        self.batch.rows.push((self.batch.names.len(), *row, position));
        if self.batch.rows.len() >= BATCH {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), ParseError> {
        if self.batch.rows.is_empty() || matches!(self.target, Target::Kept) {
            return Ok(());
        }
        let batch = std::mem::take(&mut self.batch);
        self.send(Message::Rows(batch))
    }

    fn send(&mut self, message: Message) -> Result<(), ParseError> {
        match &mut self.target {
            Target::Direct(consumer) => consumer.take(message),
            // The builder stopped at an error of its own, which is the one reported.
            Target::Channel(sender) => sender.send(message).map_err(|_| stopped()),
            // Only rows are given to a keeping sink, and they stay in the batch.
            Target::Kept => Ok(()),
        }
    }
}

fn stopped() -> ParseError {
    thread_stopped("the builder")
}

/// The error of a reader whose other thread (`which`) stopped: its own error, or its panic, is the
/// one reported.
pub(super) fn thread_stopped(which: &str) -> ParseError {
    let io = std::io::Error::other(format!("{which} stopped"));
    ParseError { format: FORMAT, position: Position::default(), kind: ParseErrorKind::Io(io) }
}

/// Runs `parse` over `input`, building the rows it reports (line rows merged into their functions
/// with `merge_lines`); returns the builder (none when the report had no columns) and what `parse`
/// returned.
pub(crate) fn read_rows<T: Send>(
    input: &mut (dyn Read + Send),
    merge_lines: bool,
    parse: impl FnOnce(&mut dyn BufRead, &mut RowSink<'_>) -> Result<T, ParseError> + Send,
) -> Result<(Option<ReportBuilder>, T), ParseError> {
    let io_error = |e: std::io::Error| ParseError { format: FORMAT, position: Position::default(), kind: e.into() };
    let mut head = Vec::new();
    input.take(SMALL).read_to_end(&mut head).map_err(io_error)?;
    let mut consumer = Consumer { merge_lines, builder: None };
    if (head.len() as u64) < SMALL {
        let mut sink = RowSink { target: Target::Direct(&mut consumer), batch: Batch::default() };
        let value = parse(&mut Cursor::new(head), &mut sink)?;
        sink.flush()?;
        return Ok((consumer.builder, value));
    }
    let mut input = BufReader::with_capacity(1 << 16, Cursor::new(head).chain(input));
    let (sender, messages) = sync_channel::<Message>(4);
    std::thread::scope(|scope| {
        // Named, so that profilers tell the two threads apart.
        let parser = std::thread::Builder::new().name("dyalog-parser".into()).spawn_scoped(scope, move || {
            let mut sink = RowSink { target: Target::Channel(sender), batch: Batch::default() };
            let value = parse(&mut input, &mut sink)?;
            sink.flush()?;
            Ok(value)
        });
        let Ok(parser) = parser else { return Err(stopped()) };
        // On an error of the builder the channel closes, and the parser stops at its next send.
        let built = messages.into_iter().try_for_each(|message| consumer.take(message));
        let parsed = parser.join().unwrap_or_else(|_| Err(stopped()));
        built?;
        Ok((consumer.builder, parsed?))
    })
}
