//! Tells the tests whether the real e5 weights are present, so tests that
//! need them are marked ignored (and counted as such) rather than passing
//! without running. `scripts/fetch-models` creates them; CI fetches them
//! before `cargo test`, so there they run.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(e5_models)");
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
