//! Graphs: the two file formats, malformed files, the quadrant scheme against the thesis, and
//! subpartition dependencies against the solver's own reads.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use dab::game::{Board, Position};
use dab::sched::{CostSpec, Format, Graph, PieceDeps, QuadrantSymmetry, Split};
use dab::solver::{Kernel, PartitionKey, Space, State};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/graphs").join(name)
}

fn split(threshold: u64, max_pieces: u32, deps: PieceDeps) -> Option<Split> {
    Some(Split { threshold, max_pieces, deps })
}

fn quadrants(symmetry: QuadrantSymmetry, split: Option<Split>) -> Graph {
    dab::sched::quadrants("4x4".parse().unwrap(), symmetry, &CostSpec::States, split.as_ref()).unwrap()
}

#[test]
fn both_formats_round_trip() {
    let space = Space::new(Position::empty("3x3".parse().unwrap()), Some(3)).unwrap();
    let graphs = [
        dab::sched::orbits(&space, &CostSpec::States, split(2000, 8, PieceDeps::Fine).as_ref()).unwrap(),
        quadrants(QuadrantSymmetry::Dih8, split(200_000_000, 20, PieceDeps::Whole)),
    ];
    let dir = tempfile::tempdir().unwrap();
    for g in &graphs {
        for format in [Format::Csv, Format::Thesis] {
            let path = dir.path().join("g");
            g.write(&path, format).unwrap();
            let back = Graph::read(&path).unwrap();
            assert_eq!(&back, g, "{format:?}");
            assert_eq!(back.to_text(format), g.to_text(format));
        }
    }
}

#[test]
fn malformed_graphs_are_refused_with_their_line() {
    let expected = std::fs::read_to_string(data("bad/expected.csv")).unwrap();
    for line in expected.lines().skip(1) {
        let (file, message) = line.split_once(',').unwrap();
        let path = data(&format!("bad/{file}"));
        let err = Graph::read(&path).unwrap_err().to_string();
        assert!(err.contains(message), "{file}: '{err}' does not say '{message}'");
        assert!(err.contains(&path.display().to_string()), "{file}: '{err}' does not name the file");
    }
}

#[test]
fn quadrants_are_a_pinwheel() {
    for b in ["2x2", "4x4"] {
        let board: Board = b.parse().unwrap();
        let q = dab::sched::quadrant_lines(board).unwrap();
        let all = q.iter().fold(dab::game::LineSet::EMPTY, |m, &s| {
            assert!(m.minus(s) == m, "{b}: quadrants overlap");
            m.union(s)
        });
        assert_eq!(all, board.full(), "{b}: quadrants miss lines");
        // Some quarter turn maps quadrant i onto quadrant i+1 for every i.
        let turns: Vec<_> = board.symmetries().into_iter().filter(|s| s.apply(q[0]) == q[1]).collect();
        assert!(turns.iter().any(|t| (0..4).all(|i| t.apply(q[i]) == q[(i + 1) % 4])), "{b}");
    }
    assert_eq!(dab::sched::quadrant_lines("4x4".parse().unwrap()).unwrap()[0].len(), 10);
    assert!(dab::sched::quadrant_lines("3x3".parse().unwrap()).is_err());
    assert!(dab::sched::quadrant_lines("2x4".parse().unwrap()).is_err());
}

#[test]
fn quadrant_state_counts() {
    let none = quadrants(QuadrantSymmetry::None, None);
    assert_eq!(none.len(), 11usize.pow(4));
    assert_eq!(none.states(), 1 << 40);
    let middle = none.jobs.iter().find(|j| j.name == "5_5_5_5").unwrap();
    assert_eq!(middle.states, 4_032_758_016);
    assert_eq!(middle.deps, ["5_5_5_6", "5_5_6_5", "5_6_5_5", "6_5_5_5"]);
    // Quarter turns: classes of 1, 2 or 4 partitions.
    let rot4 = quadrants(QuadrantSymmetry::Rot4, None);
    assert_eq!(rot4.len(), (14641 + 121 + 2 * 11) / 4);
    // Reflections too: the thesis's "about 2^37" states.
    let dih8 = quadrants(QuadrantSymmetry::Dih8, None);
    let log2 = (dih8.states() as f64).log2();
    assert!((37.0..38.0).contains(&log2), "{log2}");
    // Work and critical path are the same job by job: the biggest chain is the same.
    assert_eq!(none.critical_path(), dih8.critical_path());
}

