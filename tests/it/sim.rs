//! The simulator against hand-worked schedules, its bounds on random graphs, and its memory
//! model. Hand-worked makespans live in `tests/data/graphs/makespans.csv`; for example
//! `policies` on 2 processors: after `s` (0-1), fifo starts y and w (y ends at 2, then v 2-6,
//! then z 6-11: 11); cp prefers y, then z (2-7) over v (6-10: 10); largest starts w and v and
//! leaves the chain y-z for last (11).

use crate::common;

use std::path::PathBuf;

use proptest::prelude::*;

use dab::sched::{Graph, Job, Policy, Procs, ProcsList, SimError, SimOptions, Simulator};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/graphs").join(name)
}

fn policy(name: &str) -> Policy {
    match name {
        "fifo" => Policy::Fifo,
        "cp" => Policy::Cp,
        "largest" => Policy::Largest,
        _ => panic!("unknown policy {name}"),
    }
}

fn procs(text: &str) -> Procs {
    let ProcsList(list) = text.parse().unwrap();
    assert_eq!(list.len(), 1);
    list[0]
}

#[test]
fn hand_worked_makespans() {
    let table = std::fs::read_to_string(data("makespans.csv")).unwrap();
    let mut checked = 0;
    for line in table.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let graph = Graph::read(&data(&format!("{}.csv", f[0]))).unwrap();
        let opts = SimOptions {
            policy: policy(f[1]),
            overhead: f[3].parse().unwrap(),
            bandwidth: (!f[4].is_empty()).then(|| f[4].parse().unwrap()),
            mem_limit: None,
            reload_ps_per_byte: 0,
            ..Default::default()
        };
        let run = Simulator::new(&graph, opts).unwrap().run(procs(f[2]), true).unwrap();
        assert_eq!(run.row.makespan, f[5].parse::<u64>().unwrap(), "{line}");
        checked += 1;
    }
    assert!(checked >= 20);
}

