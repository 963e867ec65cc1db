//! The analysed terms keyword coverage reads, per chunk, interned: one
//! vocabulary and flat arrays of term ids, so 100,000 chunks cost a few
//! megabytes and load from disk without building a hash set per chunk (#32).
//!
//! Per chunk position: its *own* terms (a listing sentence's own text; a
//! policy section's text with its page title and heading), its *title-only*
//! terms (the listing title's words the sentence lacks, place words left
//! out), and its *locating* group (the place words of its listing, or of
//! every listing for a policy chunk), all sorted ids. Document frequencies
//! count own terms. See [`super::bm25::KeywordIndex::coverage`].
//!
//! On disk (`terms.bin`, written by [`TermTables::write`]): magic `INQTRM1\n`,
//! then u32 LE counts and ids: vocabulary (length-prefixed UTF-8 terms),
//! chunk count, per chunk its id key (u64) and content hash (16 bytes), the
//! own and title-only lists (offsets, then ids), the locating group per
//! chunk, the groups (offsets, then ids).

use std::collections::HashMap;

use super::analyzer::analyze;

const MAGIC: &[u8; 8] = b"INQTRM1\n";

/// Sorted term ids, stored flat with offsets.
#[derive(Debug, Clone, Default, PartialEq)]
struct Lists {
    starts: Vec<u32>,
    ids: Vec<u32>,
}

impl Lists {
    fn push(&mut self, mut ids: Vec<u32>) {
        ids.sort_unstable();
        ids.dedup();
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        self.ids.extend(ids);
        self.starts.push(self.ids.len() as u32);
    }

    fn get(&self, i: usize) -> &[u32] {
        match (self.starts.get(i), self.starts.get(i + 1)) {
            (Some(&a), Some(&b)) => &self.ids[a as usize..b as usize],
            _ => &[],
        }
    }

    fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }
}

/// Identity of one indexed chunk: the key of its id (see [`chunk_key`]) and
/// a hash of everything its index entry is made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ChunkStamp {
    /// [`chunk_key`] of the chunk id.
    pub key: u64,
    /// First 16 bytes of the SHA-256 of the chunk id, index text, text and locating text.
    pub content: [u8; 16],
}

/// The 64-bit key of a text (first 8 bytes of its SHA-256).
pub fn text_key(text: &str) -> u64 {
    use sha2::{Digest, Sha256};
    let h = Sha256::digest(text.as_bytes());
    u64::from_le_bytes(h[..8].try_into().unwrap_or_default())
}

/// The 64-bit key of a chunk id (first 8 bytes of its SHA-256): what the
/// keyword index stores to find a hit's chunk and to delete an edited one.
pub fn chunk_key(id: &str) -> u64 {
    text_key(id)
}

/// The interned coverage terms of every chunk.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TermTables {
    vocab: Vec<String>,
    ids: HashMap<String, u32>,
    stamps: Vec<ChunkStamp>,
    own: Lists,
    title_only: Lists,
    locating: Vec<u32>,
    groups: Lists,
    /// [`text_key`] of each group's place text (to reuse groups).
    group_keys: Vec<u64>,
    /// Tokens of each chunk's index text (header and text) as the keyword
    /// index counts them: BM25's document lengths.
    tokens: Vec<u32>,
    /// Chunks whose own terms hold each term, by term id.
    doc_freq: Vec<u32>,
}

/// What one chunk's entry is made from.
pub struct ChunkText<'a> {
    /// Chunk id.
    pub id: &'a str,
    /// The chunk's text.
    pub text: &'a str,
    /// Its context header (the text before `text` in its index text).
    pub header: &'a str,
    /// Whether it belongs to a listing (else a policy section).
    pub listing: bool,
    /// Its locating place words (see [`super::bm25::KeywordIndex::build`]).
    pub locating: &'a str,
}

impl ChunkText<'_> {
    /// The stamp of this entry.
    pub fn stamp(&self) -> ChunkStamp {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        for part in [self.id, self.header, self.text, self.locating] {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        h.update([u8::from(self.listing)]);
        let d = h.finalize();
        ChunkStamp { key: chunk_key(self.id), content: d[..16].try_into().unwrap_or_default() }
    }
}

