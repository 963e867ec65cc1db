//! What a clause says yes or no to, in German and English.
//!
//! - *Negation* anywhere in the clause, before or after the noun: "not",
//!   "no", "never", "without", "n't", "no longer", "excluded", "nicht",
//!   "kein…", "ohne", "ausgeschlossen", and the split verb "stellt … nicht
//!   aus". Two negations cancel ("ohne WBS … nicht vermietet").
//! - *Inclusion*: "included", "part of", "covered", "enthalten",
//!   "inbegriffen", "inklusive", "decken … ab" say a cost is in an amount;
//!   "extra", "additional", "on top", "separately", "directly", "zusätzlich",
//!   "separat", "gesondert" say it is not. A negation flips it: "not
//!   separately" is included, "nicht enthalten" is extra.
//! - *Conditional*: "if", "whether", "unless", "until", "wenn", "falls", "ob",
//!   "sobald": the clause states no fact.
//! - *Qualified*: "on request", "subject to … approval", "case by case",
//!   "auf Anfrage", "im Einzelfall", "sofern … zustimmt": a yes with a condition.
//!
//! Source of the word lists: the negation words of the rule judge (README,
//! "The rule judge"), and the inclusion words the catalogue and the policy
//! pages use ("heating included", "an additional 240 EUR", "on top").

use std::sync::LazyLock;

use regex::Regex;

use crate::fold::plain;

static NEGATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(not|no|never|none|neither|weder|without|cannot|nothing|nobody|nicht|nie|niemals|kein\w*|ohne|nichts|niemand|exclud\w*|ausgeschlossen|ausgenommen|entfallt|entfallen|gebuhrenfrei|provisionsfrei|courtagefrei|fee-free|commission-free|verboten|untersagt|tabu|off-limits|forbidden|prohibited|banned|unknown|unbekannt|silent|nowhere|nirgends|nirgendwo|kostenlos|kostenfrei|gratis|umsonst|unmoglich|impossible|ebenso ?wenig|genauso ?wenig)\b|n't\b|n’t\b|\bmuss ich (leider )?passen\b|\bruled out\b|\brules? out\b|\bbarred\b|\b(off|not on) the table\b|\b(left|leaves?|leaving) out\b|\bnot counted\b|\bausgeklammert\b|\bunberucksichtigt\b|\bherausgerechnet\b|\bout of the question\b|\b(lacks?|lacking|missing|fehl(t|en))\b|\b(fallt|fallen) (\w+ )?weg\b|\brather than (a |an |the )?(settled|final|fixed|firm|binding|definite|separate|extra|additional)\b|\bonly becomes? (binding|final|fixed|definite)\b|\bonly be (known|final|fixed|confirmed|set|binding)\b|\bsteht erst\b|\b(can|could|may|might) still (change|differ|vary|move|shift)\b|\bsubject to change\b|\bkann sich (\w+ ){0,3}noch (andern|verschieben)\b|\berst (dann )?(endgultig|verbindlich|fest)\b")
        .expect("valid pattern")
});
static INCLUDED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(includ\w*|incl|inclusive|contained in (the|your|its|this) (rent|utilities|price|amount|cold rent|all-inclusive rent|\d[\d.,]* eur)|all-inclusive|part of|covered|covers?|enthalten|inbegriffen|inklusive|inkl|einschliesslich|eingeschlossen|abgedeckt|decken|deckt|pauschal\w*|warmmiete|drin|free|accounted for|factored in|factored into|built into|priced in|eingerechnet|eingepreist|abgegolten|mit abgedeckt|dazugehor\w*|comes? with (the|your|this) (flat|apartment|home|unit)|gehort zur wohnung|takes? care of|took care of|folded into|rolled into|baked into|bundled into|wrapped into)\b|\bsteck(t|en) (\w+ ){0,4}in (den|der|dem|die|ihre[rnm]?)\b|\b(darin|darin schon|darin bereits|da) (\w+ )?steck(t|en)\b|\bin (den|der|dem|die|ihre[rnm]?)\s+(\S+\s+){0,4}steck(t|en)\b|\bgehort\w* (\w+ ){0,2}(mit )?dazu\b|\bgehor(t|en) (\w+ ){0,4}zu (den|der|dem|ihren?) (\w+ )?(nebenkosten|betriebskosten|miete|kaltmiete|warmmiete|pauschale|pauschalmiete)\b")
        .expect("valid pattern")
});
static EXTRA: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(extra|additional\w*|on top|on its own|separate\w*|directly|plus|exklusive|exkl|excl|excluding|zusatzlich\w*|zuzuglich|zzgl|separat\w*|gesondert\w*|getrennt\w*|direkt|obendrauf|for an extra|ausserhalb|outside)\b")
        .expect("valid pattern")
});
/// The words of [`EXTRA`] that say "costs more" on their own.
static EXTRA_PLAIN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(extra|additional\w*|on top|plus|exklusive|exkl|excl|excluding|zusatzlich\w*|zuzuglich|zzgl|obendrauf|for an extra|eigene[nrms]? (vertrag|vertrage|vertragen|rechnung|abrechnung)|(your|their) own (contract|contracts|bill|account)|separate (contract|contracts|bill)|hinzukomm\w*|dazukomm\w*|kommt\w* (\w+ ){0,5}(hinzu|dazu)|kommen (\w+ ){0,5}(hinzu|dazu))\b",
    )
    .expect("valid pattern")
});
/// Words of cost and billing (German compounds by their parts).
static COST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(costs?|price|rent|pay|paid|pays|payable|bill\w*|charg\w*|fees?|eur|euro|invoic\w*|utilities|supplier|lauft|laufen)\b|kosten|miete|zahl|rechn|gebuhr|versorger|eur\b")
        .expect("valid pattern")
});
static CONDITIONAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(if|whether|unless|until|once|in case|wenn|falls|ob|sobald|bis)\b").expect("valid pattern")
});
static QUALIFIED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(on request|upon request|subject to|approv\w*|case by case|case-by-case|individual(ly)?|consent|auf anfrage|zustimm\w*|zugestimmt|zustimmung|einverstandnis\w*|einwilligung\w*|erlaubnis\w*|einzelfall\w*|genehmig\w*|sofern|solange|provided that|as long as|vorbehalt\w*|permission|einverstanden)\b|\b(landlord|owner|lessor|vermieter\w*|eigentumer\w*)\b[^,;]{0,30}\bagree(s|d)?\b|\b(landlord|owner|lessor)'?s? (agreement|ok|okay|go-ahead|blessing|sign-off)\b|\bif (he|she|they) agrees?\b")
        .expect("valid pattern")
});
static PERMISSION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(allowed|allows?|permitted|permits|welcome|possible|can|may|fine|ok|okay|no problem|bring|keep|accepts?|yes|erlaubt|gestattet|zugelassen|moglich|willkommen|darf|durfen|konnen|kann|mitbringen|halten|kein problem|ja|steht (\w+ ){0,3}offen|stehen (\w+ ){0,3}offen|freisteht|is open to|are open to)\b")
        .expect("valid pattern")
});

/// The polarity of one clause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Polarity {
    /// An odd number of negations.
    pub negated: bool,
    /// `Some(true)`: states that something is included; `Some(false)`: that
    /// it costs extra or is separate (after negation); `None`: neither.
    pub included: Option<bool>,
    /// The clause is a condition, not a statement.
    pub conditional: bool,
    /// The clause carries a qualification: "on request", "subject to the
    /// landlord's approval", "im Einzelfall", "sofern … zustimmt".
    pub qualified: bool,
    /// The clause grants or affirms something ("allowed", "you can bring", "darf").
    pub permits: bool,
}

impl Polarity {
    /// Whether two clauses about the same thing say opposite things: on
    /// inclusion when both speak of it, else on negation.
    pub fn disagrees(&self, other: &Polarity) -> bool {
        match (self.included, other.included) {
            (Some(a), Some(b)) => a != b,
            _ => self.negated != other.negated,
        }
    }
}

