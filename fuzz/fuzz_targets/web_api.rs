//! libFuzzer entry of the `web_api` target: the checks are `damasi_fuzz::web_api`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| damasi_fuzz::web_api(data));
