//! `ffi/include/keyroute.h`: cbindgen over `ffi/src`, with `enum kr_status_code` written from
//! the error table (each code with its description, name and category).

use std::path::Path;

use keyroute_bindings::ErrorCode;

use crate::Output;
use crate::text::wrap;

pub fn output(root: &Path) -> Result<Output, String> {
    let ffi = root.join("ffi");
    let mut statuses = String::from(
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
