//! `ffi/include/keyroute.h`: cbindgen over `ffi/src`, with the version macros written from the
//! workspace version (this crate's, `[workspace.package] version`) and `enum kr_status_code`
//! written from the error table (each code with its description, name and category).

use std::path::Path;

use keyroute_bindings::ErrorCode;

use crate::Output;
use crate::text::wrap;

pub fn output(root: &Path) -> Result<Output, String> {
    let ffi = root.join("ffi");
    let mut statuses = version_macros();
    statuses.push_str(
        "/**\n * The values a `kr_status` takes: `KR_OK` or a code of keyroute's one error table (`ErrorCode`\n \
         * in keyroute-bindings). Codes are stable; new kinds get new numbers. `kr_status_name` gives\n \
         * each code's snake_case name.\n */\nenum kr_status_code {\n  /** Success. */\n  KR_OK = 0,\n",
    );
    for &code in ErrorCode::ALL {
        let doc = format!("{} (`{}`, category {})", code.description(), code.name(), code.category().name());
        let lines = wrap(&doc, 96, "   * ");
        if let [line] = lines.as_slice() {
            statuses.push_str(&format!("  /** {} */\n", line.trim_start_matches("   * ")));
        } else {
            statuses.push_str("  /**\n");
            for l in lines {
                statuses.push_str(&l);
                statuses.push('\n');
            }
            statuses.push_str("   */\n");
        }
        statuses.push_str(&format!("  KR_{} = {},\n", code.name().to_ascii_uppercase(), code.code()));
    }
    statuses.push_str("};\n");
    let config = cbindgen::Config::from_file(ffi.join("cbindgen.toml")).map_err(|e| format!("cbindgen.toml: {e}"))?;
    let bindings = cbindgen::Builder::new()
        .with_config(config)
        .with_src(ffi.join("src/lib.rs"))
        .with_after_include(statuses)
        .generate()
        .map_err(|e| format!("cbindgen: {e}"))?;
    let mut bytes = Vec::new();
    bindings.write(&mut bytes);
    let content = String::from_utf8(bytes).map_err(|e| format!("cbindgen wrote non-UTF-8: {e}"))?;
    Ok(Output { path: "ffi/include/keyroute.h", content })
}

/// `KEYROUTE_VERSION_MAJOR`, `_MINOR`, `_PATCH` and `_STRING`: the version this header was
/// generated for, which is the workspace's (so `cargo xtask codegen --check` fails on a header
/// left behind by a version bump), and `KEYROUTE_VERSION_COMPATIBLE()`, the run-time check
/// that the library loaded or linked serves this header.
fn version_macros() -> String {
    format!(
        "\n/** The version of keyroute this header belongs to (the library's is `kr_version()`). */\n\
         #define KEYROUTE_VERSION_MAJOR {major}\n\
         #define KEYROUTE_VERSION_MINOR {minor}\n\
         #define KEYROUTE_VERSION_PATCH {patch}\n\
         #define KEYROUTE_VERSION_STRING \"{version}\"\n\
         /**\n \
         * True when the library this program runs with serves this header (same ABI line, not\n \
         * older): call it once at start-up, see `kr_version_compatible`.\n \
         */\n\
         #define KEYROUTE_VERSION_COMPATIBLE() \\\n  \
         kr_version_compatible(KEYROUTE_VERSION_MAJOR, KEYROUTE_VERSION_MINOR, KEYROUTE_VERSION_PATCH)\n\n",
        major = env!("CARGO_PKG_VERSION_MAJOR"),
        minor = env!("CARGO_PKG_VERSION_MINOR"),
        patch = env!("CARGO_PKG_VERSION_PATCH"),
        version = env!("CARGO_PKG_VERSION"),
    )
}
