//! What the machine offers, to cap settings that a client may set too high: hardware threads
//! (more search threads only slow each other down) and memory (a hash table larger than the
//! memory would swap, or fail when cleared).

/// Hardware threads available to this process (1 if unknown).
pub fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The largest hash table worth allocating, in MiB: half of the machine's physical memory,
/// or `None` where the memory size is unknown (only Linux's `/proc/meminfo` is read).
pub fn max_hash_mb() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let kib: usize = info
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))?
        .trim()
        .strip_suffix("kB")?
        .trim()
        .parse()
        .ok()?;
    Some((kib / 1024 / 2).max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_machine_has_threads_and_on_linux_a_memory_size() {
        assert!(available_threads() >= 1);
        if cfg!(target_os = "linux") {
            assert!(max_hash_mb().is_some_and(|mb| mb >= 1));
        }
    }
}
