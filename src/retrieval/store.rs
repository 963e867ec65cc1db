//! Vector store: brute-force cosine over L2-normalised vectors (SPEC §5: brute
//! force is fine at catalogue size; the trait leaves room for an ANN index).

/// Holds one vector per chunk and scores a query against a subset.
pub trait VectorStore: Send + Sync {
    /// Number of stored vectors.
    fn len(&self) -> usize;
    /// True when empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Cosine similarity of `query` (unit length) with each candidate position,
    /// in candidate order. Positions out of range score 0.
    fn cosines(&self, query: &[f32], candidates: &[usize]) -> Vec<f32>;
}

/// Row-major flat storage of unit vectors.
#[derive(Debug, Clone)]
pub struct FlatStore {
    dims: usize,
    data: Vec<f32>,
}

impl FlatStore {
    /// Stores vectors that all have `dims` entries (shorter ones are zero-padded,
    /// longer ones truncated: callers pass one embedder's output).
    pub fn new(dims: usize, vectors: &[Vec<f32>]) -> Self {
        let mut data = Vec::with_capacity(dims * vectors.len());
        for v in vectors {
            data.extend(v.iter().copied().chain(std::iter::repeat(0.0)).take(dims));
        }
        Self { dims, data }
    }

    /// Vector dimension.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// The raw row-major data (for the on-disk cache).
    pub fn data(&self) -> &[f32] {
        &self.data
    }

    /// Rebuilds a store from cached row-major data; `None` when the length is not
    /// a multiple of `dims`.
    pub fn from_data(dims: usize, data: Vec<f32>) -> Option<Self> {
        (dims > 0 && data.len() % dims == 0).then_some(Self { dims, data })
    }
}

impl VectorStore for FlatStore {
    fn len(&self) -> usize {
        self.data.len() / self.dims.max(1)
    }

    fn cosines(&self, query: &[f32], candidates: &[usize]) -> Vec<f32> {
        candidates
            .iter()
            .map(|&i| match self.data.get(i * self.dims..(i + 1) * self.dims) {
                Some(row) => row.iter().zip(query).map(|(a, b)| a * b).sum(),
                None => 0.0,
            })
            .collect()
    }
}
