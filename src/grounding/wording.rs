//! The wording grounding reads a reply by: how a text splits into clauses,
//! which role a sentence has ([`role`]),
//! the word lists that give a sentence its role (courtesy, offer,
//! hand-off, the assistant on itself) or mark what only a person can do
//! (commitments), a guess (hedges), a place, a time, a status or a
//! landlord's reported words that only the records could give. German
//! patterns are written on folded text ([`crate::fold::plain`]: lower case,
//! umlauts as plain vowels). Each list came from labelled replies
//! (`labels/dev*.yaml`) or the issue that asked for it; none names a case.

use std::sync::LazyLock;

use regex::Regex;

use crate::fold::plain;

/// Clause breaks. German "aber", "jedoch", "allerdings", "also" and English
/// "however" are left out: mid-clause they are adverbs ("entfällt dabei aber
/// nicht"), and splitting there cuts the negation off its verb; as
/// conjunctions they follow a comma, which breaks anyway.
pub(super) static GCLAUSE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)[;:–—]|,\s|\s-\s|\b(and|but|although|though|whereas|while|so|und|sondern|obwohl|während|denn)\b")
        .expect("valid pattern")
});

/// A clause that is only a yes ("yes", "ja", "absolutely").
static BARE_YES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(yes|yep|yeah|ja|jawohl|absolutely|definitely|klar|sure)\s*$").expect("valid pattern")
});

pub(super) static CONCLUSION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(so|also|therefore|thus|hence|daher|deshalb|darum|folglich)$").expect("valid pattern")
});

pub(super) static ESTIMATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(estimat\w*|est|about|approximately|approx|roughly|around|circa|ca|rund|etwa|ungefahr|geschatzt\w*|schatzung\w*|voraussichtlich\w*|vorlaufig\w*|provisional\w*|not yet final|noch nicht (final|endgultig|fest)|ballpark|expected|up to|bis zu|projected|projection|prognostiziert\w*|working figure|(can|could|may|might) still change|subject to change|(kann|konnte) sich (\w+ )?noch andern)\b")
        .expect("valid pattern")
});

pub(super) static PARENS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\([^()\n]{0,200}\)").expect("valid pattern"));

pub(super) static QUOTED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"“[^”\n]*”|„[^“”\n]*[“”]|"[^"\n]*"|«[^»\n]*»|»[^«\n]*«"#).expect("valid pattern"));

pub(super) static BRACKETS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\[[^\]\n]{1,300}\]").expect("valid pattern"));

pub(super) static COURTESY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[^.!?]{0,30}\b(wunsche|wunschen) (ich|wir) ihnen\b[^.!?]{0,40}[.!?]?$|^[^.!?]{0,40}\b(kummern (wir|ich) uns (\w+ )?(darum|drum)|(we|i)('ll| will) (\w+ )?(take care of|see to|look after) (it|that|this))[.!?]?$|^(hello|hi|hey|dear|good (morning|afternoon|evening)|thanks?|thank you|many thanks|kind regards|best( regards| wishes)?|regards|hallo|guten (tag|morgen|abend)|sehr geehrte\w*|liebe\w*|vielen dank|danke\w*|mit freundlichen|viele grusse|beste grusse|freundliche grusse|einen schonen tag|schonen tag|have a (nice|good|great|lovely) (day|weekend|evening)|alles gute|viel erfolg|good luck|best of luck|of course|certainly|sure|absolutely|gern|gerne|sehr gerne?|selbstverstandlich|klar|no problem|kein problem|great|happy to help|ja|yes|nein|no|leider nicht|unfortunately not|okay|ok|das verstehe ich|verstehe ich|i understand|understood|verstanden|alles klar|got it|verstandlich|nachvollziehbar|das ist (naturlich |selbstverstandlich |vollig |absolut |gar )?(in ordnung|verstandlich|nachvollziehbar|kein problem)|that'?s (totally |perfectly |completely |absolutely )?(fine|understandable|no problem))\b[^.!?]{0,40}[.!?]?$")
        .expect("valid pattern")
});

pub(super) static OFFER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(if you(('d| would) like| like| want| wish| need| have| prefer|'re interested| are interested)|falls sie interesse|bei interesse|i can (also )?(arrange|organi[sz]e|set up)\b|if it helps|if that helps|wenn es (ihnen )?hilft|wenn sie (interesse|lust|bedarf) haben|sollten sie (noch )?(weitere )?fragen|schreiben sie (uns|mir) gerne?|(leite|gebe|reiche) ich\b.{0,60}\bgerne?\b|gerne? zukommen lassen|i can (also )?(have|ask|get|pass|put|pull|send|forward)\b|(^|please |just |do |simply |to |, )let (me|us) know|feel free|happy to (help|look|check|answer|search|pass|forward|put|keep|ask|arrange|run|do|find|go|dig|see|pull)|gerne? bescheid geben|geben sie (mir |uns )?(gerne? )?bescheid|glad to help|i('d| would) be (happy|glad)|i can (also )?(look|check|search|help|suggest|tell you|show you|list|go through|walk you through)|would you like|shall i|gerne? (beantworte|helfe|suche|schaue|prufe|stehe|unterstutze|leite|stelle|zeige|nenne|sende|schicke)|(schaue|suche|helfe|prufe|beantworte|unterstutze|stelle|zeige|nenne|sende|schicke|erzahle|erklare|informiere) ich (ihnen |sie )?(\w+ )?(gerne?|weitere)|gerne? (gebe|leite|reiche|erzahle|erklare|informiere) ich\b|wenn sie (mochten|wollen|etwas|weitere|mogen)|sprechen sie (mich|uns)|melden sie sich|(suche|schaue|stelle) ich ihnen (\w+ ){0,6}(heraus|raus|zusammen|nach)|(then|next|after that),? i('ll| will| can) (\w+ )?(look|search) (for|out|through)|stehe ich (ihnen )?(gerne?)|any (other|further|more) questions|weitere fragen)\b")
        .expect("valid pattern")
});

pub(super) static HANDOFF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(passed|forwarded|handed|referred|escalated|sent|opened|created|raised|logged)\b.{0,80}\b(colleague|agent|team|person|request|ticket|data protection|manager)|\b(i|we)('ve| have)? (\w+ )?(asked|put|logged|flagged|filed|submitted|placed|passed|brought|taken|raised|noted)\b.{0,60}\b(with|to|in front of|before|for) (our|the|a|an|one of our) (\w+ ){0,2}(office|team|colleagues?|agents?|staff|desk|department|specialists?|advisers?|advisors?|managers?|people)\b|\b(office|team|colleagues?|agents?|staff|desk|department)\b.{0,40}\b(will|'ll)\b.{0,30}\b(come back to you|reply to you|get in touch|reach out|ring you|call you|email you|e-mail you|contact you|take it up)\b|\bcolleague|\bticket\b|\b(agent|team|someone|person|colleague|manager)s?\b.{0,60}\b(contact|get back|be in touch|reach out|follow up|call|take it up)|\basked one of our|weiter(gegeben|geleitet|gereicht)|\b(habe|haben|hab|wurde|wurden)\b (\w+ ){0,14}ubergeben\b|\bauf sie zu(kommen|kommt)\b|\bmit ihnen in verbindung\b|kolleg|\ban (unser|unsere|unseren|das|den|die|ein|eine|einen) (\w+ )?(team|abteilung|mitarbeiter\w*|vermietungsteam|kundenservice)\b|(meldet|melden) sich|\b(informiert|benachrichtigt|kontaktiert|informieren|benachrichtigen) sie\b|gibt ihnen bescheid|\bwill (let you know|inform you|notify you|update you)\b|ruft sie an|kontaktier|datenschutz|zustandigen (stelle|person|team)|\b(agent|team|colleague|person)s?\b.{0,20}\b(now |already )?(has|have) your (request|proposal|offer|question|enquiry|inquiry)\b|\b(they|he|she)('ll| will)\b.{0,60}\b(let you know|get back|be in touch|contact you|come back to you|reply to you|ring you|ring or email you|call you|email you|reach you|reach out)\b|\bliegt (jetzt|nun|bereits) (\w+ )?bei (unserem|unserer|einem|einer|dem|der)\b|\b(ubermittelt|weitergereicht|gemeldet)\b.{0,80}\b(stelle|team|abteilung|kolleg\w*|datenschutz\w*)|\b(stelle|team|abteilung)\b.{0,80}\b(ubermittelt|weitergereicht)\b|\b(bekommen|erhalten) sie\b.{0,30}\b(antwort|ruckmeldung|bescheid)\b|\bsie (bekommen|erhalten)\b.{0,40}\b(antwort|ruckmeldung|bescheid)\b|\bruckmeldung kommt\b|\b(das|dies|dies\w*) (ubernimmt|ubernehmen|erledigt|bearbeitet) (die|das|der|unser\w*) (zustandige\w*|datenschutz\w*|kolleg\w*)")
        .expect("valid pattern")
});

pub(super) static SELF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(i|we)('m| am| are|'re)? ?(afraid|sorry)|\b(outside|beyond) (my|our) (scope|remit|area)|\b(my|our) (scope|remit|role|job)\b|\b(i|we) (can|could)( only|n't|not| not)\b|\b(i|we) (only|just) (help|answer|deal)|\b(i|we) (don't|do not|cannot|can't|could not|couldn't) (have|find|see|set|make|book|give|offer|help|answer|provide|predict|recommend|advise)|\bi('m| am) (not able|unable|here to|here for|only here)|\bich (bin|kann|beantworte|darf|helfe|konnte)\b|\b(bin|kann|darf|helfe|beantworte) ich\b|\bich selbst (kann|darf|bin)\b|\b(meine[rnms]?|unsere[rnms]?) aufgaben|\bda muss ich passen|\bleider (kann|konnen) (ich|wir)|\bnicht (weiterhelfen|helfen)|\b(kann|konnen) (ich|wir) (ihnen )?(dabei |hierbei |hier )?(leider )?(nicht|keine)|not something (i|we)|nicht zu meinen|\bwhat (i|we) can (do|help with)\b|\bwas ich (fur sie )?(tun|machen) kann\b|\bda muss ich (leider )?passen\b|^(i|we)('m| am| are|'re) (only |just )?(the|an|a|your) ([\w']+ ){0,3}(assistant|chatbot|bot|service)\b|\b(my|our) (help|assistance|remit|role|scope|focus|knowledge|answers?) (is|are) (limited|restricted|confined)|\b(mein|unser)\w* (aufgabe|zustandigkeit|bereich|wissen|hilfe|schwerpunkt|fokus)\w*( (ist|sind|liegt|beschrankt)|\s*:)|\b(my|our) (area|remit|focus|scope|job|role|speciality|specialty)\s*:|\bwas ich (ihnen )?(anbieten|leisten|beantworten|abdecken) kann\b|\bgehor\w* nicht zu (dem|meinen|unseren)\b|\b(outside|beyond|not in) my (patch|wheelhouse|lane|department|area of expertise)\b|\bmuss ich (leider )?passen\b|\bich kenne mich (nur|ausschliesslich|lediglich) mit\b|\b(i|we) (only|just) know (about )?(our|the)\b|\b(i'm|i am) the (\w+ ){0,2}(assistant|chatbot)\b|\b(beyond|outside) what (i|we)('m| am| are|'re)? (set up|built|designed|made|able|here|meant)\b|^(i|we) (handle|answer|deal with|cover|take care of|help with) (questions|enquiries|inquiries)\b|\b(die )?(bessere|beste|richtige) (adresse|anlaufstelle|quelle)\b|\b(a|the) (better|best|right) (place|source|bet|port of call) for\b|\bbesser als (ich|wir|meine\w*|unsere\w*)\b|\bbetter than (me|i|my|mine|us|we|our)\b")
        .expect("valid pattern")
});

