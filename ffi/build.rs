//! The shared library's ABI name, and the installed file names that follow from it.
//!
//! SONAME policy: under 0.x every minor release may change the ABI, so the ABI name carries
//! `0.MINOR` (`libkeyroute.so.0.1` for every 0.1.z); from 1.0 on it carries the major version
//! only (`libkeyroute.so.1`). Patch releases never change the ABI, so a program linked against
//! 0.1.0 loads 0.1.3 unchanged, and one built for 0.1 refuses to start against 0.2.
//!
//! This file is the one place the rule is written. It passes the name to the linker (ELF
//! `-soname`, Mach-O `-install_name`; Windows DLLs have no such name) and writes the three file
//! names an install uses into `$OUT_DIR/install-names` (`key=value` lines: `real`, the versioned
//! file; `soname`, the link the loader looks for; `dev`, the link `-lkeyroute` finds; and the
//! version and pointer width the CMake package checks), which `ffi/install.sh` reads.

use std::env;
use std::fs;
use std::path::PathBuf;

fn main() -> std::io::Result<()> {
    println!("cargo:rerun-if-changed=build.rs");
    let version = env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let major = env::var("CARGO_PKG_VERSION_MAJOR").unwrap_or_default();
    let minor = env::var("CARGO_PKG_VERSION_MINOR").unwrap_or_default();
    let patch = env::var("CARGO_PKG_VERSION_PATCH").unwrap_or_default();
    let abi = if major == "0" { format!("0.{minor}") } else { major.clone() };
    let full = format!("{major}.{minor}.{patch}");
    let os = env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let family = env::var("CARGO_CFG_TARGET_FAMILY").unwrap_or_default();
    let apple = env::var("CARGO_CFG_TARGET_VENDOR").is_ok_and(|v| v == "apple");

    let (real, soname, dev) = if os == "windows" {
        // One DLL, found by its name; the import library carries no version.
        ("keyroute.dll".to_owned(), String::new(), String::new())
    } else if apple {
        let soname = format!("libkeyroute.{abi}.dylib");
        println!("cargo:rustc-cdylib-link-arg=-Wl,-install_name,@rpath/{soname}");
        println!("cargo:rustc-cdylib-link-arg=-Wl,-current_version,{full}");
        println!("cargo:rustc-cdylib-link-arg=-Wl,-compatibility_version,{abi}");
        (format!("libkeyroute.{full}.dylib"), soname, "libkeyroute.dylib".to_owned())
    } else if family.split(',').any(|f| f == "unix") {
        let soname = format!("libkeyroute.so.{abi}");
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{soname}");
        (format!("libkeyroute.so.{full}"), soname, "libkeyroute.so".to_owned())
    } else {
        // A target with neither (wasm32 builds no cdylib of this crate): nothing to name.
        (String::new(), String::new(), String::new())
    };

    let pointer_bytes =
        env::var("CARGO_CFG_TARGET_POINTER_WIDTH").ok().and_then(|w| w.parse::<u32>().ok()).unwrap_or(0) / 8;
    let names = format!(
        "version={version}\nmajor={major}\nminor={minor}\nabi={abi}\nreal={real}\nsoname={soname}\ndev={dev}\n\
         pointer_bytes={pointer_bytes}\n"
    );
    let out = PathBuf::from(env::var_os("OUT_DIR").unwrap_or_default()).join("install-names");
    fs::write(out, names)
}
