//! Generates `include/keyroute.h` with cbindgen from `src/` (the header is committed; CI runs
//! `git diff --exit-code ffi/include/keyroute.h`), and the status table from the bindings'
//! `ErrorCode`, so the C enum and `kr_status_name` cannot drift from the one error table.

use std::fmt::Write as _;
use std::path::PathBuf;

use keyroute_bindings::ErrorCode;

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=cbindgen.toml");
    println!("cargo:rerun-if-changed=build.rs");

    // `enum kr_status_code` for the header, `STATUS_NAMES` for `kr_status_name`.
    let mut header = String::from(
        "/**\n * The values a `kr_status` takes: `KR_OK` or a code of keyroute's one error table\n \
         * (`ErrorCode` in keyroute-bindings; generated from it by ffi/build.rs). Codes are stable;\n \
         * new kinds get new numbers. `kr_status_name` gives each code's snake_case name.\n */\n\
         enum kr_status_code {\n  /** Success. */\n  KR_OK = 0,\n",
    );
    let mut names = String::from("/// (code, name) for every error code, from `ErrorCode::ALL`.\n");
    names.push_str("pub(crate) static STATUS_NAMES: &[(u32, &std::ffi::CStr)] = &[\n");
    for code in ErrorCode::ALL {
        let name = code.name();
        writeln!(header, "  /** `{name}` */\n  KR_{} = {},", name.to_ascii_uppercase(), code.code()).unwrap();
        writeln!(names, "    ({}, c{name:?}),", code.code()).unwrap();
    }
    header.push_str("};\n");
    names.push_str("];\n");
    std::fs::write(out.join("status_names.rs"), names).expect("write status_names.rs");

    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("read cbindgen.toml");
    cbindgen::Builder::new()
        .with_config(config)
        .with_src(dir.join("src/lib.rs"))
        .with_after_include(header)
        .generate()
        .expect("cbindgen generates the header")
        .write_to_file(dir.join("include/keyroute.h"));
}
