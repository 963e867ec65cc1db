//! A report set on disk: one directory written as a unit.
//!
//! `<out>/<name>/` holds `report.md`, `report.json`, `report.html`,
//! `cases/<case-id>.json` (one trace per case) and a marker file
//! `.inquiry-report` listing what this tool wrote. The set is built in a
//! staging directory beside it (`<out>/.<name>.staging-<pid>`) and swapped in
//! with one rename (an atomic exchange on Linux), so a reader sees the old set
//! or the new one, never a mix, and a failure leaves the old set untouched.
//!
//! Safety rules: a directory without the marker is never written into or
//! deleted (it holds files this tool did not write); only staging
//! directories that carry the marker are cleaned up.
//!
//! Ad-hoc runs default to `runs/<UTC time>-<name>/` (git-ignored) with a
//! `runs/latest` symlink; committed reports are written only when asked for
//! (`--out reports --name eval`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// File name of the marker that says a directory is a report set of ours.
pub const MARKER: &str = ".inquiry-report";
/// Directory of ad-hoc runs when `--out` is not given.
pub const RUNS_DIR: &str = "runs";

/// What the marker file holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Marker {
    /// Always `inquiry`.
    pub tool: String,
    /// What kind of set: `eval`, `judge-check`, `compare`, `rescore`, `merge`.
    pub kind: String,
    /// Files written, relative to the set directory.
    pub files: Vec<String>,
}

/// Where a report set goes, resolved before any work starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Destination {
    /// The set directory (`<out>/<name>`).
    pub dir: PathBuf,
    /// Whether `runs/latest` should point here afterwards.
    pub update_latest: bool,
}

/// Resolves `--out`/`--name`: with `out`, the set is `<out>/<name>`; without,
/// `runs/<YYYYmmdd-HHMMSS>-<name>`.
///
/// # Errors
/// A name that is not a plain file name, `out` naming a file, or an existing
/// set directory that lacks the marker (it holds files this tool did not
/// write; listing a few of them).
pub fn destination(out: Option<&Path>, name: &str, now: chrono::DateTime<chrono::Utc>) -> anyhow::Result<Destination> {
    if name.is_empty() || name.contains(['/', '\\']) || name.starts_with('.') || name.chars().any(char::is_control) {
        anyhow::bail!("--name {name:?}: expected a plain file name without slashes or a leading dot");
    }
    let (dir, update_latest) = match out {
        Some(out) => {
            if out.exists() && !out.is_dir() {
                anyhow::bail!("--out {}: is a file; expected a directory for the reports", out.display());
            }
            (out.join(name), false)
        }
        None => (Path::new(RUNS_DIR).join(format!("{}-{name}", now.format("%Y%m%d-%H%M%S"))), true),
    };
    check_ours(&dir)?;
    Ok(Destination { dir, update_latest })
}