impl TermTables {
    fn intern(&mut self, term: String) -> u32 {
        if let Some(&id) = self.ids.get(&term) {
            return id;
        }
        let id = self.vocab.len() as u32;
        self.vocab.push(term.clone());
        self.ids.insert(term, id);
        id
    }

    /// Analyses every chunk; `stamps[i]` is `chunks[i].stamp()`. `reuse`
    /// offers an earlier table: its vocabulary and place-word groups are kept,
    /// and chunks with an unchanged stamp copy their entries, not re-analysed.
    pub fn build(chunks: &[ChunkText<'_>], stamps: &[ChunkStamp], reuse: Option<&TermTables>) -> Self {
        let mut t = Self::default();
        let mut old: HashMap<ChunkStamp, usize> = HashMap::new();
        let mut groups: HashMap<u64, u32> = HashMap::new();
        if let Some(r) = reuse {
            // Ids stay valid: the new table starts from the old vocabulary (a
            // term no chunk holds any more has document frequency 0, as an
            // unknown one).
            t.vocab = r.vocab.clone();
            t.ids = r.ids.clone();
            t.groups = r.groups.clone();
            t.group_keys = r.group_keys.clone();
            groups = r.group_keys.iter().enumerate().map(|(g, k)| (*k, g as u32)).collect();
            old = r.stamps.iter().enumerate().map(|(i, s)| (*s, i)).collect();
        }
        // Many chunks share one header (a listing's sentences) and one place
        // text (every policy section): analyse each distinct text once.
        let mut headers: HashMap<&str, (Vec<u32>, u32)> = HashMap::new();
        let mut group_of_text: HashMap<&str, u32> = HashMap::new();
        for (c, &stamp) in chunks.iter().zip(stamps) {
            t.stamps.push(stamp);
            let group = match group_of_text.get(c.locating) {
                Some(&g) => g,
                None => {
                    let key = text_key(c.locating);
                    let g = match groups.get(&key) {
                        Some(&g) => g,
                        None => {
                            let ids: Vec<u32> = analyze(c.locating).into_iter().map(|w| t.intern(w)).collect();
                            let g = t.groups.len() as u32;
                            t.groups.push(ids);
                            t.group_keys.push(key);
                            groups.insert(key, g);
                            g
                        }
                    };
                    group_of_text.insert(c.locating, g);
                    g
                }
            };
            t.locating.push(group);
            if let (Some(r), Some(&i)) = (reuse, old.get(&stamp)) {
                t.own.push(r.own.get(i).to_vec());
                t.title_only.push(r.title_only.get(i).to_vec());
                t.tokens.push(r.tokens[i]);
                continue;
            }
            let own: Vec<u32> = analyze(c.text).into_iter().map(|w| t.intern(w)).collect();
            let (header, header_tokens) = match headers.get(c.header) {
                Some(h) => h.clone(),
                None => {
                    let h: Vec<u32> = analyze(c.header).into_iter().map(|w| t.intern(w)).collect();
                    let n = h.len() as u32;
                    headers.insert(c.header, (h.clone(), n));
                    (h, n)
                }
            };
            // The header ends with a line break, so the index text's tokens
            // are the header's followed by the text's.
            t.tokens.push(header_tokens + own.len() as u32);
            let places = t.groups.get(group as usize).to_vec();
            if c.listing {
                // A listing's title heads every one of its sentences: its words say
                // which listing, not what this sentence says ("with balcony" made
                // "dates from 1912" a full match for "Does it have a balcony?").
                let title: Vec<u32> =
                    header.iter().copied().filter(|h| !own.contains(h) && places.binary_search(h).is_err()).collect();
                t.own.push(own);
                t.title_only.push(title);
            } else {
                let mut with_header = own;
                with_header.extend(header);
                t.own.push(with_header);
                t.title_only.push(vec![]);
            }
        }
        t.count_doc_freq();
        t
    }

    fn count_doc_freq(&mut self) {
        self.doc_freq = vec![0; self.vocab.len()];
        for &id in &self.own.ids {
            self.doc_freq[id as usize] += 1;
        }
    }

    /// Number of chunks.
    pub fn len(&self) -> usize {
        self.stamps.len()
    }

    /// True when there are no chunks.
    pub fn is_empty(&self) -> bool {
        self.stamps.is_empty()
    }

    /// The stamps, by chunk position.
    pub fn stamps(&self) -> &[ChunkStamp] {
        &self.stamps
    }

    /// The id of a term, when any table holds it.
    pub fn id(&self, term: &str) -> Option<u32> {
        self.ids.get(term).copied()
    }

    /// Chunks whose own terms hold `term` (0 for an unknown term).
    pub fn doc_freq(&self, term: &str) -> usize {
        self.id(term).map_or(0, |i| self.doc_freq[i as usize] as usize)
    }

    /// Tokens of chunk `i`'s index text (BM25's document length).
    pub fn tokens(&self, i: usize) -> u32 {
        self.tokens.get(i).copied().unwrap_or(0)
    }

    /// Tokens of every chunk's index text together.
    pub fn total_tokens(&self) -> u64 {
        self.tokens.iter().map(|&n| u64::from(n)).sum()
    }

    /// Whether chunk `i`'s own terms hold term id `t`.
    pub fn own_has(&self, i: usize, t: u32) -> bool {
        self.own.get(i).binary_search(&t).is_ok()
    }

    /// Whether chunk `i`'s title-only terms hold term id `t`.
    pub fn title_has(&self, i: usize, t: u32) -> bool {
        self.title_only.get(i).binary_search(&t).is_ok()
    }

    /// Whether term id `t` locates chunk `i` (a place word of its listing).
    pub fn locates(&self, i: usize, t: u32) -> bool {
        self.locating.get(i).is_some_and(|&g| self.groups.get(g as usize).binary_search(&t).is_ok())
    }

    /// Serialises the tables (see the module docs for the layout).
    pub fn write(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.own.ids.len() * 4 + self.stamps.len() * 32);
        out.extend_from_slice(MAGIC);
        put(&mut out, self.vocab.len());
        for term in &self.vocab {
            put(&mut out, term.len());
            out.extend_from_slice(term.as_bytes());
        }
        put(&mut out, self.stamps.len());
        for s in &self.stamps {
            out.extend_from_slice(&s.key.to_le_bytes());
            out.extend_from_slice(&s.content);
        }
        for lists in [&self.own, &self.title_only] {
            put_list(&mut out, lists);
        }
        put(&mut out, self.locating.len());
        for &g in &self.locating {
            put(&mut out, g as usize);
        }
        put_list(&mut out, &self.groups);
        for k in &self.group_keys {
            out.extend_from_slice(&k.to_le_bytes());
        }
        for &n in &self.tokens {
            put(&mut out, n as usize);
        }
        out
    }

