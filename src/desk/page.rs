//! The desk page: one template (`templates/desk.html`) with the report's
//! stylesheet and panes (`templates/report.css`), and its own script.

use std::sync::LazyLock;

const LAYOUT: &str = include_str!("../../templates/desk.html");
const CSS: &str = include_str!("../../templates/report.css");
const JS: &str = include_str!("../../templates/desk.js");

/// The page's Content-Security-Policy: its own inline script (by hash) and
/// style, requests to its own origin only.
pub static CSP: LazyLock<String> = LazyLock::new(|| {
    format!(
        "default-src 'none'; style-src 'unsafe-inline'; script-src '{}'; connect-src 'self'; img-src data:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'",
        crate::eval::html::script_hash(JS)
    )
});

/// Renders the page with its example buttons (it is the same for every
/// request; data comes from the API).
///
/// # Errors
/// The template does not parse (a defect of `templates/`, with its line).
pub fn render(examples: &[super::examples::Example]) -> anyhow::Result<String> {
    let mut env = minijinja::Environment::new();
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::Html);
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    env.add_template("desk.html", LAYOUT)?;
    Ok(env.get_template("desk.html")?.render(minijinja::context! {
        css => minijinja::Value::from_safe_string(CSS.to_owned()),
        js => minijinja::Value::from_safe_string(JS.to_owned()),
        max_inquiry => super::api::MAX_INQUIRY_CHARS,
        examples => minijinja::Value::from(minijinja::value::Serde(examples)),
    })?)
}