pub(super) static COMMITMENT: LazyLock<Regex> = LazyLock::new(|| {
    super::text::match_only(
        r"\b(appointment|viewing|date|slot|meeting|booking|visit|termin|besichtigung\w*)\b.{0,40}\b(is|are|'s|has been|have been|ist|wurde|steht)\s+(now\s+|all\s+|hereby\s+|jetzt\s+|nun\s+|hiermit\s+|fest\s+)?(set|fixed|booked|confirmed|scheduled|reserved|arranged|locked in|gebucht|bestatigt|reserviert|eingetragen|vereinbart|fest)\b|\b(termin|besichtigung)\w*\s+steht\b|\bsteht der termin\b|\b(i|we)('ve| have| just| hereby)?\s+(now\s+|already\s+|just\s+)?(booked|scheduled|confirmed|reserved|deleted|erased|removed|cancelled|secured)\b|\b(data|details|information)\b.{0,40}\b(has|have|is|are)( now| already)?( been)? (deleted|erased|removed)\b|\b(habe|haben) (ich|wir)\b.{0,50}\b(gebucht|bestatigt|reserviert|eingetragen|vereinbart|geloscht|entfernt|storniert)\b|\bdaten\b.{0,60}\b(sind|wurden|ist|wurde)\b.{0,40}\b(geloscht|entfernt)\b|\bwir sehen uns\b|\bbestatige (ich )?(ihnen )?(hiermit )?(den|die|ihren|ihre)\b|\b(will|'ll) (meet|see) you\b|\bsee you (on|at|next|this|then)\b|\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|afternoon|morning|evening|\d{1,2}(:\d\d)? ?(am|pm|uhr)|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)\w*\b.{0,30}\b(works|suits|is fine|is perfect|passt|geht klar|ist fest|is no problem|is not a problem|ist kein problem|klappt)\b|\b(landlord|owner|seller|vermieter\w*|eigentumer\w*|verkaufer\w*)\b.{0,40}\b(has|have|hat|haben)\s+(already\s+|bereits\s+|schon\s+)?(accepted|agreed|signall?ed|indicated|confirmed|zugestimmt|akzeptiert|signalisiert|bestatigt)|\b(landlord|owner|seller|vermieter\w*|eigentumer\w*|verkaufer\w*)\s+(accepts|agrees|is fine with|is happy with|akzeptiert|ist einverstanden)|\bwithin the range\b|\bim rahmen\b.{0,30}\b(akzeptiert|moglich)|\b(i|we)('ve| have)\s+(already\s+|just\s+)?(cleared|arranged|agreed|sorted out|approved|noted .{0,30}as (the )?(new|agreed)|recorded .{0,30}as (the )?(new|agreed))\b|\b(is|are|has been|have been)\s+(already|now)\s+(set|booked|confirmed|cleared|agreed|approved|fixed|reserved|deleted|removed)\b|\b(landlord|owner|seller|vermieter\w*|eigentumer\w*|verkaufer\w*)\b.{0,30}\b(is|are|ist|sind)\s+(happy|willing|ready|glad|bereit|gerne? bereit|einverstanden)\b|\b(bereits|schon)\s+(aus|von)\b.{0,40}\b(genommen|entfernt|geloscht)\b|\b(habe|haben) (ich|wir)\b.{0,60}\b(vorgemerkt|freigegeben|geklart|abgesprochen|zugesagt|eingeplant)\b|\bso gut wie (sicher|fix|fest|gebucht|bestatigt|zugesagt|abgemacht|vereinbart|akzeptiert|durch)\b|\b(count on|rely on|bank on) (the|your) (landlord|owner|seller)\w*\b.{0,20}\b(meeting|accepting|agreeing|coming down|going down|saying yes|approving)\b|\b(will|'ll|wird|werden)\b (\w+ ){0,5}(herunterhandeln|runterhandeln|heraushandeln|durchsetzen)\b|\b(will|'ll) (secure|lock in|negotiate down|get) (you )?(the |your |a )?[\d.,]+ (eur|euro)|\b(will|'ll) get (the|your) (rent|price) down to\b|\b(halten|halte) sie sich (\w+ ){0,5}frei\b|\b(halt|halten|halte) (sie|er|ich|wir) ihnen ([\w-]+ ){0,3}frei\b|\b(holding|keeping|reserving|blocking) (\w+ ){0,3}for you\b|\byour [\d.,]+ (eur|euros?) (will|'ll) (apply|stand|hold|be accepted)\b|\b(ihre|ihr) [\d.,]+ (eur|euro) (gelten|gilt|werden akzeptiert)\b|\bas good as (certain|confirmed|booked|settled|agreed|yours)\b|\b\w*(abend|tag|termin|nachmittag|vormittag|datum)\w* (\w+ ){0,6}(freihalten|frei halten|blocken)\b|\b(consider|treat|take) (it|that|this) (as )?(settled|done|booked|fixed|confirmed|a done deal)\b|\bgoes ahead as (you )?(asked|requested|planned|wished)\b|\b(that|this|it)('ll| will) be your (slot|date|appointment|viewing|time)\b|\bthat's when you('ll| will) (be seeing|see|view)\b|\b(we|i)('ll| will) see to it that\b|\bfindet (\w+ ){0,3}wie (gewunscht|angefragt|geplant) statt\b|\bkeep (the|that|this) (evening|afternoon|morning|day|date|slot) free\b|\b(landlord|owner|seller|vermieter\w*|eigentumer\w*|verkaufer\w*)\b.{0,40}\b(isn't|is not|ist|ware|wäre) (\w+ )?(unwilling|averse|opposed|abgeneigt)\b|\bapproved in principle\b|\b(landlord|owner|seller|vermieter\w*|eigentumer\w*|verkaufer\w*)\b.{0,20}\b(hat|has|have)\b.{0,60}\b(bereits|schon|already|now|jetzt|inzwischen) (abgenickt|zugestimmt|akzeptiert|angenommen|abgesegnet|signalisiert|agreed|accepted|okayed|signed off|signalled|signaled|indicated)\b|\b(ich|wir) (habe|haben) (\w+ ){0,6}(bereits|schon) (\w+ ){0,4}(abgestimmt|vereinbart|geklart|arrangiert|ausgehandelt|geregelt)\b|\b(i|we)('ve| have) (already )?(arranged|agreed|sorted|settled|cleared) (it |this |that )?with (the )?(landlord|owner|seller)\b|\byou can (plan on|count on|rely on|reckon on|bank on) (that|the|this|your) (\w+ )?(afternoon|evening|morning|slot|date|day|viewing|appointment|time)\b|\b(konnen|durfen) sie (fest |sicher |getrost )?(von|mit) (dem |diesem |ihrem |einem )?(termin|\w+tag\w*|mittwoch\w*|besichtigung\w*) (ausgehen|rechnen)\b|\bklappt (\w+ ){0,3}(ihrem|ihr|dem|der) (termin|besichtigung\w*)\b|\b(konnen|durfen) sie sich (\w+ ){0,5}fest (vormerken|notieren|eintragen|einplanen)\b|\boffen ist nur noch (die|der) (genaue |exakte )?(uhrzeit|zeit)\b|\bonly the (exact )?time (is|remains) (open|to be (fixed|confirmed|set))\b|\b(are|is) (fine|ok|okay|happy|on board) with (the |your )?\d|\b(bereits|schon|already) (das |ein |a |the )?(signal|go-ahead|green light)\b|\bnicht mehr verhandelt\b|\b(ist|sind) mit (den |der |dem |ihren |ihrem )?\d[\d.,]* (\w+ ){0,4}einverstanden\b|\byou can keep (that|the|this) (\w+ )?(time|slot|afternoon|evening|morning|date|day) free\b|\b(termin|besichtigung|\w*abend|\w*nachmittag)\w* (konnen sie sich )?(\w+ )?freihalten\b|\b(termin\w*|besichtigung\w*|\w+tag(abend|nachmittag|vormittag|morgen)?|mittwoch\w*)\b.{0,30}\b(kann|konnen) (ich|wir) (ihnen )?(\w+ ){0,2}bestatigen\b|\b(ihr|der) (wunsch)?termin (ist )?(damit |so |also )?(abgedeckt|gesichert|sicher)\b|\b(agreed|accepted|settled) in principle\b|\bonly (needs|has) to (settle|fix|confirm|agree) the (exact )?time\b|\b(and |also |already )(entered|put down|recorded) [\d.,]+ eur\b|\b(fur|in) (ihren|den|ihrem|dem) (miet)?vertrag (\w+ )?(vorgemerkt|eingetragen|aufgenommen|ubernommen)\b|\bim prinzip (vereinbart|abgemacht|zugesagt)\b|\b(i|we)('ve| have) (also )?(already )?(entered|put down|recorded|written|set) [\d.,]+ eur\b|\bwill (settle|agree|fix|confirm|lock in) (the|your) (rent|price|offer) (of|at)\b|\b(grundsatzlich|im prinzip) (genehmigt|zugestimmt|einverstanden|bewilligt)\b|\b(ist|sind) (\w+ ){0,3}(bereits|schon|jetzt|nun|inzwischen) (vorgemerkt|reserviert|gebucht|bestatigt|geklart|freigegeben|entfernt|geloscht)\b|\b(pencil+ed you in|pencil+ed in (for|on)\b|you('re| are) pencil+ed in|(viewing|appointment|slot|date|visit|monday|tuesday|wednesday|thursday|friday|saturday|sunday|afternoon|morning|evening|\d{1,2}:\d\d)\b.{0,30}\bpencil+ed in|put you down for|(booked|signed|slotted|penciled|pencilled) you in|you('re| are) (all )?(set|booked|scheduled|down|confirmed) for)\b|\bfest (eingeplant|eingetragen|gebucht)\b|\b(ist|sind|wurde|wurden)\b.{0,40}\b(eingeplant|eingetragen|eingebucht)\b|\b(simply |just )?(come|drop|pop) (by|round|over|along) (at|on|between)\b|\bkommen sie\b.{0,50}\bvorbei\b|\b(being |been )?(held|kept|reserved|blocked) for you\b|\b(vorgang|beschwerde|angelegenheit|matter|complaint|case)\b.{0,40}\b(ist|is|has been|wurde)\b.{0,20}\b(abgeschlossen|erledigt|closed|resolved|dealt with)\b|\b(realistisch|getrost) (planen|kalkulieren|rechnen)\b|\b(plan|count|reckon) (realistically|safely) (on|with)\b|\b(i|we)('ve| have)?\s+(\w+ ){0,3}(set|put) (\w+ ){0,3}aside\b|\b(set|put|kept|held) aside for you\b|\b(fur sie )?(zuruckgelegt|zuruckgestellt)\b|\bfur sie (reserviert|freigehalten|geblockt|vorgemerkt)\b|\bfreigehalten\b|\bwill go through\b|\bgeht (klar|durch)\b|\b(fest|sicher) (damit|darauf) rechnen\b|\b(safely |firmly )?count on (it|that|this)\b|\b(landlord|owner|seller|vermieter\w*|eigentumer\w*|verkaufer\w*)\b.{0,30}\b(is|are|ist|sind)\b.{0,40}\b(einverstanden|happy with|fine with|okay with|ok with|on board)\b|\b(habe|haben) (ich|wir)\b.{0,40}\b(erledigt|eingeholt)\b|\b(i|we)('ve| have) (already )?(taken care of|sorted|handled|settled) (it|that|this|everything)\b|\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)\w*\s+(steht|stands|is on|is set|is fixed)\b|\b(vormerken|reservieren|blocken|eintragen) lassen\b|\b(landlord|owner|seller|vermieter\w*|eigentumer\w*|verkaufer\w*)\b.{0,30}\b(is|are|ist|sind)\s+(\w+\s+)?(open to|offen fur|flexible|flexibel|verhandlungsbereit|willing to negotiate|gesprachsbereit)\b|\b(go ahead and )?plan (for|on|with) (that|this|the) (time|slot|date|day|appointment)\b|\b(take|treat|consider) (that|the|this) (slot|date|time|appointment|viewing) as (settled|fixed|confirmed|set|booked)\b|\b(mietvertrag|vertrag|contract|lease)\b.{0,50}\b(zur unterschrift|to sign|for (your )?signature|for signing)\b|\b(loschung|deletion|erasure)\w*\b.{0,50}\b(veranlasst|abgeschlossen|erledigt|durchgefuhrt|completed|done|initiated|under way|underway)\b|\bfest (so |damit |also )?(einplanen|planen)\b|\b\d{1,2}(:\d\d)? ?(uhr|am|pm) (steht|stands)\b|\b(figure|amount|price|rent|sum) (you can|to) (\w+ )?plan with\b|\bat the (new|lower|reduced|agreed) rent\b|\b(zur|mit der|zu der) (neuen|niedrigeren|reduzierten|vereinbarten) miete\b|\b(approval|consent|go-ahead|ok|okay|zustimmung|genehmigung|zusage|grunes licht)\b.{0,40}\b(will|wird|'ll)\b.{0,20}\b(come through|follow|arrive|be issued|be granted|kommen|folgen|erteilt)\b|\b(ihr angebot|your offer|your proposal|ihr vorschlag) (passt|works|is fine|geht in ordnung)\b|\bliegen sie (da |damit |hier )?(gut|richtig)\b|\b(you can|you'll|you will|you may) expect\b.{0,40}\b(come down|go down|drop|fall|be reduced|be lowered|be adjusted)\b|\b(nur noch|only needs? to|just needs? to|only has to|only have to)\b.{0,40}\b(\w*vertrag|contract|paperwork|papers|formalities|formalitaten|unterschrift|signature)\b|\b(will be|'ll be) waiting for you\b|\b(zeigt|zeigen|fuhrt|fuhren|show|shows|will show|'ll show)\b.{0,40}\b(am|on|this|next) (monday|tuesday|wednesday|thursday|friday|saturday|sunday|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)\w*|\b(halte|halten) (ich|wir) (\w+ ){0,5}fest\b|\b(is|are) (already )?(down|pencil+ed in|in the diary|in the calendar) for you\b|\b(vermieter\w*|landlord|owner|eigentumer\w*)\b.{0,60}\b(flexibel|verhandlungsbereit)\b|\b(wartet|warten) (\w+ ){0,3}auf sie\b|\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)( (afternoon|morning|evening))? it is\b|\b(inzwischen|bereits|schon|jetzt|nun)\b.{0,15}\b(aus|von)\b.{0,50}\b(herausgenommen|genommen|entfernt|geloscht|gestrichen)\b|\b(kann|konnen) (ich|wir) (\w+ ){0,3}(so )?(stehen lassen|akzeptieren|annehmen|zusagen)\b|\b(mietangebot|angebot|vertrag|mietvertrag|offer|contract|lease)\b.{0,40}\b(mit|zu|at|for) (diesem|dem|ihrem|this|that|your) (betrag|preis|figure|price|amount|rent)\b|\b(he|she|they|the landlord|the owner)('ll| will) be expecting you\b|\b(er|kollege|kollegin|vermieter|vermieterin|makler|maklerin|wir) (erwartet|erwarten) sie\b|\b(vermieter\w*|landlord|owner|eigentumer\w*)\b.{0,60}\b(mitgehen|mitgeht|einlenken|einlenkt|go along with)\b|\b(landlord|owner|seller|vermieter\w*|eigentumer\w*|verkaufer\w*)\b.{0,40}\b(has|have|hat|haben)\s+(already\s+|bereits\s+|schon\s+)?(signed off|okayed|ok'd|given the green light|green-lit|approved|abgesegnet|freigegeben|grunes licht gegeben)|\b(sicher|bestimmt|certainly|surely|definitely) (noch )?(spielraum|verhandlungsspielraum|room to negotiate|room for negotiation|wiggle room|some room)\b|\b(ich|wir) (habe|haben)\b.{0,80}\b(gebucht|bestatigt|reserviert|eingetragen|vereinbart|geloscht|entfernt|storniert|vorgemerkt|eingeplant)\b|\b(will|'ll) (let you in|show you (a)?round)\b|\b(you can|you'll|you will) expect (a|an) (revised|new|lower|better|reduced|improved) (offer|rent|price|quote)\b|\b(dog|cat|pet|animal|request|application|hund|katze|tier|anfrage|antrag)\w*\b.{0,30}\b(has been|have been|is|are|was|were|wurde|wurden|ist|sind)\s+(already\s+|now\s+|bereits\s+|schon\s+|jetzt\s+)?(approved|accepted|granted|cleared|genehmigt|akzeptiert|bewilligt|freigegeben)\b|\b(slot|appointment|viewing|date|time|termin)\b.{0,20}\b(is|ist) (yours|ihrer|ihr|fur sie)\b|\bplan (your )?(\w+ )?around (it|that|this)\b|\b(you can|you could|simply|just) (simply |just )?join (that|this|it|the)\b|\binnerhalb (dieses|des|ihres) (rahmens|spielraums)\b|\b(vermieter\w*|landlord|owner|eigentumer\w*)\b.{0,80}\b(einlasst|einlassen|akzeptiert|zustimmt|accepts?|agrees?)\b.{0,80}\b(nicht unwahrscheinlich|gut moglich|durchaus (moglich|denkbar|realistisch)|quite (likely|possible)|not unlikely|realistic)\b|\b(nicht unwahrscheinlich|gut moglich|not unlikely|quite likely)\b.{0,60}\b(einlasst|einlassen|akzeptiert|zustimmt|accepts?|agrees?)\b|\b(sent|send|email|e-mail|mail)\w*\b.{0,40}\b(on|by|am|bis) (monday|tuesday|wednesday|thursday|friday|saturday|sunday|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)\b|\b(simply|just) (come|go|head|turn up|show up)\b.{0,25}\b(to|at) the (building|flat|apartment|property|address|house|front door|entrance)\b|\bkommen sie (\w+ ){0,2}(einfach|ruhig)\b.{0,30}\b(zum|zur|an die|vor das|ins|in die) (haus|gebaude|wohnung|objekt|adresse|eingang|haustur)\b|\b(ihr )?(wunschtermin|wunschdatum|termin)\b.{0,15}\b(passt|klappt|geht klar)\b|\byour (preferred |chosen )?(date|slot|time|day|(monday|tuesday|wednesday|thursday|friday|saturday|sunday)( afternoon| morning| evening)?)\b.{0,20}\b(works|fits|suits|is fine)\b|\b(i|we)('ve| have) (already |just )?(let|told|informed|notified) the (landlord|owner|seller)\b|\b(ich|wir) (habe|haben) (dem |den |der )?(vermieter\w*|eigentumer\w*|verkaufer\w*) (bereits |schon )?(mitgeteilt|informiert|benachrichtigt|bescheid gegeben|gesagt)\b|\b(prepare|draw up|drawing up|preparing|get ready) (the |your )?(rental |tenancy )?(contract|lease)\b|\b(mietvertrag|vertrag)\b (\w+ ){0,3}(vorbereiten|aufsetzen|vorbereitet|aufgesetzt)\b|\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)\w*( (afternoon|morning|evening|nachmittag|vormittag|abend))? (is|ist) (yours|ihrer|ihr|fur sie)\b|\b((ich|wir) (habe|haben)|(habe|haben) (ich|wir))\b.{0,40}\b(dem|den|der|an den|an die) (vermieter|eigentumer|verkaufer)\w*\b.{0,20}\b(ubermittelt|weitergeleitet|mitgeteilt|vorgelegt|geschickt|gesendet|zugeschickt|weitergegeben)\b|\b(i|we)('ve| have) (already |just )?(passed|forwarded|sent|put|submitted|taken) (your |the )?(offer|request|proposal|question)( on)? (to|before) the (landlord|owner|seller)\b|\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)\w*( (afternoon|morning|evening|nachmittag|vormittag|abend))?( itself| selbst)? (is|ist) (settled|fixed|set|confirmed|fest|geklart|sicher)\b|\b(next |this |nachsten |kommenden )?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)( afternoon| morning| evening)? (will|would) (work|suit you|be fine)\b|\b(count on|rely on|bank on)\s+(the\s+|your\s+|next\s+|this\s+)*(monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekend|afternoon|morning|evening|date|slot|appointment|viewing)\w*\b|\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|termin|besichtigung)\w*\b.{0,40}\b(fest einplanen|verlassen)\b|\b(als )?(annehmbar|akzeptabel|vertretbar|tragbar) (angesehen|betrachtet|eingeschatzt|eingestuft|bewertet)\b|\b(seen|regarded|considered|viewed) as (acceptable|agreeable|fine|workable)\b|\b(landlord|owner|seller|vermieter\w*|eigentumer\w*|verkaufer\w*)\b.{0,60}\b(befurwortet|genehmigt|abgesegnet|gutgeheissen|approved|okayed|signed off)( worden)?\b|\b(ist|sind|wurde|wurden) (\w+ ){0,3}(befurwortet|genehmigt|abgesegnet|gutgeheissen|zugesagt) worden\b|\b(request|application|offer|cat|dog|pet|proposal)s? (has|have) (already |now )?been (approved|okayed|accepted|signed off)\b|\b(termin|besichtigung|date|slot|viewing|appointment)\w*\b.{0,40}\b(praktisch|quasi|so gut wie|damit|effectively|practically|as good as) (gesetzt|fix|fest|set|fixed|settled)\b|\b(steht|stehen|is|are|has been|wurde)\b.{0,60}\b(in|im|into) (unserem |unseren |our |the |the \w+'s |his |her |their )?(\w+ )?(\w*kalender|calendar|diary|schedule)\b|\b(sind|ist) (also |damit )?(gut |durchaus )?drin\b|\b(looks|seems|sounds) (very |quite |entirely )?(realistic|achievable|doable)\b|\b(landlord|owner|seller|vermieter\w*|eigentumer\w*)\b.{0,20}\b(has|hat)\b.{0,20}\b(room to move|room for manoeuvre|wiggle room|spielraum)\b|\b(amended|revised|updated|adjusted|new) (offer|contract|lease)\b.{0,40}\b(at|for|uber|zu) [\d.,]+|\b(send|schick\w*|zusend\w*)\b.{0,60}\b(to sign|zur unterschrift|zum unterschreiben)\b|\b(ihnen|you) (die |den |das )?[\d.,]+\s+(eur\s+|euro\s+)?([\w-]+\s+){0,4}zusagt\b|\b(i|we)('ve| have) (already )?(run|put|taken|floated)\b.{0,40}\b(past|to|by|with) the (landlord|owner|seller)\w*|\b(landlord|owner|seller)('s side)?\b.{0,30}\b(is|are|'re|'s) (open|receptive|amenable) to\b|\b(zusage|confirmation)\b.{0,40}\b(kann|konnen|can) (ich|wir|i|we) (ihnen |you )?(geben|erteilen|give)\b|\bbleibt es (\w+ )?(bei|am) (dem )?(monday|tuesday|wednesday|thursday|friday|saturday|sunday|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)\w*|\bplanen sie (\w+ ){0,3}(monday|tuesday|wednesday|thursday|friday|saturday|sunday|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)\w* (\w+ ){0,3}ein\b|\b(plan|pencil) (on|for|in) (the |your |next )?(monday|tuesday|wednesday|thursday|friday|saturday|sunday|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)\w*|\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)\w*( (afternoon|morning|evening|nachmittag|vormittag|abend))? (stands|holds|is on|steht)\b|\b(profil|konto|kundenkonto|account|profile)\b.{0,40}\b(ist|sind|is|are)\b.{0,30}\b(geloscht|deleted|erased|entfernt)\b|\b(entered|booked|slotted|written|added|logged|put)\b.{0,40}\b(in|into|on) (the|our|your|his|her|their|the \w+'s) (\w+ )?(schedule|diary|calendar|agenda|rota)\b|\b(has|have) been (\w+ ){0,2}entered (for|in|into)\b|(^|[:–-]\s*|\b(is|are|has been|have been|'s|all|now|already)\s+)(set up|arranged|booked|scheduled|fixed) for you\b|\b(loschung|entfernung)\w*\b.{0,60}\b(ist|sind|wurde|wurden) (\w+ ){0,2}(bereits |schon |inzwischen )?erfolgt\b|\b(daten|kontaktdaten|profile?|suchprofile?|eintrag|eintrage)\b.{0,60}\b(bereits|schon|inzwischen) erfolgt\b|\b(removal|deletion|erasure)\b.{0,60}\b(has been|was|is) (already |now )?(carried out|completed|done)\b|\b(slot|date|time|termin|appointment|afternoon|evening|morning|nachmittag|abend)\b.{0,20}\b(can be planned (with|on|for)|kann (fest )?eingeplant werden)\b|\bnothing stands in the way of (a|the|your) (viewing|appointment|date|visit)\b|\bsteht (\w+ ){0,3}nichts (mehr )?im wege\b|\byou can (plan on|count on|rely on|bank on) it\b|\b(is|ist) (the|der|das) (date|slot|time|day|termin|datum) (that|der|das) (applies|stands|holds|gilt|steht)\b|\b(meeting point|treffpunkt|address|adresse|access details|zugangsdaten)\b.{0,30}\b(for|fur) (\w+ )?(monday|tuesday|wednesday|thursday|friday|saturday|sunday|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)\w*|\b(recorded|entered|noted|vermerkt|eingetragen|festgehalten)\b.{0,60}\b(as the basis|als grundlage)\b|\b(landlord|owner|vermieter\w*|eigentumer\w*)\b.{0,40}\b(has|have|hat|haben) (already |bereits |schon )?given (the|his|her|their|a) (go-ahead|ok|okay|approval|consent|green light)\b|\b(decision|entscheidung)\b.{0,30}\b(has )?(come out|came out|turned out|ausgefallen)\b.{0,15}\b(yes|positive|positiv|zugunsten)\b|\b(fur ihre?n? (katze|hund|haustier)|for your (cat|dog|pet))\w*\b.{0,25}\b(grunes licht|green light)\b|\b(already|now|bereits|schon|inzwischen) (\w+ ){0,2}(cleared|clarified|sorted|settled|agreed|checked|abgeklart|geklart|abgestimmt|vereinbart) (it |that |this |this out |das |es |die frage |the question )?(with|mit) (the|dem|der|ihrem|your) (landlord|owner|seller|vermieter\w*|eigentumer\w*|verkaufer\w*|hausverwaltung)\b|\b(bereits|schon|inzwischen) (\w+ ){0,2}mit (dem|der|ihrem) (vermieter\w*|eigentumer\w*|verkaufer\w*|hausverwaltung) (\w+ ){0,2}(abgeklart|geklart|abgestimmt|vereinbart|besprochen)\b|\b(in|im|into) (\w+ ){0,2}\w*(kalender|calendar|diary|terminplan)\w* (\w+ ){0,3}(eingetragen|vermerkt|notiert|entered|pencilled|penciled|put down|blocked)\b",
    )
});

