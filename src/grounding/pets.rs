//! Whether dogs and cats are allowed, as a reply states it, read so it can
//! be compared with a listing's `petsAllowed` field (yes, no, on request).
//!
//! Issue #27: "a listing where pets are not allowed presented as
//! dog-friendly" passes every word check, because the reply's words are the
//! record's words ("dogs", "allowed"). The pet policy (`policy:pets#dogs-and-cats`)
//! says what the three values mean: on request "means the landlord decides
//! case by case, and it is not a yes". So a reply that makes an on-request
//! listing a yes ("Ihre Katze dürfen Sie also mitbringen", "the approval is
//! a formality"), a yes listing conditional ("only with the landlord's
//! consent, decided case by case") or a no listing negotiable ("he is open
//! to talking about a single cat") contradicts the record. Small animals and
//! assistance dogs have rules of their own and are not read here.

use std::sync::LazyLock;

use regex::Regex;

use super::evidence::Evidence;
use super::polarity::polarity;
use super::wording::{clauses, NEED, SMALL_ANIMALS};
use super::FindingKind;
use crate::fold::plain;

/// What a clause says about keeping dogs and cats, or a record's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PetStatus {
    /// Allowed without asking ("welcome", "erlaubt", "you can bring your dog").
    Allowed,
    /// The landlord decides case by case ("on request", "Zustimmung", "Einzelfall").
    OnRequest,
    /// Not allowed ("not allowed", "nicht gestattet", "verboten").
    NotAllowed,
}

impl PetStatus {
    fn words(self) -> &'static str {
        match self {
            PetStatus::Allowed => "allowed",
            PetStatus::OnRequest => "on request (the landlord decides)",
            PetStatus::NotAllowed => "not allowed",
        }
    }
}

/// Dogs, cats and pets in general, in both languages (folded text).
static ANIMAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(dogs?|cats?|pets?|puppy|kitten|hund\w*|katze\w*|kater|haustier\w*|tierhaltung|vierbeiner\w*|animals?|tiere?n?)\b|\w(hund|hunde|hunden|katze|katzen|kater)\b")
        .expect("valid pattern")
});

/// Animals with rules of their own (policy:pets): small animals are always
/// allowed, assistance dogs are not pets.
static OWN_RULES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(small animals?|kleintier\w*|hamster\w*|fish|fische?n?|budgies?|wellensittich\w*|guinea pigs?|meerschweinchen|kaninchen|rabbits?|assistance|guide dogs?|assistenzhund\w*|blindenhund\w*|fuhrhund\w*|kafig\w*|cages?|caged|aquari\w*|terrari\w*)\b")
        .expect("valid pattern")
});

/// The landlord decides: an approval, a request, a decision, a promise the
/// assistant cannot give.
static DECIDES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(on request|upon request|auf anfrage|subject to|approv\w*|consent|permission|agrees?|agreement|zustimm\w*|genehmig\w*|einverst\w*|erlaubnis|einwilligung|case[- ]by[- ]case|individual\w*|einzelfall\w*|decid\w*|decision|entscheid\w*|entscheidung|ask(ing)? (the|your) landlord|request|anfrage|anfragen|nachfrag\w*|mit sich reden|open to|negotiable|verhandel\w*|verhandelbar|promise|versprech\w*|zusag\w*|zusichern|guarantee\w*|garantier\w*|(each|every) (case|request|application)|(jeden|jedem) (fall|einzelnen)|separately|gesondert|einzeln)\b|\b(only|nur)\b.{0,30}\b(ok|okay|yes|ja|zusage|go-ahead)\b|\b(at least|zumindest|wenigstens|immerhin) (\w+ )?(possible|moglich|an option|denkbar)\b")
        .expect("valid pattern")
});

