//! libFuzzer entry of the `rules` target: the checks are `damasi_fuzz::rules`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| damasi_fuzz::rules(data));
