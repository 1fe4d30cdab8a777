//! What this machine is, for the model file: CPU model, cores, memory, hardware threads, host.

use crate::support::hardware_threads;

/// What this machine is, for the model file: CPU model, cores, memory. The model name is read
/// from /proc/cpuinfo by hand: the crates that know it (sysinfo) bring a whole system monitor
/// for one line.
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = hardware_threads();
    let mem = crate::support::total_memory_bytes()
        .map_or(String::new(), |bytes| format!(", {:.0} GiB", bytes as f64 / (1u64 << 30) as f64));
    format!("{cpu}, {cores} cores{mem}")
}

/// Physical cores (num_cpus reads the system's topology), at most the hardware threads this
/// process may use.
pub fn physical_cores() -> usize {
    num_cpus::get_physical().clamp(1, hardware_threads())
}

/// This machine's host name (empty where the system does not say).
pub fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname").map_or(String::new(), |h| h.trim().to_string())
}