thread_local! {
    /// Clauses already read, per thread (grounding reads the same evidence
    /// clauses for every draft, the code check and the judge); bounded.
    static MEMO: std::cell::RefCell<std::collections::HashMap<String, Polarity>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

/// The polarity of a clause (any language, any case).
pub fn polarity(clause: &str) -> Polarity {
    if let Some(p) = MEMO.with(|m| m.borrow().get(clause).copied()) {
        return p;
    }
    let p = read_polarity(clause);
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() >= 20_000 {
            m.clear();
        }
        m.insert(clause.to_owned(), p);
    });
    p
}

/// "without asking", "without approval", "ohne … zu fragen", "ohne
/// Rückfrage", and the idioms "ohne Weiteres", "without delay": a manner,
/// not a denial of the clause ("allowed without asking the landlord" is
/// allowed; "ist ohne Weiteres möglich" is possible).
static MANNER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bwithout (\w+ing|(the |prior |any )?(\w+'s )?(approval|permission|consent))\b|\bohne\b[^,.;]{0,40}?\bzu \w+|\bohne (vorherige |weitere |eine )?(ruckfrage|nachfrage|anfrage|zustimmung|genehmigung|erlaubnis)\w*|\bohne (weiteres|weitere\w*|probleme?|umstande|zweifel)\b|\bwithout (further ado|delay|problems?|any problems?|question|doubt|a doubt|fail)\b|\bohne dass\b[^,.;]{0,60}\b(zustimm\w*|genehmig\w*|einverstanden|gefragt|erlaub\w*)( werden)?( muss| mussen| musste)?\b|\bwithout (the )?(landlord|owner)\w* (having to )?(approv\w*|agree\w*|consent\w*)\b")
        .expect("valid pattern")
});

/// Negation words in idioms that deny nothing: "kein Problem" and "no
/// problem" say yes, "not only … but" adds; "any part of it" includes nothing.
static IDIOM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"\b(free (from|as of|as from|on)|(is|are|becomes?) free (to rent )?(from|on)|frei ab|on the plus side|plus point|pluspunkt|kein problem|no problem|no worries|kein thema|ohne (einen |jeden )?haken( an der sache)?|without (a|any) catch|no catch|no strings attached|ohne wenn und aber|not only|nicht nur|no doubt|ohne zweifel|kein zweifel|on (its|their|his|her) own merits|keine?n? fehlgriff|nichts falsch|can'?t go wrong|won'?t go wrong|nothing to lose|no way around|can'?t get around|kein weg vorbei|(any|every|some|each|which) part of|(isn't|is not|nicht) (\w+ )?(unwilling|averse|opposed|abgeneigt)|(may|might|could) (well )?be worth|(doesn'?t|does not|won'?t|will not|wouldn'?t|would not) (change|affect|alter) (how|what|that|the fact|anything)|andert (\w+ )?nichts (daran|an)|without (any |much |great )?(difficulty|difficulties|problems?|trouble|issues?|hassle)|no (\w+ )?(difficulty|difficulties|obstacle)|kein\w* (einschrankung|beschrankung)\w*|no restrictions?|ohne (grosse )?(probleme?|schwierigkeit\w*)|allow(s|ed|ing)? (for|extra|enough|plenty of))\b|\bum\b.{0,60}\bnicht herum\b|\bfuhrt kein weg\b.{0,40}\bvorbei\b",
    )
    .expect("valid pattern")
});

/// A yes denied only in part: "nicht von vornherein zugelassen, sondern nur
/// mit Einverständnis", "not automatically allowed" leave the decision to
/// someone; the clause is a qualified yes, not a no.
static PARTIAL_DENIAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(nicht|not) (von vornherein|automatisch|ohne weiteres|pauschal|bedingungslos|uneingeschrankt|automatically|outright|unconditionally|by default)\b")
        .expect("valid pattern")
});

