//! The persisted retrieval index (#32): the keyword index, its term tables
//! and the passage vectors of one catalogue, written to a directory that a
//! fresh process opens without rebuilding, and brought up to date in place
//! when listings or policy pages change.
//!
//! Layout, `<root>/<embedder>-<fingerprint hash>/`:
//! - `INQUIRY-INDEX`: marker written first; a directory without it is not
//!   ours and is never changed or removed;
//! - `keyword/`: tantivy's on-disk index (its files carry checksums);
//! - `terms.bin`: [`TermTables`], with each chunk's stamp;
//! - `vectors-<n>.bin`: segments of passage vectors, each immutable once
//!   written: magic `INQVEC1\n`, dims and rows (u32 LE), then the vectors
//!   row-major and again dimension-major (f32 LE), mapped on open; an edit
//!   writes a small new segment, and the segments are compacted into one
//!   when a quarter of their rows are dead or there are more than
//!   [`MAX_SEGMENTS`];
//! - `rows.bin`: the (segment, row) of each chunk position (u32 LE pairs);
//! - `manifest.json`: written last: the format, a fingerprint of the code
//!   that analyses text, the embedder fingerprint, the digest of every
//!   chunk's stamp, the segments, and CRC-32s of every file it names.
//!
//! Opening: a manifest that names this code, this embedder and this
//! catalogue, files that match their CRCs and a keyword index that passes
//! tantivy's checksums → opened as is. The same code and embedder with
//! another catalogue → updated in place: only chunks whose stamp changed are
//! re-indexed, and only their passages re-embedded (through the
//! content-addressed [`PassageCache`](super::passage_cache::PassageCache)).
//! Anything else (no manifest, another code or format, a file that fails its
//! check) → rebuilt from scratch in a new directory swapped in for the old
//! one: a corrupt or stale index is never read. An exclusive file lock
//! (`<root>/<name>.lock`) serialises processes on one index; readers take a
//! fixed snapshot (tantivy's reader is never reloaded, the vectors file is
//! replaced by rename, so a mapping stays valid).

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::bm25::{chunk_texts, KeywordIndex};
use super::embed::Embedder;
use super::store::{FlatStore, SegmentedStore, VectorStore, Vectors};
use super::term_tables::{ChunkStamp, ChunkText, TermTables};
use super::RetrievalError;
use crate::chunk::Chunk;

/// Bumped when the layout of any file here changes.
const FORMAT: u32 = 1;
/// More segments than this are compacted into one.
pub const MAX_SEGMENTS: usize = 8;
const MARKER: &str = "INQUIRY-INDEX";
const VECTORS_MAGIC: &[u8; 8] = b"INQVEC1\n";
const VECTORS_HEADER: usize = 16;

/// The source of everything that turns text into index entries: an edit to
/// any of these files gives another fingerprint, so an index written by
/// older analysis code is rebuilt, never read.
const ANALYSIS_SOURCES: &[&str] = &[
    include_str!("analyzer.rs"),
    include_str!("glossary.rs"),
    include_str!("bm25.rs"),
    include_str!("term_tables.rs"),
    include_str!("embed.rs"),
    include_str!("store.rs"),
    include_str!("../fold.rs"),
    include_str!("persisted.rs"),
];

/// Hex SHA-256 (first 16 digits) of [`ANALYSIS_SOURCES`].
pub fn code_fingerprint() -> String {
    let mut h = Sha256::new();
    for s in ANALYSIS_SOURCES {
        h.update((s.len() as u64).to_le_bytes());
        h.update(s.as_bytes());
    }
    hex16(&h.finalize())
}

