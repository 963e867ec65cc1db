//! Tells the tests whether the real e5 weights and a headless browser
//! (Debian's `chromium` and `chromium-driver`) are present, so tests that
//! need them are marked ignored (and counted as such) rather than passing
//! without running. `scripts/fetch-models` creates the weights and `.ci/run`
//! installs the browser before `cargo test`, so in CI they run.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(e5_models)");
    println!("cargo::rustc-check-cfg=cfg(chromium)");
    let browser = ["/usr/bin/chromium", "/usr/bin/chromedriver"];
    if browser.iter().all(|p| std::path::Path::new(p).is_file()) {
        println!("cargo::rustc-cfg=chromium");
        for p in browser {
            println!("cargo::rerun-if-changed={p}");
        }
    } else {
        // An install adds the files to /usr/bin and changes its mtime.
        println!("cargo::rerun-if-changed=/usr/bin");
    }
    let weights = std::path::Path::new("models/multilingual-e5-small/model.safetensors");
    if weights.is_file() {
        println!("cargo::rerun-if-changed={}", weights.display());
        println!("cargo::rustc-cfg=e5_models");
    } else if std::path::Path::new("models").is_dir() {
        println!("cargo::rerun-if-changed=models");
    } else {
        // Not the repository root: every new file there (runs/, reports) would
        // rebuild the crate. scripts/fetch-models touches build.rs instead.
        println!("cargo::rerun-if-changed=build.rs");
    }
}
