//! Helpers of the `dab serve` tests: the real binary started on a port it picks, HTTP GETs,
//! and `dab hint --json` to compare with.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `dab serve`, stopped when dropped.
pub struct Served {
    child: Child,
    /// `http://127.0.0.1:PORT/`.
    pub url: String,
}

impl Served {
    /// `dab serve --port 0` with `args`, once it has said its address.
    pub fn start(args: &[&str]) -> Served {
        Served::start_in(Path::new("."), args)
    }

    /// The same, run in the folder `dir`.
    pub fn start_in(dir: &Path, args: &[&str]) -> Served {
        let mut command = Command::new(env!("CARGO_BIN_EXE_dab"));
        command.current_dir(dir);
        Served::spawn(command, args)
    }

    /// The same, with at most `files` file descriptors (`ulimit -n`).
    pub fn start_with_files(files: u32, args: &[&str]) -> Served {
        let mut command = Command::new("sh");
        command.args(["-c", &format!("ulimit -n {files} && exec \"$0\" \"$@\""), env!("CARGO_BIN_EXE_dab")]);
        Served::spawn(command, args)
    }

    fn spawn(mut command: Command, args: &[&str]) -> Served {
        let mut child = command
            .args(["serve", "--port", "0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("dab serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line).expect("a line");
        let url = line.trim().strip_prefix("serving ").unwrap_or_else(|| panic!("no address in {line:?}")).to_string();
        Served { child, url }
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `host:port`.
    pub fn addr(&self) -> String {
        self.url.trim_start_matches("http://").trim_end_matches('/').to_string()
    }

    /// A field of the server's /proc status (`Threads`, `VmRSS` in kB), as a number.
    pub fn status(&self, field: &str) -> u64 {
        let text = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).expect("the server runs");
        let row = text.lines().find(|l| l.starts_with(&format!("{field}:"))).expect("the field");
        row.split_whitespace().nth(1).expect("a value").parse().expect("a number")
    }

    /// CPU seconds the server has used (user and system), from /proc.
    pub fn cpu_seconds(&self) -> f64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.pid())).expect("the server runs");
        // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
        let rest = stat.rsplit_once(')').expect("a stat line").1;
        let fields: Vec<u64> = rest.split_whitespace().skip(11).take(2).map(|f| f.parse().unwrap()).collect();
        (fields[0] + fields[1]) as f64 / 100.0
    }

    /// Sockets the server holds open: its listener and its connections.
    pub fn sockets(&self) -> usize {
        let fds = std::fs::read_dir(format!("/proc/{}/fd", self.pid())).expect("the server runs");
        fds.filter_map(|e| std::fs::read_link(e.ok()?.path()).ok())
            .filter(|l| l.to_string_lossy().starts_with("socket:"))
            .count()
    }

    /// Whether the server still runs.
    pub fn running(&mut self) -> bool {
        self.child.try_wait().expect("the server can be waited for").is_none()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An agent that returns every status as a response, with a generous timeout.
pub fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(300)))
        .build()
        .into()
}

/// GET `url`: the status and the body.
pub fn get(url: &str) -> (u16, String) {
    let mut response = agent().get(url).call().unwrap_or_else(|e| panic!("GET {url}: {e}"));
    let status = response.status().as_u16();
    (status, response.body_mut().read_to_string().expect("a text body"))
}

/// `dab hint BOARD --lines LINES --json`, without its timing.
pub fn hint(board: &str, lines: &str) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_dab"))
        .args(["hint", board, "--lines", lines, "--json", "--threads", "1"])
        .output()
        .expect("dab hint runs");
    assert!(out.status.success(), "dab hint: {}", String::from_utf8_lossy(&out.stderr));
    without_time(serde_json::from_slice(&out.stdout).expect("JSON"))
}

/// An answer without `seconds`, the one field that differs between two answers.
pub fn without_time(mut v: serde_json::Value) -> serde_json::Value {
    v.as_object_mut().expect("an object").remove("seconds").expect("a seconds field");
    v
}
