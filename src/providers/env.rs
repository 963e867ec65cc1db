//! Provider settings from the environment and a `.env` file in the working
//! directory. Variables already set in the process win over the file; the
//! file is read, never written into the process environment.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

/// Looked-up settings: process environment over `.env`.
#[derive(Clone, Default)]
pub struct Env {
    vars: BTreeMap<String, String>,
}

impl fmt::Debug for Env {
    /// Names only: values may be keys.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Env").field("names", &self.vars.keys().collect::<Vec<_>>()).finish()
    }
}

impl Env {
    /// The process environment over `<dir>/.env` (when that file exists).
    ///
    /// # Errors
    /// An unreadable or unparsable `.env`, naming the file and line but never
    /// quoting it (it may hold a key).
    pub fn load(dir: &Path) -> anyhow::Result<Self> {
        let mut vars = read_dotenv(&dir.join(".env"))?;
        for (name, value) in std::env::vars_os() {
            if let (Ok(name), Ok(value)) = (name.into_string(), value.into_string()) {
                vars.insert(name, value);
            }
        }
        Ok(Self { vars })
    }

    /// Settings from explicit pairs only (tests, embedding).
    pub fn from_pairs<K: Into<String>, V: Into<String>>(pairs: impl IntoIterator<Item = (K, V)>) -> Self {
        Self { vars: pairs.into_iter().map(|(k, v)| (k.into(), v.into())).collect() }
    }

    /// The same settings with `name` set to `value` (command-line flags win
    /// over the environment and `.env`).
    pub fn with(mut self, name: &str, value: &str) -> Self {
        self.vars.insert(name.to_owned(), value.to_owned());
        self
    }

    /// The value of `name`; an empty value counts as unset.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars.get(name).map(|v| v.trim()).filter(|v| !v.is_empty())
    }
}

/// Reads a `.env` file into a map; a missing file is an empty map.
fn read_dotenv(path: &Path) -> anyhow::Result<BTreeMap<String, String>> {
    if !path.exists() {
        return Ok(BTreeMap::new());
    }
    let text = std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", path.display()))?;
    let mut vars = BTreeMap::new();
    for item in dotenvy::from_read_iter(text.as_bytes()) {
        match item {
            Ok((name, value)) => {
                vars.insert(name, value);
            }
            Err(dotenvy::Error::LineParse(line, index)) => {
                let number = text
                    .lines()
                    .position(|l| l.trim_end() == line.trim_end())
                    .map(|n| format!("line {}", n + 1))
                    .unwrap_or_else(|| "a line".into());
                anyhow::bail!(
                    "{}: {number} does not parse as NAME=value (at character {}; the line is not shown because it may hold a key)",
                    path.display(),
                    index + 1
                );
            }
            Err(e) => anyhow::bail!("{}: cannot read: {}", path.display(), error_kind(&e)),
        }
    }
    Ok(vars)
}

/// A dotenvy error without any quoted content.
fn error_kind(e: &dotenvy::Error) -> &'static str {
    match e {
        dotenvy::Error::Io(_) => "I/O error",
        dotenvy::Error::EnvVar(_) => "a variable it refers to is not valid",
        _ => "invalid contents",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotenv_values_are_read_and_process_values_win() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".env"), "# keys\nINQUIRY_TEST_DOTENV_ONLY=from-file\nPATH=from-file\n")
            .unwrap();
        let env = Env::load(dir.path()).unwrap();
        assert_eq!(env.get("INQUIRY_TEST_DOTENV_ONLY"), Some("from-file"));
        assert_ne!(env.get("PATH"), Some("from-file"));
        assert!(std::env::var_os("INQUIRY_TEST_DOTENV_ONLY").is_none(), "the process environment is not written");
    }

    #[test]
    fn a_bad_line_is_named_but_not_quoted() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".env"), "A=1\nSECRET_KEY='sk-unterminated\n").unwrap();
        let err = Env::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains(".env"), "{err}");
        assert!(!err.contains("sk-unterminated"), "{err}");
    }

    #[test]
    fn missing_file_and_empty_values() {
        let dir = tempfile::tempdir().unwrap();
        assert!(Env::load(dir.path()).is_ok());
        let env = Env::from_pairs([("A", ""), ("B", " x ")]);
        assert_eq!(env.get("A"), None);
        assert_eq!(env.get("B"), Some("x"));
        assert!(!format!("{env:?}").contains('x'));
    }
}
