//! Writing an output made of independent pieces: two worker threads format them while the calling
//! thread writes them out in order. Writers whose output is long and uniform (a folded line per
//! node) spend most of their time formatting, which this splits over the machine's two cores.

use std::io::{self, Write};
use std::sync::mpsc::{channel, sync_channel, Receiver, SyncSender};

const WORKERS: usize = 2;

/// A worker hands its output over in chunks of about this size, so that a piece with long lines
/// (a deep tree's folded stacks) is not held whole.
const CHUNK: usize = 256 * 1024;

/// Writes pieces `0..n` to `out` in order, piece `i` being what `format(i, sink)` writes to `sink`.
/// Pieces are formatted on two threads, each at most a chunk ahead of the writer, so memory stays
/// at a few chunks whatever the pieces hold; buffers are reused. Stops at the first error.
pub(crate) fn write_pieces(
    n: usize,
    format: impl Fn(usize, &mut dyn Write) -> io::Result<()> + Sync,
    out: &mut dyn Write,
) -> io::Result<()> {
    if n < 2 {
        return (0..n).try_for_each(|i| format(i, out));
    }
    std::thread::scope(|scope| {
        let mut formatted = Vec::with_capacity(WORKERS);
        let mut emptied = Vec::with_capacity(WORKERS);
        for worker in 0..WORKERS {
            let (to_writer, from_worker) = sync_channel::<io::Result<Chunk>>(1);
            let (to_worker, spare) = channel::<Vec<u8>>();
            let format = &format;
            scope.spawn(move || {
                let mut sink = ChunkSink { buf: Vec::new(), to_writer, spare };
                for i in (worker..n).step_by(WORKERS) {
                    let done = format(i, &mut sink).and_then(|()| sink.send(true));
                    // The writer stopped (at an error), or this piece failed: either way, stop.
                    if let Err(e) = done {
                        let _ = sink.to_writer.send(Err(e));
                        return;
                    }
                }
            });
            formatted.push(from_worker);
            emptied.push(to_worker);
        }
        for i in 0..n {
            let worker = i % WORKERS;
            loop {
                let Ok(chunk) = formatted[worker].recv() else {
                    // Only a worker that panicked hangs up early; the scope passes its panic on.
                    return Ok(());
                };
                let Chunk { bytes, last } = chunk?;
                out.write_all(&bytes)?;
                let _ = emptied[worker].send(bytes);
                if last {
                    break;
                }
            }
        }
        Ok(())
    })
}

/// Part of a piece: its bytes, and whether the piece ends with them.
struct Chunk {
    bytes: Vec<u8>,
    last: bool,
}

/// A worker's output: sends a chunk to the writer whenever one is full.
struct ChunkSink {
    buf: Vec<u8>,
    to_writer: SyncSender<io::Result<Chunk>>,
    spare: Receiver<Vec<u8>>,
}

impl ChunkSink {
    fn send(&mut self, last: bool) -> io::Result<()> {
        let mut next = self.spare.try_recv().unwrap_or_default();
        next.clear();
        let bytes = std::mem::replace(&mut self.buf, next);
        self.to_writer.send(Ok(Chunk { bytes, last })).map_err(|_| io::Error::other("the writer stopped"))
    }
}

impl Write for ChunkSink {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(bytes);
        if self.buf.len() >= CHUNK {
            self.send(false)?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_written_in_order() {
        for n in [0, 1, 2, 3, 10, 101] {
            let mut out = Vec::new();
            write_pieces(n, |i, sink| write!(sink, "{i},"), &mut out).unwrap();
            let expected: String = (0..n).map(|i| format!("{i},")).collect();
            assert_eq!(String::from_utf8(out).unwrap(), expected);
        }
    }

    #[test]
    fn long_pieces_go_in_chunks_and_stay_whole() {
        let line = |i: usize| format!("{}\n", i.to_string().repeat(CHUNK / 3));
        let mut out = Vec::new();
        write_pieces(7, |i, sink| (0..5).try_for_each(|_| sink.write_all(line(i).as_bytes())), &mut out).unwrap();
        let expected: String = (0..7).flat_map(|i| std::iter::repeat_n(line(i), 5)).collect();
        assert!(out == expected.as_bytes());
    }

    #[test]
    fn the_first_error_stops_the_writing() {
        let mut out = Vec::new();
        let failing = |i: usize, sink: &mut dyn Write| match i {
            5 => Err(io::Error::other("piece 5")),
            _ => write!(sink, "{i},"),
        };
        let err = write_pieces(50, failing, &mut out).unwrap_err();
        assert_eq!(err.to_string(), "piece 5");
        assert_eq!(String::from_utf8(out).unwrap(), "0,1,2,3,4,");
    }
}
