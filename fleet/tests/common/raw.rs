//! Writes to etcd behind keyroute's back, with etcd's own API: for the tests of what keyroute
//! does with a value it did not write (fleet/tests/etcd_source.rs, fleet/tests/census.rs).

use crate::common::etcd::Etcd;

/// Writes behind keyroute's back, with etcd's own API.
pub trait RawPut {
    /// Writes `value` under `key` with etcd's own API, behind keyroute's back.
    fn put_raw(&self, key: &str, value: &str);
}

impl RawPut for Etcd {
    fn put_raw(&self, key: &str, value: &str) {
        use base64::Engine as _;
        let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
        let body = format!(r#"{{"key":"{}","value":"{}"}}"#, b64(key), b64(value));
        let answer = ureq::post(&format!("http://127.0.0.1:{}/v3/kv/put", self.client)).send(body).unwrap();
        assert!(answer.status().is_success());
    }
}
