//! One way to print a value: `dab solve`, `dab hint` and `dab query` print the same lines for
//! the same position (the value, signed, then the best moves, then every move), whatever
//! answered it.

use crate::common;

use common::dab;

/// The value, best and moves lines of a command's output: from the `value` line to the last
/// move.
fn value_lines(args: &[&str]) -> Vec<String> {
    let out = dab().args(args).output().expect("dab runs");
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).expect("text");
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.iter().position(|l| l.starts_with("value ")).unwrap_or_else(|| panic!("{args:?}: {text}"));
    assert!(lines[start + 1].starts_with("best "), "{args:?}: {text}");
    assert!(lines[start + 2].starts_with("moves "), "{args:?}: {text}");
    let moves = lines[start + 3..].iter().take_while(|l| l.starts_with("  ")).count();
    lines[start..start + 3 + moves].iter().map(|l| l.to_string()).collect()
}

#[test]
fn solve_hint_and_query_print_the_same_value_lines() {
    let (dir, report) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let store = dir.path().to_str().unwrap();
    dab().args(["run", "2x3", "--store", store, "--threads", "1", "-q", "--out"]).arg(report.path()).assert().success();
    // The empty board (a value of its own sign), and a position with a box to take.
    for lines in ["00000000000000000", "11010000001000000"] {
        let solve = value_lines(&["solve", "2x3", "--lines", lines, "-q", "--threads", "1"]);
        assert!(solve.len() > 3, "{solve:?}");
        assert!(solve[0].starts_with("value +") || solve[0].starts_with("value -"), "{solve:?}");
        for args in [
            vec!["solve", "2x3", "--lines", lines, "--engine", "search", "-q", "--threads", "1"],
            vec!["hint", "2x3", "--lines", lines, "--threads", "1"],
            vec!["hint", "2x3", "--lines", lines, "--engine", "search", "--threads", "1"],
            vec!["query", "2x3", "--lines", lines, "--store", store],
            vec!["query", "2x3", "--lines", lines, "--store", store, "--engine", "search"],
        ] {
            assert_eq!(value_lines(&args), solve, "{args:?}");
        }
    }
}
