//! What the operating system says about this process: its peak memory, read where every
//! report (solve, run, bench) needs the same figure; and the one allocator setting that lets a
//! memory limit bound the whole process.

/// Memory the system can give this process now without swapping, from `/proc/meminfo`
/// (Linux; None elsewhere).
pub(crate) fn available_memory_bytes() -> Option<u64> {
    kilobytes_field("/proc/meminfo", "MemAvailable:")
}

/// The machine's memory, from `/proc/meminfo` (Linux; None elsewhere).
pub(crate) fn total_memory_bytes() -> Option<u64> {
    kilobytes_field("/proc/meminfo", "MemTotal:")
}

/// The memory this machine gives this process: the machine's (`MemTotal`), or the memory
/// limit of the process's cgroup where one is set and smaller (cgroup v2 `memory.max`, or v1
/// `memory.limit_in_bytes`, the tightest of the process's group and its parents). None where
/// the system says nothing (not Linux).
pub fn machine_memory_bytes() -> Option<u64> {
    let total = total_memory_bytes();
    let cgroup = std::fs::read_to_string("/proc/self/cgroup")
        .ok()
        .and_then(|text| cgroup_limit(&text, |path| std::fs::read_to_string(path).ok()));
    match (total, cgroup) {
        (Some(t), Some(c)) => Some(t.min(c)),
        (t, c) => t.or(c),
    }
}

/// The tightest memory limit of the cgroup that `/proc/self/cgroup` (`proc_cgroup`) names and
/// its parents, reading each limit file with `read` (None: no limit set anywhere).
fn cgroup_limit(proc_cgroup: &str, read: impl Fn(&std::path::Path) -> Option<String>) -> Option<u64> {
    let mut limits = Vec::new();
    for line in proc_cgroup.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (fields.next(), fields.next(), fields.next()) else { continue };
        let (base, file) = match controllers {
            "" => ("/sys/fs/cgroup", "memory.max"),
            c if c.split(',').any(|c| c == "memory") => ("/sys/fs/cgroup/memory", "memory.limit_in_bytes"),
            _ => continue,
        };
        // The group and every parent up to the root: a parent's limit binds its children.
        let mut dir = std::path::PathBuf::from(base).join(path.trim_start_matches('/'));
        loop {
            if let Some(limit) = read(&dir.join(file)).and_then(|t| cgroup_bytes(&t)) {
                limits.push(limit);
            }
            if dir.as_os_str().len() <= base.len() || !dir.pop() {
                break;
            }
        }
    }
    limits.into_iter().min()
}

/// A cgroup memory limit file's text in bytes: None for `max` or v1's "no limit" (near 2^63).
fn cgroup_bytes(text: &str) -> Option<u64> {
    text.trim().parse::<u64>().ok().filter(|&b| b > 0 && b < 1 << 62)
}

/// Bytes of the last-level cache of this machine's first CPU, from
/// `/sys/devices/system/cpu/cpu0/cache` (Linux: the highest-level data or unified cache),
/// else [`DEFAULT_CACHE_BYTES`]: what a level of values must pass to be read back from memory
/// rather than from the cache it was written to.
pub fn last_level_cache_bytes() -> u64 {
    sysfs_last_level_cache().unwrap_or(DEFAULT_CACHE_BYTES)
}

/// The last-level cache assumed where the system does not say: 32 MiB, a common size today.
pub(crate) const DEFAULT_CACHE_BYTES: u64 = 32 << 20;

fn sysfs_last_level_cache() -> Option<u64> {
    let dir = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache").ok()?;
    let read = |path: &std::path::Path, name: &str| std::fs::read_to_string(path.join(name)).ok();
    dir.filter_map(|e| {
        let path = e.ok()?.path();
        if read(&path, "type")?.trim() == "Instruction" {
            return None;
        }
        let level: u32 = read(&path, "level")?.trim().parse().ok()?;
        Some((level, cache_size(&read(&path, "size")?)?))
    })
    .max()
    .map(|(_, bytes)| bytes)
}

/// A sysfs cache size (`32768K`, `1M`, `512`) in bytes.
fn cache_size(text: &str) -> Option<u64> {
    let text = text.trim();
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => text.split_at(i),
        None => (text, ""),
    };
    let shift = match unit {
        "" => 0,
        "K" => 10,
        "M" => 20,
        "G" => 30,
        _ => return None,
    };
    digits.parse::<u64>().ok()?.checked_mul(1 << shift).filter(|&b| b > 0)
}

/// The `field` line of a `/proc` file (`Name:   1234 kB`), in bytes. Hand-made: three /proc
/// fields, where procfs or sysinfo would add a crate tree for them.
fn kilobytes_field(file: &str, field: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
}

/// Allocations of at least this many bytes are mapped from the system on their own and
/// returned to it when freed.
pub(crate) const MAP_THRESHOLD: usize = 64 * 1024;