pub(super) static HEDGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(may well|might|probably|likely|presumably|usually|typically|generally|normally|often|oft|haufig|in most cases|as a rule|tends? to|chances are|safe bet|almost certainly|i('d| would) (expect|assume|guess|think|plan)|should be (fine|ok|okay|achievable|possible|no problem|ideal|enough|available)|in der regel|wahrscheinlich|vermutlich|normalerweise|meistens|meist|erfahrungsgemass|durfte|durften|sollte (kein|moglich|reichen)|gewohnlich|ublicherweise|wie ublich|sicher fundig|sicheren seite|im normalfall|estimated|about|roughly|approximately|around|rund|etwa|ca|circa|geschatzt|voraussichtlich|schatzung)\b")
        .expect("valid pattern")
});

/// Things a reply may only name when the records do: local amenities ("a
/// great bakery around the corner", "viele beliebte Kneipen": issue #27's
/// restaurant tip after a correct refusal), an exception to a rule
/// ("Ausnahme für Studierende"), a surcharge or processing fee, and a
/// connection technology ("fibre", "VDSL", "250 Mbit"), the weather ("a
/// drizzly weekend around five degrees"). Each is the model's own
/// knowledge, however plausible. Stellplatz and Straßenbahn are not places.
pub(super) static PLACE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(ausnahme\w*|ausnahmsweise|hausordnung\w*|house rules?|exceptions?|surcharges?|zuschlag\w*|bearbeitungsgebuhr\w*|processing fee|admin(istration)? fee|glasfaser\w*|fibre|fiber|ftth|vdsl|dsl|\d+ ?mbit\w*|gigabit\w*|kabelanschluss|restaurants?|bakery|bakeries|cafes?|pubs?|bistros?|supermarkets?|kindergartens?|schools?|playgrounds?|gyms?|kneipen?|backerei\w*|supermarkt\w*|kitas?|schulen?|spielplatze?|biergarten|u-bahn\w*|s-bahn\w*|bus stops?|bushaltestellen?|tram stops?|eateries|places to eat|dining spots?|gaststatte\w*|gastronomie\w*|(gute|nette|beliebte|viele|mehrere|einige|schone|tolle|gemutliche) (\w+ )?lokale|\d+ ?(degrees|grad)|(one|two|three|four|five|six|seven|eight|nine|ten|null|eins|zwei|drei|vier|funf|sechs|sieben|acht|neun|zehn) (degrees|grad)|drizzl\w*|nieselregen|regnerisch\w*|sunny|sunshine|sonnenschein|sonnig\w*|tierkaution|pet deposit|pet fee|haustierzuschlag|open[- ]viewings?|group viewings?|vermittlungs(pauschale|gebuhr)\w*|(kleine|geringe|einmalige|symbolische) (\w+ )?(pauschale|gebuhr)|(small|booking|service|admin|handling) fee|open house|waives?|waived|erlasst|italiener|pizzeria|trattoria|imbiss|change[- ]of[- ]use|nutzungsanderung\w*|umnutzung\w*|sammelbesichtigung\w*|gruppenbesichtigung\w*|offene besichtigung\w*|washout|wash-out|overcast|stays? dry|bleibt (es )?trocken|fairly mild|mild (weather|temperatures|days?)|(dry|trocken) (und|and) (mild|warm|sonnig|sunny)|cloudy|wolkig|bewolkung|some cloud|etwas wolken|bewolkt|rain showers|regenschauer|raincoat|regenjacke|regenschirm|umbrella|damp|windy|blustery|chilly|stormy|frosty|rainy|windig\w*|sturmisch\w*|usselig\w*|nasskalt\w*)\b|\b(grey|gray|grau) (and|und|,)")
        .expect("valid pattern")
});

