//! Which cases a run selects: subset, ids, tags and a stable shard.

use serde::{Deserialize, Serialize};

/// Which cases to run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Selection {
    /// Only cases marked `subset`.
    pub subset: bool,
    /// Only these ids (empty = all).
    pub case_ids: Vec<String>,
    /// Only cases with one of these tags (empty = all).
    pub tags: Vec<String>,
    /// Only this shard of the selected cases (`--shard i/n`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
}

/// A selection in words, e.g. `subset; tags pets` or `all cases`.
pub fn selection_words(s: &Selection) -> String {
    let mut parts = vec![];
    if s.subset {
        parts.push("subset".to_owned());
    }
    if !s.case_ids.is_empty() {
        parts.push(format!("cases {}", s.case_ids.join(", ")));
    }
    if !s.tags.is_empty() {
        parts.push(format!("tags {}", s.tags.join(", ")));
    }
    if let Some(shard) = &s.shard {
        parts.push(format!("shard {}/{}", shard.index, shard.count));
    }
    if parts.is_empty() {
        "all cases".into()
    } else {
        parts.join("; ")
    }
}

/// One of `count` stable parts of a suite (`--shard index/count`, 1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Shard {
    /// 1-based shard number.
    pub index: u32,
    /// Number of shards.
    pub count: u32,
}

impl Shard {
    /// Whether a case id belongs to this shard: the first 8 bytes of the
    /// SHA-256 of the id, modulo `count`, equal `index − 1`. Stable across
    /// machines, runs and suite edits (adding a case never moves another).
    pub fn contains(&self, case_id: &str) -> bool {
        use sha2::Digest as _;
        let digest = sha2::Sha256::digest(case_id.as_bytes());
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        u64::from_be_bytes(first) % u64::from(self.count.max(1)) == u64::from(self.index.saturating_sub(1))
    }

    /// The golden set runs in shard 1 only, so merged shards count it once.
    pub fn runs_golden(&self) -> bool {
        self.index == 1
    }
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let err = || format!("`{s}`: expected i/n with 1 <= i <= n <= 64, e.g. 2/3");
        let (i, n) = s.split_once('/').ok_or_else(err)?;
        let (index, count): (u32, u32) = (i.trim().parse().map_err(|_| err())?, n.trim().parse().map_err(|_| err())?);
        if index == 0 || count == 0 || index > count || count > 64 {
            return Err(err());
        }
        Ok(Self { index, count })
    }
}