/// Makes freed partition values go back to the system at once. glibc's allocator raises its
/// mapping threshold each time a mapped block is freed (up to 32 MiB), after which values are
/// carved from per-thread heaps that it returns only from the top: a 3x5 run limited to 1.5 GB
/// of values then held 1.9 GB, and 4x4 on 16 threads under 4 GB held 7.9 GB. A fixed threshold
/// turns the dynamic one off. Elsewhere than glibc, nothing to do.
pub fn return_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; it is called once at start, before any
    // thread is spawned, with a parameter and value glibc documents.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MAP_THRESHOLD as libc::c_int);
    }
    // Under `ulimit -v` every thread's own heap reserves 64 MiB of address space up front: the
    // calibration probe's two threads alone failed under 100 MB. One shared heap costs a
    // little contention where the limit is set, and nothing where it is not.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if address_space_left().is_some() {
        // SAFETY: as above: one documented parameter, set before any thread is spawned.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 1);
        }
    }
}

/// The least address space (`ulimit -v`) dab starts under: the program, its tables and a
/// small solve's threads. Below it an allocation fails at some later point, where the only
/// report Rust gives is an abort (interleaved when two threads fail at once).
pub const MIN_ADDRESS_SPACE: u64 = 48 << 20;

/// An error naming the limit when less than [`MIN_ADDRESS_SPACE`] of address space is left.
pub fn check_address_space() -> Result<(), String> {
    match address_space_left() {
        Some(left) if left < MIN_ADDRESS_SPACE => Err(format!(
            "the address-space limit (ulimit -v) leaves {} to dab, which needs at least {}; \
             raise the limit",
            super::human_bytes(left),
            super::human_bytes(MIN_ADDRESS_SPACE)
        )),
        _ => Ok(()),
    }
}

/// The soft limit on file descriptors this process may hold (`ulimit -n`), from
/// `/proc/self/limits` (Linux; None elsewhere or when unlimited).
pub(crate) fn open_files_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    soft_limit(&limits, "Max open files")
}

/// Bytes of address space this process may still map under its limit (`ulimit -v`): the soft
/// limit less what is mapped now (Linux; None elsewhere or when unlimited).
pub(crate) fn address_space_left() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let limit = soft_limit(&limits, "Max address space")?;
    Some(limit.saturating_sub(kilobytes_field("/proc/self/status", "VmSize:").unwrap_or(0)))
}

/// The soft limit of the row named `name` of a `/proc/self/limits` text (None: unlimited).
fn soft_limit(limits: &str, name: &str) -> Option<u64> {
    let row = limits.lines().find(|l| l.starts_with(name))?;
    row[name.len()..].split_whitespace().next()?.parse().ok()
}

/// Peak resident set size of this process, from `/proc/self/status` (Linux).
pub fn peak_rss_bytes() -> Option<u64> {
    kilobytes_field("/proc/self/status", "VmHWM:")
}

/// Hands the allocator's free memory back to the system now: what planning freed (tens of
/// thousands of small graph and schedule records, in every thread's arena) otherwise stays
/// resident beside the values a run then makes (11 MB on 3x4, about 50 MB on 3x5).
pub fn trim_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free pages of the allocator's own heaps; it touches no
    // live allocation and may be called from any thread at any time.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cgroup_limit_is_the_tightest_of_the_group_and_its_parents() {
        fn files<'a>(map: &'a [(&'a str, &'a str)]) -> impl Fn(&std::path::Path) -> Option<String> + 'a {
            move |p| map.iter().find(|(k, _)| p == std::path::Path::new(k)).map(|(_, v)| v.to_string())
        }
        // v2: the group says max, its parent 8 GiB.
        let v2 = [("/sys/fs/cgroup/a/b/memory.max", "max\n"), ("/sys/fs/cgroup/a/memory.max", "8589934592\n")];
        assert_eq!(cgroup_limit("0::/a/b\n", files(&v2)), Some(8 << 30));
        // v1: the memory controller's group, and a root without a limit.
        let v1 = [
            ("/sys/fs/cgroup/memory/job/memory.limit_in_bytes", "1073741824"),
            ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "9223372036854771712"),
        ];
        assert_eq!(cgroup_limit("4:memory:/job\n1:cpu:/\n0::/\n", files(&v1)), Some(1 << 30));
        assert_eq!(cgroup_limit("0::/\n", files(&[("/sys/fs/cgroup/memory.max", "max")])), None);
        assert_eq!(cgroup_limit("garbage", files(&[])), None);
    }

    #[test]
    fn the_open_files_limit_is_the_soft_one() {
        let text = "Limit                     Soft Limit           Hard Limit           Units     \n\
                    Max processes             127590               127590               processes \n\
                    Max open files            1024                 524288               files     \n";
        assert_eq!(soft_limit(text, "Max open files"), Some(1024));
        let unlimited = "Max address space         unlimited            unlimited            bytes";
        assert_eq!(soft_limit(unlimited, "Max address space"), None);
        assert!(open_files_limit().is_some_and(|n| n > 0));
    }

    #[test]
    fn cache_sizes_read_as_sysfs_writes_them() {
        assert_eq!(cache_size("32768K\n"), Some(32 << 20));
        assert_eq!(cache_size("1M"), Some(1 << 20));
        assert_eq!(cache_size("512"), Some(512));
        assert_eq!(cache_size("0K"), None);
        assert_eq!(cache_size("12Q"), None);
        assert_eq!(cache_size(""), None);
        assert!(last_level_cache_bytes() > 0);
    }
}
