//! Compiles the conformance corpus into the `keyroute` binary, so `keyroute conformance` runs
//! without a checkout: the `*.json` files of `conformance/vectors/v1`, by name, as the Rust
//! runners list them (`keyroute_bindings::conformance`; the test `the_compiled_corpus_is_the_repository_corpus`
//! checks the two agree). `KEYROUTE_VECTORS_DIR` points at another copy of the corpus. Built
//! from the published crate, outside the repository and without that variable, the binary
//! carries no corpus and `keyroute conformance` asks for a folder.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo::rerun-if-env-changed=KEYROUTE_VECTORS_DIR");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let given = std::env::var_os("KEYROUTE_VECTORS_DIR").map(PathBuf::from);
    let in_repository = manifest.join("../conformance/vectors/v1");
    let dir = given.clone().unwrap_or_else(|| in_repository.clone());
    println!("cargo::rerun-if-changed={}", dir.display());
    let files = if given.is_none() && !in_repository.is_dir() {
        Vec::new() // the published crate: no corpus beside it
    } else {
        match std::fs::read_dir(&dir).and_then(|entries| {
            entries
                .map(|e| e.map(|e| e.path()))
                .filter(|p| p.as_ref().map_or(true, |p| p.is_file() && p.extension().is_some_and(|x| x == "json")))
                .collect::<std::io::Result<Vec<PathBuf>>>()
        }) {
            Ok(mut files) if !files.is_empty() => {
                files.sort();
                files
            }
            Ok(_) => fail(&dir, "no vector files"),
            Err(e) => fail(&dir, &e.to_string()),
        }
    };
    let mut out = String::from("/// The corpus compiled in: (file name, contents), in name order.\n");
    out.push_str("pub static FILES: &[(&str, &[u8])] = &[\n");
    for path in &files {
        println!("cargo::rerun-if-changed={}", path.display());
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let absolute = std::fs::canonicalize(path).unwrap_or_else(|e| fail(path, &e.to_string()));
        let _ = writeln!(out, "    ({name:?}, include_bytes!({:?})),", absolute.display().to_string());
    }
    out.push_str("];\n");
    let target = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default()).join("corpus.rs");
    if let Err(e) = std::fs::write(&target, out) {
        fail(&target, &e.to_string());
    }
}

#[allow(clippy::panic, reason = "a build script reports failure by panicking")]
fn fail(path: &Path, why: &str) -> ! {
    panic!("the conformance corpus at {} cannot be compiled in: {why} (set KEYROUTE_VECTORS_DIR)", path.display())
}