/// A street by its name, on the original text: "Venloer Straße",
/// "Osterstraße", "Baker Street" (a capitalised word before the street word).
pub(super) static STREET: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b[A-ZÄÖÜ][\wäöüß-]*(straße|strasse|allee)\b|\b[A-ZÄÖÜ][a-zäöüß]+platz\b|\b[A-ZÄÖÜ][\wäöüß-]*\s+(Straße|Strasse|Allee|Street|Road|Avenue|Lane|Platz|Ufer|Damm|Chaussee)\b")
        .expect("valid pattern")
});

/// Whether a [`STREET`] match names a street or square: words ending in
/// "-platz" that name a space ("Stellplatz", "Spielplatz") do not.
pub(super) fn is_street(name: &str) -> bool {
    let n = crate::fold::plain(name);
    ![
        "stellplatz",
        "parkplatz",
        "spielplatz",
        "arbeitsplatz",
        "sitzplatz",
        "kitaplatz",
        "studienplatz",
        "wohnplatz",
        "schlafplatz",
        "garagenplatz",
        "kellerplatz",
        "fahrradplatz",
        "lagerplatz",
        "trockenplatz",
    ]
    .iter()
    .any(|w| n.ends_with(w))
}

/// Commitments said with a negation word, which the negation test of
/// [`COMMITMENT`] would pass over: data "no longer held" is data deleted,
/// "nichts einzuwenden" is a landlord's yes.
pub(super) static DONE_BY_DENIAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(account|konto|kundenkonto|profil|profile)\b.{0,40}\b(no longer exists|has been (closed|deleted|removed)|existiert\b.{0,20}\bnicht mehr|wurde (geschlossen|geloscht|aufgelost))|\bnicht mehr (vorhanden|gespeichert|hinterlegt|im system)\b|\bnichts mehr\b.{0,40}\b(gespeichert|hinterlegt|vorhanden|erfasst)\b|\b(nothing( of (yours|your \w+))?|none of (it|your \w+)) (is |are )?(left |still )?(stored|held|kept|on file)\b|\bnicht mehr\b.{0,40}\b(gespeichert|hinterlegt|vorhanden|erfasst)\b|\bno longer\b.{0,40}\b(stored|held|kept|saved|on file)\b|\b(gespeichert|hinterlegt|vorhanden)\b.{0,60}\bnicht mehr\b|\bno longer (stored|held|kept|on file|in our (system|records|database))\b|\bnichts (dagegen|einzuwenden)\b|\b(liegen|liegt)\b.{0,50}\bnicht mehr vor\b|\b(keine|no) (\w+ )?(bestatigung|confirmation)\b.{0,30}\b(mehr )?(abwarten|abzuwarten|warten|needed|necessary|required|notig|erforderlich)\b|\bno (need|longer any need) to wait for (a |the |any )?confirmation\b|\b(won't|will not|don't|do not) (need|have) to (hang on|wait)\b|\bno objections?\b|\bnicht (schon|bereits) (entfernt|geloscht)|\b(isn't|is not|aren't|are not|hasn't been|has not been|haven't been|have not been) already (removed|deleted|erased)\b|\bkein(e|en)? (einwand|einwande|problem damit)\b|\bnicht mehr (bei uns |in unserem system )?(gefuhrt|gespeichert|verarbeitet)\b|\bnothing (left|more|else) to (confirm|arrange|book|sort out|organi[sz]e|settle)\b|\bnichts mehr zu (bestatigen|klaren|vereinbaren|organisieren|regeln)\b|\bnicht mehr unverbindlich\b|\bno longer (tentative|provisional|unconfirmed|pencil+ed)\b|\bnot something (that )?(still )?needs? (confirming|to be confirmed|confirmation)\b|\bneeds? no (further |more )?confirm\w*\b|\b(keiner|keine) (weiteren? )?bestatigung (mehr )?(bedarf|bedurfen|braucht)\b|\b(bedarf|bedurfen|braucht) (es )?(keiner|keine) (weiteren? )?bestatigung\b")
        .expect("valid pattern")
});