/// Under a negation, a yes denied only in part: "not automatically
/// allowed", "nicht ohne Weiteres", "not a yes" leave the decision open.
static NOT_PLAINLY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(automatic\w*|automatisch|ohne weiteres|outright|as such|per se|von vornherein|uneingeschrankt|unconditional\w*|bedingungslos|einfach|simply|just|grundsatzlich|generally|a yes|ein ja|always|immer)\b")
        .expect("valid pattern")
});

/// An allowance that follows a step: "then you can bring your dog".
static THEN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(then|dann|danach|afterwards|anschliessend)\b").expect("valid pattern"));

/// A date in the clause: a year or a month's name (folded text).
static DATED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(19|20)\d{2}\b|\b(januar|februar|marz|april|mai|juni|juli|august|september|oktober|november|dezember|january|february|march|may|june|july|october|december)\b")
        .expect("valid pattern")
});

/// Conditions set on keeping an animal: a yes with conditions is not a
/// plain yes ("Voraussetzung ist eine Tierhalterhaftpflicht", "only one cat").
static CONDITION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(voraussetzung\w*|bedingung\w*|conditions?|requirements?|required|requires?|vorausgesetzt|provided|insurance|versicherung\w*|haftpflicht\w*|nachweis\w*|begrenz\w*|limit\w*|hochstens|at most|only one|nur (eine?n?|ein) |bis zu einer (\w+ )?(grosse|gewicht)|size (limit|restriction)|up to a (\w+ )?size|only small)")
        .expect("valid pattern")
});

/// Allowance words (a clause without one of them says nothing about it),
/// among them a ban denied ("nicht ausgeschlossen", "not ruled out"): its
/// two negations cancel and leave a yes.
static ALLOWS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(allowed|permitted|welcome|friendly|fine|ok|okay|possible|accepted|bring|move in|ginge|keine? einschrankung\w*|no restrictions?|no (\w+ )?(difficulty|difficulties|obstacle)|keep|have|live|erlaubt|gestattet|zugelassen|zulassig|willkommen|moglich|akzeptiert|mitbringen|mitnehmen|einziehen|halten|darf|durfen|dürfen|mitkommen|covered|come along|come with you|move in with you|kein problem|no problem|formsache|formality|formalitat|(dagegen|hingegen|jedoch) schon|sehr wohl|nicht (ausgeschlossen|verboten|untersagt)|not (ruled out|excluded|forbidden|prohibited|banned))\b|\b(dog|pet|hunde|tier)freundlich")
        .expect("valid pattern")
});

/// A denial that needs no "not": "verboten", "prohibited".
static FORBIDS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(verboten|untersagt|tabu|off-limits|prohibited|forbidden|banned|ausgeschlossen|excluded)\b")
        .expect("valid pattern")
});

/// An approval turned into a certainty ("a formality", "fest planen",
/// "will certainly agree"): a yes, whatever the approval words around it.
static CERTAIN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(formsache|formality|formalitat|reine form|paperwork|papierkram|little more than|(gilt|gelten) (\w+ ){0,6}als (erteilt|genehmigt|zugestimmt)|(is |are )?deemed (given|granted|approved)|automatically (approved|granted|given)|fest (mit|planen|einplanen|rechnen)|plan (on|firmly)|safely|definitely|certainly|surely|sicher(lich)? (zustimm|erlaub|genehmig|einverst|mitbring|mitnehm)\w*|garantiert|goes through (without|smoothly|fine|easily|for sure|automatically|quickly)|geht durch|durchgehen|already (approved|agreed)|(approval|consent|zustimmung|genehmigung|erlaubnis) (is|ist) (already |bereits |schon )(part of|given|granted|included|in|erteilt|gegeben|enthalten|da)|(effectively|practically|de facto|as good as|so gut wie|praktisch|quasi) (accepted|allowed|approved|permitted|a yes|erlaubt|genehmigt|akzeptiert|zugelassen)|bereits (zugestimmt|genehmigt|einverstanden)|schon (zugestimmt|genehmigt|einverstanden))\b|(added|aufgenommen|eingetragen|eingefugt)\b.{0,40}\b(clause|klausel)|\b(clause|klausel)\b.{0,40}\b(added|aufgenommen|eingetragen|eingefugt)|\bgoes through[.!]?\s*$")
        .expect("valid pattern")
});