#[test]
fn sorted_symmetry_reproduces_the_thesis_figure_3() {
    let text = quadrants(QuadrantSymmetry::Sorted, None).to_text(Format::Thesis);
    let mine: HashSet<&str> = text.lines().map(|l| l.split(" #").next().unwrap()).collect();
    let figure = std::fs::read_to_string(data("thesis-fig3.txt")).unwrap();
    for line in figure.lines() {
        assert!(mine.contains(line), "missing: {line}");
    }
}

#[test]
fn split_pieces_follow_the_thesis_rule() {
    let g = quadrants(QuadrantSymmetry::Dih8, split(200_000_000, 20, PieceDeps::Whole));
    let by_name: HashMap<&str, _> = g.jobs.iter().map(|j| (j.name.as_str(), j)).collect();
    // 5_5_5_5: 4.03e9 states, ceil(4.03e9 / 2e8) = 21 > 20 pieces.
    assert!(by_name.contains_key("5_5_5_5_19") && !by_name.contains_key("5_5_5_5_20"));
    let total: u64 = (0..20).map(|i| by_name[format!("5_5_5_5_{i}").as_str()].states).sum();
    assert_eq!(total, 4_032_758_016);
    // 5_5_5_8 (7.2e8) in 4 pieces; 5_5_5_9 (1.6e8) whole, needing all 4 of them... no: the
    // pieces need 5_5_5_9.
    assert!(by_name["5_5_5_8_3"].deps.contains(&"5_5_5_9".to_string()));
    assert_eq!(by_name["4_5_5_8_0"].deps.iter().filter(|d| d.starts_with("5_5_5_8_")).count(), 4);
    assert_eq!(g.states(), quadrants(QuadrantSymmetry::Dih8, None).states());
    // No piece above the threshold unless the job had more than 20 times it.
    assert!(g.jobs.iter().all(|j| j.states <= 200_000_000 || j.name.starts_with("5_5_5_5_")));
}

/// Piece row ranges of a split orbits graph, per partition key.
fn piece_rows(g: &Graph, kernel: &Kernel, key: &PartitionKey) -> Vec<(String, usize, usize)> {
    let (_, row_len) = kernel.shape(key);
    let name = key.to_string();
    let pieces: Vec<_> = g.jobs.iter().filter(|j| j.name == name || j.name.starts_with(&format!("{name}_"))).collect();
    let mut first = 0;
    pieces
        .iter()
        .map(|j| {
            let rows = j.states as usize / row_len;
            first += rows;
            (j.name.clone(), first - rows, first)
        })
        .collect()
}

#[test]
fn fine_piece_dependencies_cover_every_read() {
    for (board, groups, threshold) in [("3x3", 3, 3000), ("2x4", 3, 400), ("3x3", 2, 5000)] {
        let space = Space::new(Position::empty(board.parse().unwrap()), Some(groups)).unwrap();
        let kernel = Kernel::new(&space);
        let fine =
            dab::sched::orbits(&space, &CostSpec::States, split(threshold, 16, PieceDeps::Fine).as_ref()).unwrap();
        let whole =
            dab::sched::orbits(&space, &CostSpec::States, split(threshold, 16, PieceDeps::Whole).as_ref()).unwrap();
        assert_eq!(fine.len(), whole.len());
        assert!(fine.edges() < whole.edges(), "{board}: fine deps should drop some edges");
        let deps: HashMap<&str, HashSet<&str>> =
            fine.jobs.iter().map(|j| (j.name.as_str(), j.deps.iter().map(String::as_str).collect())).collect();
        let mut pieces_of: HashMap<PartitionKey, Vec<(String, usize, usize)>> = HashMap::new();
        for key in space.keys() {
            pieces_of.insert(key, piece_rows(&fine, &kernel, &key));
        }
        for key in space.keys() {
            let (_, row_len) = kernel.shape(&key);
            for (name, lo, hi) in &pieces_of[&key] {
                for index in lo * row_len..hi * row_len {
                    let State(s) = space.state_at(&key, index);
                    for i in 0..space.free() {
                        if !space.is_move(State(s), i) {
                            continue;
                        }
                        let (succ, at) = space.locate(State(s | 1 << i));
                        let (_, succ_row_len) = kernel.shape(&succ);
                        let row = at / succ_row_len;
                        let (piece, ..) =
                            pieces_of[&succ].iter().find(|(_, a, b)| (*a..*b).contains(&row)).expect("row in a piece");
                        assert!(deps[name.as_str()].contains(piece.as_str()), "{board}: {name} reads {piece}");
                    }
                }
            }
        }
    }
}

