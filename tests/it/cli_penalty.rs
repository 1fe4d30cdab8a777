//! `--penalty N` on the command line: refused when not a whole number of boxes from 0, or too
//! large for the position's values, and by every engine that values the plain game only, each
//! with one line and exit status 2; answers that say the penalty; a store under a penalty kept
//! apart from plain ones, a file out of place refused and left as it is; `dab run` and
//! `dab play` under a penalty; and the web API's `penalty`.

use crate::common;
use crate::serve_common;

use std::path::Path;

use predicates::prelude::*;

use common::{dab, json_out, refused};
use serve_common::{Served, get, without_time};

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// The value `dab solve` gives under `penalty`.
fn solved(args: &[&str], penalty: &str) -> i64 {
    let v = json_out(&[&["solve"], args, &["--penalty", penalty, "--json"]].concat(), None);
    v["value"].as_i64().unwrap()
}

#[test]
fn a_penalty_that_is_no_whole_number_of_boxes_from_0_is_refused_by_every_command() {
    let commands: [&[&str]; 6] = [
        &["solve", "2x2"],
        &["hint", "2x2"],
        &["query", "2x2", "--store", "no-such-store"],
        &["run", "2x2", "--no-probe"],
        &["play", "2x2"],
        &["serve", "--port", "0"],
    ];
    for command in commands {
        for (n, why) in [
            ("-1", "the penalty -1 is negative"),
            ("1.5", "'1.5' is not a penalty: give a whole number of boxes"),
            ("two", "'two' is not a penalty"),
            ("128", "a penalty is at most 127"),
        ] {
            let args = [command, &["--penalty", n]].concat();
            refused(&args, Some(""), why);
            let out = dab().args(&args).write_stdin("").assert().code(2).get_output().stderr.clone();
            assert_eq!(String::from_utf8(out).unwrap().lines().count(), 1, "{args:?}");
        }
    }
}

#[test]
fn a_penalty_that_could_pass_a_value_names_the_largest_that_works() {
    for command in [&["solve", "3x3"][..], &["hint", "3x3"], &["play", "3x3"], &["run", "3x3", "--no-probe"]] {
        let args = [command, &["--penalty", "119"]].concat();
        refused(&args, Some(""), "--penalty: a penalty of 119 with 9 boxes still to take");
        refused(&args, Some(""), "the largest penalty here is 118");
    }
    // The largest fits: its values have the parity of the 9 boxes plus 118.
    assert_eq!(solved(&["3x3"], "118").rem_euclid(2), 1);
}

#[test]
fn engines_that_value_the_plain_game_only_refuse_a_penalty_by_name() {
    let search = "--penalty: the search engine values the plain game only";
    refused(&["solve", "2x2", "--engine", "search", "--penalty", "1"], None, search);
    refused(&["hint", "2x2", "--engine", "search", "--penalty", "1"], None, search);
    refused(&["play", "2x2", "--engine", "search", "--penalty", "1"], Some(""), "--penalty: the search engine");
    // One chain of 40 boxes, 41 undrawn lines: the theorems answer it plainly, and nothing
    // does under a penalty.
    let dir = tempfile::tempdir().unwrap();
    let chain = dir.path().join("chain40.txt");
    let edge = format!("+{}", "-+".repeat(40));
    std::fs::write(&chain, format!("{edge}\n\n{edge}\n")).unwrap();
    let position = path(&chain);
    dab().args(["hint", "--position", position]).assert().success().stdout(predicate::str::contains("endgame"));
    let theorems = "the search engine and the endgame theorems value the plain game only";
    refused(&["hint", "--position", position, "--penalty", "1"], None, theorems);
    refused(&["play", "--position", position, "--penalty", "1"], Some(""), theorems);
    // The twins take it, and agree with the solver.
    for engine in ["dense", "minimax"] {
        assert_eq!(solved(&["2x3", "--engine", engine], "3"), solved(&["2x3"], "3"), "{engine}");
    }
}

