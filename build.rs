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
    } else {
        // Watch the nearest existing folder: it changes when the weights arrive.
        let watch = ["models/multilingual-e5-small", "models", "."]
            .into_iter()
            .find(|p| std::path::Path::new(p).is_dir())
            .unwrap_or(".");
        println!("cargo::rerun-if-changed={watch}");
    }
}
