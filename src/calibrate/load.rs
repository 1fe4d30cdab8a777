//! What else a machine is doing: the load average, and the CPU time other processes and the
//! hypervisor (steal) took while this process timed something, read from `/proc` (Linux;
//! nothing elsewhere). A probe taken while the machine is busy reads other work as the
//! machine's pace, so a plan says when it was.

/// CPU time taken by others than this process over a timing, as shares of the machine.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MachineLoad {
    /// The 1-minute load average when the timing began (this process included).
    pub load_average: Option<f64>,
    /// The machine's CPU time the hypervisor gave other guests (steal), as a share of it.
    pub steal: f64,
    /// The machine's CPU time other processes of this machine used, as a share of it.
    pub others: f64,
    /// Hardware threads the shares are of.
    pub threads: usize,
}

/// Above this share of the machine taken by others (steal or other processes), it is busy.
pub const BUSY_SHARE: f64 = 0.05;

impl MachineLoad {
    /// Whether others took more than [`BUSY_SHARE`] of the machine.
    pub fn busy(&self) -> bool {
        self.steal + self.others > BUSY_SHARE
    }

    /// The load in words: `load 0.52, steal 0 %, other processes 3 %`.
    pub fn words(&self) -> String {
        let average = self.load_average.map_or(String::new(), |l| format!("load {l:.2} on {} threads, ", self.threads));
        format!("{average}steal {:.0} %, other processes {:.0} %", 100.0 * self.steal, 100.0 * self.others)
    }

    /// The counters now, to be read against later with [`Sample::until_now`].
    pub fn sample() -> Sample {
        Sample { load_average: load_average(), cpu: cpu_ticks(), own: own_ticks() }
    }
}

/// The counters at the start of a timing.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    load_average: Option<f64>,
    cpu: Option<CpuTicks>,
    own: Option<u64>,
}

impl Sample {
    /// The load from this sample until now, on a machine of `threads` hardware threads.
    pub fn until_now(&self, threads: usize) -> MachineLoad {
        let (Some(before), Some(after)) = (self.cpu, cpu_ticks()) else {
            return MachineLoad { load_average: self.load_average, threads, ..MachineLoad::default() };
        };
        let own = match (self.own, own_ticks()) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => 0,
        };
        shares(before, after, own, self.load_average, threads)
    }
}

/// The `cpu` line of `/proc/stat`, in clock ticks summed over the CPUs.
#[derive(Clone, Copy, Debug, PartialEq)]
struct CpuTicks {
    /// user, nice, system, irq, softirq.
    busy: u64,
    /// idle and iowait.
    idle: u64,
    steal: u64,
}

/// The shares of the ticks between two readings: steal, and the busy ticks not this
/// process's (`own`).
fn shares(before: CpuTicks, after: CpuTicks, own: u64, load_average: Option<f64>, threads: usize) -> MachineLoad {
    let busy = after.busy.saturating_sub(before.busy);
    let idle = after.idle.saturating_sub(before.idle);
    let steal = after.steal.saturating_sub(before.steal);
    let total = (busy + idle + steal).max(1) as f64;
    MachineLoad { load_average, steal: steal as f64 / total, others: busy.saturating_sub(own) as f64 / total, threads }
}

/// The `cpu` line of `/proc/stat` text.
fn parse_cpu(text: &str) -> Option<CpuTicks> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let f: Vec<u64> = line.split_whitespace().skip(1).map(|x| x.parse().ok()).collect::<Option<_>>()?;
    let at = |i: usize| f.get(i).copied().unwrap_or(0);
    // user nice system idle iowait irq softirq steal (guest time is inside user already).
    Some(CpuTicks { busy: at(0) + at(1) + at(2) + at(5) + at(6), idle: at(3) + at(4), steal: at(7) })
}

fn cpu_ticks() -> Option<CpuTicks> {
    parse_cpu(&std::fs::read_to_string("/proc/stat").ok()?)
}

/// This process's user and system time in clock ticks, from `/proc/self/stat` (fields 14
/// and 15, counted after the command name, which may hold spaces).
fn own_ticks() -> Option<u64> {
    parse_own(&std::fs::read_to_string("/proc/self/stat").ok()?)
}

fn parse_own(text: &str) -> Option<u64> {
    let rest = &text[text.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // After the name: state is field 3, so utime (14) and stime (15) are at 11 and 12.
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

/// The 1-minute load average now, from `/proc/loadavg` (Linux; None elsewhere).
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg").ok()?.split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steal_and_other_processes_are_shares_of_the_ticks_between_two_readings() {
        let before = parse_cpu("cpu  100 0 50 800 10 0 0 40 0 0\ncpu0 1 2 3\n").unwrap();
        let after = parse_cpu("cpu  200 0 70 860 20 0 10 80 0 0\ncpu0 1 2 3\n").unwrap();
        // 130 busy, 70 idle, 40 steal: 240 ticks; this process took 100 of the busy ones.
        let load = shares(before, after, 100, Some(1.5), 2);
        assert!((load.steal - 40.0 / 240.0).abs() < 1e-12, "{load:?}");
        assert!((load.others - 30.0 / 240.0).abs() < 1e-12, "{load:?}");
        assert!(load.busy());
        assert_eq!(load.words(), "load 1.50 on 2 threads, steal 17 %, other processes 12 %");
        let quiet = shares(before, before, 0, None, 2);
        assert!(!quiet.busy() && quiet.steal == 0.0 && quiet.others == 0.0);
        assert_eq!(parse_cpu("intr 1 2"), None);
    }

    #[test]
    fn this_process_s_time_is_read_past_a_name_with_spaces() {
        let stat = "42 (a b) c) S 1 2 3 4 5 6 7 8 9 10 17 3 0 0 20 0 1 0";
        assert_eq!(parse_own(stat), Some(20));
        assert_eq!(parse_own("42 (x) S 1"), None);
        assert!(own_ticks().is_some() && cpu_ticks().is_some(), "Linux's /proc is read");
    }
}