    /// Reads tables written by [`Self::write`]; `None` when the bytes are not
    /// such a table (wrong magic, truncated, an id out of range, lists whose
    /// lengths disagree).
    pub fn read(bytes: &[u8]) -> Option<Self> {
        let mut r = Reader { bytes: bytes.strip_prefix(MAGIC)? };
        let mut t = Self::default();
        let terms = r.u32()? as usize;
        for _ in 0..terms {
            let n = r.u32()? as usize;
            let term = std::str::from_utf8(r.take(n)?).ok()?.to_owned();
            t.ids.insert(term.clone(), t.vocab.len() as u32);
            t.vocab.push(term);
        }
        if t.ids.len() != t.vocab.len() {
            return None;
        }
        let chunks = r.u32()? as usize;
        for _ in 0..chunks {
            let key = u64::from_le_bytes(r.take(8)?.try_into().ok()?);
            let content: [u8; 16] = r.take(16)?.try_into().ok()?;
            t.stamps.push(ChunkStamp { key, content });
        }
        t.own = r.lists(terms)?;
        t.title_only = r.lists(terms)?;
        let n = r.u32()? as usize;
        for _ in 0..n {
            t.locating.push(r.u32()?);
        }
        t.groups = r.lists(terms)?;
        for _ in 0..t.groups.len() {
            t.group_keys.push(u64::from_le_bytes(r.take(8)?.try_into().ok()?));
        }
        for _ in 0..chunks {
            t.tokens.push(r.u32()?);
        }
        let consistent = t.own.len() == chunks
            && t.title_only.len() == chunks
            && t.locating.len() == chunks
            && t.locating.iter().all(|&g| (g as usize) < t.groups.len())
            && r.bytes.is_empty();
        if !consistent {
            return None;
        }
        t.count_doc_freq();
        Some(t)
    }
}

fn put(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&(n as u32).to_le_bytes());
}

