//! libFuzzer entry of the `hub_session` target: the checks are `damasi_fuzz::hub_session`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| damasi_fuzz::hub_session(data));
