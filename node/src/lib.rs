//! The native half of the npm package `keyroute`: keyroute-bindings for Node.js, through
//! napi-rs. Its classes (`NativeRouter`, `NativeTransition`, `NativeBoundedLoad`, `NativeLease`,
//! `NativeHotKeys`) are private building blocks; the public API is the JavaScript layer in
//! `node/lib/`, which the WebAssembly backend (`wasm/`) serves too. Both backends expand the
//! same list of methods, `keyroute_js::surface!`, each through its own emitter (here
//! `emit_napi`, which writes them as `#[napi]` methods) and its `keyroute_js::Host` (here
//! `host.rs`). Everything that decides a route — parsing, validation, the key text policy,
//! hashing, lookup — happens in keyroute-bindings.
//!
//! Errors leave as JavaScript `Error` objects carrying `code` (`"KR_…"`), `errno` (the table's
//! number) and, for batches, `keyIndex`; the JavaScript layer turns them into the generated
//! `KeyrouteError` classes. Nothing panics across the boundary: the workspace denies every
//! panicking construct, and arguments of any type are checked here. Should a bug panic all the
//! same, every exported function catches it (`#[napi(catch_unwind)]`, and `fast.rs` by hand)
//! and throws a JavaScript error: unwinding out of a Node-API callback would abort the process.

mod error;
mod fast;
pub mod host;
mod keys;
mod shared;
pub mod view;

use keyroute_js::Host as _;
use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::host::{Napi, Out, U32s, U32sOut, Value};

/// Writes `keyroute_js::surface!`'s classes and functions as napi-rs ones: each method takes the
/// call's `Env` first and its host is `Napi(&env)`; every one catches a panic.
macro_rules! emit_napi {
    (
        classes { $(
            $(#[doc = $cdoc:literal])*
            class $class:ident { $field:ident : $fty:ty }
            $(
                $(#[doc = $newdoc:literal])*
                new($nh:ident $(, $narg:ident : $naty:ty)*) -> Self $nbody:block
            )?
            { $(
                $(#[doc = $mdoc:literal])*
                [$($flag:ident)?] $js:literal fn $name:ident ($($recv:ident)? ; $h:ident $(, $arg:ident : $aty:ty)*) -> $ret:ty $body:block
            )* }
        )* }
        functions { $(
            $(#[doc = $fdoc:literal])*
            $fjs:literal fn $fname:ident ($fh:ident $(, $farg:ident : $faty:ty)*) -> $fret:ty $fbody:block
        )* }
    ) => {
        $(
            $(#[doc = $cdoc])*
            #[napi]
            pub struct $class {
                pub(crate) $field: $fty,
            }

            #[napi]
            impl $class {
                $(
                    $(#[doc = $newdoc])*
                    #[napi(constructor, catch_unwind)]
                    pub fn new(env: Env $(, $narg: $naty)*) -> Result<Self> {
                        let $nh = &Napi(&env);
                        $nbody
                    }
                )?
                $(
                    $(#[doc = $mdoc])*
                    #[napi($($flag,)? js_name = $js, catch_unwind)]
                    pub fn $name($(&$recv,)? env: Env $(, $arg: $aty)*) -> Result<$ret> {
                        let $h = &Napi(&env);
                        let _ = $h;
                        $body
                    }
                )*
            }
        )*
        $(
            $(#[doc = $fdoc])*
            #[napi(js_name = $fjs, catch_unwind)]
            pub fn $fname(env: Env $(, $farg: $faty)*) -> Result<$fret> {
                let $fh = &Napi(&env);
                $fbody
            }
        )*
    };
}

keyroute_js::surface!(emit_napi);

#[napi]
impl NativeRouter {
    /// A handle to this router for the per-key `routeIndex(handle, key)` function.
    #[napi(catch_unwind)]
    pub fn handle(&self, env: Env) -> Result<Unknown<'static>> {
        fast::handle(&env, std::sync::Arc::clone(&self.inner))
    }

    /// The router a spec file describes: JSON, or TOML when its name ends in `.toml`, under
    /// `limits` (JSON of the limits to change, or absent). The addon only: the WebAssembly
    /// build has no files.
    #[napi(factory, catch_unwind)]
    pub fn from_file(env: Env, path: Unknown<'_>, limits: Unknown<'_>) -> Result<Self> {
        let h = Napi(&env);
        let path = h.text(&path, "a file path")?;
        let limits = h.limits(&limits)?;
        let router = h.check(keyroute_js::bindings::Router::from_file(&path, &limits))?;
        Ok(Self { inner: std::sync::Arc::new(router) })
    }
}

#[napi]
impl NativeLiveView {
    /// A handle to this live view for the per-key `viewRouteAt(handle, key)` function.
    #[napi(catch_unwind)]
    pub fn handle(&self, env: Env) -> Result<Unknown<'static>> {
        let reader = keyroute_js::bindings::view::OwnedViewReader::new(std::sync::Arc::clone(&self.inner.view));
        fast::handle(&env, fast::ViewHandle { reader: std::cell::RefCell::new(reader), known: self.inner.known() })
    }
}

/// The per-key call of a live view, `viewRouteAt(handle, key)`, a plain Node-API
/// function (see `fast.rs`); `NativeLiveView.handle()` gives the handle.
#[napi(catch_unwind)]
pub fn view_route_at_function(env: Env) -> Result<Unknown<'static>> {
    fast::view_route_at_function(&env)
}

/// The per-key call `routeIndex(handle, key)`, a plain Node-API function (see `fast.rs`);
/// `NativeRouter.handle()` gives the handle.
#[napi(catch_unwind)]
pub fn route_index_function(env: Env) -> Result<Unknown<'static>> {
    fast::route_index_function(&env)
}
