//! Reading the text files users hand us (catalogue, cases, golden set,
//! labels, config): regular files only, a size cap, a UTF-8 byte-order mark
//! accepted everywhere, YAML with bounded aliases and nesting, an id → line
//! index built in one pass, and the safe-id rule for anything that becomes a
//! file name.

use std::collections::HashMap;
use std::io::Read as _;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};

/// Largest input file read (bytes): 64 MiB.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// Most YAML alias uses (`*name`) in one file.
pub const MAX_YAML_ALIASES: usize = 256;
/// Deepest YAML nesting accepted (flow brackets, or block indentation steps).
pub const MAX_YAML_DEPTH: usize = 64;

/// Reads a regular file as UTF-8, without a leading byte-order mark.
///
/// # Errors
/// A message without the path (callers add it): not found, not a regular
/// file (a FIFO or device would block or never end), larger than
/// [`MAX_FILE_BYTES`], or not UTF-8.
pub fn read(path: &Path) -> Result<String, String> {
    read_at_most(path, MAX_FILE_BYTES)
}

/// [`read`] with another size limit (bytes): a catalogue's `listings.json`
/// may hold 100,000 listings (about 110 MB).
///
/// # Errors
/// As [`read`], with `max` for the size.
pub fn read_at_most(path: &Path, max: u64) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot read: {e}"))?;
    if !meta.is_file() {
        return Err("is not a regular file; expected a text file".into());
    }
    if meta.len() > max {
        return Err(format!("is {} bytes; at most {max} are read", meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(path)
        .and_then(|f| f.take(max + 1).read_to_end(&mut bytes))
        .map_err(|e| format!("cannot read: {e}"))?;
    let text = String::from_utf8(bytes)
        .map_err(|e| format!("not valid UTF-8 (byte {}); expected a UTF-8 text file", e.utf8_error().valid_up_to()))?;
    Ok(strip_bom(&text).to_owned())
}

/// Whether two paths name the same file: the same inode when both exist,
/// else the same absolute path (`./a.svg` and `a.svg`, a link and its target).
/// Used to refuse an output that would overwrite one of the inputs.
pub fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
        return x.dev() == y.dev() && x.ino() == y.ino();
    }
    let absolute = |p: &Path| -> Option<std::path::PathBuf> {
        let parent = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        Some(std::fs::canonicalize(parent).ok()?.join(p.file_name()?))
    };
    match (absolute(a), absolute(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// The text without a leading UTF-8 byte-order mark.
pub fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Parses YAML after checking alias uses and nesting depth, so a small file
/// cannot expand into gigabytes or recurse for minutes.
///
/// # Errors
/// A message with the line (and column where the parser gives one).
pub fn yaml<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    check_yaml_shape(text)?;
    yaml_serde::from_str(strip_bom(text)).map_err(|e| {
        let msg = e.to_string();
        match e.location() {
            // The parser's message may already end with "at line L column C".
            Some(l) => {
                let msg = strip_location_suffix(&msg);
                format!("line {}, column {}: {}", l.line(), l.column(), clean_type_names(msg))
            }
            None => clean_type_names(&msg),
        }
    })
}

fn strip_location_suffix(msg: &str) -> &str {
    match msg.rfind(" at line ") {
        Some(i) if msg[i + 9..].split_whitespace().next().is_some_and(|n| n.chars().all(|c| c.is_ascii_digit())) => {
            &msg[..i]
        }
        _ => msg,
    }
}

/// Replaces Rust type names in serde messages with words ("expected struct
/// Bounds" → "expected a mapping").
pub fn clean_type_names(msg: &str) -> String {
    static STRUCT: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"\b(struct|enum) [A-Z]\w*").expect("valid pattern"));
    let msg = STRUCT.replace_all(msg, |c: &regex::Captures<'_>| {
        if &c[1] == "struct" {
            "a mapping".to_owned()
        } else {
            "one of the listed values".to_owned()
        }
    });
    msg.replace("a sequence", "a list").replace("invalid type: unit value", "invalid type: null")
}

