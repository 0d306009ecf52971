//! Inputs and outputs by path, `-` meaning stdin or stdout.
//!
//! An [`Input`] reads its first bytes up front for the sniffers and then streams the rest behind
//! them, so detection never needs a seekable file. A gzip-compressed input is decompressed as it is
//! read, up to a limit, so that its head is what it holds. A text format's input reaches its reader
//! as UTF-8 without a leading byte-order mark, UTF-16 with a mark decoded ([`Input::into_text_reader`]). An [`Output`] to a path
//! writes a temporary file beside it and renames it into place only on [`Output::commit`]: a failed
//! run leaves no partial file, and an output that names the input is refused before anything is
//! written. A symbolic link is followed, so the file it points to is replaced and the link kept.
//! Streams are written as the conversion goes, as nothing can be renamed over them: `/dev/stdout`
//! (and `/dev/fd/1`, `/proc/self/fd/1`, or a link to one of them) is proftool's own stdout,
//! `/dev/stderr` its stderr, and a path that exists and is not a regular file (`/dev/null`, a named
//! pipe, `/dev/fd/3`, a shell's `>(…)`) is opened for appending.

use crate::text;
use std::fs::File;
use std::io::{self, BufWriter, Cursor, Read, Write};
use std::path::{Path, PathBuf};

/// The stream of a whole input: its head, then the rest.
pub type InputReader = io::Chain<Cursor<Vec<u8>>, Box<dyn Read + Send>>;

/// How many bytes the sniffers see.
pub const HEAD_LEN: usize = 64 * 1024;

/// The most bytes a gzip-compressed input may decompress to, unless a caller raises it
/// ([`Input::open_with_limit`], `--max-input-size`): a small file can decompress to far more than
/// fits in memory or on disk.
pub const DEFAULT_MAX_INPUT_SIZE: u64 = 1 << 30;

// Kept with the line readers that hold to it (text.rs), so that they name nothing of this module.
pub use crate::text::DEFAULT_MAX_LINE_LENGTH;

/// The most nodes a call graph expands into by default (`--max-graph-nodes`): about 1 GiB of tree,
/// where the largest real profiles are a few million nodes.
pub const DEFAULT_MAX_GRAPH_NODES: u64 = 20_000_000;

/// The first bytes of a gzip stream (RFC 1952).
const GZIP_MAGIC: &[u8] = b"\x1f\x8b";

/// An input being read: its first bytes, and a stream of the whole input.
pub struct Input {
    path: Option<PathBuf>,
    head: Vec<u8>,
    rest: Box<dyn Read + Send>,
    len: Option<u64>,
}

impl Input {
    /// Opens `path`, or stdin for `-`, as [`Input::open_with_limit`] does with the default limit.
    pub fn open(path: impl AsRef<Path>) -> io::Result<Input> {
        Input::open_with_limit(path, DEFAULT_MAX_INPUT_SIZE)
    }

    /// Opens `path`, or stdin for `-`, and reads its first [`HEAD_LEN`] bytes. A gzip-compressed
    /// input is decompressed as it is read, to at most `max_size` bytes: its head and stream are the
    /// decompressed ones.
    pub fn open_with_limit(path: impl AsRef<Path>, max_size: u64) -> io::Result<Input> {
        let path = path.as_ref();
        let (path, raw, len): (Option<PathBuf>, Box<dyn Read + Send>, Option<u64>) = if path == Path::new("-") {
            (None, Box::new(io::stdin()), None)
        } else {
            let file = File::open(path)?;
            let len = file.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
            (Some(path.to_path_buf()), Box::new(file), len)
        };
        let (head, rest) = read_head(raw)?;
        if !is_gzip(&head) {
            return Ok(Input { path, head, rest, len });
        }
        let (head, rest) = read_head(Box::new(gunzip(Cursor::new(head).chain(rest), max_size)))?;
        // The decompressed size is not known before the end.
        Ok(Input { path, head, rest, len: None })
    }

