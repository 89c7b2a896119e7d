//! Links the C ABI for the `c_abi` target. The ffi crate builds only a cdylib and a staticlib
//! (no rlib: its file name would collide with the core crate's), so it cannot be a Rust
//! dependency here; the fuzz target declares the `kr_` functions from `ffi/include/keyroute.h`
//! by hand and links the library built beforehand from the root workspace with
//! `cargo build -p keyroute-ffi` (scripts/fuzz.sh does it).
//!
//! It links the cdylib, `libkeyroute.so`, not `libkeyroute.a`: the staticlib carries a whole
//! Rust standard library of its own (built by the workspace's stable toolchain), and linking it
//! beside the fuzz binary's nightly one fails on duplicate unmangled symbols
//! (`rust_eh_personality`). The cdylib exports only the `kr_` functions. It is copied into
//! OUT_DIR, which the binaries get as their rpath, so a rebuild of the workspace's library
//! while fuzzing cannot swap the code under a running fuzzer; and the copy replaces the previous
//! one by a rename, never by writing into it, so a rebuild of the fuzz target itself cannot
//! either (a running fuzzer keeps the file it mapped: writing into that file in place crashed a
//! long `c_abi` run when `make test`'s smoke pass rebuilt the target beside it).
//!
//! The library's directory is `../target/debug`, or `KEYROUTE_FFI_LIB_DIR` when set.

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=KEYROUTE_FFI_LIB_DIR");
    let dir = match std::env::var_os("KEYROUTE_FFI_LIB_DIR") {
        Some(d) => PathBuf::from(d),
        None => {
            let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
            manifest.join("..").join("target").join("debug")
        }
    };
    let lib = dir.join("libkeyroute.so");
    if !lib.is_file() {
        eprintln!(
            "error: {} is missing: the c_abi fuzz target links the C ABI's library. Build it \
             first, from the repository root: `cargo build -p keyroute-ffi` (scripts/fuzz.sh \
             does this), or point KEYROUTE_FFI_LIB_DIR at the directory that holds it.",
            lib.display()
        );
        std::process::exit(1);
    }
    println!("cargo:rerun-if-changed={}", lib.display());
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    // The linker finds `libkeyroute.so`; the binary records the library's SONAME
    // (`libkeyroute.so.0.MINOR`, ffi/build.rs), which the loader then looks for in the rpath: a
    // copy goes under each name.
    let mut names = vec!["libkeyroute.so".to_owned()];
    names.extend(soname(&lib).filter(|n| n != "libkeyroute.so"));
    for name in &names {
        let staged = out.join(format!("{name}.new"));
        if let Err(e) = std::fs::copy(&lib, &staged).and_then(|_| std::fs::rename(&staged, out.join(name))) {
            eprintln!("error: copying {} into {} as {name}: {e}", lib.display(), out.display());
            std::process::exit(1);
        }
    }
    // `native`: only the linker searches OUT_DIR. The binaries that call no `kr_` function do
    // not depend on the library at run time (rustc links with --as-needed).
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=dylib=keyroute");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", out.display());
}

/// The library's SONAME, as `readelf -d` prints it (`Library soname: [libkeyroute.so.0.1]`).
fn soname(lib: &std::path::Path) -> Option<String> {
    let output = match std::process::Command::new("readelf").arg("-d").arg(lib).output() {
        Ok(o) if o.status.success() => o,
        _ => {
            eprintln!("error: `readelf -d {}` failed: the c_abi fuzz target needs binutils", lib.display());
            std::process::exit(1);
        }
    };
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text.lines().find(|l| l.contains("(SONAME)"))?;
    let start = line.find('[')? + 1;
    let end = line.rfind(']')?;
    line.get(start..end).map(str::to_owned)
}
