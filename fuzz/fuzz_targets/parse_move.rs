//! libFuzzer entry of the `parse_move` target: the checks are `damasi_fuzz::parse_move`.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| damasi_fuzz::parse_move(data));
