//! libFuzzer entry of the `openings` target: the checks are `damasi_fuzz::openings`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| damasi_fuzz::openings(data));