/// A line that opens a block scalar (`reply: |-`, `- >`): the lines after
/// it that are indented deeper are text, not YAML.
static BLOCK_SCALAR: std::sync::LazyLock<regex::Regex> =
    std::sync::LazyLock::new(|| regex::Regex::new(r"(^|[:\-]\s+)[|>][-+0-9]*\s*(#.*)?$").expect("constant regex"));

/// Counts alias uses and nesting outside quoted scalars, block scalars
/// (a reply's markdown "- **Heating:**" is text, not an alias) and comments.
fn check_yaml_shape(text: &str) -> Result<(), String> {
    let mut aliases = 0usize;
    let mut block: Option<usize> = None;
    for (n, line) in text.lines().enumerate() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        if let Some(opened_at) = block {
            if line.trim().is_empty() || indent > opened_at {
                continue;
            }
            block = None;
        }
        if BLOCK_SCALAR.is_match(line.trim_end()) {
            block = Some(indent);
        }
        if indent / 2 > MAX_YAML_DEPTH * 2 {
            return Err(format!(
                "line {}: indented {indent} columns; at most {MAX_YAML_DEPTH} nesting levels are accepted",
                n + 1
            ));
        }
        let mut depth = 0usize;
        let mut quote: Option<char> = None;
        let mut prev = ' ';
        for c in line.chars() {
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None => match c {
                    '#' if prev.is_whitespace() => break,
                    '"' | '\'' if matches!(prev, ' ' | '[' | '{' | ',' | ':' | '-') => quote = Some(c),
                    '[' | '{' => {
                        depth += 1;
                        if depth > MAX_YAML_DEPTH {
                            return Err(format!("line {}: nested deeper than {MAX_YAML_DEPTH} levels", n + 1));
                        }
                    }
                    ']' | '}' => depth = depth.saturating_sub(1),
                    '*' if matches!(prev, ' ' | '[' | ',' | '-' | ':') => {
                        aliases += 1;
                        if aliases > MAX_YAML_ALIASES {
                            return Err(format!(
                                "line {}: more than {MAX_YAML_ALIASES} YAML aliases (*name) in one file; write the items out or split the file",
                                n + 1
                            ));
                        }
                    }
                    _ => {}
                },
            }
            prev = c;
        }
    }
    Ok(())
}

/// Lines (1-based) of every `id:` key, by id, built in one pass over the text
/// (the old per-case rescan was quadratic in the number of cases).
pub fn id_lines(text: &str) -> HashMap<String, Vec<usize>> {
    let mut out: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let l = line.trim_start().trim_start_matches('-').trim_start();
        if let Some(v) = l.strip_prefix("id:") {
            let id = v.split(" #").next().unwrap_or("").trim().trim_matches(['"', '\'']);
            out.entry(id.to_owned()).or_default().push(i + 1);
        }
    }
    out
}

/// Longest id accepted (characters): a trace file `<id>.json` fits every file system.
pub const MAX_ID_LEN: usize = 100;

/// What a safe id looks like, for error messages.
pub const SAFE_ID_RULE: &str =
    "expected lower-case letters, digits and hyphens, starting with a letter or digit, at most 100 characters (it becomes a file name)";

/// Whether `id` matches `[a-z0-9][a-z0-9-]*` and is at most [`MAX_ID_LEN`] long.
pub fn is_safe_id(id: &str) -> bool {
    let mut chars = id.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_lowercase() || c.is_ascii_digit())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && id.len() <= MAX_ID_LEN
}