    /// An input from bytes in memory (tests, library users).
    pub fn from_bytes(bytes: Vec<u8>) -> Input {
        let len = Some(bytes.len() as u64);
        Input { path: None, head: bytes, rest: Box::new(io::empty()), len }
    }

    /// The path, or `None` for stdin.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The first bytes, for sniffing.
    pub fn head(&self) -> &[u8] {
        &self.head
    }

    /// The size of the input when it is a regular file that is not compressed.
    pub fn len(&self) -> Option<u64> {
        self.len
    }

    /// Whether the input is known to be empty.
    pub fn is_empty(&self) -> bool {
        self.len == Some(0)
    }

    /// Wraps the part of the input after the head (to count progress, say).
    pub fn map_rest(self, wrap: impl FnOnce(Box<dyn Read + Send>) -> Box<dyn Read + Send>) -> Input {
        Input { rest: wrap(self.rest), ..self }
    }

    /// The whole input as one stream, the head first, every byte as it is (for a binary format).
    pub fn into_reader(self) -> InputReader {
        Cursor::new(self.head).chain(self.rest)
    }

    /// The whole input as one stream for a text format, the head first, as UTF-8 without a leading
    /// byte-order mark: UTF-16 with a mark (little- or big-endian) is decoded as it is read. Byte
    /// offsets in the reader's messages count from after the mark, in UTF-8.
    pub fn into_text_reader(self) -> InputReader {
        let (encoding, mark) = text::Encoding::of(&self.head);
        let mut head = Cursor::new(self.head);
        head.set_position(mark as u64);
        match encoding {
            text::Encoding::Utf8 => head.chain(self.rest),
            utf16 => {
                let decoded = text::Utf16Decoder::new(head.chain(self.rest), utf16, mark as u64);
                Cursor::new(Vec::new()).chain(Box::new(decoded))
            }
        }
    }
}

/// Whether `bytes` start as a gzip stream does.
pub(crate) fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(GZIP_MAGIC)
}

/// The gzip stream `compressed`, decompressed as it is read, with an error past `max_size` bytes
/// (naming the limit and `--max-input-size`) and errors that say the compressed data is at fault.
/// [`Input`] uses it, and so does a reader given compressed bytes directly (pprof's).
pub(crate) fn gunzip<R: Read + Send>(compressed: R, max_size: u64) -> impl Read + Send {
    Gunzip { inner: flate2::read::MultiGzDecoder::new(compressed), left: max_size, max_size }
}

/// Output from which [`gzip`] compresses in blocks on two threads.
const PARALLEL_GZIP_FROM: usize = 1 << 20;

/// The size of those blocks.
const GZIP_BLOCK: usize = 1 << 20;

/// Writes `data` to `out` as one gzip member. Below `PARALLEL_GZIP_FROM` bytes it is one deflate
/// stream at the default level, as Go's `profile` package writes. From there on it is compressed as
/// Go's `runtime/pprof` does, at the fastest level, in `GZIP_BLOCK` blocks on two threads (as pigz
/// splits its input, but each block starts afresh, without the previous block's last 32 KiB as its
/// dictionary), each ended by a sync flush so that the blocks make one deflate stream: at the
/// default level compressing a large profile took longer than the rest of its conversion, for 9 %
/// fewer bytes.
pub fn gzip(data: &[u8], out: &mut dyn Write) -> io::Result<()> {
    use flate2::Compression;
    if data.len() < PARALLEL_GZIP_FROM {
        let mut encoder = flate2::write::GzEncoder::new(out, Compression::default());
        encoder.write_all(data)?;
        return encoder.finish().map(drop);
    }
    let blocks: Vec<&[u8]> = data.chunks(GZIP_BLOCK).collect();
    // The first half of the blocks on this thread, the second on another.
    let deflate = |range: std::ops::Range<usize>| -> io::Result<Vec<(Vec<u8>, flate2::Crc)>> {
        range.map(|i| deflate_block(blocks[i], i + 1 == blocks.len())).collect()
    };
    let (all, half) = (blocks.len(), blocks.len() / 2);
    let (first, second) = std::thread::scope(|scope| {
        let second = scope.spawn(|| deflate(half..all));
        (deflate(0..half), second.join().unwrap_or_else(|_| deflate(half..all)))
    });
    // The header RFC 1952 asks, as flate2 writes it: no name, no time, the fastest level, any OS.
    out.write_all(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 4, 255])?;
    let mut crc = flate2::Crc::new();
    for (compressed, block_crc) in first?.into_iter().chain(second?) {
        out.write_all(&compressed)?;
        crc.combine(&block_crc);
    }
    out.write_all(&crc.sum().to_le_bytes())?;
    out.write_all(&(data.len() as u32).to_le_bytes())
}

