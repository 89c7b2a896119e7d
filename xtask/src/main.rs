//! `cargo xtask codegen [--check]`: writes every file that is generated from keyroute-bindings'
//! registry and error table, or (with `--check`) fails listing the ones that are stale.
//!
//! One definition, generated outward: the algorithms and presets with their parameters, and
//! the error kinds with their codes, categories and descriptions, are defined once in
//! `bindings/`; this tool writes what each surface needs from them. ARCHITECTURE.md lists the
//! outputs and when to run it.

mod cjs;
mod docs;
mod dotnet;
mod golang;
mod header;
mod java;
mod js;
mod php;
mod ruby;

mod python;
mod text;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// A generated file: where it goes and what it must hold.
pub struct Output {
    /// Path relative to the repository root.
    pub path: &'static str,
    /// The whole content.
    pub content: String,
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

fn outputs(root: &Path) -> Result<Vec<Output>, String> {
    let mut all = Vec::new();
    all.extend(python::outputs());
    let header = header::output(root)?;
    // The Java mirror is read from the header this run generates, so the two never disagree.
    all.push(java::native(&header.content)?);
    all.push(header);
    all.extend(docs::outputs(root)?);
    all.extend(js::outputs());
    all.extend(java::outputs());
    all.push(golang::output());
    all.push(php::output());
    all.push(dotnet::output());
    all.push(ruby::output());
    all.extend(cjs::outputs(root)?);

    Ok(all)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (command, check) = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["codegen"] => ("codegen", false),
        ["codegen", "--check"] => ("codegen", true),
        _ => {
            eprintln!("usage: cargo xtask codegen [--check]");
            return ExitCode::from(2);
        }
    };
    debug_assert_eq!(command, "codegen");
    let root = root();
    let outputs = match outputs(&root) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("xtask: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut stale = Vec::new();
    for out in &outputs {
        let path = root.join(out.path);
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        if current == out.content {
            continue;
        }
        if check {
            stale.push(out.path);
        } else if let Err(e) =
            std::fs::create_dir_all(path.parent().unwrap_or(&root)).and_then(|()| std::fs::write(&path, &out.content))
        {
            eprintln!("xtask: writing {}: {e}", out.path);
            return ExitCode::FAILURE;
        } else {
            println!("wrote {}", out.path);
        }
    }
    if !stale.is_empty() {
        eprintln!("xtask: {} generated file(s) are stale; run `cargo xtask codegen` and commit:", stale.len());
        for p in stale {
            eprintln!("  {p}");
        }
        return ExitCode::FAILURE;
    }
    if check {
        println!("codegen: {} generated files are up to date", outputs.len());
    }
    ExitCode::SUCCESS
}