#[test]
fn memory_is_held_until_every_reader_has_finished() {
    let g = Graph::read(&data("memory.csv")).unwrap();
    let sim = |p: u32, limit: Option<u64>| {
        Simulator::new(&g, SimOptions { mem_limit: limit, ..Default::default() }).unwrap().run(Procs::Limited(p), true)
    };
    // a (10) stays while b (20) runs, b while c (30) runs: 50 at once; x (10) comes and goes.
    assert_eq!(sim(1, None).unwrap().row.peak_memory, 50);
    assert_eq!(sim(2, None).unwrap().row.peak_memory, 50);
    assert_eq!(sim(2, Some(50)).unwrap().row.makespan, 9);
    // With 40 bytes, c can never start: it needs its own 30 and b's 20 at once.
    match sim(2, Some(40)) {
        Err(SimError::MemLimit { job, needs: 50, .. }) => assert_eq!(job, "c"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn memory_limit_evicts_values_and_reads_them_back() {
    let g = Graph::read(&data("evict.csv")).unwrap();
    let sim = |limit: Option<u64>| {
        Simulator::new(&g, SimOptions { mem_limit: limit, ..Default::default() })
            .unwrap()
            .run(Procs::Limited(1), true)
            .unwrap()
            .row
    };
    // a waits for d while b and c run: 90 bytes at c's start.
    assert_eq!(sim(None).peak_memory, 90);
    // Under 70, a goes to the store when c starts and comes back for d: c + a + d = 70.
    let limited = sim(Some(70));
    assert_eq!((limited.peak_memory, limited.makespan), (70, 4));
    // Reading a back costs time when it is priced: 30 bytes at one tick each.
    let priced = SimOptions { mem_limit: Some(70), reload_ps_per_byte: 1000, ..Default::default() };
    assert_eq!(Simulator::new(&g, priced).unwrap().run(Procs::Limited(1), false).unwrap().row.makespan, 34);
    // d alone needs a, c and itself.
    assert!(matches!(
        Simulator::new(&g, SimOptions { mem_limit: Some(69), ..Default::default() })
            .unwrap()
            .run(Procs::Limited(1), false),
        Err(SimError::MemLimit { needs: 70, .. })
    ));
}

#[test]
fn memory_limit_holds_starts_back() {
    let jobs =
        (0..3).map(|i| Job { name: format!("j{i}"), cost: 5, states: 10, bytes: 10, deps: Vec::new() }).collect();
    let g = Graph::new(jobs, None).unwrap();
    let run = |limit| {
        Simulator::new(&g, SimOptions { mem_limit: limit, ..Default::default() })
            .unwrap()
            .run(Procs::Limited(3), true)
            .unwrap()
            .row
    };
    assert_eq!((run(None).makespan, run(None).peak_memory), (5, 30));
    assert_eq!((run(Some(20)).makespan, run(Some(20)).peak_memory), (10, 20));
}

#[test]
fn busy_steps_and_spans_agree() {
    let g = Graph::read(&data("policies.csv")).unwrap();
    let run = Simulator::new(&g, SimOptions { policy: Policy::Cp, ..Default::default() })
        .unwrap()
        .run(Procs::Limited(2), true)
        .unwrap();
    assert_eq!(run.spans.len(), g.len());
    assert_eq!(run.busy, vec![(0, 1), (1, 2), (7, 1), (10, 0)]);
    for s in &run.spans {
        for &k in g.needs(s.job as usize) {
            let before = run.spans.iter().find(|t| t.job == k).unwrap();
            assert!(
                before.end <= s.start,
                "{} starts before {} ends",
                g.jobs[s.job as usize].name,
                g.jobs[k as usize].name
            );
        }
    }
}

#[test]
fn procs_lists() {
    let ProcsList(l) = "1..3,8,unlimited,2".parse().unwrap();
    assert_eq!(l, vec![Procs::Limited(1), Procs::Limited(2), Procs::Limited(3), Procs::Limited(8), Procs::Unlimited]);
    for bad in ["", "0", "3..1", "1..x", "many", "1,,2"] {
        assert!(bad.parse::<ProcsList>().is_err(), "{bad}");
    }
}

/// A random graph: job i needs some of the jobs before it.
fn random_graph(costs: Vec<u64>, edges: Vec<(usize, usize)>) -> Graph {
    let n = costs.len();
    let mut deps = vec![Vec::new(); n];
    for (a, b) in edges {
        let (a, b) = (a % n, b % n);
        if a < b && !deps[b].contains(&a) {
            deps[b].push(a);
        }
    }
    let jobs = costs
        .iter()
        .enumerate()
        .map(|(i, &c)| Job {
            name: format!("j{i}"),
            cost: c,
            states: c,
            bytes: c,
            deps: deps[i].iter().map(|d| format!("j{d}")).collect(),
        })
        .collect();
    Graph::new(jobs, None).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn makespan_lies_between_the_bounds(
        costs in prop::collection::vec(0u64..50, 1..40),
        edges in prop::collection::vec((0usize..40, 0usize..40), 0..120),
        overhead in 0u64..3,
    ) {
        let g = random_graph(costs, edges);
        for policy in [Policy::Fifo, Policy::Cp, Policy::Largest] {
            let sim = Simulator::new(&g, SimOptions { policy, overhead, ..Default::default() }).unwrap();
            let w = sim.work();
            // The slow twin of P = 1: the sum of the durations.
            prop_assert_eq!(w, g.jobs.iter().map(|j| j.cost + overhead).sum::<u64>());
            prop_assert_eq!(sim.run(Procs::Limited(1), false).unwrap().row.makespan, w);
            prop_assert_eq!(sim.run(Procs::Unlimited, false).unwrap().row.makespan, sim.critical_path());
            for p in 1..=8 {
                let r = sim.run(Procs::Limited(p), false).unwrap().row;
                let (lower, graham) = (r.lower_bound, r.graham_bound);
                prop_assert!(lower <= r.level_bound + 1e-6, "P={} lower {} > level {}", p, lower, r.level_bound);
                prop_assert!(r.level_bound <= r.makespan as f64 + 1e-6, "P={} level {} > {}", p, r.level_bound, r.makespan);
                prop_assert!(r.makespan as f64 <= graham + 1e-6, "P={} {} > graham {}", p, r.makespan, graham);
                prop_assert!(r.max_busy <= p);
            }
        }
    }
}

#[test]
fn sweeps_are_reproducible() {
    let g = dab::sched::quadrants(
        "4x4".parse().unwrap(),
        dab::sched::QuadrantSymmetry::Dih8,
        &dab::sched::CostSpec::States,
        Some(&dab::sched::Split { threshold: 200_000_000, max_pieces: 20, deps: dab::sched::PieceDeps::Whole }),
    )
    .unwrap();
    let procs: Vec<Procs> = (1..=40).map(Procs::Limited).collect();
    for policy in [Policy::Fifo, Policy::Cp] {
        let sim = Simulator::new(&g, SimOptions { policy, ..Default::default() }).unwrap();
        let a = sim.sweep(&procs).unwrap();
        let b = sim.sweep(&procs).unwrap();
        assert_eq!(a, b);
        // The parallel sweep equals one simulation at a time.
        for (row, &p) in a.iter().zip(&procs) {
            assert_eq!(*row, sim.run(p, false).unwrap().row);
        }
    }
}

/// Two jobs, `b` needing `a`, with these costs and `a`'s bytes.
fn pair(a: u64, b: u64, bytes: u64) -> Graph {
    let job = |name: &str, cost: u64, bytes: u64, deps: &[&str]| Job {
        name: name.into(),
        cost,
        states: 1,
        bytes,
        deps: deps.iter().map(|d| d.to_string()).collect(),
    };
    Graph::new(vec![job("a", a, bytes, &[]), job("b", b, 1, &["a"])], None).unwrap()
}

#[test]
fn a_huge_overhead_is_refused_not_wrapped_into_a_small_makespan() {
    // The case: `dab sim --overhead 18446744073709551615` printed a makespan of 1.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("report");
    let (graph, out_text) = (data("policies.csv"), out.to_str().unwrap().to_string());
    let sim = |overhead: &str, message: &str| {
        let args = ["sim", graph.to_str().unwrap(), "--sweep", "1,2", "--out", &out_text, "--overhead", overhead];
        common::refused(&args, None, message);
    };
    let max = u64::MAX.to_string();
    sim(&max, &format!("exceeds the limit of {max} ticks"));
    // Half of u64 a job fits one job but not the sum of them.
    sim(&(u64::MAX / 2).to_string(), "the job durations add up to more than the limit");
    assert!(!out.join("sweep.csv").exists(), "no report from a refused sweep");
}

#[test]
fn durations_past_u64_are_refused_naming_the_job() {
    let g = pair(5, 3, 1);
    let over = SimOptions { overhead: u64::MAX - 4, ..Default::default() };
    match Simulator::new(&g, over) {
        Err(e @ SimError::Duration { .. }) => {
            let text = e.to_string();
            assert!(text.contains("job 'a'") && text.contains(&u64::MAX.to_string()), "{text}");
        }
        other => panic!("{:?}", other.err()),
    }
    // A transfer of 2^63 bytes at one a tick beside a cost of 2^63 ticks.
    let g = pair(1, 1 << 63, 1 << 63);
    let slow = SimOptions { bandwidth: Some(1), ..Default::default() };
    assert!(matches!(Simulator::new(&g, slow), Err(SimError::Duration { job, .. }) if job == "b"));
    // The costs add up within u64, and each duration fits, but with a tick of overhead a job
    // the durations do not.
    let g = pair(u64::MAX - 1, 1, 1);
    let tick = SimOptions { overhead: 1, ..Default::default() };
    assert!(matches!(Simulator::new(&g, tick), Err(SimError::Work { job, overhead: 1 }) if job == "b"));
}

#[test]
fn a_makespan_at_the_limit_is_exact_and_past_it_an_error() {
    // Work of exactly u64::MAX ticks: the one-processor makespan is that, not a wrapped number.
    let g = pair(u64::MAX - 1, 1, 1);
    let sim = Simulator::new(&g, SimOptions::default()).unwrap();
    assert_eq!(sim.run(Procs::Limited(1), false).unwrap().row.makespan, u64::MAX);
    // Contention that slows two running jobs 4 times could take the clock past u64.
    let g = Graph::new(
        ["x", "y"].map(|n| Job { name: n.into(), cost: 1 << 62, states: 1, bytes: 1, deps: vec![] }).to_vec(),
        None,
    )
    .unwrap();
    let sim =
        Simulator::new(&g, SimOptions::default()).unwrap().with_contention(&dab::sched::Contention(vec![(2, 4.0)]));
    let e = sim.run(Procs::Limited(2), false).unwrap_err();
    assert!(matches!(e, SimError::Makespan { .. }) && e.to_string().contains("slowed up to 4x"), "{e}");
    // Reading every input back at a huge rate under a memory limit: refused the same way.
    let g = pair(1, 1, 1 << 40);
    let reload = SimOptions { mem_limit: Some(1 << 41), reload_ps_per_byte: u64::MAX, ..Default::default() };
    let e = Simulator::new(&g, reload).unwrap().run(Procs::Limited(1), false).unwrap_err();
    assert!(matches!(e, SimError::Makespan { .. }), "{e}");
}

#[test]
fn zero_processors_are_refused() {
    let g = pair(1, 1, 1);
    let e = Simulator::new(&g, SimOptions::default()).unwrap().run(Procs::Limited(0), false).unwrap_err();
    assert_eq!(e, SimError::NoProcessors);
}