#[test]
fn orbits_graph_matches_the_partition_listing() {
    let space = Space::new(Position::empty("3x4".parse().unwrap()), Some(3)).unwrap();
    let g = dab::sched::orbits(&space, &CostSpec::States, None).unwrap();
    let listing = dab::solver::list(&space);
    assert_eq!(g.len(), listing.partitions.len());
    for (j, p) in g.jobs.iter().zip(&listing.partitions) {
        let (mut a, mut b) = (j.deps.clone(), p.deps.clone());
        a.sort();
        b.sort();
        assert_eq!((&j.name, j.states, j.bytes, a), (&p.key, p.positions, p.bytes, b));
        assert_eq!(j.cost, j.states);
    }
    assert_eq!(g.states(), 207_618_048);
}

#[test]
fn a_cost_model_prices_every_job() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("model.json");
    // The committed model with hand-picked coefficients.
    let committed = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/sims/cost-model.json")).unwrap();
    let mut model: serde_json::Value = serde_json::from_str(&committed).unwrap();
    for (name, value) in [
        ("per_job_ns", 100.0),
        ("per_state_ns", 2.0),
        ("per_row_ns", 7.0),
        ("per_outer_move_ns", 0.5),
        ("per_inner_move_ns", 1.5),
        ("per_run_inner_move_ns", 1.5),
        ("per_lane_inner_move_ns", 1.5),
        ("per_input_byte_ns", 0.25),
        ("per_outer_pass_ns", 11.0),
        ("per_inner_pass_ns", 13.0),
        ("per_turned_move_ns", 0.75),
        ("per_cold_input_byte_ns", 0.375),
    ] {
        model[name] = value.into();
    }
    // A cache of 20 bytes: 2x3's middle levels (up to 90 bytes) are read back from memory.
    model["cache_bytes"] = 20.into();
    std::fs::write(&path, model.to_string()).unwrap();
    let cost = CostSpec::parse(path.to_str().unwrap()).unwrap();
    assert_eq!(cost.unit(), "ns");
    let space = Space::new(Position::empty("2x3".parse().unwrap()), Some(2)).unwrap();
    let kernel = Kernel::new(&space);
    let (g, features) = dab::sched::orbits_with_features(&space, &cost, None).unwrap();
    let by_name: HashMap<&str, &dab::sched::Job> = g.jobs.iter().map(|j| (j.name.as_str(), j)).collect();
    let inner_size = space.groups[1].size as u64;
    let level = |name: &str| name.parse::<PartitionKey>().unwrap().total();
    let mut level_bytes: HashMap<usize, u64> = HashMap::new();
    for j in &g.jobs {
        *level_bytes.entry(level(&j.name)).or_default() += j.bytes;
    }
    let mut cold_jobs = 0;
    for (j, f) in g.jobs.iter().zip(&features) {
        let key: PartitionKey = j.name.parse().unwrap();
        let (rows, _) = kernel.shape(&key);
        let inner_undrawn = inner_size - key.counts()[1] as u64;
        let outer_undrawn = (space.free() - key.total()) as u64 - inner_undrawn;
        // Byte gathers take every inner line, drawn or not, unless the inner group is full; runs
        // and single lanes only the moves there are (which of them the kernel makes depends on
        // the CPU, and its unit tests check the counts).
        let gathered = if inner_undrawn > 0 { j.states * inner_size } else { 0 };
        assert!(f.inner_moves == 0 || f.inner_moves == gathered, "{}", j.name);
        assert!(f.run_inner_moves + f.lane_inner_moves <= j.states * inner_undrawn, "{}", j.name);
        if inner_undrawn == 0 {
            assert_eq!(f.inner_moves + f.run_inner_moves + f.lane_inner_moves, 0, "{}", j.name);
        }
        let inner_moves = f.inner_moves + f.run_inner_moves + f.lane_inner_moves;
        let input: u64 = j.deps.iter().map(|d| by_name[d.as_str()].bytes).sum();
        // Each input's bytes beyond the last 20 of its level's, by share.
        let cold: u64 = j
            .deps
            .iter()
            .map(|d| {
                let share = (1.0 - 20.0 / level_bytes[&level(d)] as f64).max(0.0);
                (by_name[d.as_str()].bytes as f64 * share) as u64
            })
            .sum();
        assert_eq!(f.cold_input_bytes, cold, "{}", j.name);
        assert!(cold <= input, "{}", j.name);
        cold_jobs += usize::from(cold > 0);
        let ns = 100.0
            + 2.0 * j.states as f64
            + 7.0 * rows as f64
            + 0.5 * (j.states * outer_undrawn) as f64
            + 1.5 * inner_moves as f64
            + 0.25 * input as f64
            // A pass over the row per outer move and, unless the inner group is full, per inner
            // line (the 2x3 inner group fits the row path).
            + 11.0 * (rows as u64 * outer_undrawn) as f64
            + 13.0 * (if inner_undrawn > 0 { rows as u64 * inner_size } else { 0 }) as f64
            // Turned moves: counted by the kernel's own test against every stored state.
            + 0.75 * f.turned_moves as f64
            + 0.375 * cold as f64;
        assert_eq!(j.cost, ns.round() as u64, "{}", j.name);
    }
    assert!(cold_jobs > 0, "some of 2x3's levels pass 20 bytes");
    let mut no_cache = model.clone();
    no_cache["cache_bytes"] = 0.into();
    model["per_state_ns"] = (-1.0).into();
    for (bad, message) in [
        (no_cache.to_string(), "cache_bytes = 0 must be at least 1"),
        (r#"{"format": 9, "machine": "x"}"#.to_string(), "has format 9"),
        (r#"{"format": 1, "machine": "x"}"#.to_string(), "has format 1"),
        (model.to_string(), "per_state_ns = -1"),
        ("not json".to_string(), "is not a cost model file"),
    ] {
        std::fs::write(&path, bad).unwrap();
        let err = CostSpec::parse(path.to_str().unwrap()).unwrap_err().to_string();
        assert!(err.contains(message) && err.contains("model.json"), "{err}");
    }
}

#[test]
fn a_jobs_moves_are_counted_as_the_models_kernel_makes_them_whatever_this_cpu_has() {
    use dab::sched::CostModel;
    use dab::solver::Simd;
    let space = Space::new(Position::empty("3x4".parse().unwrap()), Some(3)).unwrap();
    let features = |simd: Simd| {
        let cost = CostSpec::Model(Box::new(CostModel::built_in_for(simd)));
        let (g, f) = dab::sched::orbits_with_features(&space, &cost, None).unwrap();
        let sum = |pick: fn(&dab::sched::JobFeatures) -> u64| f.iter().map(pick).sum::<u64>();
        let moves = (sum(|f| f.inner_moves), sum(|f| f.run_inner_moves + f.lane_inner_moves), sum(|f| f.turned_moves));
        (g.states(), sum(|f| f.outer_moves), moves)
    };
    let (states, outer, (gathered, runs_and_lanes, turned)) = features(Simd::Vbmi);
    // Byte gathers: every inner move is a gathered lane, and turned rows are gathered too.
    assert!(gathered > 0 && runs_and_lanes == 0 && turned == 0, "{gathered} {runs_and_lanes} {turned}");
    for simd in [Simd::Avx2, Simd::Portable] {
        let (s, o, (gathered, runs_and_lanes, turned)) = features(simd);
        // The same jobs and outer moves; the inner moves in runs and lanes, turned rows lane by lane.
        assert_eq!((s, o), (states, outer), "{simd}");
        assert!(gathered == 0 && runs_and_lanes > 0 && turned > 0, "{simd}: {gathered} {runs_and_lanes} {turned}");
    }
}