/// The landlord's decision foretold as a fact ("the landlord will go down to
/// 2,800 EUR", "wird der Vermieter Ihnen entgegenkommen"): only the landlord
/// can say it, and no record does.
pub(super) static LANDLORD_WILL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(landlord|owner|seller|vermieter\w*|eigentumer\w*|verkaufer\w*)\b.{0,40}\b(will|'ll|wird|werden)\b (\w+ ){0,4}(go down|come down|accept|agree|lower|reduce|approve|allow|say yes|meet you|entgegenkommen|nachgeben|zustimmen|akzeptieren|senken|heruntergehen|runtergehen|einverstanden sein|genehmigen|erlauben|ja sagen|einlenken|einlassen)\b|\b(landlord|owner|seller)\b.{0,40}\b(comes|goes) down to\b|\b(vermieter\w*|eigentumer\w*)\b.{0,40}\b(geht|kommt) (\w+ )?(auf|bis auf) [\d.,]+ (eur|euro)\b (\w+ )?(herunter|runter|entgegen)|\b(wird|werden) (der|die|ihr|ihre) (vermieter\w*|eigentumer\w*|verkaufer\w*)\b (\w+ ){0,4}(entgegenkommen|nachgeben|zustimmen|akzeptieren|senken|heruntergehen|runtergehen|einverstanden sein|genehmigen|erlauben|ja sagen|einlenken)\b|\blasst sich (der |die |ihr |ihre )?(vermieter\w*|eigentumer\w*|verkaufer\w*) (\w+ ){0,3}ein\b|\b(vermieter\w*|eigentumer\w*|verkaufer\w*) lasst sich (\w+ ){0,4}ein\b")
        .expect("valid pattern")
});

/// A refusal by the landlord ruled out ("nicht auf Ablehnung stoßen",
/// "dass der Vermieter ablehnt, ist nicht zu erwarten", "I doubt the
/// landlord would say no"): the landlord's yes foretold by a double negation.
pub(super) static LANDLORD_NO_REFUSAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(nicht|kaum) auf (ablehnung|widerstand|ein nein) (stossen|stosst)\b|\b(landlord|owner|seller|vermieter\w*|eigentumer\w*|verkaufer\w*)\b.{0,40}\b(ablehnt|ablehnen|ablehnen wird|nein sagt|refuses?|rejects?|say no|turn (it|you|this|that) down|object)\b.{0,40}\b(nicht zu erwarten|kaum|unwahrscheinlich|unlikely|not expected|hardly|doubt)\b|\b(i|we) (doubt|don't expect|do not expect|can't see|cannot see)\b.{0,20}\b(landlord|owner|seller)\b.{0,30}\b(refus\w*|reject\w*|say(ing)? no|turn\w* (it|you|this|that) down|object\w*)\b|\bein nein wird es (\w+ )?kaum geben\b|\b(ablehnung|absage)\b.{0,30}\b(nicht zu erwarten|ist kaum zu erwarten|unwahrscheinlich)\b|\b(landlord|owner|seller|vermieter\w*|eigentumer\w*|verkaufer\w*)\b.{0,50}\b(kaum|hardly|wohl nicht|sicher nicht|bestimmt nicht|unlikely to)\b.{0,10}\b(nein sagen|ablehnen|say no|refuse|object|turn (it|you|this|that) down)\b")
        .expect("valid pattern")
});

/// What the landlord or owner is said to have told the agency ("the landlord
/// mentioned to us", "der Vermieter hat signalisiert"), or the agency's own
/// staff ("our Hamburg office has mentioned a storm warning"): records hold
/// no such statement, so it is the reply's own invention.
pub(super) static LANDLORD_SAID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(landlord|owner|seller|vermieter\w*|eigentumer\w*|verkaufer\w*)\b.{0,30}\b(has said|said|mentioned|told (us|me)|let us know|has indicated|indicated|hinted|hat (uns |mir )?(gesagt|erwahnt|mitgeteilt|wissen lassen|signalisiert|angedeutet)|sagte|meinte|erwahnte)\b|\b(landlord|owner|seller|vermieter\w*|eigentumer\w*|verkaufer\w*)\b.{0,20}\b(hat|has)\b.{0,60}\b(spielraum|verhandlungsspielraum|room|range|margin|flexibility)\b.{0,30}\b(angegeben|genannt|signalisiert|indicated|given|named|stated)\b|\b(landlord|owner|seller|vermieter\w*|eigentumer\w*|verkaufer\w*)\b.{0,30}\b(hat|haben) (uns|mir)\b.{0,60}\b(genannt|gesagt|mitgeteilt|signalisiert|zu verstehen gegeben|bestatigt)\b|\b(our|unser\w*) (\w+ ){0,2}(office|team|colleagues?|staff|buro|kollegen|kollegin|niederlassung)\b.{0,20}\b(has mentioned|have mentioned|mentioned|has said|said|told us|reported|hat (uns )?(erwahnt|gesagt|berichtet|gemeldet)|haben (uns )?(erwahnt|gesagt|berichtet|gemeldet))\b")
        .expect("valid pattern")
});

/// A bullet's short label and its short value ("- Zusätzliche Nebenkosten:
/// keine, …"): at most three words before the colon, at the start, and at
/// most three after it.
pub(super) static LABEL_COLON: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\s*[-*•]?\s*(?:\*\*)?(?:[A-Za-z]{1,2}-\d{4},\s+)?[^\s,;.:*]+(?:\s+[^\s,;.:*]+){0,2}(?:\*\*)?):(\s*(?:\*\*)?)")
        .expect("valid pattern")
});

/// A yes or no before a colon ("Keine: Für K-4001 ist eine Pauschalmiete
/// vereinbart", "No: …"): the answer, a clause of its own, not a label
/// that is the subject of what follows.
static ANSWER_LABEL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\W*(yes|no|none|nope|nothing|ja|nein|keine?|nichts|leider nicht|unfortunately not|not quite|nicht ganz|not necessarily|nicht unbedingt|nicht zwingend|correct|richtig|genau)\W*$")
        .expect("valid pattern")
});

/// Whether the text before a label's colon says something of its own and
/// so is a clause of its own: an answer word ("Keine:", "Not necessarily:")
/// or a denial ("**Keine Provision:** Sie zahlen keine Maklerprovision",
/// whose two denials would otherwise cancel).
pub fn label_stands_alone(label: &str) -> bool {
    let folded = plain(label);
    ANSWER_LABEL.is_match(&folded) || super::polarity::polarity(&folded).negated
}

/// Thanks and regrets inside a sentence ("Schade, dass …, aber danke für die
/// Rückmeldung"): courtesy, not a fact.
pub(super) static THANKS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(dank\w*|thanks?|thank you|schade|sorry|pity|shame|glad|happy to hear|freut mich|schon, dass|nice that|good to hear|great that|tut (mir|uns) (\w+ )?leid|bedauer\w*|entschuldig\w*|apologi[sz]e\w*|apologies|regret\w*)\b")
        .expect("valid pattern")
});

/// The clitics of "I've", "we're", "it's": not content words.
pub(super) static CONTRACTION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"'(ve|re|ll|m|d|s)\b").expect("valid pattern"));

/// A passive with its agent: who does the booking, not a booking.
pub(super) static BY_AGENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(set|arranged|confirmed|booked|scheduled|fixed|agreed|handled|made|approved|accepted|decided|vereinbart|bestatigt|gebucht|festgelegt|vergeben|genehmigt|entschieden)\s+(only\s+|always\s+|nur\s+|immer\s+)?(by|von|durch|through|via|uber)\b")
        .expect("valid pattern")
});

/// A conclusion drawn inside a clause ("Ihre Katze dürfen Sie also
/// mitbringen", "you can therefore bring her"): the clause states its own
/// yes, and a condition earlier in the sentence does not carry into it.
/// (English "also" means "too", so only the German word order counts.)
pub(super) static CONCLUDES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(therefore|thus|hence|daher|deshalb|darum|folglich)\b|\b(durfen|konnen|mussen|darf|kann) sie\b.{0,40}\balso\b|\bsie (durfen|konnen|mussen)\b.{0,40}\balso\b")
        .expect("valid pattern")
});

