//! Inputs and outputs by path, `-` meaning stdin or stdout.
//!
//! An [`Input`] reads its first bytes up front for the sniffers and then streams the rest behind
//! them, so detection never needs a seekable file. An [`Output`] to a path writes a temporary file
//! beside it and renames it into place only on [`Output::commit`]: a failed run leaves no partial file,
//! and an output that names the input is refused before anything is written. A path that is not a
//! regular file, or is under `/dev` or `/proc` (`/dev/null`, `/dev/stdout`, a named pipe, `>(…)`), is
//! appended to instead: a rename would replace the device or pipe with a file, or the file the shell
//! opened behind `/dev/stdout`. A symbolic link is followed, so the file it points to is replaced and
//! the link kept.

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
    File {
        temp: BufWriter<tempfile::NamedTempFile>,
        path: PathBuf,
    },
    /// A device or pipe, written as it goes.
    InPlace(BufWriter<File>),
}

const OUTPUT_BUFFER: usize = 256 * 1024;

impl Output {
    /// Prepares to write `path` (stdout for `-`). Refuses a path that is the file `input` names.
    pub fn create(path: &str, input: Option<&Path>) -> io::Result<Output> {
        if path == "-" {
            return Ok(Output { sink: Sink::Stdout(BufWriter::with_capacity(OUTPUT_BUFFER, io::stdout())) });
        }
        let given = Path::new(path);
        let path = follow_links(given);
        let existing = std::fs::metadata(&path).ok();
        if existing.as_ref().is_some_and(|m| m.is_dir()) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("the output {} is a directory", path.display()),
            ));
        }
        if let Some(input) = input {
            if existing.as_ref().is_some_and(|m| m.is_file()) && same_file(input, &path) {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("the output {} is the input file; refusing to overwrite it", path.display()),
                ));
            }
        }
        if is_system_path(given) || existing.is_some_and(|m| !m.is_file()) {
            // Appending: `/dev/stdout` may be a file the shell opened for appending (`>> log`).
            let file = File::options().append(true).open(&path)?;
            return Ok(Output { sink: Sink::InPlace(BufWriter::with_capacity(OUTPUT_BUFFER, file)) });
        }
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let temp = tempfile::Builder::new().prefix(".proftool-").suffix(".tmp").tempfile_in(&dir)?;
        Ok(Output { sink: Sink::File { temp: BufWriter::with_capacity(OUTPUT_BUFFER, temp), path } })
    }

    /// The stream to write to.
    pub fn writer(&mut self) -> &mut dyn Write {
        match &mut self.sink {
            Sink::Stdout(w) => w,
            Sink::File { temp, .. } => temp,
            Sink::InPlace(w) => w,
        }
    }

    /// Flushes and, for a file, moves it into place. Dropping an `Output` without committing removes
    /// the temporary file.
    pub fn commit(self) -> io::Result<()> {
        match self.sink {
            Sink::Stdout(mut w) => w.flush(),
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

/// `path` with symbolic links resolved, so that the rename replaces the file a link points to and
/// not the link. A link to nothing yet is resolved one step: the output is created where it points.
fn follow_links(path: &Path) -> PathBuf {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path).unwrap_or_else(|_| {
            let target = std::fs::read_link(path).unwrap_or_else(|_| path.to_path_buf());
            path.parent().map_or_else(|| target.clone(), |dir| dir.join(&target))
        }),
        _ => path.to_path_buf(),
    }
}

/// Whether `path` is under `/dev` or `/proc` (`/dev/stdout`, `/dev/fd/3`): an open stream, never a
/// file to replace, even when it resolves to one.
fn is_system_path(path: &Path) -> bool {
    cfg!(unix) && (path.starts_with("/dev") || path.starts_with("/proc"))
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
