//! Model prices (`prices.json`): USD per million tokens by model id, for the
//! eval's cost metrics. An unknown model's cost is unknown, never 0.
//!
//! ```json
//! { "claude-sonnet-4-5": { "input": 3.0, "output": 15.0, "cacheRead": 0.3, "cacheWrite": 3.75 } }
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::agent::model::Usage;

/// Prices of one model, USD per million tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelPrice {
    /// Input tokens.
    pub input: f64,
    /// Output tokens.
    pub output: f64,
    /// Cache-read input tokens.
    #[serde(default)]
    pub cache_read: f64,
    /// Cache-write input tokens.
    #[serde(default)]
    pub cache_write: f64,
}

/// The price table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PriceTable {
    entries: BTreeMap<String, ModelPrice>,
}

impl PriceTable {
    /// Reads a price table; a missing default file is an empty table (every
    /// cost is then unmeasured), but a file named explicitly must exist.
    ///
    /// # Errors
    /// A missing explicit file, invalid JSON or fields, with the file and path.
    pub fn load_named(path: &Path, explicit: bool) -> anyhow::Result<Self> {
        if !path.exists() && explicit {
            anyhow::bail!("--prices {}: no such file; expected a price table (see prices.json)", path.display());
        }
        Self::load(path)
    }

    /// Reads a price table; a missing file is an empty table.
    ///
    /// # Errors
    /// Invalid JSON or fields, with the file and path.
    pub fn load(path: &Path) -> anyhow::Result<Self> {
        if !path.exists() {
            return Ok(Self::default());
        }
        let text =
            std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", path.display()))?;
        let entries: BTreeMap<String, ModelPrice> =
            crate::json_file::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        for (model, p) in &entries {
            for (field, v) in
                [("input", p.input), ("output", p.output), ("cacheRead", p.cache_read), ("cacheWrite", p.cache_write)]
            {
                if !v.is_finite() || v < 0.0 {
                    anyhow::bail!("{}: model `{model}`, field `{field}`: found {v}; expected a price >= 0 (USD per million tokens)", path.display());
                }
            }
        }
        Ok(Self { entries })
    }

    /// Cost in USD of `usage` on `model` (looked up by full id, then by the part
    /// after `provider:`); `None` when the model is not in the table. The
    /// offline `demo` and `scripted` models cost nothing.
    pub fn cost(&self, model: &str, usage: &Usage) -> Option<f64> {
        if matches!(model, "demo" | "scripted") || crate::eval::judge::similarity::is_rule_judge(model) {
            return Some(0.0);
        }
        let price =
            self.entries.get(model).or_else(|| model.split_once(':').and_then(|(_, id)| self.entries.get(id)))?;
        let m = 1_000_000.0;
        Some(
            usage.input as f64 * price.input / m
                + usage.output as f64 * price.output / m
                + usage.cache_read as f64 * price.cache_read / m
                + usage.cache_write as f64 * price.cache_write / m,
        )
    }
}