/// "dürfte … nicht": the subjunctive of a permission, denied.
pub(super) static MAY_NOT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\bdurften? (\w+ ){0,3}(nicht|keine?\w*)\b").expect("valid pattern"));

/// The hedges that name who decides ("depends on", "depending on", "je
/// nach", "hängt … ab").
pub(super) static DEPENDS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(depends on|depending on|je nach|hangt)").expect("valid pattern"));

/// An action reported as done that no tool performs: an alert set up, a
/// rent "noted on your application", "im Kalender vermerkt". Read only in a
/// clause that is no hand-off ("I've set up a ticket for a colleague" is one).
pub(super) static ACTION_DONE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(i|we)('ve| have)\s+(already\s+|just\s+|now\s+|also\s+)?(set up|activated|registered|signed you up|subscribed you|enrolled you|put you on|sent you|emailed you|e-mailed you|mailed you|attached)\b|\b(i|we)('ve| have)\s+(already\s+|just\s+|also\s+)?(put|added|entered|noted|pencil+ed|slotted)\b.{0,60}\b(in|into|on|onto) (the|our|my|their|your) (calendar|diary|schedule|list|rota)\b|\byou('re| are) (already |now )?on (the|their|our|his|her) (\w+ )?(list|calendar|schedule)\b|\b((habe|haben) (ich|wir)|(ich|wir) (habe|haben)) sie\b.{0,80}\b(eingetragen|vorgemerkt|notiert|angemeldet|registriert)\b|\b((habe|haben) (ich|wir) ihnen|(ich|wir) (habe|haben) ihnen)\b (\w+ ){0,5}(zugeschickt|zugesandt|zugesendet|geschickt|gemailt|angehangt|ubermittelt)\b|\b(i|we)('ve| have)\s+(already\s+|just\s+|now\s+|also\s+)?(noted|recorded|entered|added|saved|updated|changed|amended|adjusted|logged)\b.{0,40}\b(on|in|to|into) (your|the) (application|file|account|profile|record|records|calendar|diary|booking|contract|lease|system)\b|\b(habe|haben) (ich|wir)\b.{0,50}\b(eingerichtet|aktiviert|registriert|angemeldet)\b|\b(ich|wir) (habe|haben)\b.{0,50}\b(eingerichtet|aktiviert|registriert|angemeldet)\b|\b((habe|haben) (ich|wir)|(ich|wir) (habe|haben))\b.{0,60}\b(in|im|auf|zu|zur|zum) ((ihrer|ihrem|ihre|der|dem|den|unserem|unserer) )?(bewerbung|akte|konto|profil|\w*kalender|vertrag|mietvertrag|system|unterlagen|terminplan)\b.{0,30}\b(notiert|vermerkt|hinterlegt|gespeichert|eingetragen|aktualisiert|geandert|angepasst)\b")
        .expect("valid pattern")
});

/// A day relative to now ("tomorrow", "morgen", "this week"), and an act a
/// person would do then ("will call you", "meldet sich"): a date for it that
/// no record or message gives is a promise ("a colleague will call you
/// tomorrow"). "Guten Morgen" is a greeting.
pub(super) static RELATIVE_DAY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(tomorrow|today|tonight|this (afternoon|evening|morning|week)|next week|by the end of the (day|week)|first thing|ubermorgen|morgen (fruh|vormittag|nachmittag|abend)?|heute (noch|nachmittag|abend)?|noch heute|nachste woche|diese woche|bis (morgen|heute|ende der woche)|im laufe des (tages|nachmittags))\b")
        .expect("valid pattern")
});
pub(super) static FUTURE_ACT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(will|'ll|wird|werden)\b.{0,60}\b(call|ring|contact|email|e-mail|get back|be in touch|reach out|come|send|reply|visit|fix|repair|arrive|anrufen|kontaktieren|melden|zuruckrufen|schicken|senden|kommen|vorbeikommen|reparieren|beheben|antworten)\b|\b(meldet|melden|ruft|rufen|kommt|kommen|schickt|schicken)\b.{0,40}\b(sich|sie|an|vorbei|zuruck|zu)\b")
        .expect("valid pattern")
});

/// A need: "need", "erforderlich", "brauchen" (denied, the approval is not needed).
pub(super) static NEED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(need\w*|necessary|required|requires?|brauch\w*|notig|notwendig|erforderlich|muss|mussen)\b")
        .expect("valid pattern")
});

/// A hope is no promise/// A hope is no promise ("fingers crossed Tuesday works for them too").
pub(super) static HOPE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\W*hope\b|\b(hopefully|fingers crossed|with (any )?luck|i hope|we hope|hoffentlich|ich hoffe|wir hoffen|mit etwas gluck)\b").expect("valid pattern")
});

/// A time of day ("18 Uhr", "3 pm", "10:00").
pub(super) static TIME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(\d{1,2})(?::(\d\d))?\s?(uhr|am|pm|a\.m\.|p\.m\.)|\b(\d{1,2}):(\d\d)\b").expect("valid pattern")
});

/// A listing's status that only the records can give: reserved, let, taken.
pub(super) static STATUS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(reserved|under offer|already (let|rented|taken|gone)|rented out|let out|no longer (available|on the market)|off the market|waiting list|(bereits|schon|derzeit|aktuell|inzwischen) (vergeben|reserviert|vermietet|weg)|nicht mehr (verfugbar|zu haben|frei)|warteliste|reserviert|found a tenant|(einen|ihren) (nach)?mieter gefunden|(has|have|had) (already )?been (let|rented( out)?|taken|sold)|still on the market|noch auf dem markt|(ist|wurde) (bereits |schon )?vermietet worden)\b")
        .expect("valid pattern")
});

/// A clause that reports what a text says or asks rather than stating it.
pub(super) static REPORTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(contains? an? (\w+ )?(instruction|request|note|line)|includes? an? (\w+ )?(instruction|request|note|line|sentence)|telling (me|us|you|the assistant|the agent) to|tells? (the assistant|the agent|you) to|instruct(s|ed|ion)|asks? (me|us) to|tells? (me|us) to|told (me|us) to|anweisung|fordert\b.{0,30}\bauf|aufforderung)\b")
        .expect("valid pattern")
});

/// An inclusion verb whose object is a pronoun: what is included is named
/// elsewhere, so the clause's own terms do not say what it is about.
pub(super) static PRONOUN_OBJECT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(cover|covers|covered|include|includes|included|takes? care of|deckt|decken|enthalt|enthalten|beinhaltet|abgedeckt)\s+(it|them|this|that|sie|es|das|diese|dies)\b|\b(sie|es|das|dies)\s+(ist|sind)\s+(schon |bereits |auch )?(darin |da )?(enthalten|abgedeckt|inbegriffen|drin)\b|\b(that|it|this)('s| is| are)\s+(already |also )?(covered|included|part of)\b")
        .expect("valid pattern")
});

/// Words that make a clause a condition ("if you like, we can book …");
/// [`polarity`]'s conditional also counts "until" and "bis", which only
/// limit a booking in time ("reserved until Friday").
pub(super) static IF: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(if|whether|unless|once|wenn|falls|ob|sobald)\b").expect("valid pattern"));

/// A clause opened by "before" ("Before you budget with that figure"): a
/// time condition, not a statement.
pub(super) static BEFORE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\W*(before|bevor|ehe)\b").expect("valid pattern"));

/// Hedges a reply may not add on its own (the evidence-side list above also
/// has the records' own estimate words).
pub(super) static REPLY_HEDGE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b((deutet|deute|deuten) (\w+ )?darauf hin|(ware|waren|sei|seien|wird|werden) (\w+ )?wohl (erforderlich|notig|enthalten|moglich|erlaubt)|looks as (if|though)|(i think|i believe|i guess) (the )?(listing|record|records|it) (might|may|could)|sieht (\w+ )?(so )?aus,? als (ob|wenn|ware|waren)|not (entirely|completely|quite|totally|fully) clear|(i'd|i would) lean towards|(bin ich mir|ich bin mir) (\w+ ){0,2}nicht (ganz |so |hundertprozentig |vollig )?sicher|appears? to (be|have|include|cover)|seems? to (be|have|include|cover)|(can't|cannot|can not|couldn't) (say|tell|confirm) (\w+ )?(for certain|for sure|with certainty|definitely)|(i'm|i am) not (entirely |completely |quite )?(sure|certain) (whether|if)|scheint|scheinen|(kann|konnen) (ich|wir) (\w+ )?nicht (mit )?(sicherheit|sicher|verlasslich|definitiv) sagen|will (surely |certainly |definitely )?be (approved|accepted|granted)|wird (sicher |bestimmt |garantiert )?(genehmigt|akzeptiert|angenommen|bewilligt)|(you'll|you will|will) definitely|definitely (be able|get|work)|bound to (work|agree|accept)|won't be a problem|will be no problem|your (plan|offer) (would|will) work|wird (er|sie|der vermieter|die vermieterin|das) (sicher|bestimmt|kaum|garantiert)|(sicher|bestimmt|garantiert) (zustimmen|klappen|akzeptieren|annehmen)|kaum (ablehnen|widersprechen)|(fest|sicher|getrost) (mit|damit) (\w+ )?(planen|rechnen)|mit (dieser|diesem|der|dem) (miete|preis|betrag|summe) rechnen|rarely|seldom|in practice,? (it|they|landlords?|most|many|the|a|all|this is|that's)\b|in der praxis|selten|(good|high|fair) chances?|chances (look|are) (good|high)|gute chancen|(safely|comfortably|ruhig|getrost|bedenkenlos) (budget|plan|planen|rechnen|kalkulieren|assume|count)|voraussichtlich|aller voraussicht nach|in all likelihood|expected to|there (may|might|could) be|sollten? (\w+ )?durchgehen|should (\w+ )?go through|(is|remains) an open (point|question)|(may|might|could) be (required|needed|necessary|asked for)|konnte (\w+ ){0,4}(verlangt|gefordert|notig|erforderlich)|in practice,? though|depends on|depending on|je nach|(may|might|could) be able to|hangt\b.{0,60}\bab|may well|probably|most likely|likely|presumably|usually|typically|generally|normally|in most cases|as a rule|tends? to|chances are|safe bet|almost certainly|i('d| would) (expect|assume|guess|plan)|(should|ought to) be (fine|ok|okay|achievable|possible|no problem|ideal|enough|within reach|in reach|acceptable)|(won'?t|will not|shouldn'?t|should not) be an? (obstacle|hurdle|sticking point)|(is|ist) (a |ein )?realistic\w* (figure|amount|target|rent|outcome|prospect|result|price|betrag|ziel|miete)|wird sich (\w+ )?(umsetzen|machen|einrichten|regeln) lassen|(i|we) (might|may|could) (be overlooking|have missed|have overlooked)|i don'?t think (the|it|that|this) (listing|record|records)|soweit ich (das|es|die) (\w+ )?(verstehe|lese)|ich wurde (\w+ ){0,2}(damit |davon )(rechnen|ausgehen)|as far as i understand|if i read (the listing|it|this) (correctly|right)|(als|as a) (grober |rough )?(richtwert|orientierungswert|ballpark|indication)|as a rough guide|seems? to (suggest|indicate|imply|say)|realistische[nr]? (betrag|zahl|miete|zielwert)|\b(ist|sind|wird|werden|war|waren|inserat|listing|eintrag) wohl (erforderlich|notwendig|notig|moglich|enthalten|inklusive|inbegriffen|erlaubt|gestattet|zulassig|ausgeschlossen)|in der regel|wahrscheinlich|vermutlich|normalerweise|meistens|erfahrungsgemass|durften?|sollte (kein|moglich|reichen)|gewohnlich|ublicherweise|wie ublich|sicher fundig|sicheren seite|im normalfall|in aller regel|meist|moglicherweise|eventuell|unter umstanden|konnte bedeuten|could mean|might mean|often|oft|haufig|budget with (that|this|the) (exact )?(sum|amount|figure)|that exact (sum|amount|figure)|genau (diesen|mit diesem) betrag|i (believe|reckon)|as far as i know|as far as i can (see|tell)|from what i can (see|tell)|soweit ich (es |das )?(sehe|sehen kann|erkennen kann|uberblicke)|to my knowledge|ich glaube|meines wissens|soweit ich weiss|(isn't|is not) (entirely|completely|fully|totally) (explicit|clear)|nicht (ganz|vollig) (eindeutig|klar|explizit)|nicht unwahrscheinlich|not unlikely|gut moglich|(sicher|bestimmt|garantiert) kein problem)\b")
        .expect("valid pattern")
});

