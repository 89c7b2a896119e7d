//! Which files of a corpus folder are vector files (the `keyroute` command's build script
//! compiles the same choice into the binary, and its tests check the two agree).

use std::io;
use std::path::{Path, PathBuf};

/// The vector files of a corpus folder: its `*.json` files (not the `schema/` folder), sorted
/// by name.
///
/// # Errors
///
/// When the folder or an entry cannot be read.
pub fn json_files(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut paths = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|x| x == "json") && path.is_file() {
            paths.push(path);
        }
    }
    paths.sort();
    Ok(paths)
}
