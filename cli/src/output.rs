//! Files the CLI writes (`--plot`, `--junit`, `man --dir`): whole or not at all, and never over
//! one of the command's inputs.
//!
//! A file is written into a new temporary file in the same directory, synced, and renamed over
//! the destination, so a write that fails (a full disk, a signal) leaves the old file, or no
//! file, and a temporary file that is removed; never a truncated one. A destination that exists
//! and is not a regular file (`/dev/null`, `/dev/full`, a FIFO, a directory) is opened and
//! written as before, since it cannot be replaced by a rename; a symbolic link is followed and
//! its target replaced, so the link stays.

use std::ffi::OsString;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use keyroute_bindings::ErrorCode;

use crate::error::{CliError, Result};

/// How many temporary names are tried before giving up (each one exists already).
const TEMP_ATTEMPTS: u32 = 64;

/// Refuses `output` (given as `option`) when it names the same file as one of `inputs` (`-`,
/// stdin, is no file): `balance -t topo.json --plot topo.json` would replace the topology with
/// the chart. A usage error (exit status 2), raised before any work.
pub fn refuse_overwriting_input(option: &str, output: &Path, inputs: &[&Path]) -> Result<()> {
    for input in inputs.iter().filter(|p| p.as_os_str() != "-") {
        if same_file(output, input) {
            return Err(CliError::usage(
                ErrorCode::InvalidArgument,
                format!(
                    "{option} {}: that is the input {}; refusing to overwrite it (choose another output file)",
                    output.display(),
                    input.display()
                ),
            ));
        }
    }
    Ok(())
}

/// Whether `a` and `b` name one existing file (through links: the same device and inode on
/// Unix, the same canonical path elsewhere).
fn same_file(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (fs::metadata(a), fs::metadata(b)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        match (fs::canonicalize(a), fs::canonicalize(b)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    }
}

/// Writes `bytes` to `path` whole or not at all (see the module's comment).
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let failed = |e: &io::Error| CliError::io(format_args!("writing {}", path.display()), e);
    let target = match fs::symlink_metadata(path) {
        // A link is followed; a dangling one is written through, as `File::create` does.
        Ok(meta) if meta.file_type().is_symlink() => match fs::canonicalize(path) {
            Ok(real) => real,
            Err(_) => return write_in_place(path, bytes).map_err(|e| failed(&e)),
        },
        Ok(_) => path.to_path_buf(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => path.to_path_buf(),
        Err(e) => return Err(failed(&e)),
    };
    let existing = match fs::metadata(&target) {
        Ok(meta) if !meta.is_file() => return write_in_place(&target, bytes).map_err(|e| failed(&e)),
        Ok(meta) => Some(meta.permissions()),
        Err(_) => None,
    };
    let (temp_path, mut temp) = create_temp(&target).map_err(|e| failed(&e))?;
    let written = temp
        .write_all(bytes)
        .and_then(|()| temp.sync_all())
        .and_then(|()| existing.map_or(Ok(()), |p| fs::set_permissions(&temp_path, p)));
    drop(temp);
    match written.and_then(|()| fs::rename(&temp_path, &target)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = fs::remove_file(&temp_path);
            Err(failed(&e))
        }
    }
}

fn write_in_place(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = File::create(path)?;
    file.write_all(bytes)?;
    file.flush()
}

/// A new file `.NAME.keyroute-PID-N.tmp` beside `target`.
fn create_temp(target: &Path) -> io::Result<(PathBuf, File)> {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let dir = match target.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = target.file_name().ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
    let mut last = io::Error::from(io::ErrorKind::AlreadyExists);
    for _ in 0..TEMP_ATTEMPTS {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let mut temp_name = OsString::from(".");
        temp_name.push(name);
        temp_name.push(format!(".keyroute-{}-{n}.tmp", std::process::id()));
        let temp_path = dir.join(temp_name);
        match OpenOptions::new().write(true).create_new(true).open(&temp_path) {
            Ok(file) => return Ok((temp_path, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => last = e,
            Err(e) => return Err(e),
        }
    }
    Err(last)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("keyroute-output-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_file_is_replaced_whole_and_no_temporary_file_stays() {
        let dir = scratch("replace");
        let path = dir.join("out.svg");
        fs::write(&path, "old").unwrap();
        write_file(&path, b"new").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
    }

    #[test]
    fn the_same_file_through_another_name_is_refused() {
        let dir = scratch("same");
        let input = dir.join("topo.json");
        fs::write(&input, "{}").unwrap();
        let other = dir.join(".").join("topo.json");
        let err = refuse_overwriting_input("--plot", &other, &[Path::new("-"), &input]).unwrap_err();
        assert_eq!(err.exit_status(), crate::error::EXIT_USAGE);
        assert!(refuse_overwriting_input("--plot", &dir.join("x.svg"), &[&input]).is_ok());
    }
}
