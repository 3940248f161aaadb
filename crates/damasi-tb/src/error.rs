//! Errors: files that cannot be read or are not valid tables, and probes that cannot answer.

use std::fmt;
use std::path::PathBuf;

use crate::placement::Placement;
use crate::signature::Signature;

/// A table file could not be read, written or trusted.
#[derive(Debug)]
pub enum TbError {
    /// The operating system refused (missing file, permissions, disk full...).
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The file is not a valid table (or checkpoint): wrong magic or version, truncated, or a checksum that
    /// does not match.
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong, for people.
        what: String,
    },
}

impl TbError {
    pub(crate) fn corrupt(path: &std::path::Path, what: impl Into<String>) -> TbError {
        TbError::Corrupt {
            path: path.to_path_buf(),
            what: what.into(),
        }
    }

    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> TbError {
        TbError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

impl fmt::Display for TbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TbError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            TbError::Corrupt { path, what } => {
                write!(f, "{}: not a valid tablebase file: {what}", path.display())
            }
        }
    }
}

impl std::error::Error for TbError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            TbError::Io { source, .. } => Some(source),
            TbError::Corrupt { .. } => None,
        }
    }
}

/// Why a probe has no value.
#[derive(Debug)]
pub enum ProbeError {
    /// The position has more pieces than any table.
    TooManyPieces(u32),
    /// The table of this signature (or of one reached by a capture) is not loaded.
    MissingTable(Signature),
    /// A table file turned out to be damaged while reading it.
    File(TbError),
    /// The placement is no position: two pieces share a square, or a man stands on a rank
    /// it never reaches (its first or its promotion rank).
    NotAPosition(Placement),
}

impl fmt::Display for ProbeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProbeError::TooManyPieces(n) => {
                write!(
                    f,
                    "{n} pieces: the tables hold at most {}",
                    crate::MAX_PIECES
                )
            }
            ProbeError::MissingTable(s) => write!(f, "table {s} is not available"),
            ProbeError::File(e) => e.fmt(f),
            ProbeError::NotAPosition(_) => f.write_str(
                "not a position: two pieces share a square or a man stands on the first or \
                 last rank",
            ),
        }
    }
}

impl std::error::Error for ProbeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ProbeError::File(e) => Some(e),
            _ => None,
        }
    }
}

impl From<TbError> for ProbeError {
    fn from(e: TbError) -> ProbeError {
        ProbeError::File(e)
    }
}
