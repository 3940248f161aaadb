//! libFuzzer entry of the `hub_notation` target: the checks are `damasi_fuzz::hub_notation`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| damasi_fuzz::hub_notation(data));