fn hex16(bytes: &[u8]) -> String {
    bytes.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Segment {
    file: String,
    rows: usize,
    crc32: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Manifest {
    format: u32,
    code: String,
    embedder: String,
    dims: usize,
    chunks: usize,
    digest: String,
    terms_crc32: u32,
    rows_crc32: u32,
    segments: Vec<Segment>,
}

/// How an index was obtained (logged, and reported by benchmarks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opened {
    /// Read as written: the catalogue had not changed.
    AsIs,
    /// Updated in place; the number of chunk entries added or removed.
    Updated(usize),
    /// Built from scratch (no index, or one that could not be used).
    Built,
}

/// A keyword index and passage vectors for one catalogue's chunks.
pub struct Loaded {
    /// The keyword index.
    pub keyword: KeywordIndex,
    /// The passage vectors, by chunk position.
    pub vectors: Vectors,
    /// How it was obtained.
    pub opened: Opened,
}

/// Computes vectors for the passages of the chunks it is given.
pub type EmbedFn<'a> = &'a dyn Fn(&[&Chunk]) -> Result<Vec<Vec<f32>>, RetrievalError>;

/// The directory of an embedder's index under `root`.
pub fn index_dir(root: &Path, embedder: &dyn Embedder) -> PathBuf {
    let safe: String = embedder
        .model_id()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' })
        .collect();
    root.join(format!("{safe}-{}", hex16(&Sha256::digest(embedder.fingerprint().as_bytes()))))
}

/// Opens, updates or builds the index of `chunks` under `root` (see the
/// module docs). `embed` computes vectors for the passages it is given (the
/// caller puts the passage cache in front of the embedder).
///
/// # Errors
/// Only when nothing can be built: a keyword-index or embedding failure.
/// Problems with the directory itself (not writable, not ours) are logged
/// and the index is built in memory instead.
pub fn open_or_build(
    root: &Path,
    chunks: &[Chunk],
    locating: &[&str],
    embedder: &dyn Embedder,
    embed: EmbedFn<'_>,
) -> Result<Loaded, RetrievalError> {
    let dir = index_dir(root, embedder);
    let lock = match lock(root, &dir) {
        Ok(lock) => lock,
        Err(e) => {
            tracing::warn!(dir = %dir.display(), error = %e, "cannot lock the persisted index; indexing in memory");
            return in_memory(chunks, locating, embedder, embed);
        }
    };
    let texts = chunk_texts(chunks, locating);
    let stamps: Vec<ChunkStamp> = texts.iter().map(ChunkText::stamp).collect();
    let digest = digest(&stamps);
    let at = Site { dir: &dir, chunks, locating, stamps: &stamps, dims: embedder.dims(), digest: &digest };
    let result = match read_manifest(&dir) {
        Err(why) => Err(why),
        Ok(m) if m.format != FORMAT || m.code != code_fingerprint() => {
            Err("written by another version of inquiry's analysis code".to_owned())
        }
        Ok(m) if m.embedder != embedder.fingerprint() => Err("written for other embedder weights".to_owned()),
        Ok(m) if m.digest == digest => {
            at.open(&m).map(|(keyword, vectors)| Loaded { keyword, vectors, opened: Opened::AsIs })
        }
        Ok(m) => at.update(&m, embed),
    };
    let loaded = match result {
        Ok(loaded) => loaded,
        Err(why) => {
            if dir.exists() {
                tracing::info!(dir = %dir.display(), reason = %why, "rebuilding the persisted retrieval index");
            }
            match at.rebuild(root, embedder, embed) {
                Ok(loaded) => loaded,
                Err(Fallback::Fatal(e)) => return Err(e),
                Err(Fallback::Disk(e)) => {
                    tracing::warn!(dir = %dir.display(), error = %e, "cannot write the persisted index; indexing in memory");
                    in_memory(chunks, locating, embedder, embed)?
                }
            }
        }
    };
    drop(lock);
    tracing::debug!(dir = %dir.display(), opened = ?loaded.opened, chunks = chunks.len(), "persisted index ready");
    Ok(loaded)
}

fn in_memory(
    chunks: &[Chunk],
    locating: &[&str],
    embedder: &dyn Embedder,
    embed: EmbedFn<'_>,
) -> Result<Loaded, RetrievalError> {
    let keyword = KeywordIndex::build_in(None, chunks, locating)?;
    let all: Vec<&Chunk> = chunks.iter().collect();
    let vectors = FlatStore::new(embedder.dims(), &embed(&all)?);
    Ok(Loaded { keyword, vectors: Vectors::Flat(vectors), opened: Opened::Built })
}

/// Hex SHA-256 of every chunk's stamp, in order.
fn digest(stamps: &[ChunkStamp]) -> String {
    let mut h = Sha256::new();
    for s in stamps {
        h.update(s.key.to_le_bytes());
        h.update(s.content);
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

fn lock(root: &Path, dir: &Path) -> std::io::Result<File> {
    std::fs::create_dir_all(root)?;
    let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let file = File::options().create(true).truncate(false).write(true).open(root.join(format!("{name}.lock")))?;
    file.lock()?;
    Ok(file)
}

fn read_manifest(dir: &Path) -> Result<Manifest, String> {
    if !dir.join(MARKER).is_file() {
        return Err("no index here yet".into());
    }
    let text = std::fs::read_to_string(dir.join("manifest.json")).map_err(|e| format!("manifest.json: {e}"))?;
    serde_json::from_str(&text).map_err(|e| format!("manifest.json: {e}"))
}

fn read_checked(dir: &Path, name: &str, crc: u32) -> Result<Vec<u8>, String> {
    let bytes = std::fs::read(dir.join(name)).map_err(|e| format!("{name}: {e}"))?;
    if crc32fast::hash(&bytes) != crc {
        return Err(format!("{name} does not match its checksum"));
    }
    Ok(bytes)
}

fn map_segment(dir: &Path, seg: &Segment, dims: usize) -> Result<FlatStore, String> {
    let name = &seg.file;
    if !name.starts_with("vectors-") || name.contains(['/', '\\']) {
        return Err(format!("the manifest names a segment {name:?}"));
    }
    let file = File::open(dir.join(name)).map_err(|e| format!("{name}: {e}"))?;
    // SAFETY: segment files are written once under a new name and never
    // changed afterwards, so the mapped bytes do not change under us; their
    // checksum is verified below before any is used.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| format!("{name}: {e}"))?;
    if crc32fast::hash(&map) != seg.crc32 {
        return Err(format!("{name} does not match its checksum"));
    }
    let head = map.get(..VECTORS_HEADER).ok_or(format!("{name} is truncated"))?;
    let word = |i: usize| u32::from_le_bytes([head[i], head[i + 1], head[i + 2], head[i + 3]]) as usize;
    let (d, n) = (word(8), word(12));
    if &head[..8] != VECTORS_MAGIC || d != dims || n != seg.rows || map.len() != VECTORS_HEADER + n * d * 8 {
        return Err(format!("{name} holds {n} × {d}, expected {} × {dims}", seg.rows));
    }
    FlatStore::mapped(dims, n, Arc::new(map), VECTORS_HEADER).ok_or_else(|| format!("{name} cannot be mapped"))
}

/// Writes `parts` to `dir/name` through a temporary file and a rename;
/// returns their CRC-32. No fsync: a file torn by a crash fails its CRC, and
/// the index is rebuilt.
fn write_atomic(dir: &Path, name: &str, parts: &[&[u8]]) -> std::io::Result<u32> {
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    let mut crc = crc32fast::Hasher::new();
    {
        let mut w = std::io::BufWriter::with_capacity(1 << 20, tmp.as_file_mut());
        for p in parts {
            w.write_all(p)?;
            crc.update(p);
        }
        w.flush()?;
    }
    tmp.persist(dir.join(name)).map_err(|e| e.error)?;
    Ok(crc.finalize())
}

/// Writes a new segment file of `vectors` (all `dims` long) and maps it.
fn write_segment(dir: &Path, number: usize, dims: usize, vectors: &FlatStore) -> std::io::Result<(Segment, FlatStore)> {
    let rows = vectors.data().len().checked_div(dims).unwrap_or(0);
    let mut head = Vec::with_capacity(VECTORS_HEADER);
    head.extend_from_slice(VECTORS_MAGIC);
    head.extend_from_slice(&(dims as u32).to_le_bytes());
    head.extend_from_slice(&(rows as u32).to_le_bytes());
    let file = format!("vectors-{number}.bin");
    let crc = write_atomic(
        dir,
        &file,
        &[&head, bytemuck::cast_slice(vectors.data()), bytemuck::cast_slice(vectors.columns())],
    )?;
    let seg = Segment { file, rows, crc32: crc };
    let mapped = map_segment(dir, &seg, dims).map_err(std::io::Error::other)?;
    Ok((seg, mapped))
}

fn rows_bytes(rows: &[(u32, u32)]) -> Vec<u8> {
    rows.iter().flat_map(|(s, r)| s.to_le_bytes().into_iter().chain(r.to_le_bytes())).collect()
}

fn next_number(segments: &[Segment]) -> usize {
    segments
        .iter()
        .filter_map(|s| s.file.strip_prefix("vectors-")?.strip_suffix(".bin")?.parse::<usize>().ok())
        .max()
        .map_or(0, |n| n + 1)
}

enum Fallback {
    /// Building failed (keyword index or embedder): nothing else would work.
    Fatal(RetrievalError),
    /// Writing to disk failed: an in-memory index still works.
    Disk(String),
}

/// One index directory and the catalogue it is for.
struct Site<'a> {
    dir: &'a Path,
    chunks: &'a [Chunk],
    locating: &'a [&'a str],
    stamps: &'a [ChunkStamp],
    dims: usize,
    digest: &'a str,
}

impl Site<'_> {
    fn manifest(&self, embedder: String, terms_crc32: u32, rows_crc32: u32, segments: Vec<Segment>) -> Manifest {
        Manifest {
            format: FORMAT,
            code: code_fingerprint(),
            embedder,
            dims: self.dims,
            chunks: self.chunks.len(),
            digest: self.digest.to_owned(),
            terms_crc32,
            rows_crc32,
            segments,
        }
    }

    fn vectors(&self, m: &Manifest) -> Result<SegmentedStore, String> {
        let segments: Vec<FlatStore> =
            m.segments.iter().map(|s| map_segment(self.dir, s, m.dims)).collect::<Result<_, _>>()?;
        let bytes = read_checked(self.dir, "rows.bin", m.rows_crc32)?;
        let rows: Vec<(u32, u32)> = bytes
            .chunks_exact(8)
            .map(|b| (u32::from_le_bytes([b[0], b[1], b[2], b[3]]), u32::from_le_bytes([b[4], b[5], b[6], b[7]])))
            .collect();
        if rows.len() != m.chunks || bytes.len() != m.chunks * 8 {
            return Err(format!("rows.bin holds {} rows for {} chunks", rows.len(), m.chunks));
        }
        SegmentedStore::new(m.dims, segments, rows).ok_or_else(|| "rows.bin points outside its segments".into())
    }

    fn open(&self, m: &Manifest) -> Result<(KeywordIndex, Vectors), String> {
        if m.chunks != self.chunks.len() || m.dims != self.dims {
            return Err(format!("the manifest names {} chunks of {} dims", m.chunks, m.dims));
        }
        let terms = TermTables::read(&read_checked(self.dir, "terms.bin", m.terms_crc32)?)
            .ok_or("terms.bin is not a term table")?;
        if terms.stamps() != self.stamps {
            return Err("terms.bin describes other chunks".into());
        }
        let keyword = KeywordIndex::open(&self.dir.join("keyword"), self.chunks, terms)
            .and_then(|k| k.validate().map(|()| k))
            .map_err(|e| format!("keyword index: {e}"))?;
        Ok((keyword, Vectors::Segmented(self.vectors(m)?)))
    }

    fn update(&self, m: &Manifest, embed: EmbedFn<'_>) -> Result<Loaded, String> {
        if m.dims != self.dims {
            return Err(format!("the index holds vectors of {} dims", m.dims));
        }
        let old_terms = TermTables::read(&read_checked(self.dir, "terms.bin", m.terms_crc32)?)
            .ok_or("terms.bin is not a term table")?;
        let old_vectors = self.vectors(m)?;
        if old_terms.len() != m.chunks {
            return Err("terms.bin and the manifest disagree".into());
        }
        let keyword =
            KeywordIndex::update(&self.dir.join("keyword"), &old_terms, self.chunks, self.locating, self.stamps)
                .map_err(|e| format!("keyword index update: {e}"))?;
        // Vectors: an unchanged chunk keeps its segment and row; the others
        // are embedded into one new segment.
        let old_rows: HashMap<ChunkStamp, usize> =
            old_terms.stamps().iter().enumerate().map(|(i, s)| (*s, i)).collect();
        let missing: Vec<usize> = (0..self.chunks.len()).filter(|&i| !old_rows.contains_key(&self.stamps[i])).collect();
        let wanted: Vec<&Chunk> = missing.iter().map(|&i| &self.chunks[i]).collect();
        let fresh = embed(&wanted).map_err(|e| format!("embedding: {e}"))?;
        let kept: HashSet<&ChunkStamp> = self.stamps.iter().collect();
        let changed = missing.len() + old_terms.stamps().iter().filter(|s| !kept.contains(s)).count();
        let mut segments = m.segments.clone();
        let mut mapped: Vec<FlatStore> = old_vectors.segments().to_vec();
        let new_segment = segments.len() as u32;
        if !fresh.is_empty() {
            let (seg, store) =
                write_segment(self.dir, next_number(&segments), self.dims, &FlatStore::new(self.dims, &fresh))
                    .map_err(|e| format!("writing a vector segment: {e}"))?;
            segments.push(seg);
            mapped.push(store);
        }
        let mut next_fresh = 0u32;
        let rows: Vec<(u32, u32)> = self
            .stamps
            .iter()
            .map(|s| match old_rows.get(s) {
                Some(&i) => old_vectors.rows()[i],
                None => {
                    next_fresh += 1;
                    (new_segment, next_fresh - 1)
                }
            })
            .collect();
        let mut store = SegmentedStore::new(self.dims, mapped, rows).ok_or("vector rows out of range")?;
        let mut obsolete = Vec::new();
        if store.dead_rows() * 4 > store.len() || segments.len() > MAX_SEGMENTS {
            // Compact: one segment with every live row, in chunk order.
            let all: Vec<Vec<f32>> = (0..store.len()).map(|i| store.vector(i).unwrap_or_default().to_vec()).collect();
            let (seg, one) =
                write_segment(self.dir, next_number(&segments), self.dims, &FlatStore::new(self.dims, &all))
                    .map_err(|e| format!("compacting the vector segments: {e}"))?;
            obsolete = std::mem::replace(&mut segments, vec![seg]);
            store = SegmentedStore::new(self.dims, vec![one], (0..store.len() as u32).map(|r| (0, r)).collect())
                .ok_or("vector rows out of range")?;
        }
        let written = (|| -> std::io::Result<()> {
            let terms_crc32 = write_atomic(self.dir, "terms.bin", &[&keyword.terms().write()])?;
            let rows_crc32 = write_atomic(self.dir, "rows.bin", &[&rows_bytes(store.rows())])?;
            let m = self.manifest(m.embedder.clone(), terms_crc32, rows_crc32, segments);
            write_atomic(self.dir, "manifest.json", &[serde_json::to_string_pretty(&m)?.as_bytes()])?;
            Ok(())
        })();
        written.map_err(|e| format!("writing the updated index: {e}"))?;
        // Segments no manifest names any more (ours: written under our names).
        for seg in obsolete {
            let _ = std::fs::remove_file(self.dir.join(seg.file));
        }
        Ok(Loaded { keyword, vectors: Vectors::Segmented(store), opened: Opened::Updated(changed) })
    }

    fn rebuild(&self, root: &Path, embedder: &dyn Embedder, embed: EmbedFn<'_>) -> Result<Loaded, Fallback> {
        let dir = self.dir;
        if dir.exists() && !dir.join(MARKER).is_file() {
            return Err(Fallback::Disk(format!(
                "{} exists and was not written by inquiry; it is left alone",
                dir.display()
            )));
        }
        let staging = tempfile::Builder::new()
            .prefix(".staging-")
            .tempdir_in(root)
            .map_err(|e| Fallback::Disk(format!("cannot create a staging directory in {}: {e}", root.display())))?;
        let disk = |e: std::io::Error| Fallback::Disk(e.to_string());
        let at = staging.path();
        std::fs::write(at.join(MARKER), b"A retrieval index written by inquiry (see manifest.json).\n")
            .map_err(disk)?;
        std::fs::create_dir(at.join("keyword")).map_err(disk)?;
        let keyword = KeywordIndex::build_in(Some(&at.join("keyword")), self.chunks, self.locating)
            .map_err(|e| Fallback::Fatal(e.into()))?;
        let all: Vec<&Chunk> = self.chunks.iter().collect();
        let vectors = FlatStore::new(self.dims, &embed(&all).map_err(Fallback::Fatal)?);
        let (seg, _) = write_segment(at, 0, self.dims, &vectors).map_err(disk)?;
        let rows: Vec<(u32, u32)> = (0..self.chunks.len() as u32).map(|r| (0, r)).collect();
        let terms_crc32 = write_atomic(at, "terms.bin", &[&keyword.terms().write()]).map_err(disk)?;
        let rows_crc32 = write_atomic(at, "rows.bin", &[&rows_bytes(&rows)]).map_err(disk)?;
        let m = self.manifest(embedder.fingerprint(), terms_crc32, rows_crc32, vec![seg]);
        let text = serde_json::to_string_pretty(&m).map_err(|e| Fallback::Disk(e.to_string()))?;
        write_atomic(at, "manifest.json", &[text.as_bytes()]).map_err(disk)?;
        // Swap: the old directory (ours: it has the marker) goes aside, then away.
        let staged = staging.keep();
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let aside = root.join(format!(".old-{}-{name}", std::process::id()));
        if dir.exists() {
            std::fs::rename(dir, &aside).map_err(disk)?;
        }
        if let Err(e) = std::fs::rename(&staged, dir) {
            let _ = std::fs::remove_dir_all(&staged);
            return Err(Fallback::Disk(e.to_string()));
        }
        if aside.join(MARKER).is_file() {
            let _ = std::fs::remove_dir_all(&aside);
        }
        // Reopen where the files now live (the staging paths are gone).
        let terms = keyword.terms().clone();
        drop(keyword);
        let keyword =
            KeywordIndex::open(&dir.join("keyword"), self.chunks, terms).map_err(|e| Fallback::Fatal(e.into()))?;
        let vectors = self.vectors(&m).map_err(Fallback::Disk)?;
        Ok(Loaded { keyword, vectors: Vectors::Segmented(vectors), opened: Opened::Built })
    }
}