/// A decision still to be made: "the landlord's decision on your dog is not
/// yet available", "eine Zustimmung liegt noch nicht vor", "has not yet
/// decided". The matter is open, which is a qualified yes, not a no.
static PENDING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(decision|entscheidung|approval|zustimmung|genehmigung|go-ahead|freigabe)\b[^,;]{0,40}\b(not yet|noch nicht|still pending|pending|outstanding|steht noch aus|noch aus|aussteh\w*)\b|\b(not yet|noch nicht) (\w+ )?(decided|made a decision|approved|entschieden|genehmigt|zugestimmt)\b")
        .expect("valid pattern")
});

/// An inclusion word with its own negation next to it: "not included",
/// "isn't part of", "nicht enthalten".
static DENIED_INCLUSION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(\b(not|nicht|never|nie|no longer|nicht mehr)|n't) (\w+ )?(includ\w*|inclusive|contained in (the|your|its|this) (rent|utilities|price|amount|cold rent|all-inclusive rent|\d[\d.,]* eur)|part of|covered|incl|enthalten|inbegriffen|inklusive|inkl|abgedeckt|eingerechnet|drin)\b")
        .expect("valid pattern")
});

/// A clause-opening discourse word ("Zusätzlich:", "Additionally,", "Außerdem").
static DISCOURSE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\W*(zusatzlich|additionally|in addition|ausserdem|daruber hinaus|on top of that|also)( (gilt|gelten|applies|apply|kommt hinzu))?\s*[:,]")
        .expect("valid pattern")
});

static OWN_FLAT_RATE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\beigene[nrms]? pauschale\b").expect("valid pattern"));

