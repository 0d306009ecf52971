//! Inputs and outputs by path, `-` meaning stdin or stdout.
//!
//! An [`Input`] reads its first bytes up front for the sniffers and then streams the rest behind
//! them, so detection never needs a seekable file. An [`Output`] to a path writes a temporary file
//! beside it and renames it into place only on [`Output::commit`]: a failed run leaves no partial file,
//! and an output that names the input is refused before anything is written. A symbolic link is
//! followed, so the file it points to is replaced and the link kept. Streams are written as the
//! conversion goes, as nothing can be renamed over them: `/dev/stdout` (and `/dev/fd/1`,
//! `/proc/self/fd/1`, or a link to one of them) is proftool's own stdout, `/dev/stderr` its stderr,
//! and a path that exists and is not a regular file (`/dev/null`, a named pipe, `/dev/fd/3`, a
//! shell's `>(…)`) is opened for appending.

use std::fs::File;
use std::io::{self, BufWriter, Cursor, Read, Write};
use std::path::{Path, PathBuf};

/// How many bytes the sniffers see.
pub const HEAD_LEN: usize = 64 * 1024;

/// An input being read: its first bytes, and a stream of the whole input.
pub struct Input {
    path: Option<PathBuf>,
    head: Vec<u8>,
    rest: Box<dyn Read + Send>,
    len: Option<u64>,
}

impl Input {
    /// Opens `path`, or stdin for `-`, and reads its first [`HEAD_LEN`] bytes.
    pub fn open(path: &str) -> io::Result<Input> {
        let (path, mut rest, len): (Option<PathBuf>, Box<dyn Read + Send>, Option<u64>) = if path == "-" {
            (None, Box::new(io::stdin()), None)
        } else {
            let file = File::open(path)?;
            let len = file.metadata().ok().filter(|m| m.is_file()).map(|m| m.len());
            (Some(PathBuf::from(path)), Box::new(file), len)
        };
        let mut head = Vec::with_capacity(HEAD_LEN);
        (&mut rest).take(HEAD_LEN as u64).read_to_end(&mut head)?;
        Ok(Input { path, head, rest, len })
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

    /// The size of the input when it is a regular file.
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

    /// The whole input as one stream, the head first.
    pub fn into_reader(self) -> impl Read + Send {
        Cursor::new(self.head).chain(self.rest)
    }
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
    /// Prepares to write `path` (stdout for `-`). Refuses a path that is the file `input` names.
    pub fn create(path: &str, input: Option<&Path>) -> io::Result<Output> {
        let refuse = |what: &str| Err(io::Error::new(io::ErrorKind::InvalidInput, format!("the output {path} {what}")));
        let path = match resolve(Path::new(path))? {
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
        if input.is_some_and(|input| regular && same_file(input, &path)) {
            return refuse("is the input file; refusing to overwrite it");
        }
        if !regular {
            let file = File::options().append(true).open(&path)?;
            return Ok(Output { sink: Sink::InPlace(BufWriter::with_capacity(OUTPUT_BUFFER, file)) });
        }
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let temp = tempfile::Builder::new()
            .prefix(".proftool-")
            .suffix(".tmp")
            .tempfile_in(&dir)
            .map_err(without_temp_path)?;
        Ok(Output { sink: Sink::File { temp: BufWriter::with_capacity(OUTPUT_BUFFER, temp), path } })
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
            Sink::File { temp, path } => {
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

/// Whether two paths name the same existing file (also through links).
fn same_file(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        ma.dev() == mb.dev() && ma.ino() == mb.ino()
    }
    #[cfg(not(unix))]
    {
        let _ = (ma, mb);
        std::fs::canonicalize(a).ok() == std::fs::canonicalize(b).ok()
    }
}