#[test]
fn answers_say_the_penalty_and_a_plain_answer_is_as_before() {
    let v = json_out(&["solve", "2x3", "--penalty", "2", "--json"], None);
    assert_eq!((v["penalty"].as_i64(), v["value"].as_i64()), (Some(2), Some(0)));
    let h = json_out(&["hint", "2x3", "--penalty", "2", "--json"], None);
    assert_eq!((h["penalty"].as_i64(), h["value"].as_i64(), h["source"].as_str()), (Some(2), Some(0), Some("solved")));
    for plain in
        [json_out(&["solve", "2x3", "--json"], None), json_out(&["hint", "2x3", "--penalty", "0", "--json"], None)]
    {
        assert!(plain.get("penalty").is_none(), "{plain}");
    }
    let said = "last-move penalty 2 (the player who draws the last line loses 2 boxes)";
    dab().args(["solve", "2x3", "--penalty", "2"]).assert().success().stdout(predicate::str::contains(said));
    dab().args(["hint", "2x3", "--penalty", "2"]).assert().success().stdout(predicate::str::contains(said));
    dab().args(["hint", "2x3"]).assert().success().stdout(predicate::str::contains("penalty").not());
}

#[test]
fn a_store_under_a_penalty_is_a_folder_of_its_own_never_read_as_a_plain_one() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let s = path(&store);
    dab().args(["solve", "2x3", "--store", s, "--penalty", "2", "-q"]).assert().success();
    assert!(store.join("2x3/g2-p2").is_dir() && !store.join("2x3/g2").exists());
    // Every file says its penalty, in words an older dab refuses too.
    let file = std::fs::read(store.join("2x3/g2-p2/0-0.dab")).unwrap();
    let text = String::from_utf8_lossy(&file);
    assert!(text.contains(r#""penalty":2"#) && text.contains("losing 2"), "{text}");
    let q = json_out(&["query", "2x3", "--store", s, "--penalty", "2", "--json"], None);
    assert_eq!((q["source"].as_str(), q["value"].as_i64(), q["penalty"].as_i64()), (Some("store"), Some(0), Some(2)));
    refused(
        &["query", "2x3", "--store", s],
        None,
        "the store holds 2x3 solves for this position only under a last-move penalty of 2, not under no last-move penalty",
    );
    refused(&["query", "2x3", "--store", s, "--penalty", "1"], None, "not under a last-move penalty of 1");
    // A plain solve beside it: each read under its own penalty.
    dab().args(["solve", "2x3", "--store", s, "-q"]).assert().success();
    let plain = json_out(&["query", "2x3", "--store", s, "--json"], None);
    assert_eq!((plain["source"].as_str(), plain["value"].as_i64()), (Some("store"), Some(-2)));
    assert!(plain.get("penalty").is_none());
    let h = json_out(&["hint", "2x3", "--store", s, "--penalty", "2", "--json"], None);
    assert_eq!((h["source"].as_str(), h["value"].as_i64()), (Some("store"), Some(0)));
    // Plain files are written as before penalties: no penalty in their header.
    let plain_file = std::fs::read(store.join("2x3/g2/0-0.dab")).unwrap();
    assert!(!String::from_utf8_lossy(&plain_file).contains("penalty"));
    dab().args(["verify", "--store", s, "--recompute", "4"]).assert().success();
}

#[test]
fn a_file_under_another_penalty_out_of_place_is_refused_and_left_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let s = path(&store);
    dab().args(["solve", "2x3", "--store", s, "--penalty", "2", "-q"]).assert().success();
    // Renamed by hand into the plain solve's place.
    std::fs::rename(store.join("2x3/g2-p2"), store.join("2x3/g2")).unwrap();
    let before: Vec<(std::path::PathBuf, Vec<u8>)> = std::fs::read_dir(store.join("2x3/g2"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.clone(), std::fs::read(&p).unwrap()))
        .collect();
    refused(
        &["solve", "2x3", "--store", s],
        None,
        "holds values under a last-move penalty of 2, but lies in the folder of values under no last-move penalty: left as it is",
    );
    refused(
        &["query", "2x3", "--store", s],
        None,
        "holds values under a last-move penalty of 2, but lies in the folder",
    );
    dab().args(["verify", "--store", s]).assert().code(1);
    for (p, bytes) in before {
        assert_eq!(std::fs::read(&p).unwrap(), bytes, "{} changed", p.display());
    }
}

