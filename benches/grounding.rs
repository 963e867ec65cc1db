//! Grounding benchmark (`cargo bench --bench grounding`), a plain program
//! (`harness = false`): what sentence-by-sentence grounding adds to the
//! offline `eval`.
//!
//! 1. Runs `inquiry eval --no-cache` (the bundled suite, demo model, rule
//!    judge) three times and takes the median wall time (grounding on: the
//!    guard, the `grounding` check and the rule judge all use it).
//! 2. Runs it once more with `RUST_LOG=inquiry=debug` and reads how many
//!    groundings the eval computed (`grounding checks computed=N reused=M`:
//!    the guard, the code check and the rule judge share one result per
//!    identical reply and evidence, [`inquiry::grounding::memo`]).
//! 3. From that run's traces, re-runs [`inquiry::grounding::check_uncached`]
//!    on every run's reply and evidence, timed over 20 rounds (the first
//!    round pays the one-time compilation of the word lists, as an eval does).
//!    The cost of grounding is the mean time per check times N.
//! 4. Prints the eval time without grounding (median minus that cost) and
//!    the share grounding adds. Target: at most +20%.

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use inquiry::agent::RunResult;

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let bin = root.join("target/release/inquiry");
    assert!(bin.exists(), "build the binary first: cargo build --release --locked");
    let out = tempfile::tempdir().expect("temp dir");
    let mut walls = vec![];
    for _ in 0..3 {
        let start = Instant::now();
        let status = Command::new(&bin)
            .args(["eval", "--no-cache", "--out"])
            .arg(out.path())
            .current_dir(&root)
            .stderr(std::process::Stdio::null())
            .status()
            .expect("eval runs");
        assert!(status.code().is_some_and(|c| c <= 1), "eval failed: {status}");
        walls.push(start.elapsed().as_secs_f64());
    }
    walls.sort_by(f64::total_cmp);
    let eval_s = walls[1];
    let logged = Command::new(&bin)
        .args(["eval", "--no-cache", "--out"])
        .arg(out.path())
        .current_dir(&root)
        .env("RUST_LOG", "inquiry=debug")
        .output()
        .expect("eval runs");
    let log = String::from_utf8_lossy(&logged.stderr);
    let count = |name: &str| -> Option<f64> {
        let at = log.find(&format!("{name}="))? + name.len() + 1;
        log[at..].split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
    };
    let computed = count("computed").expect("eval logs its grounding counts at debug level");
    let reused = count("reused").unwrap_or(0.0);

    let mut runs: Vec<(RunResult, Vec<String>)> = vec![];
    for entry in std::fs::read_dir(out.path().join("eval/cases")).expect("traces") {
        let path = entry.expect("entry").path();
        let trace: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).expect("trace")).expect("json");
        let customer: Vec<String> = std::iter::once(trace["case"]["inquiry"].as_str().unwrap_or_default().to_owned())
            .chain(
                trace["case"]["history"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|t| t["inquiry"].as_str().map(str::to_owned)),
            )
            .collect();
        for run in trace["runs"].as_array().into_iter().flatten() {
            if let Ok(r) = serde_json::from_value::<RunResult>(run["result"].clone()) {
                runs.push((r, customer.clone()));
            }
        }
    }
    let rounds = 20;
    let start = Instant::now();
    let mut sentences = 0;
    for _ in 0..rounds {
        for (r, customer) in &runs {
            let c: Vec<&str> = customer.iter().map(String::as_str).collect();
            sentences +=
                inquiry::grounding::check_uncached(&r.reply, &r.evidence, &c, r.handoffs.len()).sentences.len();
        }
    }
    let per_round = start.elapsed().as_secs_f64() / f64::from(rounds);
    let per_check = per_round / runs.len().max(1) as f64;
    let cost = computed * per_check;
    let without = (eval_s - cost).max(f64::EPSILON);
    println!("| measure | value |\n|---|---|");
    println!("| runs checked | {} ({} sentences per round) |", runs.len(), sentences / rounds as usize);
    println!("| eval wall time, grounding on (median of 3) | {:.3} s |", eval_s);
    println!("| grounding per round over all runs | {:.2} ms |", per_round * 1e3);
    println!("| groundings one eval computes (reused) | {computed} ({reused}) |");
    println!("| eval wall time, grounding off (estimated) | {:.3} s |", without);
    println!("| grounding adds | {:+.1}% (target ≤ +20%) |", 100.0 * cost / without);
}