/// `block` deflated at the fastest level, ended by a sync flush (or, for the `last`, the final
/// block), and its CRC.
fn deflate_block(block: &[u8], last: bool) -> io::Result<(Vec<u8>, flate2::Crc)> {
    use flate2::{Compress, Compression, FlushCompress, Status};
    let mut compress = Compress::new(Compression::fast(), false);
    let flush = if last { FlushCompress::Finish } else { FlushCompress::Sync };
    let mut compressed = Vec::with_capacity(block.len() / 2 + 1024);
    loop {
        let read = usize::try_from(compress.total_in()).unwrap_or(block.len()).min(block.len());
        let status = compress.compress_vec(&block[read..], &mut compressed, flush).map_err(io::Error::other)?;
        let all_read = compress.total_in() == block.len() as u64;
        // Done when all is read and the flush found room to finish: the stream's end, or a
        // sync flush that left the buffer short of full.
        if all_read && (status == Status::StreamEnd || (!last && compressed.len() < compressed.capacity())) {
            break;
        }
        compressed.reserve(compressed.capacity().max(64 * 1024));
    }
    let mut crc = flate2::Crc::new();
    crc.update(block);
    Ok((compressed, crc))
}

/// Reads the first [`HEAD_LEN`] bytes of `input`, and returns them with the stream of the rest.
fn read_head(mut input: Box<dyn Read + Send>) -> io::Result<(Vec<u8>, Box<dyn Read + Send>)> {
    let mut head = Vec::with_capacity(HEAD_LEN);
    (&mut input).take(HEAD_LEN as u64).read_to_end(&mut head)?;
    Ok((head, input))
}

/// A gzip stream decompressed, with an error past `max_size` bytes and errors that say the
/// compressed data is at fault.
struct Gunzip<R> {
    inner: flate2::read::MultiGzDecoder<R>,
    /// How many more bytes may come.
    left: u64,
    max_size: u64,
}

impl<R: Read> Read for Gunzip<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // One byte more than may come tells a stream that goes past the limit from one that ends at it.
        let want = buf.len().min(usize::try_from(self.left.saturating_add(1)).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want]).map_err(|e| gzip_error(e, self.max_size - self.left))?;
        if n as u64 > self.left {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "the gzip-compressed input decompresses to more than {} bytes; raise the limit with --max-input-size",
                    self.max_size
                ),
            ));
        }
        self.left -= n as u64;
        Ok(n)
    }
}

/// An error of the gzip decoder after `content` bytes decompressed, said as one of the input: where
/// it is in what the input decompresses to (a reader that takes the whole input before reading it,
/// or its first bytes to tell its format, has no other place to say).
fn gzip_error(error: io::Error, content: u64) -> io::Error {
    let what = match error.kind() {
        io::ErrorKind::UnexpectedEof => {
            format!("the gzip-compressed input is cut short after {content} bytes of content")
        }
        _ => format!("the gzip-compressed input is damaged after {content} bytes of content ({error})"),
    };
    io::Error::new(error.kind(), what)
}

/// Where a converted profile goes: stdout, or a temporary file renamed into place on success.
pub struct Output {
    sink: Sink,
}

enum Sink {
    Stdout(BufWriter<io::Stdout>),
    Stderr(BufWriter<io::Stderr>),
    File {
        temp: BufWriter<tempfile::NamedTempFile>,
        path: PathBuf,
        _pending: Pending,
    },
    /// A device or pipe, written as it goes.
    InPlace(BufWriter<File>),
}