/// No request or approval needed: "ohne weitere Anfrage", "without asking"
/// (folded text).
static NO_ASKING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(ohne (weitere |gesonderte |extra |vorherige )?(anfrage|ruckfrage|nachfrage|zustimmung|genehmigung|erlaubnis)|without (asking|a request|any request|further request|approval|permission|anyone'?s? (ok|approval)))\b")
        .expect("valid pattern")
});

/// No way to ask at all: "kein Spielraum für eine Einzelfallentscheidung",
/// "no room for a request", "keine Ausnahme" (folded text).
static NO_ROOM: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(kein\w*|no) (spielraum|moglichkeit|option|room|chance|possibility|scope) (fur|for|of) (eine |einen |an? )?(\w+ )?(einzelfall\w*|anfrage|request|ausnahme\w*|exception|case-by-case|individual)")
        .expect("valid pattern")
});

/// An exception left to the landlord: "es sei denn, der Vermieter stimmt
/// zu", "unless the landlord agrees" (folded text).
static UNLESS_LANDLORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(es sei denn|unless|ausser wenn|except (if|when|with))\b.{0,80}\b(vermieter\w*|landlord|owner|eigentumer\w*)")
        .expect("valid pattern")
});

/// Assistance dogs, which the policy does not count as pets (folded text).
static ASSISTANCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(assistance|guide dog|service dog|assistenzhund\w*|blindenhund\w*|fuhrhund\w*)")
        .expect("valid pattern")
});

/// A clause about other flats than the one in question ("anders als bei
/// Wohnungen", "unlike flats where"), folded text.
static OTHER_FLATS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\W*(anders als|im gegensatz zu|unlike|in contrast to|as opposed to)\b").expect("valid pattern")
});

/// The start of a relative clause ("in denen", "where"), folded text.
static RELATIVE_START: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\W*(in denen|bei denen|wo|where|in which|which|that|die|der)\b").expect("valid pattern")
});

/// A pronoun that can stand for the animal named earlier in the sentence.
static PRONOUN: LazyLock<Regex> = LazyLock::new(|| {
    // Case-sensitive: a capitalised "Sie" is the customer.
    Regex::new(r"\b(sie|er|es|ihn|ihm|they|them|it|he|him|she|her|yours)\b").expect("valid pattern")
});

/// A conclusion drawn inside the clause ("dürfen Sie also mitbringen").
static CONCLUDES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(also|therefore|thus|hence|daher|deshalb|darum|folglich|somit|demnach)\b").expect("valid pattern")
});

