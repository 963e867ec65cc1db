//! One grounding per reply: the agent's guard, the eval's `grounding` code
//! check and the rule judge all ground the same final reply against the same
//! evidence, so the result is computed once and reused. The key is the whole
//! input (reply, customer messages, ticket count and the evidence as JSON),
//! never a hash of it alone, so a reuse is always of an identical check.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{LazyLock, Mutex};

use super::{Evidence, Grounding};

/// Entries kept before the memo starts over (one eval of the bundled suite
/// grounds about 60 distinct replies).
const CAPACITY: usize = 1024;

static MEMO: LazyLock<Mutex<HashMap<String, Grounding>>> = LazyLock::new(|| Mutex::new(HashMap::new()));
static COMPUTED: AtomicU64 = AtomicU64::new(0);
static REUSED: AtomicU64 = AtomicU64::new(0);

fn key(reply: &str, evidence: &Evidence, customer: &[&str], tickets: usize) -> String {
    let ev = serde_json::to_string(evidence).unwrap_or_default();
    let mut k = String::with_capacity(reply.len() + ev.len() + 64);
    k.push_str(reply);
    for c in customer {
        k.push('\u{1f}');
        k.push_str(c);
    }
    k.push('\u{1e}');
    k.push_str(&tickets.to_string());
    k.push('\u{1e}');
    k.push_str(&ev);
    k
}

/// Checks every sentence of `reply` against `evidence` (see
/// [`super::check_uncached`]), reusing the result of an identical earlier check.
pub fn check(reply: &str, evidence: &Evidence, customer: &[&str], tickets: usize) -> Grounding {
    let k = key(reply, evidence, customer, tickets);
    if let Some(g) = MEMO.lock().ok().and_then(|m| m.get(&k).cloned()) {
        REUSED.fetch_add(1, Ordering::Relaxed);
        return g;
    }
    let g = super::claims::check(reply, evidence, customer, tickets);
    COMPUTED.fetch_add(1, Ordering::Relaxed);
    if let Ok(mut m) = MEMO.lock() {
        if m.len() >= CAPACITY {
            m.clear();
        }
        m.insert(k, g.clone());
    }
    g
}

/// How many checks this process computed and how many it reused, since start.
pub fn counts() -> (u64, u64) {
    (COMPUTED.load(Ordering::Relaxed), REUSED.load(Ordering::Relaxed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_identical_check_is_reused_and_a_different_one_is_not() {
        let e = Evidence::default();
        let a = check("Tomorrow will be sunny in Hamburg.", &e, &["Weather?"], 0);
        let (computed, reused) = counts();
        let b = check("Tomorrow will be sunny in Hamburg.", &e, &["Weather?"], 0);
        assert_eq!(a, b);
        let (computed2, reused2) = counts();
        assert_eq!(computed2, computed, "no second computation");
        assert!(reused2 > reused);
        // Another ticket count is another check.
        check("Tomorrow will be sunny in Hamburg.", &e, &["Weather?"], 1);
        assert!(counts().0 > computed2);
    }
}