const OUTPUT_BUFFER: usize = 256 * 1024;

/// tempfile's error reads `{reason} at path "…/.proftool-x1Yz.tmp"`, a path the user never gave and
/// that no longer exists: the caller names the output path, so only the reason is kept. (tempfile
/// keeps the system's error inside a private type, so the text is all there is to go by.)
fn without_temp_path(error: io::Error) -> io::Error {
    match error.to_string().split_once(" at path ") {
        Some((reason, _)) => io::Error::new(error.kind(), reason.to_string()),
        None => error,
    }
}

impl Output {
    /// Prepares to write `path` (stdout for `-`). Refuses a path that is one of the files `inputs`
    /// name ([`refuse_an_input`]).
    pub fn create(path: impl AsRef<Path>, inputs: &[&Path]) -> io::Result<Output> {
        let path = path.as_ref();
        let refuse = |what: &str| {
            Err(io::Error::new(io::ErrorKind::InvalidInput, format!("the output {} {what}", path.display())))
        };
        let path = match resolve(path)? {
            Resolved::Stdout => {
                return Ok(Output { sink: Sink::Stdout(BufWriter::with_capacity(OUTPUT_BUFFER, io::stdout())) })
            }
            Resolved::Stderr => return Ok(Output { sink: Sink::Stderr(BufWriter::new(io::stderr())) }),
            Resolved::Path(path) => path,
        };
        let existing = std::fs::metadata(&path).ok();
        if existing.as_ref().is_some_and(|m| m.is_dir()) {
            return refuse("is a directory");
        }
        let regular = existing.as_ref().is_none_or(|m| m.is_file());
        if regular {
            refuse_an_input(&path, inputs)?;
        }
        if !regular {
            let file = File::options().append(true).open(&path)?;
            return Ok(Output { sink: Sink::InPlace(BufWriter::with_capacity(OUTPUT_BUFFER, file)) });
        }
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        // Registered before it is made, so that a signal between the two cannot leave it behind; a
        // name another file took is let go again.
        let mut registered = None;
        let temp = tempfile::Builder::new()
            .prefix(".proftool-")
            .suffix(".tmp")
            .make_in(&dir, |candidate| {
                let pending = Pending::register(candidate);
                let file = create_private(candidate)?;
                registered = Some(pending);
                Ok(file)
            })
            .map_err(without_temp_path)?;
        let Some(pending) = registered else { return Err(io::Error::other("no temporary file was made")) };
        Ok(Output { sink: Sink::File { temp: BufWriter::with_capacity(OUTPUT_BUFFER, temp), path, _pending: pending } })
    }

    /// The stream to write to.
    pub fn writer(&mut self) -> &mut dyn Write {
        match &mut self.sink {
            Sink::Stdout(w) => w,
            Sink::Stderr(w) => w,
            Sink::File { temp, .. } => temp,
            Sink::InPlace(w) => w,
        }
    }

    /// Flushes and, for a file, moves it into place. Dropping an `Output` without committing removes
    /// the temporary file.
    pub fn commit(self) -> io::Result<()> {
        match self.sink {
            Sink::Stdout(mut w) => w.flush(),
            Sink::Stderr(mut w) => w.flush(),
            Sink::InPlace(mut w) => w.flush(),
            Sink::File { temp, path, _pending } => {
                let temp = temp.into_inner().map_err(|e| e.into_error())?;
                match std::fs::metadata(&path) {
                    Ok(existing) => temp.as_file().set_permissions(existing.permissions())?,
                    Err(_) => set_new_file_permissions(temp.as_file())?,
                }
                temp.persist(&path).map_err(|e| e.error)?;
                Ok(())
            }
        }
    }
}

/// A new file at `path` that only its owner can read and write (as a temporary file is), never one
/// that is there already.
fn create_private(path: &Path) -> io::Result<File> {
    let mut options = File::options();
    options.read(true).write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)
}

/// The temporary files of the outputs being written, for [`remove_pending_outputs`].
static PENDING: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// An output's temporary file while it is written: in [`PENDING`] until committed or dropped.
struct Pending(PathBuf);

