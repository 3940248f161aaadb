//! libFuzzer entry of the `fen` target: the checks are `damasi_fuzz::fen`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| damasi_fuzz::fen(data));
