//! The link arguments a Node addon needs (napi-build), for `cargo build` and `napi build` alike.
fn main() {
    napi_build::setup();
}