impl Pending {
    fn register(path: &Path) -> Pending {
        if let Ok(mut pending) = PENDING.lock() {
            pending.push(path.to_path_buf());
        }
        Pending(path.to_path_buf())
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if let Ok(mut pending) = PENDING.lock() {
            pending.retain(|path| *path != self.0);
        }
    }
}

/// Removes the temporary files of the outputs being written, for a process about to end on a
/// signal (SIGINT, SIGTERM, SIGHUP), which runs no destructor: the outputs keep their old content,
/// and no hidden `.proftool-*.tmp` file is left beside them. (SIGKILL cannot be caught: docs/usage.md
/// says how to find what it leaves.)
pub fn remove_pending_outputs() {
    // A thread that panicked while holding the lock left the list as it was: still worth removing.
    let mut pending = PENDING.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    for path in pending.drain(..) {
        let _ = std::fs::remove_file(path);
    }
}

/// What an output path names once its symbolic links are followed.
enum Resolved {
    /// proftool's own stdout or stderr (`-`, `/dev/stdout`, `/dev/fd/1`, a link to one of them).
    Stdout,
    Stderr,
    /// A path that is no link (it may not exist yet).
    Path(PathBuf),
}

/// Follows `path`'s symbolic links one at a time, so that the rename replaces the file a chain of
/// links ends at (created where the last one points when it does not exist), and stops at a name of
/// stdout or stderr: reopened, they would be written from where the shell opened them, and what the
/// shell writes after proftool would go over it.
fn resolve(path: &Path) -> io::Result<Resolved> {
    let mut path = path.to_path_buf();
    // As many links as Linux follows.
    for _ in 0..40 {
        if path.as_os_str() == "-" {
            return Ok(Resolved::Stdout);
        }
        match standard_stream(&path) {
            Some(1) => return Ok(Resolved::Stdout),
            Some(2) => return Ok(Resolved::Stderr),
            _ => {}
        }
        if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Ok(Resolved::Path(path));
        }
        let target = std::fs::read_link(&path)?;
        path = match path.parent() {
            Some(dir) => dir.join(target),
            None => target,
        };
    }
    Err(io::Error::other(format!("{}: too many levels of symbolic links", path.display())))
}

/// The file descriptor a path names when it is one of the process's own: `/dev/stdout`,
/// `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N`.
fn standard_stream(path: &Path) -> Option<u32> {
    if !cfg!(unix) {
        return None;
    }
    let text = path.to_str()?;
    match text {
        "/dev/stdout" => return Some(1),
        "/dev/stderr" => return Some(2),
        _ => {}
    }
    let own = format!("/proc/{}/fd/", std::process::id());
    ["/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/", own.as_str()]
        .iter()
        .find_map(|prefix| text.strip_prefix(prefix))
        .and_then(|fd| fd.parse().ok())
}

/// Gives a new output the permissions of an ordinary new file (the temporary file is private).
#[cfg(unix)]
fn set_new_file_permissions(file: &File) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(std::fs::Permissions::from_mode(0o644))
}

#[cfg(not(unix))]
fn set_new_file_permissions(_file: &File) -> io::Result<()> {
    Ok(())
}

/// Refuses to write `output` where it is the file one of `inputs` names (the same file by device
/// and inode: a hard link or `./x` is the file too), or, for an input `-`, the file stdin was
/// redirected from (`convert - a.folded < a.folded`), so that no run overwrites what it reads.
/// Commands check before they read anything, and again as the output is created.
pub fn refuse_an_input(output: &Path, inputs: &[&Path]) -> io::Result<()> {
    let Some(output_identity) = identity(output) else {
        return Ok(());
    };
    for input in inputs {
        let (input_identity, name) = match *input == Path::new("-") {
            true => (stdin_identity(), "redirected to stdin".to_string()),
            false => (identity(input), input.display().to_string()),
        };
        if input_identity.as_ref() == Some(&output_identity) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("the output {} is the input file {name}; refusing to overwrite it", output.display()),
            ));
        }
    }
    Ok(())
}