/// What one clause of a sentence states about keeping dogs and cats.
/// `qualified`: another clause of the sentence sets a condition or names
/// the landlord's approval, so an allowance here is a conditional one.
fn stated(original: &str, qualified: bool, concluded: bool, need_denied: bool) -> Option<PetStatus> {
    let folded = plain(original);
    let clause = folded.as_str();
    if OWN_RULES.is_match(clause) {
        return None;
    }
    // A clause of a sentence about pets that names no animal speaks of one
    // through a pronoun ("darf sie nicht einziehen") or of its approval
    // ("die Zustimmung ist nur eine Formsache"); otherwise it is about
    // something else ("ein Stellplatz ist nicht möglich").
    if !ANIMAL.is_match(clause) && !PRONOUN.is_match(original) && !CERTAIN.is_match(clause) {
        return None;
    }
    let p = polarity(clause);
    let allows = ALLOWS.is_match(clause);
    if CERTAIN.is_match(clause) && !p.negated {
        return Some(PetStatus::Allowed);
    }
    // "sodass Ihre Katze ohne weitere Anfrage mit einziehen kann": no request needed is a yes.
    if allows && NO_ASKING.is_match(clause) && !polarity(&NO_ASKING.replace_all(clause, " ")).negated {
        return Some(PetStatus::Allowed);
    }
    // "gibt es hier keinen Spielraum für eine Einzelfallentscheidung": the request route itself denied.
    if NO_ROOM.is_match(clause) {
        return Some(PetStatus::NotAllowed);
    }
    let decides = p.qualified || DECIDES.is_match(clause) || CONDITION.is_match(clause);
    // "A separate approval … you need not": the approval denied, the animal allowed.
    if decides && ((p.negated && NEED.is_match(clause)) || need_denied) {
        return Some(PetStatus::Allowed);
    }
    if decides || (p.negated && NOT_PLAINLY.is_match(clause)) {
        return Some(PetStatus::OnRequest);
    }
    if p.negated && (allows || FORBIDS.is_match(clause)) {
        return Some(PetStatus::NotAllowed);
    }
    if !allows {
        return None;
    }
    if p.conditional {
        // "Ob Ihre Katze einziehen darf, entscheidet der Vermieter": the
        // question is open, and another clause says who decides it.
        return qualified.then_some(PetStatus::OnRequest);
    }
    // "if the landlord agrees, you can bring your dog" allows on a condition;
    // "…, Ihre Katze dürfen Sie also mitbringen" draws a plain yes from it.
    // "Ab dem 1. März 2027 könnten Sie dann einziehen": a "then" of the calendar is no step.
    let then_step = THEN.is_match(clause) && !DATED.is_match(clause);
    if then_step || (qualified && !(concluded || CONCLUDES.is_match(clause))) {
        return Some(PetStatus::OnRequest);
    }
    Some(PetStatus::Allowed)
}

/// Whether a clause of the sentence sets a condition or names the
/// landlord's decision, so that an allowance in it is a conditional one. A
/// clause that denies the need of an approval ("eine gesonderte Zustimmung
/// brauchen Sie also nicht") sets none.
fn qualifies(parts: &[(bool, &str)]) -> bool {
    parts.iter().any(|(_, c)| {
        let c = plain(c);
        let p = polarity(&c);
        if (p.negated && NEED.is_match(&c)) || NO_ASKING.is_match(&c) {
            return false;
        }
        p.qualified || (p.conditional && !ANIMAL.is_match(&c)) || DECIDES.is_match(&c)
    })
}

/// Whether a clause of the sentence denies a need on its own ("…, you need
/// not", "…, brauchen Sie nicht"): the approval another clause names is not needed.
fn need_denied(parts: &[(bool, &str)]) -> bool {
    parts.iter().any(|(_, c)| {
        let c = plain(c);
        polarity(&c).negated && NEED.is_match(&c) && c.split_whitespace().count() <= 5
    })
}

/// The pet status of every listing whose record is in the evidence: its
/// `petsAllowed` field, else (a passage found by `search_knowledge`) the
/// description sentence about dogs and cats.
fn records(evidence: &Evidence) -> Vec<(String, PetStatus, String)> {
    let mut out: Vec<(String, PetStatus, String)> = evidence
        .passages
        .iter()
        .filter(|p| p.source.ends_with(".petsAllowed"))
        .filter_map(|p| {
            let status = if p.text.contains("on request") {
                PetStatus::OnRequest
            } else if p.text.contains("not allowed") {
                PetStatus::NotAllowed
            } else if p.text.contains("allowed") {
                PetStatus::Allowed
            } else {
                return None;
            };
            Some((p.listing.clone()?, status, p.source.clone()))
        })
        .collect();
    for p in evidence.passages.iter().filter(|p| p.source.contains('#')) {
        let Some(listing) = p.listing.clone() else { continue };
        if out.iter().any(|(l, _, _)| *l == listing) || !ANIMAL.is_match(&plain(&p.text)) {
            continue;
        }
        if let Some(status) = stated(&p.text, false, false, false) {
            out.push((listing, status, p.source.clone()));
        }
    }
    out
}

