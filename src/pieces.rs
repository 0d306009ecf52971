//! Writing an output made of independent pieces: two worker threads format them while the calling
//! thread writes them out in order. Writers whose output is long and uniform (a folded line per
//! node) spend most of their time formatting, which this splits over the machine's two cores.

use std::io::{self, Write};
use std::sync::mpsc::{channel, sync_channel};

const WORKERS: usize = 2;

/// Writes pieces `0..n` to `out` in order, piece `i` being what `format(i, buf)` appends to an empty
/// `buf`. Pieces are formatted on two threads, each at most one piece ahead of the writer, so a few
/// pieces are in memory at a time; buffers are reused. Stops at the first error.
pub(crate) fn write_pieces(
    n: usize,
    format: impl Fn(usize, &mut Vec<u8>) -> io::Result<()> + Sync,
    out: &mut dyn Write,
) -> io::Result<()> {
    if n < 2 {
        let mut buf = Vec::new();
        return (0..n).try_for_each(|i| {
            buf.clear();
            format(i, &mut buf)?;
            out.write_all(&buf)
        });
    }
    std::thread::scope(|scope| {
        let mut formatted = Vec::with_capacity(WORKERS);
        let mut emptied = Vec::with_capacity(WORKERS);
        for worker in 0..WORKERS {
            let (to_writer, from_worker) = sync_channel::<io::Result<Vec<u8>>>(1);
            let (to_worker, spare) = channel::<Vec<u8>>();
            let format = &format;
            scope.spawn(move || {
                for i in (worker..n).step_by(WORKERS) {
                    let mut buf = spare.try_recv().unwrap_or_default();
                    buf.clear();
                    let piece = format(i, &mut buf).map(|()| buf);
                    // The writer stopped (at an error): so does this worker.
                    if to_writer.send(piece).is_err() {
                        return;
                    }
                }
            });
            formatted.push(from_worker);
            emptied.push(to_worker);
        }
        for i in 0..n {
            let worker = i % WORKERS;
            let Ok(piece) = formatted[worker].recv() else {
                // Only a worker that panicked hangs up early; the scope passes its panic on.
                return Ok(());
            };
            let buf = piece?;
            out.write_all(&buf)?;
            let _ = emptied[worker].send(buf);
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_written_in_order() {
        for n in [0, 1, 2, 3, 10, 101] {
            let mut out = Vec::new();
            write_pieces(n, |i, buf| write!(buf, "{i},"), &mut out).unwrap();
            let expected: String = (0..n).map(|i| format!("{i},")).collect();
            assert_eq!(String::from_utf8(out).unwrap(), expected);
        }
    }

    #[test]
    fn the_first_error_stops_the_writing() {
        let mut out = Vec::new();
        let failing = |i: usize, buf: &mut Vec<u8>| match i {
            5 => Err(io::Error::other("piece 5")),
            _ => write!(buf, "{i},"),
        };
        let err = write_pieces(50, failing, &mut out).unwrap_err();
        assert_eq!(err.to_string(), "piece 5");
        assert_eq!(String::from_utf8(out).unwrap(), "0,1,2,3,4,");
    }
}
