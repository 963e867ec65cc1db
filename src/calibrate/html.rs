//! The calibration page (`report.html`): the Markdown report as one
//! self-contained HTML file with the SVG picture inline. No script, no
//! network request; every text is escaped. Only the Markdown this module's
//! siblings write is converted: headings, paragraphs, lists, tables, code
//! blocks, `**bold**`, `` `code` `` and the one image (the picture).

use std::fmt::Write as _;

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Inline Markdown: `code` and **bold**, escaped.
fn inline(s: &str) -> String {
    let mut out = String::new();
    for (i, part) in s.split('`').enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "<code>{}</code>", escape(part));
        } else {
            for (j, b) in escape(part).split("**").enumerate() {
                if j % 2 == 1 {
                    let _ = write!(out, "<strong>{b}</strong>");
                } else {
                    out.push_str(b);
                }
            }
        }
    }
    out
}

fn cells(line: &str) -> Vec<&str> {
    line.trim().trim_matches('|').split('|').map(str::trim).collect()
}

/// The page: `markdown` as HTML, the image replaced by `svg` inline.
pub fn render_html(markdown: &str, svg: &str, title: &str) -> String {
    let mut body = String::new();
    let lines: Vec<&str> = markdown.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.starts_with("```") {
            let mut code = vec![];
            i += 1;
            while i < lines.len() && !lines[i].starts_with("```") {
                code.push(lines[i]);
                i += 1;
            }
            let _ = writeln!(body, "<pre><code>{}</code></pre>", escape(&code.join("\n")));
        } else if let Some(h) = line.strip_prefix("### ") {
            let _ = writeln!(body, "<h3>{}</h3>", inline(h));
        } else if let Some(h) = line.strip_prefix("## ") {
            let _ = writeln!(body, "<h2>{}</h2>", inline(h));
        } else if let Some(h) = line.strip_prefix("# ") {
            let _ = writeln!(body, "<h1>{}</h1>", inline(h));
        } else if line.starts_with("![") {
            let _ = writeln!(body, "<figure>{svg}</figure>");
        } else if line.starts_with('|') {
            let header = cells(line);
            body.push_str("<table><thead><tr>");
            for h in &header {
                let _ = write!(body, "<th>{}</th>", inline(h));
            }
            body.push_str("</tr></thead><tbody>\n");
            i += 1; // the |---| line
            while i + 1 < lines.len() && lines[i + 1].starts_with('|') {
                i += 1;
                body.push_str("<tr>");
                for c in cells(lines[i]) {
                    let _ = write!(body, "<td>{}</td>", inline(c));
                }
                body.push_str("</tr>\n");
            }
            body.push_str("</tbody></table>\n");
        } else if line.starts_with("- ") {
            body.push_str("<ul>\n");
            while i < lines.len() && lines[i].starts_with("- ") {
                let _ = writeln!(body, "<li>{}</li>", inline(&lines[i][2..]));
                i += 1;
            }
            body.push_str("</ul>\n");
            continue;
        } else if !line.trim().is_empty() {
            let mut para = vec![line];
            while i + 1 < lines.len() && is_text(lines[i + 1]) {
                i += 1;
                para.push(lines[i]);
            }
            let _ = writeln!(body, "<p>{}</p>", inline(&para.join(" ")));
        }
        i += 1;
    }
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n<title>{}</title>\n<style>\nbody{{font-family:system-ui,sans-serif;max-width:1100px;margin:1.5rem auto;padding:0 1rem;color:#222;line-height:1.45}}\ntable{{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.9rem}}th,td{{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}}th{{background:#f3f3f3}}\npre{{background:#f6f6f6;padding:.5rem;overflow:auto}}figure{{margin:1rem 0;overflow-x:auto}}figure svg{{max-width:100%;height:auto}}\n</style></head>\n<body>\n{body}</body></html>\n",
        escape(title)
    )
}

fn is_text(line: &str) -> bool {
    !(line.trim().is_empty()
        || line.starts_with('#')
        || line.starts_with('|')
        || line.starts_with("- ")
        || line.starts_with("```")
        || line.starts_with("!["))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_and_escapes() {
        let md = "# T <x>\n\nSome **bold** and `a<b`.\n\n| a | b |\n|---|---|\n| 1 | <i> |\n\n- one\n- two\n\n![p](p.svg)\n\n```json\n{\"k\": 1}\n```\n";
        let html = render_html(md, "<svg></svg>", "t");
        assert!(html.contains("<h1>T &lt;x&gt;</h1>"), "{html}");
        assert!(html.contains("<strong>bold</strong>") && html.contains("<code>a&lt;b</code>"));
        assert!(html.contains("<td>&lt;i&gt;</td>") && html.contains("<li>two</li>"));
        assert!(html.contains("<figure><svg></svg></figure>"));
        assert!(html.contains("{&quot;k&quot;: 1}"));
        assert!(!html.contains("<script"));
    }
}