/// A dog or cat named only to be set aside ("außer der Katze", "apart
/// from your dog"), and animals in general in a relative clause ("Tiere, die
/// im Käfig leben" once the cage is removed).
static SET_ASIDE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(ausser|neben|apart from|besides|other than) (der|dem|den|die|ihre[mnr]?|ihrem|your|the|a|an)? ?(katze\w*|kater|hund\w*|cats?|dogs?)\b|\b(tiere|animals|pets)\b")
        .expect("valid pattern")
});

/// A dog or cat said to count as a small animal.
static SMALL_DOG_OR_CAT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(katze\w*|kater|hund\w*|cats?|dogs?|kitten|puppy)\b.{0,80}\b(zahl\w*|gilt|gelten|counts?|counted|treated|fall\w*|class\w*|qualif\w*)\b.{0,50}\b(kleintier\w*|small animals?|small-animal)")
        .expect("valid pattern")
});

/// On request explained as a mere notice or counted as a yes (folded).
static NOTICE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(just|only|simply|merely|einfach|nur|lediglich|kurz) (\w+ ){0,4}(let (the landlord|the owner|them|him|her) know|inform (the landlord|the owner|them)|tell (the landlord|the owner|them)|give (the landlord|them) a heads-up|bescheid (geben|sagen|gibt|geben)|mitteilen|anzeigen|anzuzeigen|melden)\b|\bcounts as a yes\b|\b(anfrage|request)\b.{0,20}\b(ist|is|counts as|gilt als)\b (dabei |schon |bereits |already |effectively |in effect |praktisch |quasi )*(ihre|your|die|the|a|eine)? ?(zusage|genehmigung|erlaubnis|approval|permission|yes|ja)\b|\b(a|eine) (notification|notice|meldung|mitteilung|anzeige) (rather than|instead of|statt|anstatt) (a |eine |einer )?(permission|approval|request|erlaubnis|genehmigung|zustimmung)\b|\bthat means you (just |only |simply )?let (the landlord|the owner|them) know\b|\bgilt (als|wie) (ein )?ja\b|\b(as good as|quasi|praktisch) (a yes|ein ja)\b|\bmeans (that )?you (just |only |simply )?(let|tell|inform|notify) (the landlord|the owner|them|him|her)\b|\bthat'?s all (that'?s |that is )?(needed|required|it takes)\b|\b(heisst|heisse|bedeutet|bedeute)( dabei| hier)?,? dass sie (\w+ ){0,8}(anmelden|melden|mitteilen|anzeigen|bescheid geben)\b|\bmit der (anmeldung|meldung|mitteilung)\b.{0,40}\b(geregelt|erledigt)\b")
        .expect("valid pattern")
});

/// An indoor cat, which the records never set apart (folded), and words that
/// exempt it from a rule.
static INDOOR_CAT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(wohnungskatze\w*|hauskatze\w*|indoor[- ]cats?|house cats?|indoor-only cats?)\b")
        .expect("valid pattern")
});
static EXEMPT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(fallt nicht unter|nicht betroffen|ausgenommen|exempt|not covered by|doesn't fall under|does not fall under|fallt (\w+ ){0,2}unter (diese|die) (regel|ausnahme)|falls under (the|this) (rule|exception))\b")
        .expect("valid pattern")
});

/// The agency named as the one who decides ("our agency decides", "we
/// review it and give you a decision").
static AGENCY_DECIDES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(we|our (agency|team|office)|the agency|wir|unsere agentur|unser team|die agentur)\b (\w+ ){0,3}(decide|decides|review|reviews|assess|assesses|approve|approves|entscheiden|entscheidet|prufen|genehmigen|bewerten)\b")
        .expect("valid pattern")
});

