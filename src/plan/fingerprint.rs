//! A plan's fingerprint: what names the plan a run ran, in its trace, so that `dab compare`
//! can refuse a plan that is not the one the run ran (a later `dab plan` into the same folder
//! rewrites `plan.json`, and its prediction is another plan's).
//!
//! The fingerprint is the 64-bit FNV-1a hash of the compact JSON of the fields a run and its
//! comparison depend on, as 16 hex digits: the format, board, root, scheme, grouping, split,
//! policy, threads, unit, machine, contention, memory limit, the charges per job and per byte,
//! every job, and a two-level plan's cluster and tasks. The predictions, the candidates and the
//! reason are left out: they are derived from the rest, and fields that later formats add for
//! people (as they did) leave the fingerprint of an older plan as it was. A number read back
//! from a plan file is the number written (serde_json's `float_roundtrip`), so a plan loaded
//! from its file has the fingerprint of the plan that was saved.

use serde::Serialize;

use crate::sched::{Contention, Policy, Split};

use super::file::{Plan, PlanCluster, PlanJob, PlanTask};

/// The fields of a plan its fingerprint covers, by reference, with their names in the file.
#[derive(Serialize)]
struct Fingerprinted<'p> {
    format: u32,
    board: &'p str,
    root: &'p str,
    scheme: &'p str,
    groups: usize,
    split: &'p Option<Split>,
    policy: Policy,
    threads: u32,
    unit: &'p str,
    machine: &'p Option<String>,
    contention: &'p Contention,
    mem_limit_bytes: Option<u64>,
    store_writes: bool,
    reload_ps_per_byte: u64,
    between_jobs_ns: u64,
    release_ps_per_byte: u64,
    jobs: &'p [PlanJob],
    cluster: &'p Option<PlanCluster>,
    tasks: &'p [PlanTask],
}

/// The 64-bit FNV-1a hash of `bytes`.
fn fnv1a64(bytes: &[u8]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes.iter().fold(OFFSET, |h, &b| (h ^ u64::from(b)).wrapping_mul(PRIME))
}

/// Whether `text` is a plan fingerprint as [`Plan::fingerprint`] writes it: 16 lowercase hex
/// digits.
pub fn is_fingerprint(text: &str) -> bool {
    text.len() == 16 && text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl Plan {
    /// The plan's fingerprint, 16 lowercase hex digits: the same for the same plan on every
    /// machine, saved and loaded or not; another for a plan that differs in what a run of it
    /// or its comparison depends on (the module's page says which fields).
    pub fn fingerprint(&self) -> String {
        let fields = Fingerprinted {
            format: self.format,
            board: &self.board,
            root: &self.root,
            scheme: &self.scheme,
            groups: self.groups,
            split: &self.split,
            policy: self.policy,
            threads: self.threads,
            unit: &self.unit,
            machine: &self.machine,
            contention: &self.contention,
            mem_limit_bytes: self.mem_limit,
            store_writes: self.store_writes,
            reload_ps_per_byte: self.reload_ps_per_byte,
            between_jobs_ns: self.between_jobs_ns,
            release_ps_per_byte: self.release_ps_per_byte,
            jobs: &self.jobs,
            cluster: &self.cluster,
            tasks: &self.tasks,
        };
        let json = serde_json::to_vec(&fields).expect("a plan serialises");
        format!("{:016x}", fnv1a64(&json))
    }
}

#[cfg(test)]
mod tests {
    use super::{fnv1a64, is_fingerprint};
    use crate::game::{Board, Position};
    use crate::plan::{Plan, PlanOptions, plan};
    use crate::sched::CostModel;

    #[test]
    fn fnv1a_gives_the_published_values() {
        // The reference values of the FNV-1a 64-bit hash.
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
    }

    fn a_plan(threads: u32) -> Plan {
        let root = Position::empty("2x2".parse::<Board>().unwrap());
        plan(root, &PlanOptions::new(threads, CostModel::built_in())).unwrap().plan
    }

    #[test]
    fn a_saved_plan_read_back_keeps_its_fingerprint_and_another_plan_has_another() {
        let p = a_plan(2);
        let fp = p.fingerprint();
        assert!(is_fingerprint(&fp), "{fp}");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("plan.json");
        p.save(&path).unwrap();
        assert_eq!(Plan::load(&path).unwrap().fingerprint(), fp);
        // What it predicts and why it was chosen are left out: derived from the rest.
        let mut q = p.clone();
        q.reason = "another reason".into();
        q.predicted_seconds += 1.0;
        q.predictions.clear();
        q.candidates.clear();
        assert_eq!(q.fingerprint(), fp);
        // What a run or its comparison depends on is in.
        let mut q = p.clone();
        q.threads += 1;
        assert_ne!(q.fingerprint(), fp);
        let mut q = p.clone();
        q.jobs[0].cost += 1;
        assert_ne!(q.fingerprint(), fp);
        let mut q = p.clone();
        q.contention.0.push((64, 3.0));
        assert_ne!(q.fingerprint(), fp);
        let mut q = p;
        q.mem_limit = Some(1 << 30);
        assert_ne!(q.fingerprint(), fp);
    }

    #[test]
    fn fingerprints_are_sixteen_lowercase_hex_digits() {
        assert!(is_fingerprint("0123456789abcdef"));
        for bad in ["", "0123456789abcde", "0123456789abcdef0", "0123456789ABCDEF", "0123456789abcdeg"] {
            assert!(!is_fingerprint(bad), "{bad}");
        }
    }
}
