//! Helpers shared by the benchmarks (each bench includes this file with
//! `#[path = "common/mod.rs"] mod common;`): a seeded generator, synthetic
//! listing descriptions, and the e5 throughput passages.
#![allow(dead_code)] // each bench uses part of it

use inquiry::catalogue::Catalogue;
use inquiry::retrieval::e5::E5Embedder;

/// A tiny deterministic generator (xorshift64*), so every run measures the same data.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// A listing description of 8 to 12 sentences drawn from `pool`, each with
/// its digits changed (so prices and years differ from the originals).
pub fn synthetic_description(pool: &[String], rng: &mut Rng) -> String {
    let count = 8 + rng.below(5);
    let sentences: Vec<String> = (0..count)
        .map(|_| {
            pool[rng.below(pool.len())]
                .chars()
                .map(|c| if c.is_ascii_digit() { char::from(b'0' + rng.below(10) as u8) } else { c })
                .collect()
        })
        .collect();
    sentences.join(" ")
}

/// German listing sentences for the throughput mix (the bundled catalogue is
/// written in English with German terms).
pub const GERMAN: &[&str] = &[
    "Die helle Dreizimmerwohnung liegt im zweiten Obergeschoss eines gepflegten Altbaus in Eimsbüttel.",
    "Die Kaltmiete beträgt 1.650 Euro im Monat, dazu kommen 240 Euro Nebenkosten einschließlich Heizung.",
    "Die Kaution beträgt drei Monatskaltmieten und kann in drei gleichen Raten gezahlt werden.",
    "Zur Wohnung gehören ein Kellerabteil und ein Stellplatz im Fahrradraum des Hinterhauses.",
    "Der Balkon ist nach Süden ausgerichtet und geht auf den ruhigen, begrünten Innenhof hinaus.",
    "Haustiere sind nach Absprache mit der Vermieterin erlaubt, Hunde bis zwanzig Kilogramm.",
    "Das Gebäude wird mit einer Gaszentralheizung beheizt und hat den Energieausweis der Klasse C.",
    "Die Küche ist mit Herd, Backofen, Kühlschrank und Geschirrspüler vollständig eingerichtet.",
    "Mieter zahlen keine Maklerprovision, denn nach dem Bestellerprinzip zahlt der Auftraggeber.",
    "Die Wohnung ist ab dem ersten Januar bezugsfrei und wird nur unbefristet vermietet.",
    "Ein Aufzug führt bis ins Dachgeschoss, und die Haltestelle der U-Bahn ist fünf Minuten entfernt.",
    "Die Staffelmiete steigt jedes Jahr zum ersten März um fünfzig Euro, erstmals im Jahr 2028.",
];

/// `count` passages of about 35 model tokens, alternating English (catalogue
/// sentences) and German ones, each joined from sentences until it reaches 30
/// tokens (prefix and specials included) without passing 45.
pub fn throughput_passages(base: &Catalogue, model: &E5Embedder, count: usize) -> Vec<String> {
    let english: Vec<&str> = base.chunks.iter().filter(|c| c.listing_id.is_some()).map(|c| c.text.as_str()).collect();
    let pools = [english, GERMAN.to_vec()];
    let mut next = [0usize, 0usize];
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let lang = out.len() % 2;
        let pool = &pools[lang];
        let mut p = String::new();
        loop {
            let s = pool[next[lang] % pool.len()];
            next[lang] += 1;
            let candidate = if p.is_empty() { s.to_string() } else { format!("{p} {s}") };
            let len = model.token_ids(&format!("passage: {candidate}")).map_or(0, |t| t.len());
            if len > 45 && !p.is_empty() {
                break;
            }
            p = candidate;
            if len >= 30 {
                break;
            }
        }
        out.push(p);
    }
    out
}
