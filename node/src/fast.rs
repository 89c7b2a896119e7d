//! The per-key call, `routeIndex(handle, key)`, as a plain Node-API callback.
//!
//! napi-rs's generated methods track every borrow of a class instance in a process-wide table
//! behind a lock; measured here, that is ~450 ns a call, more than routing a key costs twenty
//! times over. The one call an application makes per request is therefore written against
//! Node-API directly: the router is a tagged `external` holding an `Arc<Router>` (the tag is
//! checked before the pointer is trusted), and the key goes through the same key text policy
//! (`crate::keys::with_key`). Everything else stays with napi-rs.

use std::ffi::c_void;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr;
use std::sync::Arc;

use keyroute_bindings::{ErrorCode, Router};
use napi::bindgen_prelude::*;
use napi::sys;

use crate::error::throw_code;
use crate::keys::with_key;

/// The type tag of keyroute's router handles (random, fixed).
static TAG: sys::napi_type_tag = sys::napi_type_tag { lower: 0x8f2c_61d0_9a4b_73e5, upper: 0x1b7e_44c3_d5a0_6f92 };

/// A new handle owning one reference to `router`.
pub(crate) fn handle(env: &Env, router: &Arc<Router>) -> Result<Unknown<'static>> {
    let data = Box::into_raw(Box::new(Arc::clone(router)));
    let mut value = ptr::null_mut();
    // SAFETY: `data` is a live Box handed to the external, which frees it in `finalize` (once:
    // V8 calls a finalizer once); if the external cannot be made, it is freed here.
    unsafe {
        if sys::napi_create_external(env.raw(), data.cast(), Some(finalize), ptr::null_mut(), &mut value)
            != sys::Status::napi_ok
        {
            drop(Box::from_raw(data));
            return Err(Error::new(Status::GenericFailure, "cannot create a router handle"));
        }
        if sys::napi_type_tag_object(env.raw(), value, &TAG) != sys::Status::napi_ok {
            return Err(Error::new(Status::GenericFailure, "cannot tag a router handle"));
        }
        Ok(Unknown::from_raw_unchecked(env.raw(), value))
    }
}

unsafe extern "C" fn finalize(_env: sys::napi_env, data: *mut c_void, _hint: *mut c_void) {
    // SAFETY: `data` is the Box made in `handle`, finalized once.
    drop(unsafe { Box::from_raw(data.cast::<Arc<Router>>()) });
}

/// The router behind a handle, after checking that `value` is one.
///
/// # Safety
/// `env` and `value` are live for the current call.
unsafe fn router<'a>(env: sys::napi_env, value: sys::napi_value) -> Option<&'a Arc<Router>> {
    let mut tagged = false;
    let mut data = ptr::null_mut();
    let mut kind = sys::ValueType::napi_undefined;
    // SAFETY: as the caller promises. A value that is not an external carrying our tag is
    // refused before its data pointer is read (and before the tag check, which would throw
    // on a primitive).
    unsafe {
        if sys::napi_typeof(env, value, &mut kind) != sys::Status::napi_ok || kind != sys::ValueType::napi_external {
            return None;
        }
        if sys::napi_check_object_type_tag(env, value, &TAG, &mut tagged) != sys::Status::napi_ok || !tagged {
            return None;
        }
        if sys::napi_get_value_external(env, value, &mut data) != sys::Status::napi_ok || data.is_null() {
            return None;
        }
        Some(&*data.cast::<Arc<Router>>())
    }
}

/// `routeIndex(handle, key)`: the position of the node that owns `key`.
unsafe extern "C" fn route_index(env: sys::napi_env, info: sys::napi_callback_info) -> sys::napi_value {
    let run = AssertUnwindSafe(|| -> Result<sys::napi_value> {
        let napi_env = Env::from_raw(env);
        let mut argc = 2usize;
        let mut argv = [ptr::null_mut(); 2];
        // SAFETY: Node-API calls this callback with a live `info`; argv has room for argc.
        unsafe {
            sys::napi_get_cb_info(env, info, &mut argc, argv.as_mut_ptr(), ptr::null_mut(), ptr::null_mut());
        }
        let [handle, key] = argv;
        // SAFETY: values of this call (missing arguments read as undefined).
        let Some(router) = (unsafe { router(env, handle) }) else {
            return Err(throw_code(&napi_env, ErrorCode::InvalidType, "not a keyroute router handle"));
        };
        // SAFETY: a value of this call.
        let key = unsafe { Unknown::from_raw_unchecked(env, key) };
        let index = with_key(&napi_env, &key, |k| router.route(k))?.map_err(|e| crate::error::throw(&napi_env, &e))?;
        let mut out = ptr::null_mut();
        // SAFETY: a live env.
        unsafe { sys::napi_create_uint32(env, index, &mut out) };
        Ok(out)
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

/// The `routeIndex(handle, key)` function.
pub(crate) fn route_index_function(env: &Env) -> Result<Unknown<'static>> {
    let mut value = ptr::null_mut();
    let name = c"routeIndex";
    // SAFETY: a live env; the callback is a static function.
    let status = unsafe {
        sys::napi_create_function(env.raw(), name.as_ptr(), 10, Some(route_index), ptr::null_mut(), &mut value)
    };
    if status != sys::Status::napi_ok {
        return Err(Error::new(Status::GenericFailure, "cannot create routeIndex"));
    }
    // SAFETY: just created in this env.
    Ok(unsafe { Unknown::from_raw_unchecked(env.raw(), value) })
}