fn read_polarity(clause: &str) -> Polarity {
    let f = plain(clause).replace('’', "'");
    let partly = PARTIAL_DENIAL.is_match(&f) || PENDING.is_match(&f);
    let f = PARTIAL_DENIAL.replace_all(&f, " ").into_owned();
    let f = PENDING.replace_all(&f, " ").into_owned();
    let f = MANNER.replace_all(&f, " ").into_owned();
    let f = IDIOM.replace_all(&f, " ").into_owned();
    // "als eigene Pauschale hinzu": a flat rate of its own is a separate bill, not an inclusive rent.
    let f = OWN_FLAT_RATE.replace_all(&f, "eigene abrechnung").into_owned();
    // "Zusätzlich: Sonderumlage …", "Additionally, …": a discourse word, not a cost on top.
    let f = DISCOURSE.replace(&f, " ").into_owned();
    let negations = NEGATION.find_iter(&f).count();
    // "no longer" and "nicht mehr" are one negation, as is "no … nor".
    let negated = negations % 2 == 1;
    let inc = INCLUDED.is_match(&f);
    // "separately", "directly", "gesondert" speak of a cost only beside a
    // cost word ("billed separately"); "decides each request separately" does not.
    let ext = EXTRA_PLAIN.is_match(&f) || (EXTRA.is_match(&f) && COST.is_match(&f));
    let included = match (inc, ext) {
        (true, false) => Some(!negated),
        (false, true) => Some(negated),
        // "no separate heating bill, it is included": the inclusion word wins,
        // unless it is the one denied ("an extra 290 EUR with heating not included").
        (true, true) => Some(!DENIED_INCLUSION.is_match(&f)),
        (false, false) => None,
    };
    Polarity {
        negated,
        included,
        conditional: CONDITIONAL.is_match(&f),
        qualified: partly || QUALIFIED.is_match(&f),
        permits: PERMISSION.is_match(&f),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn negation_before_and_after_the_noun_in_both_languages() {
        for negated in [
            "Heating is not included",
            "there isn't a lift",
            "Die Wohnungsgeberbestätigung stellt der Vermieter leider nicht aus",
            "einen WBS brauchen Sie nicht",
            "Haustiere sind nicht erlaubt",
            "keine Haustiere",
            "pets are no longer allowed",
            "subletting is excluded",
            "Untervermietung ist ausgeschlossen",
            "Eine Anmietung mit WBS ist unmöglich",
            "In B-2001 dürfen weder Hunde noch Katzen gehalten werden",
            "neither dogs nor cats are allowed",
            "Eine jährliche Abrechnung entfällt",
            "Hunde sind in B-2001 verboten",
            "living there is ruled out",
            "a lift is missing from the building",
            "the building lacks a lift",
            "In den 290 € Nebenkosten fehlen sie",
            "Zusätzliche Nebenkosten fallen weg",
            "read it as a ballpark rather than a settled sum",
            "the final figure can still differ",
        ] {
            assert!(polarity(negated).negated, "{negated}");
        }
        for plain in [
            "Heating is included",
            "the building has a lift",
            "Der Vermieter stellt die Bestätigung aus",
            "ohne WBS kann die Wohnung nicht vermietet werden",
            "Eine Abrechnung am Jahresende entfällt dabei aber nicht",
            "hamsters are allowed without asking the landlord",
            "Kleintiere dürfen Sie halten, ohne den Vermieter zu fragen",
            "Ein Hamster ist ohne Weiteres erlaubt",
            "the deposit is returned without delay",
            "Ihre Katze ist dort kein Problem",
            "Katzen sind dort nicht verboten",
            "Eine Anmietung mit WBS ist nicht unmöglich",
            "dogs are not only allowed but welcome",
            "um einen Wohnberechtigungsschein kommen Sie nicht herum",
            "Ihre Katze kann einziehen, ohne dass der Vermieter zustimmen muss",
        ] {
            assert!(!polarity(plain).negated, "{plain}");
        }
    }

    #[test]
    fn inclusion_and_its_negation() {
        assert_eq!(polarity("Bei HH-1003 gehören die Heizkosten nicht zu den Nebenkosten").included, Some(false));
        assert_eq!(polarity("Die Heizkosten gehören zu den Nebenkosten").included, Some(true));
        assert_eq!(polarity("heating included").included, Some(true));
        assert_eq!(polarity("Heating is not part of that amount").included, Some(false));
        assert_eq!(polarity("parking is already part of the rent").included, Some(true));
        assert_eq!(polarity("a space can be rented for an extra 95 EUR").included, Some(false));
        assert_eq!(polarity("you won't pay anything on top").included, Some(true));
        assert_eq!(polarity("deren Kosten nicht separat anfallen").included, Some(true));
        assert_eq!(polarity("Die Heizung ist nicht enthalten").included, Some(false));
        assert_eq!(polarity("decken die Heizung nicht ab").included, Some(false));
        assert!(polarity("heating included").disagrees(&polarity("heating is billed separately")));
        assert!(!polarity("heating included").disagrees(&polarity("no separate heating bill")));
        assert_eq!(polarity("utilities are an extra 290 EUR a month with heating not included").included, Some(false));
        assert_eq!(polarity("no separate heating bill, it is included").included, Some(true));
        assert_eq!(polarity("Heating: yes, incl. in the utilities of 240 EUR/month").included, Some(true));
        assert_eq!(polarity("NK: 290 € mtl., excl. heating").included, Some(false));
        assert_eq!(polarity("Zusätzlich: Sonderumlage Fassade geschätzt 18.000 €").included, None);
        assert_eq!(polarity("Zusätzlich gilt: Tenants are not charged any fee for viewings").included, None);
        assert_eq!(polarity("On the plus side, the staircase was renovated in 2021").included, None);
        // "free from" a date is when a flat can be let, not a price of nothing.
        assert_eq!(polarity("| Free from | 1 Feb 2027 |").included, None);
        assert_eq!(polarity("The flat is free from 1 February 2027").included, None);
        assert_eq!(polarity("Parking is free").included, Some(true));
        // Inverted German order, and a cost that "runs" separately.
        assert_eq!(polarity("in den 215 € NK steckt sie also doch nicht").included, Some(false));
        assert_eq!(
            polarity("Kaltmiete heißt bei uns, dass Nebenkosten und Heizung darin bereits stecken").included,
            Some(true)
        );
        assert_eq!(polarity("die Heizung läuft bei B-2001 über die Gas-Zentralheizung separat").included, Some(false));
    }

    #[test]
    fn a_yes_denied_in_part_is_qualified() {
        let p = polarity("Bei B-2002 sind Katzen nicht von vornherein zugelassen");
        assert!(!p.negated && p.qualified);
        assert!(polarity("dogs are not automatically allowed").qualified);
        for pending in [
            "The landlord's decision on your dog is not yet available",
            "Eine Zustimmung des Vermieters liegt noch nicht vor",
            "the landlord has not yet decided",
        ] {
            let p = polarity(pending);
            assert!(!p.negated && p.qualified, "{pending}");
        }
        assert!(polarity("the kitchen has not yet been renovated").negated);
        assert!(polarity("dogs are not allowed").negated);
    }

    #[test]
    fn outside_an_amount_neither_nor_and_a_flat_rate_on_top() {
        assert_eq!(polarity("die Heizkosten laufen bei HH-1003 außerhalb der 290 € Nebenkosten").included, Some(false));
        assert_eq!(polarity("heating is billed outside the 290 EUR utilities").included, Some(false));
        assert!(polarity("und reserviert ist die Wohnung durch die Anfrage ebenso wenig").negated);
        assert_eq!(polarity("die Nebenkosten kommen als eigene Pauschale noch hinzu").included, Some(false));
        assert_eq!(polarity("outside my remit").included, None);
    }

    #[test]
    fn without_a_catch_denies_nothing() {
        assert!(!polarity("Ihre Katze kann also ohne Haken an der Sache mit einziehen").negated);
        assert!(!polarity("your dog can move in, no strings attached").negated);
        assert!(polarity("Ihre Katze kann nicht mit einziehen").negated);
    }

    #[test]
    fn folded_into_rules_out_and_allows() {
        assert_eq!(polarity("that's already folded into the 2,150 EUR cold rent").included, Some(true));
        assert!(polarity("The listing rules out living there").negated);
        assert!(!polarity("Using the back office as a bedroom isn't something the listing rules out").negated);
        assert!(polarity("The listing allows dogs outright").permits);
        assert!(polarity("Eine Indexerhöhung zusätzlich zu vereinbaren, steht dem Vermieter offen").permits);
        // "allowing for" takes into account; "may be worth" advises: neither permits.
        assert!(!polarity("it may be worth allowing for that when you arrange your removal").permits);
        assert!(!polarity("allow extra time for the stairs").permits);
        assert!(!polarity("since it doesn't change how viewings are arranged").negated);
        assert_eq!(polarity("you pay for the heat you use rather than a separate heating tariff").included, Some(true));
    }

    #[test]
    fn the_landlords_agreement_qualifies() {
        for qualified in [
            "If the landlord agrees, the deposit can be split into three instalments",
            "provided the landlord agrees",
            "with the landlord's agreement, the deposit can be paid in instalments",
            "sofern der Vermieter einverstanden ist",
            "Erst wenn der Vermieter zugestimmt hat",
        ] {
            assert!(polarity(qualified).qualified, "{qualified}");
        }
        for plain in [
            "the deposit is set out in the rental agreement",
            "a colleague will agree a date with you",
            "the tenant may pay the deposit in three equal monthly instalments",
        ] {
            assert!(!polarity(plain).qualified, "{plain}");
        }
    }

    #[test]
    fn inclusion_idioms() {
        assert_eq!(polarity("In diesem Fall stecken die Heizkosten nicht in den Nebenkosten").included, Some(false));
        assert_eq!(polarity("using any part of it as a home").included, None);
    }

    #[test]
    fn a_cost_billed_apart_is_extra() {
        assert_eq!(polarity("für die Heizung kommt nichts gesondert hinzu").included, Some(true));
        assert_eq!(polarity("a space comes with the apartment").included, Some(true));
        assert_eq!(polarity("die laufenden Betriebskosten rechnen Sie getrennt davon ab").included, Some(false));
    }
}
