//! libFuzzer entry of the `pdn` target: the checks are `damasi_fuzz::pdn`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| damasi_fuzz::pdn(data));
