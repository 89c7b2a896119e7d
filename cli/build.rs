//! Compiles the conformance corpus into the `keyroute` binary, so `keyroute conformance` runs
//! without a checkout. The files are the ones the Rust runners list (the same listing code,
//! `bindings/src/conformance/listing.rs`). `KEYROUTE_VECTORS_DIR` points at another copy of
//! the corpus (for a build outside the repository).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[allow(dead_code, reason = "the listing module is shared with keyroute-bindings")]
#[path = "../bindings/src/conformance/listing.rs"]
mod listing;

fn main() {
    println!("cargo::rerun-if-env-changed=KEYROUTE_VECTORS_DIR");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let dir = std::env::var_os("KEYROUTE_VECTORS_DIR")
        .map_or_else(|| manifest.join("../conformance/vectors/v1"), PathBuf::from);
    println!("cargo::rerun-if-changed={}", dir.display());
    let files = match listing::json_files(&dir) {
        Ok(files) if !files.is_empty() => files,
        Ok(_) => fail(&dir, "no vector files"),
        Err(e) => fail(&dir, &e.to_string()),
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
