//! Vector store: brute-force cosine over L2-normalised vectors (SPEC §5: brute
//! force is fine at catalogue size; the trait leaves room for an ANN index).

use super::mapped::{F32s, MappedF32};

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
    /// Owned, or mapped from a persisted index's segment ([`super::persisted`]).
    data: F32s,
    /// `columns[d * rows + i]` = `data[i * dims + d]`.
    columns: F32s,
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
        Self { dims, data: F32s::Owned(data), columns: F32s::Owned(columns) }
    }

    /// A store over a mapped file holding `rows × dims` f32 (little-endian)
    /// row-major at byte `start`, then the same dimension-major; `None` when
    /// the file is too short or the offset is not 4-byte aligned.
    pub fn mapped(dims: usize, rows: usize, map: std::sync::Arc<memmap2::Mmap>, start: usize) -> Option<Self> {
        let len = rows.checked_mul(dims)?;
        if dims == 0 {
            return None;
        }
        Some(Self {
            dims,
            data: F32s::Mapped(MappedF32::new(map.clone(), start, len)?),
            columns: F32s::Mapped(MappedF32::new(map, start.checked_add(len.checked_mul(4)?)?, len)?),
        })
    }

    /// The dimension-major copy (for writing a persisted index).
    pub fn columns(&self) -> &[f32] {
        &self.columns
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

/// A query's non-zero entries, (dimension, value), in dimension order.
fn nonzero(query: &[f32], dims: usize) -> Vec<(usize, f32)> {
    query.iter().copied().enumerate().take(dims).filter(|&(_, q)| q != 0.0).collect()
}

impl FlatStore {
    /// Scores every row, streaming one column per non-zero query entry.
    fn all_rows(&self, nonzero: &[(usize, f32)]) -> Vec<f32> {
        let rows = self.len();
        let mut scores = vec![-0.0f32; rows];
        for &(d, q) in nonzero {
            let column = &self.columns[d * rows..(d + 1) * rows];
            for (s, x) in scores.iter_mut().zip(column) {
                *s += q * x;
            }
        }
        scores.iter_mut().for_each(|s| *s += 0.0);
        scores
    }

    /// Scores one row (0 when out of range), adding in dimension order as
    /// [`Self::all_rows`] does, so both give the same number.
    fn row(&self, nonzero: &[(usize, f32)], i: usize) -> f32 {
        match self.data.get(i * self.dims..(i + 1) * self.dims) {
            Some(row) => nonzero.iter().fold(-0.0f32, |s, &(d, q)| s + q * row[d]) + 0.0,
            None => 0.0,
        }
    }
}

impl VectorStore for FlatStore {
    fn len(&self) -> usize {
        self.data.len() / self.dims.max(1)
    }

    fn cosines(&self, query: &[f32], candidates: &[usize]) -> Vec<f32> {
        let rows = self.len();
        let nonzero = nonzero(query, self.dims);
        if rows > 0 && candidates.len() * COLUMN_PATH_SHARE >= rows {
            // Many candidates (an unscoped search): score every row.
            let scores = self.all_rows(&nonzero);
            return candidates.iter().map(|&i| scores.get(i).copied().unwrap_or(0.0)).collect();
        }
        candidates.iter().map(|&i| self.row(&nonzero, i)).collect()
    }
}

/// Vectors in several immutable [`FlatStore`]s (a persisted index's
/// segments: an edit writes a small new one instead of rewriting them all),
/// with the segment and row of each chunk position.
#[derive(Debug, Clone)]
pub struct SegmentedStore {
    dims: usize,
    segments: Vec<FlatStore>,
    /// (segment, row) by chunk position.
    rows: Vec<(u32, u32)>,
}

impl SegmentedStore {
    /// A store over `segments`; `None` when a segment has other dimensions or
    /// a chunk's (segment, row) is out of range.
    pub fn new(dims: usize, segments: Vec<FlatStore>, rows: Vec<(u32, u32)>) -> Option<Self> {
        let fits = segments.iter().all(|s| s.dims() == dims)
            && rows.iter().all(|&(s, r)| segments.get(s as usize).is_some_and(|seg| (r as usize) < seg.len()));
        fits.then_some(Self { dims, segments, rows })
    }

    /// The segments, in order.
    pub fn segments(&self) -> &[FlatStore] {
        &self.segments
    }

    /// (segment, row) by chunk position.
    pub fn rows(&self) -> &[(u32, u32)] {
        &self.rows
    }

    /// The vector of a chunk position.
    pub fn vector(&self, i: usize) -> Option<&[f32]> {
        let &(s, r) = self.rows.get(i)?;
        let seg = self.segments.get(s as usize)?;
        seg.data().get(r as usize * self.dims..(r as usize + 1) * self.dims)
    }

    /// Rows held in segments that no chunk position refers to any more.
    pub fn dead_rows(&self) -> usize {
        self.segments.iter().map(FlatStore::len).sum::<usize>().saturating_sub(self.rows.len())
    }
}

impl VectorStore for SegmentedStore {
    fn len(&self) -> usize {
        self.rows.len()
    }

    fn cosines(&self, query: &[f32], candidates: &[usize]) -> Vec<f32> {
        let nonzero = nonzero(query, self.dims);
        let rows = self.len();
        let at = |scores: &[Vec<f32>], i: usize| {
            self.rows.get(i).and_then(|&(s, r)| scores.get(s as usize)?.get(r as usize).copied()).unwrap_or(0.0)
        };
        if rows > 0 && candidates.len() * COLUMN_PATH_SHARE >= rows {
            let scores: Vec<Vec<f32>> = self.segments.iter().map(|s| s.all_rows(&nonzero)).collect();
            return candidates.iter().map(|&i| at(&scores, i)).collect();
        }
        candidates
            .iter()
            .map(|&i| match self.rows.get(i) {
                Some(&(s, r)) => self.segments[s as usize].row(&nonzero, r as usize),
                None => 0.0,
            })
            .collect()
    }
}

/// The vectors a retriever scores: one flat store (built in memory) or a
/// persisted index's segments.
#[derive(Debug, Clone)]
pub enum Vectors {
    /// Built in memory.
    Flat(FlatStore),
    /// Mapped from a persisted index.
    Segmented(SegmentedStore),
}

impl VectorStore for Vectors {
    fn len(&self) -> usize {
        match self {
            Self::Flat(s) => s.len(),
            Self::Segmented(s) => s.len(),
        }
    }

    fn cosines(&self, query: &[f32], candidates: &[usize]) -> Vec<f32> {
        match self {
            Self::Flat(s) => s.cosines(query, candidates),
            Self::Segmented(s) => s.cosines(query, candidates),
        }
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
        // The same vectors in two segments, in another order, with a dead row.
        let (a, b): (Vec<usize>, Vec<usize>) = (0..40).partition(|i| i % 3 == 0);
        let mut first: Vec<Vec<f32>> = a.iter().map(|&i| vectors[i].clone()).collect();
        first.push(vec![9.0; dims]);
        let second: Vec<Vec<f32>> = b.iter().rev().map(|&i| vectors[i].clone()).collect();
        let rows: Vec<(u32, u32)> = (0..40)
            .map(|i| match a.iter().position(|&x| x == i) {
                Some(r) => (0, r as u32),
                None => (1, (b.len() - 1 - b.iter().position(|&x| x == i).unwrap()) as u32),
            })
            .collect();
        let segmented =
            SegmentedStore::new(dims, vec![FlatStore::new(dims, &first), FlatStore::new(dims, &second)], rows).unwrap();
        assert_eq!(segmented.dead_rows(), 1);
        assert_eq!(segmented.cosines(&query, &all), plain, "segmented, column path");
        assert_eq!(segmented.cosines(&query, &few), expected, "segmented, row path");
        assert_eq!(segmented.vector(5).unwrap(), vectors[5].as_slice());
        assert!(SegmentedStore::new(dims, vec![FlatStore::new(dims, &first)], vec![(0, 99)]).is_none());
    }
}