/// The landlord (or owner) named in a sentence.
static LANDLORD_WORD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(landlords?|owners?|vermieter\w*|eigentumer\w*)\b").expect("valid pattern"));

static LISTING: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b[a-z]{1,2}-\d{4}\b").expect("valid pattern"));

/// Pet statements of a claim sentence (`body`: without citations; `previous`:
/// the sentence before it)
/// against the `petsAllowed` field of the listing they are about: the one a
/// clause names, else the listings in `scope` (named in this or an earlier
/// sentence). A statement no such listing's record agrees with is a
/// contradiction; with no record in the evidence there is nothing to check.
pub(super) fn check_pets(
    body: &str,
    previous: &str,
    scope: &[String],
    evidence: &Evidence,
    push: &mut impl FnMut(FindingKind, String, Option<String>),
) {
    // "… lists dogs as on request. So yes, he can move in with you": the
    // pronoun stands for the animal of the sentence before.
    if !ANIMAL.is_match(&plain(body)) && !(PRONOUN.is_match(body) && ANIMAL.is_match(&plain(previous))) {
        return;
    }
    // "… für Kleintiere wie Hamster brauchen Sie keine Erlaubnis. Das gilt bei allen
    // Mietwohnungen, solange …": naming no dog or cat, it goes on about the small
    // animals the sentence before ended on.
    let last = |re: &Regex, s: &str| re.find_iter(s).last().map(|m| m.start());
    let before = plain(previous);
    let dog_or_cat = &super::small_animals::DOG_OR_CAT_WORD;
    if !dog_or_cat.is_match(&plain(body))
        && !SMALL_ANIMALS.is_match(&plain(body))
        && last(&SMALL_ANIMALS, &before) > last(dog_or_cat, &before)
    {
        return;
    }
    let records = records(evidence);
    if records.is_empty() {
        return;
    }
    let parts = clauses(body);
    let qualified = qualifies(&parts);
    let need = need_denied(&parts);
    let mut about: Vec<String> = scope.to_vec();
    // "Anders ist es nur bei Kleintieren …: Die sind ohne Rückfrage erlaubt": in a
    // sentence about small animals alone, a clause that names no dog or cat is about them.
    let folded = plain(body);
    // "außer der Katze noch Kleintiere": the dog or cat set aside is not what the sentence is about.
    let rest = OWN_RULES.replace_all(&folded, " ");
    let own_rules = OWN_RULES.is_match(&folded) && !ANIMAL.is_match(&SET_ASIDE.replace_all(&rest, " "));
    // "Katzen, die nur in der Wohnung leben, zählen zu den Kleintieren": the
    // policy's small animals live in a cage or tank; a dog or cat is never one.
    if let Some(m) = SMALL_DOG_OR_CAT.find(&folded) {
        if let Some((_, _, source)) = records.first() {
            push(
                FindingKind::Contradicted,
                format!(
                    "counts a dog or cat as a small animal (\"{}\"); small animals are those kept in a cage or tank (policy:pets)",
                    m.as_str()
                ),
                Some(source.clone()),
            );
            return;
        }
    }
    // The record of a listing the sentence is about (any, before one is named) with this status.
    let about_with =
        |status: PetStatus| records.iter().find(|(l, s, _)| *s == status && (about.is_empty() || about.contains(l)));
    // "which means our agency decides on each animal": on request, the
    // landlord decides (policy:pets), the agency only passes the request on.
    if let Some(m) = AGENCY_DECIDES.find(&folded).filter(|_| !own_rules && !LANDLORD_WORD.is_match(&folded)) {
        if let Some((listing, _, source)) = about_with(PetStatus::OnRequest) {
            push(
                FindingKind::Contradicted,
                format!(
                    "gives the decision on dogs and cats at {listing} to the agency (\"{}\"); on request means the landlord decides [{source}]",
                    m.as_str()
                ),
                Some(source.clone()),
            );
            return;
        }
    }
    // "'On request' just means you let the landlord know", "counts as a yes":
    // on request, the landlord decides (policy:pets); a notice decides nothing.
    if let Some(m) = NOTICE.find(&folded) {
        if let Some((listing, _, source)) = about_with(PetStatus::OnRequest) {
            push(
                FindingKind::Contradicted,
                format!(
                    "makes a notice of on request at {listing} (\"{}\"); on request, the landlord decides [{source}]",
                    m.as_str()
                ),
                Some(source.clone()),
            );
            return;
        }
    }
    // "nicht erlaubt – es sei denn, der Vermieter gibt Ihnen sein Okay": a ban
    // the record states without exception, made to depend on the landlord.
    if let Some(m) = UNLESS_LANDLORD.find(&folded).filter(|_| !ASSISTANCE.is_match(&folded)) {
        if let Some((listing, _, source)) = about_with(PetStatus::NotAllowed) {
            push(
                FindingKind::Contradicted,
                format!(
                    "makes the ban at {listing} depend on the landlord (\"{}\"); the record allows no dogs or cats [{source}]",
                    m.as_str()
                ),
                Some(source.clone()),
            );
            return;
        }
    }
    // "Eine reine Wohnungskatze fällt nicht unter diese Einschränkung": the
    // records know no indoor cat; where cats are not allowed, none is.
    if INDOOR_CAT.is_match(&folded)
        && (EXEMPT.is_match(&folded)
            || parts.iter().any(|(_, c)| ALLOWS.is_match(&plain(c)) && !polarity(&plain(c)).negated))
    {
        if let Some((listing, _, source)) = about_with(PetStatus::NotAllowed) {
            push(
                FindingKind::Contradicted,
                format!("exempts an indoor cat at {listing}; the record allows no cats [{source}]"),
                Some(source.clone()),
            );
            return;
        }
    }
    // "Anders als bei Wohnungen, | in denen Tiere auf Anfrage möglich sind, | gibt es
    // hier …": the contrast and its relative clause speak of other flats.
    let mut other_flats = false;
    let mut previous = "";
    for (concluded, c) in parts {
        let was_other = other_flats;
        // "Ich suche Ihnen gern Wohnungen heraus, | in denen Katzen erlaubt sind".
        let general = super::wording::about_other_flats(&plain(previous), &plain(c));
        previous = c;
        if general {
            continue;
        }
        // Only a contrast without a verb of its own: "Unlike other flats, dogs are allowed here" states.
        other_flats = OTHER_FLATS.is_match(&plain(c)) && !super::wording::VERB.is_match(&plain(c));
        if other_flats || (was_other && RELATIVE_START.is_match(&plain(c))) {
            other_flats = true;
            continue;
        }
        if own_rules && !ANIMAL.is_match(&plain(c)) {
            continue;
        }
        let named: Vec<String> = LISTING.find_iter(&plain(c)).map(|m| m.as_str().to_uppercase()).collect();
        if !named.is_empty() {
            about = named;
        }
        about.sort();
        about.dedup();
        let Some(status) = stated(c, qualified, concluded, need) else { continue };
        let relevant: Vec<&(String, PetStatus, String)> =
            records.iter().filter(|(l, _, _)| about.is_empty() || about.contains(l)).collect();
        // Several listings in scope and no record for some of them: the
        // statement may be about one the evidence does not cover.
        if relevant.is_empty() || (about.len() > 1 && relevant.len() < about.len()) {
            continue;
        }
        if relevant.iter().any(|(_, s, _)| *s == status) {
            continue;
        }
        let (listing, record, source) = relevant[0];
        push(
            FindingKind::Contradicted,
            format!(
                "says dogs and cats are {} at {listing}; the record says {} [{source}]",
                status.words(),
                record.words()
            ),
            Some(source.clone()),
        );
        return;
    }
}

#[cfg(test)]
#[path = "pets_tests.rs"]
mod tests;