/// What tells an existing file from every other: its device and inode (a hard link, `./x` or a
/// symbolic link to it are the file too).
#[cfg(unix)]
type Identity = (u64, u64);
#[cfg(not(unix))]
type Identity = PathBuf;

/// The identity of the file `path` names, if it exists.
fn identity(path: &Path) -> Option<Identity> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        std::fs::canonicalize(path).ok()
    }
}

/// The identity of what stdin reads (a file it was redirected from, a pipe, a terminal), as
/// `fstat` gives it; `None` where it is closed, or where the system does not say.
fn stdin_identity() -> Option<Identity> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        use std::os::unix::fs::MetadataExt;
        let stdin = File::from(io::stdin().as_fd().try_clone_to_owned().ok()?);
        stdin.metadata().ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(mut reader: impl Read) -> io::Result<Vec<u8>> {
        let mut out = Vec::new();
        reader.read_to_end(&mut out).map(|_| out)
    }

    #[test]
    fn a_large_output_is_one_gzip_member_of_blocks() {
        // 3.5 blocks of text that compresses, with a run that crosses the blocks' edges.
        let mut data = Vec::new();
        let mut i = 0u64;
        while data.len() < 7 * GZIP_BLOCK / 2 {
            i += 1;
            data.extend_from_slice(format!("frame_{} {}\n", i % 977, i * 2_654_435_761 % 1_000_003).as_bytes());
        }
        let mut compressed = Vec::new();
        gzip(&data, &mut compressed).unwrap();
        assert!(compressed.len() < data.len() / 2);
        // One member: the single-member decoder reads it all, and checks its CRC and length.
        let mut decoded = Vec::new();
        flate2::read::GzDecoder::new(&compressed[..]).read_to_end(&mut decoded).unwrap();
        assert!(decoded == data);
        let mut broken = compressed.clone();
        let crc_at = broken.len() - 8;
        broken[crc_at] ^= 1;
        assert!(flate2::read::GzDecoder::new(&broken[..]).read_to_end(&mut Vec::new()).is_err());
    }

    #[test]
    fn a_small_output_is_compressed_as_before() {
        let data = b"main;f 1\n".repeat(1000);
        let mut ours = Vec::new();
        gzip(&data, &mut ours).unwrap();
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(&data).unwrap();
        assert_eq!(ours, encoder.finish().unwrap());
    }

    #[test]
    fn a_byte_order_mark_is_dropped_for_text_formats_only() {
        let bytes = b"\xEF\xBB\xBFa 1\n".to_vec();
        assert_eq!(read_all(Input::from_bytes(bytes.clone()).into_text_reader()).unwrap(), b"a 1\n");
        // Binary formats keep every byte, whatever they start with.
        assert_eq!(read_all(Input::from_bytes(bytes.clone()).into_reader()).unwrap(), bytes);
        // One mark, once.
        let twice = [text::BOM, text::BOM, b"x"].concat();
        assert_eq!(read_all(Input::from_bytes(twice).into_text_reader()).unwrap(), b"\xEF\xBB\xBFx");
    }

    #[test]
    fn decompression_stops_past_the_limit() {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(&[b'x'; 1000]).unwrap();
        let compressed = encoder.finish().unwrap();
        let gunzip =
            |max_size| Gunzip { inner: flate2::read::MultiGzDecoder::new(&compressed[..]), left: max_size, max_size };
        assert_eq!(read_all(gunzip(1000)).unwrap().len(), 1000);
        let err = read_all(gunzip(999)).unwrap_err();
        assert!(err.to_string().contains("more than 999 bytes"), "{err}");
        let cut = Gunzip {
            inner: flate2::read::MultiGzDecoder::new(&compressed[..compressed.len() - 4]),
            left: 2000,
            max_size: 2000,
        };
        // Cut in its trailer: all of the content came out before the error.
        let err = read_all(cut).unwrap_err().to_string();
        assert_eq!(err, "the gzip-compressed input is cut short after 1000 bytes of content");
    }
}