fn put_list(out: &mut Vec<u8>, lists: &Lists) {
    put(out, lists.starts.len());
    for &s in &lists.starts {
        put(out, s as usize);
    }
    put(out, lists.ids.len());
    for &i in &lists.ids {
        put(out, i as usize);
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.bytes.split_at_checked(n)?;
        self.bytes = rest;
        Some(head)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn lists(&mut self, terms: usize) -> Option<Lists> {
        let n = self.u32()? as usize;
        let mut starts = Vec::with_capacity(n.min(self.bytes.len() / 4));
        for _ in 0..n {
            starts.push(self.u32()?);
        }
        let m = self.u32()? as usize;
        let mut ids = Vec::with_capacity(m.min(self.bytes.len() / 4));
        for _ in 0..m {
            let id = self.u32()?;
            if id as usize >= terms {
                return None;
            }
            ids.push(id);
        }
        let ordered = starts.windows(2).all(|w| w[0] <= w[1])
            && starts.first().is_none_or(|&s| s == 0)
            && starts.last().is_none_or(|&s| s as usize == ids.len());
        ordered.then_some(Lists { starts, ids })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(texts: &[ChunkText<'_>], reuse: Option<&TermTables>) -> TermTables {
        let stamps: Vec<ChunkStamp> = texts.iter().map(ChunkText::stamp).collect();
        TermTables::build(texts, &stamps, reuse)
    }

    fn texts() -> Vec<ChunkText<'static>> {
        vec![
            ChunkText {
                id: "HH-1001#s1",
                text: "The building dates from 1912.",
                header: "Bright apartment with balcony in Altona\n",
                listing: true,
                locating: "HH-1001 Altona Hamburg",
            },
            ChunkText {
                id: "HH-1001#s2",
                text: "The balcony faces south.",
                header: "Bright apartment with balcony in Altona\n",
                listing: true,
                locating: "HH-1001 Altona Hamburg",
            },
            ChunkText {
                id: "policy:pets#dogs",
                text: "Dogs need the landlord's consent.",
                header: "Pets\nDogs\n",
                listing: false,
                locating: "HH-1001 Altona Hamburg",
            },
        ]
    }

    #[test]
    fn tables_hold_each_chunks_terms_and_round_trip_through_bytes() {
        let t = build(&texts(), None);
        let balcony = t.id(&analyze("balcony")[0]).unwrap();
        assert!(!t.own_has(0, balcony) && t.title_has(0, balcony), "the title's word is title-only for s1");
        assert!(t.own_has(1, balcony) && !t.title_has(1, balcony));
        let altona = t.id(&analyze("Altona")[0]).unwrap();
        assert!(t.locates(0, altona) && !t.title_has(0, altona), "place words locate, they are not title words");
        let pets = t.id(&analyze("pets")[0]).unwrap();
        assert!(t.own_has(2, pets), "a policy section's heading counts as its own words");
        assert_eq!(t.doc_freq(&analyze("balcony")[0]), 1);
        assert_eq!(t.doc_freq("no-such-term"), 0);
        let back = TermTables::read(&t.write()).unwrap();
        assert_eq!(back, t);
    }

    #[test]
    fn reused_entries_equal_fresh_ones_and_damaged_bytes_are_refused() {
        let fresh = build(&texts(), None);
        let mut edited = texts();
        edited[1].text = "The balcony faces west.";
        let first = build(&edited, None);
        let incremental = build(&texts(), Some(&first));
        for i in 0..3 {
            let words = |t: &TermTables, i: usize| -> Vec<String> {
                let mut v: Vec<String> = t.own.get(i).iter().map(|&x| t.vocab[x as usize].clone()).collect();
                v.sort();
                v
            };
            assert_eq!(words(&incremental, i), words(&fresh, i), "chunk {i}");
        }
        assert_eq!(incremental.stamps(), fresh.stamps());
        let bytes = fresh.write();
        assert!(TermTables::read(&bytes[..bytes.len() - 3]).is_none(), "truncated");
        let mut bad = bytes.clone();
        bad[0] = b'X';
        assert!(TermTables::read(&bad).is_none(), "wrong magic");
        let mut extra = bytes;
        extra.push(0);
        assert!(TermTables::read(&extra).is_none(), "trailing bytes");
    }
}
