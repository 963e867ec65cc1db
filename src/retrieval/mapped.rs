//! f32 arrays read in place from a memory-mapped file: a persisted index's
//! vector segments and e5's word-embedding table are used without reading
//! and copying them (hundreds of megabytes at start-up otherwise).

use std::sync::Arc;

/// `len` f32 (little-endian) at byte `start` of a mapped file.
#[derive(Debug, Clone)]
pub struct MappedF32 {
    map: Arc<memmap2::Mmap>,
    start: usize,
    len: usize,
}

impl MappedF32 {
    /// A view of `len` f32 at byte `start`; `None` when the range is out of
    /// the file, not 4-byte aligned, or the machine is big-endian.
    pub fn new(map: Arc<memmap2::Mmap>, start: usize, len: usize) -> Option<Self> {
        let end = start.checked_add(len.checked_mul(4)?)?;
        if end > map.len() || !cfg!(target_endian = "little") {
            return None;
        }
        // try_cast_slice checks the alignment of the mapped address itself.
        bytemuck::try_cast_slice::<u8, f32>(&map[start..end]).ok()?;
        Some(Self { map, start, len })
    }
}

impl std::ops::Deref for MappedF32 {
    type Target = [f32];
    fn deref(&self) -> &[f32] {
        // In range and aligned: checked in `new`, and the mapping never moves.
        bytemuck::cast_slice(&self.map[self.start..self.start + self.len * 4])
    }
}

/// f32s owned in memory or mapped from a file.
#[derive(Debug, Clone)]
pub enum F32s {
    /// In memory.
    Owned(Vec<f32>),
    /// In a mapped file.
    Mapped(MappedF32),
}

impl std::ops::Deref for F32s {
    type Target = [f32];
    fn deref(&self) -> &[f32] {
        match self {
            Self::Owned(v) => v,
            Self::Mapped(m) => m,
        }
    }
}
