//! A loaded catalogue with its retrieval index: what every command that
//! serves tools starts from. Each toolbox made from it gets a fresh ticket queue.

use std::path::Path;
use std::sync::Arc;

use crate::catalogue::Catalogue;
use crate::handoff::HandoffQueue;
use crate::retrieval::{RetrievalConfig, Retriever};
use crate::tools::Toolbox;

/// A loaded catalogue with its retriever, ready to make toolboxes from.
pub struct Knowledge {
    /// The catalogue.
    pub catalogue: Arc<Catalogue>,
    /// Its retrieval index.
    pub retriever: Arc<Retriever>,
}

impl Knowledge {
    /// Loads `data` (plus an optional overlay directory) and indexes it.
    ///
    /// # Errors
    /// Catalogue, model or thresholds errors, naming the file.
    pub fn load(data: &Path, overlay: Option<&Path>, retrieval: &RetrievalConfig) -> anyhow::Result<Self> {
        let mut catalogue = Catalogue::load(data)?;
        if let Some(dir) = overlay {
            catalogue = catalogue.with_overlay(dir)?;
        }
        let retriever = retrieval.build(&catalogue)?;
        Ok(Self { catalogue: Arc::new(catalogue), retriever: Arc::new(retriever) })
    }

    /// A toolbox over this knowledge with a fresh, empty ticket queue.
    pub fn toolbox(&self) -> Toolbox {
        Toolbox::new(self.catalogue.clone(), self.retriever.clone(), Arc::new(HandoffQueue::new()))
    }

    /// A toolbox whose tickets are also stored in `sink` (the desk database).
    pub fn toolbox_with_sink(&self, sink: Arc<dyn crate::handoff::TicketSink>) -> Toolbox {
        Toolbox::new(self.catalogue.clone(), self.retriever.clone(), Arc::new(HandoffQueue::with_sink(sink)))
    }
}
