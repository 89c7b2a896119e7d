//! The per-key calls, `routeIndex(handle, key)` and `viewRouteAt(handle, key)`, as
//! plain Node-API callbacks.
//!
//! napi-rs's generated methods track every borrow of a class instance in a process-wide table
//! behind a lock; measured here, that is ~450 ns a call, more than routing a key costs twenty
//! times over. The one call an application makes per request is therefore written against
//! Node-API directly: the router (or the live view's reader) is a tagged `external` holding it
//! (the tag, one per kind, is checked before the pointer is trusted), and the key goes through
//! the same key text policy (`crate::keys::with_key`). Everything else stays with napi-rs.

use std::ffi::{CStr, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr;
use std::sync::Arc;

use std::cell::RefCell;

use keyroute_bindings::view::OwnedViewReader;
use keyroute_bindings::{ErrorCode, Router};
use keyroute_js::Known;
use napi::bindgen_prelude::*;
use napi::sys;

use crate::error::throw_code;
use crate::keys::with_key;

/// What a handle can hold: each kind has its own type tag (random, fixed), so a handle of one
/// kind is refused where the other is expected. A handle is only ever touched on the thread of
/// the JavaScript environment that made it (Node-API values cannot cross to another worker),
/// so what it holds needs not be `Sync`.
pub(crate) trait Handled: 'static {
    const TAG: sys::napi_type_tag;
    /// What a call names in its error when given something else.
    const WHAT: &'static str;
}

impl Handled for Arc<Router> {
    const TAG: sys::napi_type_tag = sys::napi_type_tag { lower: 0x8f2c_61d0_9a4b_73e5, upper: 0x1b7e_44c3_d5a0_6f92 };
    const WHAT: &'static str = "not a keyroute router handle";
}

/// A live view's handle: its own reader, which keeps the view it last saw, and the version
/// whose node ids the JavaScript `LiveView` holds (set by `routeFresh`).
pub(crate) struct ViewHandle {
    pub(crate) reader: RefCell<OwnedViewReader>,
    pub(crate) known: Known,
}

impl Handled for ViewHandle {
    const TAG: sys::napi_type_tag = sys::napi_type_tag { lower: 0x3d91_a6e2_5c07_b84f, upper: 0xe4a8_1f6c_92d3_5b70 };
    const WHAT: &'static str = "not a keyroute live view handle";
}

/// A new handle owning `target`.
pub(crate) fn handle<T: Handled>(env: &Env, target: T) -> Result<Unknown<'static>> {
    let data = Box::into_raw(Box::new(target));
    let mut value = ptr::null_mut();
    // SAFETY: `data` is a live Box handed to the external, which frees it in `finalize` (once:
    // V8 calls a finalizer once); if the external cannot be made, it is freed here.
    unsafe {
        if sys::napi_create_external(env.raw(), data.cast(), Some(finalize::<T>), ptr::null_mut(), &mut value)
            != sys::Status::napi_ok
        {
            drop(Box::from_raw(data));
            return Err(Error::new(Status::GenericFailure, "cannot create a handle"));
        }
        if sys::napi_type_tag_object(env.raw(), value, &T::TAG) != sys::Status::napi_ok {
            return Err(Error::new(Status::GenericFailure, "cannot tag a handle"));
        }
        Ok(Unknown::from_raw_unchecked(env.raw(), value))
    }
}

unsafe extern "C" fn finalize<T: Handled>(_env: sys::napi_env, data: *mut c_void, _hint: *mut c_void) {
    // SAFETY: `data` is the Box made in `handle::<T>`, finalized once.
    drop(unsafe { Box::from_raw(data.cast::<T>()) });
}

/// What a handle of kind `T` holds, after checking that `value` is one.
///
/// # Safety
/// `env` and `value` are live for the current call.
unsafe fn target<'a, T: Handled>(env: sys::napi_env, value: sys::napi_value) -> Option<&'a T> {
    let mut tagged = false;
    let mut data = ptr::null_mut();
    let mut kind = sys::ValueType::napi_undefined;
    // SAFETY: as the caller promises. A value that is not an external carrying the kind's tag
    // is refused before its data pointer is read (and before the tag check, which would throw
    // on a primitive).
    unsafe {
        if sys::napi_typeof(env, value, &mut kind) != sys::Status::napi_ok || kind != sys::ValueType::napi_external {
            return None;
        }
        if sys::napi_check_object_type_tag(env, value, &T::TAG, &mut tagged) != sys::Status::napi_ok || !tagged {
            return None;
        }
        if sys::napi_get_value_external(env, value, &mut data) != sys::Status::napi_ok || data.is_null() {
            return None;
        }
        Some(&*data.cast::<T>())
    }
}