#[test]
fn run_solves_under_the_penalty_into_its_own_store_folder() {
    let dir = tempfile::tempdir().unwrap();
    let (store, out) = (dir.path().join("store"), dir.path().join("report"));
    let args = ["run", "2x3", "--penalty", "3", "--no-probe", "--threads", "2", "--json", "-q"];
    let v = json_out(&[&args[..], &["--store", path(&store), "--out", path(&out)]].concat(), None);
    assert_eq!((v["value"].as_i64(), v["penalty"].as_i64()), (Some(solved(&["2x3"], "3")), Some(3)));
    let folders: Vec<String> =
        std::fs::read_dir(store.join("2x3")).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert!(folders.iter().all(|f| f.ends_with("-p3")), "{folders:?}");
    let q = json_out(&["query", "2x3", "--store", path(&store), "--penalty", "3", "--json"], None);
    assert_eq!(q["source"], "store");
    // A plan split into pieces: the same value.
    let split = ["run", "2x4", "--penalty", "2", "--split", "300", "--no-probe", "--json", "-q", "--out"];
    let v = json_out(&[&split[..], &[path(&dir.path().join("split"))]].concat(), None);
    assert!(v["job_count"].as_u64().unwrap() > 100, "{v}");
    assert_eq!(v["value"].as_i64(), Some(solved(&["2x4"], "2")));
    let text = dab().args(["run", "2x3", "--penalty", "3", "--no-probe", "--out", path(&out)]).assert().success();
    let stdout = String::from_utf8(text.get_output().stdout.clone()).unwrap();
    assert!(stdout.contains("last-move penalty 3: the player who draws the last line loses 3 boxes"), "{stdout}");
}

#[test]
fn play_under_a_penalty_takes_it_off_the_last_mover() {
    // 1x1: the fourth line takes the box; under a penalty of 2 no one wants to draw it, and
    // the player who must (you, moving second here) ends a box down.
    let out =
        dab().args(["play", "1x1", "--first", "dab", "--penalty", "2"]).write_stdin("0\n1\n2\n3\n").assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("last-move penalty 2: the player who draws the last line loses 2 boxes"), "{text}");
    assert!(text.contains("you drew the last line: the penalty takes 2 boxes off you"), "{text}");
    assert!(text.contains("game over: you -1, dab 0: dab wins by 1"), "{text}");
}

#[test]
fn the_web_api_takes_a_penalty_and_the_server_has_its_own() {
    let served = Served::start(&["--threads", "1", "--penalty", "1"]);
    let analyse = |query: &str| get(&format!("{}api/analyse?{query}", served.url));
    let hint = |n: &str| without_time(json_out(&["hint", "2x3", "--threads", "1", "--penalty", n, "--json"], None));
    let (status, body) = analyse("board=2x3");
    assert_eq!(status, 200, "{body}");
    assert_eq!(without_time(serde_json::from_str(&body).unwrap()), hint("1"));
    for n in ["0", "4"] {
        let (status, body) = analyse(&format!("board=2x3&penalty={n}"));
        assert_eq!(status, 200, "{body}");
        assert_eq!(without_time(serde_json::from_str(&body).unwrap()), hint(n), "penalty {n}");
    }
    let (status, body) = analyse("board=2x3&penalty=-1");
    assert_eq!((status, body.lines().count()), (400, 1), "{body}");
    assert!(body.starts_with("penalty: the penalty -1 is negative"), "{body}");
    let (status, body) = analyse("board=2x3&penalty=2&engine=search");
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("the search engine values the plain game only"), "{body}");
}

#[test]
fn a_penalty_past_every_box_left_says_its_values_are_nimstring_s_verdict() {
    // 2x3: the penalty 100 outweighs the 6 boxes, so the sign of each value is who wins
    // Nimstring, as the Nimstring calculator says, and the line says so.
    for lines in ["00000000000000000", "10000100010010000"] {
        let said = "for Nimstring: the penalty 100 is more than the 6 boxes still to take, so a positive value means the player to move wins Nimstring";
        let args = ["solve", "2x3", "--lines", lines, "--penalty", "100"];
        dab().args(args).assert().success().stdout(predicate::str::contains(said));
        let value = json_out(&[&args[..], &["--json"]].concat(), None)["value"].as_i64().unwrap();
        let nim = json_out(&["nimstring", "2x3", "--lines", lines, "--json"], None);
        assert_eq!(value > 0, nim["wins"].as_bool().unwrap(), "{lines}: value {value}, {nim}");
        assert!(value.abs() >= 100 - 6, "{lines}: {value}");
    }
    // A penalty within the boxes left says nothing of Nimstring.
    dab()
        .args(["solve", "2x3", "--penalty", "2"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Nimstring").not());
}
