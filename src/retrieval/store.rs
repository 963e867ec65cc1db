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

/// Flat storage of unit vectors: row-major (one vector after another, what the
/// cache stores) plus a dimension-major copy for scoring many rows at once.
///
/// Scoring skips the query's zero entries (hashing queries have a few dozen
/// non-zero dimensions out of 512) and adds the products in dimension order
/// on both paths, so a chunk's cosine does not depend on the path taken.
#[derive(Debug, Clone)]
pub struct FlatStore {
    dims: usize,
    data: Vec<f32>,
    /// `columns[d * rows + i]` = `data[i * dims + d]`.
    columns: Vec<f32>,
}

/// Candidate sets at least this share of all rows are scored column by column.
const COLUMN_PATH_SHARE: usize = 8;

impl FlatStore {
    /// Stores vectors that all have `dims` entries (shorter ones are zero-padded,
    /// longer ones truncated: callers pass one embedder's output).
    pub fn new(dims: usize, vectors: &[Vec<f32>]) -> Self {
        let mut data = Vec::with_capacity(dims * vectors.len());
        for v in vectors {
            data.extend(v.iter().copied().chain(std::iter::repeat(0.0)).take(dims));
        }
        Self::with_columns(dims, data)
    }

    fn with_columns(dims: usize, data: Vec<f32>) -> Self {
        let rows = data.len().checked_div(dims).unwrap_or(0);
        let mut columns = vec![0f32; rows * dims];
        for (i, row) in data.chunks_exact(dims.max(1)).enumerate() {
            for (d, x) in row.iter().enumerate() {
                columns[d * rows + i] = *x;
            }
        }
        Self { dims, data, columns }
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
        (dims > 0 && data.len().is_multiple_of(dims)).then(|| Self::with_columns(dims, data))
    }
}

impl VectorStore for FlatStore {
    fn len(&self) -> usize {
        self.data.len() / self.dims.max(1)
    }

    fn cosines(&self, query: &[f32], candidates: &[usize]) -> Vec<f32> {
        let rows = self.len();
        let nonzero: Vec<(usize, f32)> =
            query.iter().copied().enumerate().take(self.dims).filter(|&(_, q)| q != 0.0).collect();
        if rows > 0 && candidates.len() * COLUMN_PATH_SHARE >= rows {
            // Many candidates (an unscoped search): stream one column per
            // non-zero query entry and score every row.
            let mut scores = vec![-0.0f32; rows];
            for &(d, q) in &nonzero {
                let column = &self.columns[d * rows..(d + 1) * rows];
                for (s, x) in scores.iter_mut().zip(column) {
                    *s += q * x;
                }
            }
            return candidates.iter().map(|&i| scores.get(i).map_or(0.0, |s| s + 0.0)).collect();
        }
        candidates
            .iter()
            .map(|&i| match self.data.get(i * self.dims..(i + 1) * self.dims) {
                Some(row) => nonzero.iter().fold(-0.0f32, |s, &(d, q)| s + q * row[d]) + 0.0,
                None => 0.0,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_and_column_paths_agree_with_a_plain_dot_product() {
        let dims = 7;
        let vectors: Vec<Vec<f32>> = (0..40)
            .map(|i| {
                (0..dims).map(|d| if (i + d) % 3 == 0 { 0.0 } else { ((i * 7 + d * 13) % 11) as f32 - 5.0 }).collect()
            })
            .collect();
        let store = FlatStore::new(dims, &vectors);
        let query = [0.5, 0.0, -1.0, 0.0, 0.25, 2.0, 0.0];
        let plain: Vec<f32> =
            vectors.iter().map(|v| v.iter().zip(&query).map(|(a, b)| a * b).sum::<f32>() + 0.0).collect();
        let all: Vec<usize> = (0..40).collect();
        assert_eq!(store.cosines(&query, &all), plain, "column path");
        let few = [3, 17, 39, 99];
        let expected = vec![plain[3], plain[17], plain[39], 0.0];
        assert_eq!(store.cosines(&query, &few), expected, "row path; out of range scores 0");
        let cached = FlatStore::from_data(dims, store.data().to_vec()).unwrap();
        assert_eq!(cached.cosines(&query, &all), plain);
    }
}
