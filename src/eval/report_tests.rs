//! Tests of the report set writing (`eval::report`).

use std::os::unix::fs::PermissionsExt as _;

use super::*;

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

#[test]
fn keeps_permissions_follows_symlinks_and_refuses_read_only_files() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.json");
    std::fs::write(&file, "old").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
    write_atomic(&file, b"new").unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "new");
    assert_eq!(mode(&file), 0o640, "existing mode kept");

    let fresh = dir.path().join("sub/report.md");
    write_atomic(&fresh, b"x").unwrap();
    assert_ne!(mode(&fresh), 0o600, "a new report is not private to the writer");

    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&file, &link).unwrap();
    write_atomic(&link, b"via link").unwrap();
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link stays");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "via link");

    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).unwrap();
    let e = write_atomic(&file, b"lost").unwrap_err().to_string();
    assert!(e.contains("read-only"), "{e}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "via link", "left untouched");
}
