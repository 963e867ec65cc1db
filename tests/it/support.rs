//! Shared helpers: the bundled catalogue, temp copies to break, the binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;

use inquiry::catalogue::Catalogue;
use inquiry::handoff::HandoffQueue;
use inquiry::tools::{NoKnowledgeIndex, Toolbox};

/// Repository root (where `data/` lives).
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The bundled catalogue directory.
pub fn data_dir() -> PathBuf {
    root().join("data")
}

/// The bundled catalogue, loaded.
pub fn catalogue() -> Arc<Catalogue> {
    Arc::new(Catalogue::load(&data_dir()).expect("bundled catalogue loads"))
}

/// A toolbox over the bundled catalogue without a knowledge index.
pub fn toolbox() -> Toolbox {
    Toolbox::new(catalogue(), Arc::new(NoKnowledgeIndex), Arc::new(HandoffQueue::new()))
}

/// A temp copy of the bundled catalogue to break.
pub fn temp_catalogue() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&data_dir(), dir.path());
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Runs the built `inquiry` binary with arguments in the repository root.
pub fn inquiry(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_inquiry")).args(args).current_dir(root()).output().unwrap()
}

/// stdout and stderr of an output as strings.
pub fn texts(out: &Output) -> (String, String) {
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The offline retriever (hashing embedder, no reranker) over a catalogue,
/// thresholds from the repository's thresholds file, no cache.
pub fn offline_retriever(catalogue: &Catalogue) -> inquiry::retrieval::Retriever {
    let config = inquiry::retrieval::RetrievalConfig {
        thresholds: root().join(inquiry::retrieval::thresholds::DEFAULT_THRESHOLDS_FILE),
        cache_dir: None,
        ..Default::default()
    };
    config.build(catalogue).expect("offline retriever builds")
}

/// A toolbox over the bundled catalogue with the offline retriever.
pub fn toolbox_with_retrieval() -> Toolbox {
    let cat = catalogue();
    let retriever = offline_retriever(&cat);
    Toolbox::new(cat, Arc::new(retriever), Arc::new(HandoffQueue::new()))
}