/// Fails when `dir` exists and is not a report set of ours.
///
/// # Errors
/// Naming the directory and a few of the files in it.
pub fn check_ours(dir: &Path) -> anyhow::Result<()> {
    match std::fs::symlink_metadata(dir) {
        Err(_) => Ok(()),
        Ok(m) if !m.is_dir() => {
            anyhow::bail!("{}: exists and is not a directory; choose another --name or --out", dir.display())
        }
        Ok(_) if dir.join(MARKER).is_file() => Ok(()),
        Ok(_) => {
            let mut names: Vec<String> = std::fs::read_dir(dir)
                .map(|e| e.filter_map(Result::ok).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
                .unwrap_or_default();
            if names.is_empty() {
                return Ok(());
            }
            names.sort();
            let more = if names.len() > 3 { format!(" and {} more", names.len() - 3) } else { String::new() };
            names.truncate(3);
            anyhow::bail!(
                "{}: holds files this tool did not write ({}{more}); not touched. Choose another --name or --out",
                dir.display(),
                names.join(", ")
            )
        }
    }
}

/// A report set being written: files go into a staging directory until
/// [`Staging::commit`] swaps it in. Dropping it without committing removes
/// the staging directory (the old set stays).
#[derive(Debug)]
pub struct Staging {
    target: PathBuf,
    dir: PathBuf,
    kind: String,
    files: Vec<String>,
    update_latest: bool,
    committed: bool,
}

impl Staging {
    /// Creates the staging directory beside the destination (this is also
    /// the check that the output directory is writable), after removing
    /// staging directories of ours that an interrupted run left behind.
    ///
    /// # Errors
    /// The output directory cannot be created or written.
    pub fn begin(dest: &Destination, kind: &str) -> anyhow::Result<Self> {
        let parent = dest.dir.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        std::fs::create_dir_all(parent)
            .map_err(|e| anyhow::anyhow!("{}: cannot create the output directory: {e}", parent.display()))?;
        let name = dest.dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let prefix = format!(".{name}.staging-");
        if let Ok(entries) = std::fs::read_dir(parent) {
            for e in entries.filter_map(Result::ok) {
                let p = e.path();
                if e.file_name().to_string_lossy().starts_with(&prefix) && p.join(MARKER).is_file() {
                    let _ = std::fs::remove_dir_all(&p);
                }
            }
        }
        let dir = parent.join(format!("{prefix}{}", std::process::id()));
        std::fs::create_dir_all(dir.join("cases"))
            .map_err(|e| anyhow::anyhow!("{}: cannot write here: {e}", parent.display()))?;
        let s = Self {
            target: dest.dir.clone(),
            dir,
            kind: kind.into(),
            files: vec![],
            update_latest: dest.update_latest,
            committed: false,
        };
        s.write_marker()?;
        Ok(s)
    }

    /// The final directory of the set.
    pub fn target(&self) -> &Path {
        &self.target
    }

    fn write_marker(&self) -> anyhow::Result<()> {
        let marker = Marker { tool: "inquiry".into(), kind: self.kind.clone(), files: self.files.clone() };
        let path = self.dir.join(MARKER);
        std::fs::write(&path, serde_json::to_string_pretty(&marker)? + "\n")
            .map_err(|e| anyhow::anyhow!("{}: write failed: {e}", path.display()))
    }

    /// Whether `rel` was already written into this set.
    pub fn contains(&self, rel: &str) -> bool {
        self.files.iter().any(|f| f == rel)
    }

    /// Reads back a file written into the staging directory.
    ///
    /// # Errors
    /// The file cannot be read (naming it).
    pub fn read(&self, rel: &str) -> anyhow::Result<Vec<u8>> {
        let path = self.dir.join(rel);
        std::fs::read(&path).map_err(|e| anyhow::anyhow!("{}: cannot read back: {e}", path.display()))
    }

    /// Writes one file of the set (`rel` such as `report.md` or `cases/x.json`).
    ///
    /// # Errors
    /// I/O errors (a full disk, a name too long for the file system), naming the file.
    pub fn write(&mut self, rel: &str, bytes: &[u8]) -> anyhow::Result<()> {
        let path = self.dir.join(rel);
        if let Some(p) = path.parent() {
            std::fs::create_dir_all(p).map_err(|e| anyhow::anyhow!("{}: cannot create: {e}", p.display()))?;
        }
        std::fs::write(&path, bytes)
            .map_err(|e| anyhow::anyhow!("{}: write failed: {e}", self.target.join(rel).display()))?;
        self.files.push(rel.to_owned());
        Ok(())
    }

    /// Swaps the staged set in for the old one (if any) and removes the old
    /// one; then points `runs/latest` at it for ad-hoc runs.
    ///
    /// # Errors
    /// The rename fails (the old set is then still in place).
    pub fn commit(mut self) -> anyhow::Result<PathBuf> {
        self.write_marker()?;
        // Permissions like any new file: a staging dir would otherwise stay as created.
        check_ours(&self.target)?;
        if self.target.exists() {
            exchange(&self.dir, &self.target)?;
            // `self.dir` now holds the old set, which carries our marker.
            let _ = std::fs::remove_dir_all(&self.dir);
        } else {
            std::fs::rename(&self.dir, &self.target).map_err(|e| {
                anyhow::anyhow!("{}: cannot move the report set into place: {e}", self.target.display())
            })?;
        }
        self.committed = true;
        if self.update_latest {
            point_latest(&self.target);
        }
        Ok(self.target.clone())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Atomically exchanges two directories (Linux `renameat2(RENAME_EXCHANGE)`);
/// elsewhere the old one is renamed aside first.
fn exchange(new: &Path, old: &Path) -> anyhow::Result<()> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{renameat_with, RenameFlags, CWD};
        match renameat_with(CWD, new, CWD, old, RenameFlags::EXCHANGE) {
            Ok(()) => return Ok(()),
            // Some file systems do not support the exchange: fall through.
            Err(e) if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS => {}
            Err(e) => anyhow::bail!("{}: cannot swap the report set into place: {e}", old.display()),
        }
    }
    let aside = old.with_extension(format!("old-{}", std::process::id()));
    std::fs::rename(old, &aside)
        .map_err(|e| anyhow::anyhow!("{}: cannot move the old set aside: {e}", old.display()))?;
    if let Err(e) = std::fs::rename(new, old) {
        let _ = std::fs::rename(&aside, old);
        anyhow::bail!("{}: cannot move the report set into place: {e}", old.display());
    }
    std::fs::rename(&aside, new).map_err(|e| anyhow::anyhow!("{}: {e}", new.display()))
}

/// Points `<runs>/latest` at `dir` (a relative symlink replaced atomically).
fn point_latest(dir: &Path) {
    #[cfg(unix)]
    {
        let Some(parent) = dir.parent() else { return };
        let Some(name) = dir.file_name() else { return };
        let tmp = parent.join(format!(".latest-{}", std::process::id()));
        let _ = std::fs::remove_file(&tmp);
        if std::os::unix::fs::symlink(name, &tmp).is_ok() && std::fs::rename(&tmp, parent.join("latest")).is_err() {
            let _ = std::fs::remove_file(&tmp);
        }
    }
}

/// Fails before a run when a file that will be written outside the set
/// cannot be: it is a directory, its directory is missing, or it is read-only.
///
/// # Errors
/// Naming the flag or variable and the path.
pub fn check_writable_file(what: &str, path: &Path) -> anyhow::Result<()> {
    if path.is_dir() {
        anyhow::bail!("{what} {}: is a directory; expected a file path", path.display());
    }
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !parent.is_dir() {
        anyhow::bail!("{what} {}: the directory {} does not exist", path.display(), parent.display());
    }
    if let Ok(m) = std::fs::metadata(path) {
        use std::os::unix::fs::FileTypeExt as _;
        let t = m.file_type();
        // A FIFO would block the run at its very end; a socket or block device is no report.
        if t.is_fifo() || t.is_socket() || t.is_block_device() {
            anyhow::bail!("{what} {}: not a regular file; expected a file path", path.display());
        }
        let opens = t.is_file() && std::fs::OpenOptions::new().append(true).open(path).is_ok();
        if m.permissions().readonly() || (t.is_file() && !opens) {
            anyhow::bail!("{what} {}: the file is read-only", path.display());
        }
    } else if let Err(e) = tempfile::Builder::new().prefix(".inquiry-probe").tempfile_in(parent) {
        // A real probe: permission bits say nothing to root, nor about /proc or a read-only mount.
        anyhow::bail!("{what} {}: cannot create a file in {}: {e}", path.display(), parent.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_is_replaced_as_a_unit_and_foreign_directories_are_refused() {
        let out = tempfile::tempdir().unwrap();
        let dest = destination(Some(out.path()), "eval", chrono::Utc::now()).unwrap();
        let mut s = Staging::begin(&dest, "eval").unwrap();
        s.write("report.md", b"one").unwrap();
        s.write("cases/a.json", b"{}").unwrap();
        s.commit().unwrap();
        assert_eq!(std::fs::read_to_string(out.path().join("eval/report.md")).unwrap(), "one");

        // A failed second run (dropped before commit) leaves the first set whole.
        let mut s = Staging::begin(&dest, "eval").unwrap();
        s.write("report.md", b"two").unwrap();
        drop(s);
        assert_eq!(std::fs::read_to_string(out.path().join("eval/report.md")).unwrap(), "one");
        assert!(out.path().join("eval/cases/a.json").exists());

        let mut s = Staging::begin(&dest, "eval").unwrap();
        s.write("report.md", b"three").unwrap();
        s.commit().unwrap();
        assert_eq!(std::fs::read_to_string(out.path().join("eval/report.md")).unwrap(), "three");
        assert!(!out.path().join("eval/cases/a.json").exists(), "the old set went as a whole");
        let left: Vec<_> = std::fs::read_dir(out.path()).unwrap().filter_map(Result::ok).collect();
        assert_eq!(left.len(), 1, "no staging directory left: {left:?}");

        std::fs::create_dir(out.path().join("data")).unwrap();
        std::fs::write(out.path().join("data/listings.json"), "[]").unwrap();
        let e = destination(Some(out.path()), "data", chrono::Utc::now()).unwrap_err().to_string();
        assert!(e.contains("did not write") && e.contains("listings.json"), "{e}");
        assert!(out.path().join("data/listings.json").exists());
    }
}