/// A request to the customer or an offer of the assistant's own next step
/// ("tell me the city and I'll look", "a weather service will have the
/// forecast"): no fact about the records, so nothing to ground when the tools
/// returned nothing.
pub(super) static REQUEST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(or |and |oder |und |dann |then |so |also )?(tell|send|give|let|ask|check|try|contact|use|see|nennen|sagen|schicken|senden|schreiben|geben|fragen|wenden|schauen|versuchen|nutzen)\b|\bteilen sie (mir|uns) (\w+ ){0,3}mit\b|\b(sagen|geben) sie (mir |uns )?(gern |gerne |einfach |kurz )*bescheid\b|\b(schauen|fragen|wenden|versuchen|probieren|nutzen|werfen) sie\b.{0,30}\b(am besten|gerne?|doch|einfach)\b|\b(i'll|i will|ich werde|schaue ich|suche ich|sehe ich)\b.{0,40}\b(look|search|check|find|nach|heraus)|\b(weather service|wetterdienst|wetter-app|weather app|search engine|suchmaschine|restaurant guide|another source|andere quelle|bewertungsportal\w*|bewertungsplattform\w*|review (sites?|platforms?|apps?))\b.{0,60}\b(will|can|could|should|may|kann|konnen|hilft|helfen)\b|\b(you will|you'll|sie) (receive|get|erhalten|bekommen)\b.{0,60}\b(confirmation|bestatigung|answer|antwort|reply|nachricht)\b|\b(finden sie|you('ll| will) find|you can find|you may find)\b.{0,80}\b(tipps|empfehlungen|tips|recommendations|information|infos|informationen|reviews|bewertungen|suggestions)\b")
        .expect("valid pattern")
});

/// A finite verb or auxiliary (English and German): a clause with one
/// asserts something; a list item without one only names a thing.
pub(super) static VERB: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(untersagt|verboten|forbidden|prohibited|banned|erlaubt|gestattet|is|are|was|were|be|been|has|have|had|can|could|may|must|will|does|do|did|pays?|costs?|includes?|lies|ist|sind|war|waren|wird|werden|wurde|wurden|hat|haben|hatte|kann|konnen|darf|durfen|muss|mussen|soll|gilt|gelten|zahlt|zahlen|kostet|kosten|liegt|steht|gibt|steigt|steigen|rises?|increases?|bleibt|bleiben|remains?|stays?|betragt|betragen|amounts? to|\w+ed)\b")
        .expect("valid pattern")
});

/// Clauses of a text: commas inside parentheses do not break. Each clause
/// says whether it follows a conclusion word ("so", "therefore", "also",
/// "daher"): such a clause draws its own conclusion, and a qualification
/// earlier in the sentence does not carry into it.
pub(super) fn clauses(text: &str) -> Vec<(bool, &str)> {
    // Nothing inside parentheses breaks a clause ("(Provision, also Maklerprovision)").
    let masked = PARENS.replace_all(text, |c: &regex::Captures<'_>| " ".repeat(c[0].len()));
    // "Zusätzliche Nebenkosten: keine" is one statement: a colon before a
    // value of at most three words does not break.
    let masked = LABEL_COLON.replace(&masked, |c: &regex::Captures<'_>| {
        if label_stands_alone(&c[1]) {
            c[0].to_owned()
        } else {
            format!("{} {}", &c[1], &c[2])
        }
    });
    let mut spans: Vec<(bool, usize, usize)> = vec![];
    let mut from = 0;
    let mut conclusive = false;
    for m in GCLAUSE.find_iter(&masked) {
        if m.start() < from || !text.is_char_boundary(m.start()) || !text.is_char_boundary(m.end()) {
            continue;
        }
        if preposition(m.as_str(), &masked[m.end()..]) || joins_compound(m.as_str(), &masked[..m.start()]) {
            continue;
        }
        // A colon or comma between digits belongs to a time or number ("10:00").
        let digit = |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit());
        if digit(masked[..m.start()].chars().next_back()) && digit(masked[m.end()..].chars().next()) {
            continue;
        }
        if m.start() > from {
            spans.push((conclusive, from, m.start()));
            // ", so yes, your dog can come along": a bare yes passes the
            // conclusion on to the clause that says what it is.
            conclusive = conclusive && BARE_YES.is_match(&masked[from..m.start()]);
        }
        // ", so you can bring your dog": the comma and the conclusion word
        // meet with nothing between; the clause after them still concludes.
        from = m.end();
        conclusive |= CONCLUSION.is_match(m.as_str());
    }
    if text.is_char_boundary(from) {
        spans.push((conclusive, from, text.len()));
    }
    spans.retain(|(_, a, b)| !text[*a..*b].trim().is_empty());
    let spans = join_trailing_negations(text, spans);
    let spans = join_interrupted_subjects(text, spans);
    spans.into_iter().map(|(c, a, b)| (c, text[a..b].trim())).collect()
}

/// A discourse word set off by commas ("on the other hand", "jedoch").
static PARENTHETICAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\W*(on the other hand|however|though|by contrast|in turn|in contrast|dagegen|hingegen|jedoch|allerdings|ubrigens|übrigens|wiederum|indes)\W*$")
        .expect("valid pattern")
});

/// "The SCHUFA credit report, on the other hand, is something you don't need":
/// a subject without a verb, a discourse word and the predicate are one clause.
fn join_interrupted_subjects(text: &str, spans: Vec<(bool, usize, usize)>) -> Vec<(bool, usize, usize)> {
    let mut out: Vec<(bool, usize, usize)> = vec![];
    let mut i = 0;
    while i < spans.len() {
        let (c, a, b) = spans[i];
        let interrupted = i + 2 < spans.len()
            && !VERB.is_match(&plain(&text[a..b]))
            && PARENTHETICAL.is_match(&text[spans[i + 1].1..spans[i + 1].2]);
        if interrupted {
            out.push((c, a, spans[i + 2].2));
            i += 3;
        } else {
            out.push((c, a, b));
            i += 1;
        }
    }
    out
}

static ARTICLE_NEXT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s+(der|des|dem|den|einer|eines|dieser|dieses|seiner|ihrer|meiner|unserer)\b")
        .expect("valid pattern")
});

/// Whether a clause-break word is a preposition here: "während der
/// Staffel" (during), not "während" (while) opening a clause. Splitting
/// there cuts "ist … ausgeschlossen" in two.
pub(super) fn preposition(word: &str, after: &str) -> bool {
    let w = word.to_lowercase();
    ((w == "während" || w == "wahrend") && ARTICLE_NEXT.is_match(after))
        // "so gut wie abgemacht", "so far", "so viel": a degree, not a conclusion.
        || (w == "so" && SO_DEGREE.is_match(after))
}

/// The words after "so" that make it a degree word.
static SO_DEGREE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s+(gut wie|good as|much|many|far|long as|viel|viele|weit|lange|bald|schnell|hoch|wenig|early|late|soon)\b")
        .expect("valid pattern")
});

/// Whether a conjunction joins the parts of a German compound with a
/// hyphen ("Index- und Modernisierungserhöhungen", "Heiz- und
/// Nebenkosten"): one noun, not two clauses. `before` is the text before it.
pub(super) fn joins_compound(word: &str, before: &str) -> bool {
    matches!(word.to_lowercase().as_str(), "und" | "oder" | "and" | "or")
        && before.trim_end().ends_with(|c: char| c == '-')
        && before.trim_end().chars().rev().nth(1).is_some_and(char::is_alphabetic)
}

/// A negation left alone at the end of a German clause ("Einen WBS brauchen
/// Sie für diese Wohnung, anders als der Titel vermuten lässt, nicht"),
/// also with the particle of a split verb ("setzt … nicht voraus") or with
/// the clause's own infinitive or participle ("Einen WBS müssen Sie, anders
/// als bei vielen Wohnungen, nicht vorlegen"): it belongs to the clause it
/// closes, past any aside in between.
static BARE_NEGATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^\W*(nicht|nicht mehr|auch nicht|gar nicht|keineswegs|not|not at all|no longer|never|nie|niemals)( (voraus|aus|vor|an|ab|zu|mit|ein|fest|dar|her|hervor|bei|zuruck|zurück|fort|weg))?\W*$|^\W*(nicht|nicht mehr|auch nicht|gar nicht|keineswegs)( (extra|zusatzlich|zusätzlich|gesondert|separat|selbst|eigens))? (vorlegen|vorzeigen|nachweisen|einreichen|zahlen|bezahlen|tragen|ubernehmen|übernehmen|brauchen|benotigen|benötigen|mitbringen|halten|leisten|erbringen|beantragen|einplanen|rechnen|erlaubt|gestattet|vorgesehen|notig|nötig|erforderlich|notwendig|moglich|möglich|enthalten|inbegriffen|ge\w+t)\W*$|^\W*(ist|is|that's|that is|this is|trifft)\b.{0,40}\b(nicht der fall|not the case|nicht zu)\W*$",
    )
    .expect("valid pattern")
});
static ASIDE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\W*(anders als|wie|als|entgegen|im gegensatz|unlike|like|as|contrary to|though|however|allerdings|aber|jedoch|leider|ubrigens|übrigens|by the way|unfortunately)\b")
        .expect("valid pattern")
});

