//! Suite-size benchmark (`cargo bench --bench scale`), a plain program
//! (`harness = false`): the bundled 49-case suite, and the suite repeated ×10
//! and ×100 with new ids (490 and 4,900 cases), each run once offline with
//! `inquiry eval`; prints wall time, time per case and peak RSS (peak RSS via
//! `/usr/bin/time` when installed, Debian package `time`).
//!
//! Targets (#15): at 4,900 cases peak RSS < 300 MB and time per case no
//! worse than at 490.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// Writes the suite `copies` times with ids suffixed `-x<k>` into `dir`.
fn generate(root: &Path, dir: &Path, copies: usize) {
    std::fs::create_dir_all(dir).unwrap();
    for entry in std::fs::read_dir(root.join("cases")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let cases: Vec<serde_json::Value> = yaml_serde::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let mut all = vec![];
        for k in 0..copies {
            for c in &cases {
                let mut c = c.clone();
                c["id"] = format!("{}-x{k}", c["id"].as_str().unwrap()).into();
                all.push(c);
            }
        }
        // JSON is valid YAML, and has no aliases.
        std::fs::write(dir.join(path.file_name().unwrap()), serde_json::to_string(&all).unwrap()).unwrap();
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tmp = tempfile::tempdir().unwrap();
    let has_time = Path::new("/usr/bin/time").exists();
    println!("| cases | wall s | ms per case | peak RSS MB |\n|---|---|---|---|");
    for copies in [1usize, 10, 100] {
        let cases = if copies == 1 {
            root.join("cases")
        } else {
            let d = tmp.path().join(format!("cases-x{copies}"));
            generate(root, &d, copies);
            d
        };
        let rss_file = tmp.path().join("rss");
        let mut cmd = if has_time {
            let mut c = Command::new("/usr/bin/time");
            c.args(["-f", "%M", "-o", rss_file.to_str().unwrap(), env!("CARGO_BIN_EXE_inquiry")]);
            c
        } else {
            Command::new(env!("CARGO_BIN_EXE_inquiry"))
        };
        let started = Instant::now();
        let status = cmd
            .args(["eval", "--no-cache", "--cases", cases.to_str().unwrap()])
            .args(["--out", tmp.path().join("out").to_str().unwrap(), "--name", &format!("x{copies}")])
            .current_dir(root)
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        let wall = started.elapsed().as_secs_f64();
        assert!(matches!(status.code(), Some(0 | 1)), "eval of {} cases failed: {status}", 49 * copies);
        let rss = std::fs::read_to_string(&rss_file)
            .ok()
            .and_then(|s| s.trim().parse::<f64>().ok())
            .map(|kb| format!("{:.0}", kb / 1024.0))
            .unwrap_or_else(|| "n/a".into());
        let n = 49 * copies;
        println!("| {n} | {wall:.2} | {:.2} | {rss} |", wall * 1000.0 / n as f64);
    }
}
