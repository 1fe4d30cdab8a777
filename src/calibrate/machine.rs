//! What this machine is, for the model file: CPU model, cores, memory, hardware threads, host.

use crate::support::hardware_threads;

/// What this machine is, for the model file: CPU model, cores, memory.
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

/// Physical cores: distinct (package, core) pairs in /proc/cpuinfo, at most the hardware
/// threads; the hardware threads where the file does not say.
pub fn physical_cores() -> usize {
    let Ok(text) = std::fs::read_to_string("/proc/cpuinfo") else { return hardware_threads() };
    let field = |block: &str, name: &str| {
        block.lines().find(|l| l.starts_with(name)).and_then(|l| l.split(':').nth(1)).map(|v| v.trim().to_string())
    };
    let mut cores: Vec<(String, String)> =
        text.split("\n\n").filter_map(|b| Some((field(b, "physical id")?, field(b, "core id")?))).collect();
    cores.sort();
    cores.dedup();
    if cores.is_empty() { hardware_threads() } else { cores.len().min(hardware_threads()) }
}

/// This machine's host name (empty where the system does not say).
pub fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname").map_or(String::new(), |h| h.trim().to_string())
}