/// A value from user input made safe to echo on a terminal: control
/// characters (escape sequences, backspaces, …) shown escaped (`\u{1b}`), and
/// the text cut to `max_chars` with a note of how much was left out.
pub fn escape_for_terminal(s: &str, max_chars: usize) -> String {
    let mut out = String::new();
    for (shown, c) in s.chars().enumerate() {
        if shown >= max_chars {
            let rest = s.chars().count() - shown;
            out.push_str(&format!("… ({rest} more characters)"));
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// A whole text (a report, a table) made safe for a terminal: line breaks
/// and tabs stay, every other control character (escape sequences that could
/// rewrite the screen or the title) is shown escaped. Nothing is cut.
pub fn printable(s: &str) -> String {
    if !s.chars().any(|c| c.is_control() && c != '\n' && c != '\t') {
        return s.to_owned();
    }
    s.chars()
        .map(|c| if c.is_control() && c != '\n' && c != '\t' { c.escape_default().collect() } else { c.to_string() })
        .collect()
}

/// Deserializes a string that must not be null (`~`, `null` or an empty
/// value in YAML): serde would otherwise read `inquiry: ~` as the text "~".
/// `field` is named in the error because the YAML parser reports such an
/// error at the enclosing mapping, whose path lacks the field.
///
/// # Errors
/// "`<field>`: expected a string, found null".
pub fn non_null_string<'de, D: Deserializer<'de>>(d: D, field: &'static str) -> Result<String, D::Error> {
    struct NonNull(&'static str);
    impl<'de> serde::de::Visitor<'de> for NonNull {
        type Value = String;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a string")
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<String, E> {
            Err(E::custom(format!("`{}`: expected a string, found null", self.0)))
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<String, E> {
            self.visit_none()
        }
        fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<String, D2::Error> {
            String::deserialize(d)
        }
    }
    d.deserialize_option(NonNull(field))
}

/// `deserialize_with` adapters of [`non_null_string`], one per field name.
pub mod non_null {
    use serde::Deserializer;

    macro_rules! fields {
        ($($name:ident),*) => {$(
            #[doc = concat!("A non-null string field `", stringify!($name), "`.")]
            pub fn $name<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
                super::non_null_string(d, stringify!($name))
            }
        )*};
    }
    fields!(id, inquiry, text, reply);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_ids() {
        for ok in ["heating-hh-1001", "a", "0-x"] {
            assert!(is_safe_id(ok), "{ok}");
        }
        for bad in ["", "-a", "../../../escape-trace", "a/b", "A", "a b", "ä", &"a".repeat(101)] {
            assert!(!is_safe_id(bad), "{bad}");
        }
    }

    #[test]
    fn terminal_echo_is_escaped_and_capped() {
        assert_eq!(escape_for_terminal("a\u{1b}[2Jb", 50), "a\\u{1b}[2Jb");
        assert_eq!(escape_for_terminal(&"x".repeat(10), 4), "xxxx… (6 more characters)");
    }

    #[test]
    fn yaml_shape_limits() {
        let deep = format!("x: {}{}", "[".repeat(100), "]".repeat(100));
        assert!(check_yaml_shape(&deep).unwrap_err().contains("deeper than 64"));
        let many = format!("a: &p [x]\nb: [{}]\n", vec!["*p"; 300].join(", "));
        assert!(check_yaml_shape(&many).unwrap_err().contains("aliases"));
        assert!(check_yaml_shape("a: \"[[[[ * not an alias\" # [[[ *\n").is_ok());
        // Markdown bold in a block scalar is text; an alias after the block counts again.
        let replies: String = (0..300)
            .map(|i| format!("- id: r{i}\n  reply: |-\n    - **Heating:** included\n\n    **Next**\n"))
            .collect();
        assert!(check_yaml_shape(&replies).is_ok());
        let after = format!("{replies}{}", "- *a\n".repeat(300));
        assert!(check_yaml_shape(&after).unwrap_err().contains("aliases"));
    }

    #[test]
    fn id_index_in_one_pass() {
        let idx = id_lines("- id: a\n  x: 1\n- id: \"b\"  # note\n- id: a\n");
        assert_eq!(idx["a"], [1, 4]);
        assert_eq!(idx["b"], [3]);
    }
}