/// Runs one per-key call: reads up to three arguments, checks the handle (the first) is a
/// `T`'s, and returns what `call` makes of it, the key (the second) and the third; an error
/// (or a panic) is thrown.
///
/// # Safety
/// `env` and `info` are the live values of a Node-API callback.
unsafe fn per_key<T: Handled>(
    env: sys::napi_env,
    info: sys::napi_callback_info,
    call: impl FnOnce(&Env, &T, &Unknown<'_>, sys::napi_value) -> Result<sys::napi_value>,
) -> sys::napi_value {
    let run = AssertUnwindSafe(|| -> Result<sys::napi_value> {
        let napi_env = Env::from_raw(env);
        let mut argc = 3usize;
        let mut argv = [ptr::null_mut(); 3];
        // SAFETY: Node-API calls this callback with a live `info`; argv has room for argc.
        unsafe {
            sys::napi_get_cb_info(env, info, &mut argc, argv.as_mut_ptr(), ptr::null_mut(), ptr::null_mut());
        }
        let [handle, key, third] = argv;
        // SAFETY: values of this call (missing arguments read as undefined).
        let Some(target) = (unsafe { target::<T>(env, handle) }) else {
            return Err(throw_code(&napi_env, ErrorCode::InvalidType, T::WHAT));
        };
        // SAFETY: a value of this call.
        let key = unsafe { Unknown::from_raw_unchecked(env, key) };
        call(&napi_env, target, &key, third)
    });
    match catch_unwind(run) {
        Ok(Ok(value)) => value,
        Ok(Err(e)) => {
            // SAFETY: a live env; throws the error unless one is already pending.
            unsafe { JsError::from(e).throw_into(env) };
            ptr::null_mut()
        }
        Err(_) => {
            // SAFETY: a live env.
            unsafe {
                sys::napi_throw_error(
                    env,
                    c"KR_INTERNAL".as_ptr(),
                    c"a bug in keyroute (a panic); please report it".as_ptr(),
                )
            };
            ptr::null_mut()
        }
    }
}

/// `routeIndex(handle, key)`: the position of the node that owns `key`.
unsafe extern "C" fn route_index(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: the live values of this callback.
    unsafe {
        per_key::<Arc<Router>>(env, info, |napi_env, router, key, _| {
            let index = with_key(napi_env, key, |k| router.route(k))?.map_err(|e| crate::error::throw(napi_env, &e))?;
            let mut out = ptr::null_mut();
            // SAFETY: a live env.
            sys::napi_create_uint32(env, index, &mut out);
            Ok(out)
        })
    }
}

/// `viewRouteAt(handle, key)`: the owner of `key` as an index into the node ids of the version
/// the live view's last `routeFresh` handed over, when that version is in effect, else 2^32 - 1
/// (`keyroute_js::OTHER_VERSION`).
unsafe extern "C" fn view_route_at(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    // SAFETY: the live values of this callback.
    unsafe {
        per_key::<ViewHandle>(env, info, |napi_env, handle, key, _| {
            // Never borrowed already: a call holds the reader only while it routes, and
            // routing calls no JavaScript.
            let Ok(mut reader) = handle.reader.try_borrow_mut() else {
                return Err(throw_code(napi_env, ErrorCode::Internal, "a live view handle is already in use"));
            };
            let version = handle.known.get();
            let index = with_key(napi_env, key, |k| keyroute_js::reader_route_at(&mut reader, k, version))?
                .map_err(|e| crate::error::throw(napi_env, &e))?;
            let mut out = ptr::null_mut();
            // SAFETY: a live env.
            sys::napi_create_uint32(env, index, &mut out);
            Ok(out)
        })
    }
}

fn function(env: &Env, name: &CStr, callback: sys::napi_callback) -> Result<Unknown<'static>> {
    let mut value = ptr::null_mut();
    // SAFETY: a live env; the callback is a static function.
    let status = unsafe {
        sys::napi_create_function(
            env.raw(),
            name.as_ptr(),
            name.count_bytes() as isize,
            callback,
            ptr::null_mut(),
            &mut value,
        )
    };
    if status != sys::Status::napi_ok {
        return Err(Error::new(Status::GenericFailure, format!("cannot create {}", name.to_string_lossy())));
    }
    // SAFETY: just created in this env.
    Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), value) })
}

/// The `routeIndex(handle, key)` function.
pub(crate) fn route_index_function(env: &Env) -> Result<Unknown<'static>> {
    function(env, c"routeIndex", Some(route_index))
}

/// The `viewRouteAt(handle, key)` function.
pub(crate) fn view_route_at_function(env: &Env) -> Result<Unknown<'static>> {
    function(env, c"viewRouteAt", Some(view_route_at))
}
