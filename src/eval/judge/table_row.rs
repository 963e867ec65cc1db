//! A Markdown table row read as one statement: "| Heizung in den Nebenkosten
//! | nein, nicht enthalten |" says that heating is not in the utilities. The
//! cells after the first answer the first (the row's label), so the row is one
//! clause, and a bare "nein"/"no" that opens an answer cell denies the label:
//! once, whether or not the cell repeats the denial ("nein, nicht enthalten").

use crate::grounding::polarity::{polarity, Polarity};

pub use crate::grounding::tables::is_row;

/// The polarity of a clause; for a table row, with an answer cell's opening
/// "nein"/"no" read as a denial of the row's label and "ja"/"yes" as nothing.
/// An answer that denies twice ("none – the building has no lift", "nein,
/// nicht enthalten") denies once: of its negated pieces only the last, the
/// fullest, is read.
pub fn clause_polarity(clause: &str) -> Polarity {
    if !is_row(clause) {
        return polarity(clause);
    }
    let cells: Vec<&str> = clause.trim().trim_matches('|').split('|').map(str::trim).collect();
    let Some((label, answers)) = cells.split_first() else { return polarity(clause) };
    let mut pieces: Vec<(String, bool)> = vec![];
    for cell in answers {
        let (denial, rest) = match answer_word(cell) {
            Some((no, rest)) => (no, rest),
            None => (false, *cell),
        };
        if denial {
            pieces.push(("nicht".to_owned(), true));
        }
        for piece in rest.split([',', ';', '–', '—']).map(str::trim).filter(|p| !p.is_empty()) {
            pieces.push((piece.to_owned(), polarity(piece).negated));
        }
    }
    let last_denial = pieces.iter().rposition(|(_, negated)| *negated);
    let read: Vec<&str> = pieces
        .iter()
        .enumerate()
        .filter(|(i, (_, negated))| !negated || Some(*i) == last_denial)
        .map(|(_, (p, _))| p.as_str())
        .collect();
    polarity(&format!("{label} | {}", read.join(" | ")))
}

/// `(true, rest)` for a cell opening with "nein"/"no", `(false, rest)` for
/// "ja"/"yes"; `None` for any other cell ("no pets" is not an answer word: it
/// is followed by its noun, not by a pause or the end of the cell).
fn answer_word(cell: &str) -> Option<(bool, &str)> {
    [("nein", true), ("no", true), ("ja", false), ("yes", false)].into_iter().find_map(|(word, no)| {
        let head = cell.get(..word.len())?;
        let rest = &cell[word.len()..];
        let next = rest.trim_start().chars().next();
        let pause = next.is_none_or(|c| [',', '.', ';', ':', '!', '–', '—', '-', '('].contains(&c));
        (head.eq_ignore_ascii_case(word) && pause).then_some((no, rest))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_cell_denies_its_label_once() {
        let row = "| Heizung in den Nebenkosten | nein, nicht enthalten | |";
        assert!(is_row(row));
        assert_eq!(clause_polarity(row).included, Some(false));
        assert!(clause_polarity("| Haustiere erlaubt | nein |").negated);
        assert!(clause_polarity("| Pets allowed | No. |").negated);
        assert!(!clause_polarity("| Haustiere erlaubt | ja, auf Anfrage |").negated);
        assert!(!clause_polarity("| Heizung | im Warmwasser enthalten |").negated);
        // Not an answer word: "no" followed by its noun, or a plain sentence.
        assert!(!is_row("Nein, die Heizung ist nicht enthalten."));
        assert!(clause_polarity("| Extras | no pets |").negated, "the plain reading keeps its own negation");
        assert!(clause_polarity("| Lift | none – the building has no lift |").negated);
        assert!(!clause_polarity("| Lift | yes – installed in 2019 |").negated);
    }
}