static CLOSING_NEGATION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(nicht|nicht mehr|auch nicht|gar nicht|keineswegs)\W*$").expect("valid pattern")
});

/// A clause that opens with a German preposition: a phrase, not a clause
/// with a subject of its own ("Hunde übrigens auch nicht" has one).
static PREPOSITION_FIRST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\W*(für|fur|bei|beim|in|im|am|an|auf|mit|nach|von|vom|zu|zum|zur|über|uber|unter|ohne|trotz|wegen|während|wahrend|laut|gemäß|gemass|seit|aus)\b")
        .expect("valid pattern")
});

/// Joins each bare negation clause with the clause it closes.
pub(super) fn join_trailing_negations(text: &str, spans: Vec<(bool, usize, usize)>) -> Vec<(bool, usize, usize)> {
    let mut out: Vec<(bool, usize, usize)> = vec![];
    for (c, a, b) in spans {
        // "…, für die Anmietung von B-2002 nicht": a German clause closed by its
        // negation after an aside, with no verb of its own, is the negation's too.
        let closing = CLOSING_NEGATION.is_match(&text[a..b])
            && PREPOSITION_FIRST.is_match(&text[a..b])
            && !VERB.is_match(&crate::fold::plain(&text[a..b]))
            && text[a..b].split_whitespace().count() <= 8;
        if (BARE_NEGATION.is_match(&text[a..b]) || closing) && !out.is_empty() {
            let mut j = out.len() - 1;
            while j > 0 && ASIDE.is_match(&text[out[j].1..out[j].2]) {
                j -= 1;
            }
            let start = out[j];
            out.truncate(j);
            out.push((start.0, start.1, b));
            continue;
        }
        out.push((c, a, b));
    }
    out
}

/// A statement that the records lack something ("the listing doesn't say
/// how much …", "geht aus dem Inserat nicht hervor", "no figure is given"):
/// it denies what the records hold, not the thing itself.
pub(super) static ABSENCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(says|say|states|mentions|gives|shows|contains|holds) nothing (about|on|of|regarding)\b|\bsilent on\b|\b(steht|stehen) (dort |darin |hier )?nichts\b|\b(does|do|did)(n't| not) (say|state|mention|specify|show|list|give|tell|indicate|include any)\b|\b(is|are) (silent|not (stated|mentioned|specified|given|listed|recorded|known))\b|\bno (information|details?|figures?|indication|mention|breakdown)\b|\bgeht\b.{0,60}\bnicht hervor\b|\b(keine|ohne) (angabe|angaben|information|informationen|hinweis|aufschlusselung)\w*\b|\b(nennt|erwahnt|sagt)\b.{0,40}\b(nicht|nichts|keine\w*)\b|\bnowhere in\b|\bnot in (our|the|my) (records|listing|documents|data)\b|\b(neither|nor|no|not)\b.{0,60}\b(appears?|shows? up|is (given|listed|stated)) in (our|the|my) (records?|listing|data|details)\b|\b(nicht|nichts) (bekannt|vermerkt|angegeben|erwahnt|hinterlegt)\b|\bnicht (zu )?entnehmen\b|\bnicht zu erkennen\b|\b(not|nicht) (contained|included|given|found|enthalten) in (the|our|its) (listing|records?|data|details|documents)\b")
        .expect("valid pattern")
});

/// A denial word in either language ("not", "n't", "nicht", "kein…",
/// "never", "cannot"), folded text: checks that must not read a denied
/// statement as made share it.
pub(super) static DENIAL_WORD: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(not|no|never|nie|nicht|kein\w*|cannot)\b|n't\b").expect("valid pattern"));

/// A report that a search found nothing ("the search comes up empty", "nothing
/// fits your budget", "die Suche ergab keine Treffer"): with no passage in the
/// evidence, it is what an empty search result says, not a claim without one.
pub(super) static EMPTY_RESULT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(comes?|came) (back |up )?empty\b|\bturn(s|ed)? up nothing\b|\bnothing\b.{0,40}\b(comes?|came) up\b|\b0 (hits|results|matches|treffer|ergebnisse)\b|\bnone of (them|these|those|our \w+) (fits?|matches?|comes? in|falls?)\b|\bnothing (that |which )?(fits|matches|meets|comes in|falls)\b|\b(ergab|ergibt|liefert\w*|brachte) (leider )?(keine\w*|nichts)\b|\bkeine\w* (passende\w* )?(treffer|ergebnis\w*)\b|\bno (hits|results|matches)\b|\b(nichts|keine\w*),? (was|das|die|der) (passt|in frage kommt|ihren? \w+ entspricht)\b")
        .expect("valid pattern")
});

/// Whether folded text reports an empty search result ([`EMPTY_RESULT`]).
pub fn reports_empty_result(folded: &str) -> bool {
    EMPTY_RESULT.is_match(folded)
}

/// A suggestion to the customer ("I'd suggest checking with a colleague",
/// "ich empfehle, …"): advice, not an act.
pub(super) static SUGGESTS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(suggest\w*|recommend\w*|empfehle\w*|rate ich|rate ihnen|you (could|can|might|may) (ask|check|contact|speak|talk))\b")
        .expect("valid pattern")
});

/// A clause that opens as an indirect question ("wie lange …", "how much …").
pub(super) static INDIRECT_QUESTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\W*(wie|was|wann|wo|wer|ob|welche\w*|wieviel\w*|how|what|when|where|whether|which|who)\b")
        .expect("valid pattern")
});

/// A record clause that says what another text tells ("The listing states
/// which costs are included"): it names a topic and states no polarity of
/// its own.
pub(super) static META_CLAUSE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(states|says|shows|lists|tells you|explains|gibt an|nennt|zeigt)\b.{0,20}\b(which|whether|what|how|welche\w*|ob|was|wie)\b")
        .expect("valid pattern")
});

/// A plain section label that opens a sentence ("What this means for you:",
/// "Why:", "Hintergrund:", "Was das für Sie heißt:", "Next steps:"):
/// structure, not words of the sentence's claim.
pub(super) static SECTION_LABEL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(\*\*)?(what (this|that|it) means( for you)?|what you need to know|why|background|in short|in brief|bottom line|the short answer|short answer|next steps?|details|summary|the details|hintergrund|warum|was (das|dies|es) f(ü|u|ue)r sie (hei(ß|ss)t|bedeutet)|was hei(ß|ss)t das f(ü|u|ue)r sie|kurz gesagt|kurzum|kurz|fazit|im detail|details|n(ä|a|ae)chste schritte|zusammenfassung|das hei(ß|ss)t f(ü|u|ue)r sie)(\*\*)?\s*:(\*\*)?\s")
        .expect("valid pattern")
});

/// A bold label that asks a question or sets a time ("- **What the landlord
/// can charge:**", "**While the graduated rent runs:**"): the answer follows
/// it; its words are no claim of their own.
pub(super) static QUESTION_LABEL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*[-*•]?\s*\*\*(what|when|who|how|which|where|why|was|wann|wer|wie|welche\w*|wo|warum|while|during|w(ä|a|ae)hrend|solange)\b[^*:]{0,60}:\*\*\s")
        .expect("valid pattern")
});

/// A day or slot given as a label and confirmed after the colon ("✅
/// Donnerstagabend für K-4002: passt", "Tuesday afternoon: entered in the
/// viewing schedule", "Saturday at 10:00: set up for you"), folded text: the
/// colon splits the clause, so [`COMMITMENT`] reads the two halves apart.
pub(super) static SLOT_LABEL_CONFIRMED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\W*(\w+ ){0,3}(monday|tuesday|wednesday|thursday|friday|saturday|sunday|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag|termin|slot|date|viewing|besichtigung)\w*(?:[^:.!?]|:\d\d){0,40}:\s*(passt|works|suits|confirmed|bestatigt|fest|set|set up|booked|gebucht|klappt|geht klar|reserviert|reserved|entered|eingetragen|done|erledigt|arranged|vereinbart)\b")
        .expect("valid pattern")
});

/// A plural of flats in general ending a clause ("Wohnungen", "flats",
/// "listings", "alternatives"), folded text.
static FLATS_IN_GENERAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(wohnungen|inserate|objekte|angebote|immobilien|alternativen|flats|apartments|listings|homes|properties|places|alternatives|options)( (heraus|raus|an|vor|aus|out|up))?\W*$")
        .expect("valid pattern")
});

/// The start of a relative clause of place ("in denen", "where"), folded text.
static RELATIVE_OF_PLACE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\W*(in denen|bei denen|wo|where|in which|at which|that allow|which allow|die (hunde|katzen|haustiere|tiere) (erlauben|zulassen))\b")
        .expect("valid pattern")
});

/// Whether clause `c` (folded) is a relative clause about flats in general,
/// named at the end of the clause before it (`previous`): "Ich suche Ihnen
/// gern Wohnungen heraus, | in denen Katzen erlaubt sind" speaks of other
/// flats, not of the listing in question.
pub(super) fn about_other_flats(previous: &str, c: &str) -> bool {
    RELATIVE_OF_PLACE.is_match(c) && FLATS_IN_GENERAL.is_match(previous)
}

/// An exclusive yes ("for business use only", "ausschließlich gewerblich"):
/// it implies the other uses' no, so a record clause that denies one of
/// them ("not approved for residential use") agrees with it.
pub(super) static EXCLUSIVE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(only|solely|exclusively|purely|strictly|nur|ausschliesslich|rein|lediglich)\b")
        .expect("valid pattern")
});

/// The agency offering to ask the landlord ("Wir können die Frage für Ihre
/// Katze gern stellen", "we can put the request to the landlord"): the
/// request route itself, not a permission that drops its condition.
pub(super) static OFFER_TO_ASK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(wir|ich) (konnen|kann|konnten|konnte|werden|werde)\b.{0,50}\b(frage|anfrage|anfragen|nachfragen|erfragen|klaren|stellen)\b|\b(we|i)( can| could| will|'ll)\b.{0,40}\b(ask|request|check with|put (the|your|a) (question|request))\b")
        .expect("valid pattern")
});

/// Small animals named as a sentence's subject ("Kleintiere in Käfig oder
/// Aquarium, etwa Hamster oder Fische, wären … erlaubt"): a clause split off
/// by the commas of the list speaks of them, not of dogs and cats.
pub(super) static SMALL_ANIMALS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(small animals?|kleintier\w*|hamster\w*|fische?|fish|budgies?|wellensittich\w*|meerschweinchen|kaninchen|rabbits?|guinea pigs?)\b")
        .expect("valid pattern")
});

/// Dogs and cats by name (folded text).
pub(super) static DOG_OR_CAT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(dogs?|cats?|puppy|kitten|hund\w*|katze\w*|kater)\b").expect("valid pattern"));

#[cfg(test)]
#[path = "wording_tests.rs"]
mod tests;
