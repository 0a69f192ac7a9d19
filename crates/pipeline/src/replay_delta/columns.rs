//! The replayed decisions that differ from the stored ones, as columns: their positions, then each field's values
//! at those positions, or no column at all when every one of them keeps the stored decision's value. A threshold
//! drag changes `selected`, `reason` and `score`; the other columns stay home, and no chunk id crosses (the
//! position names the chunk). A change list crosses as positions too ([`ChangePositions`]).

use ragsift_policy::{Change, Decision, Reason};
use serde::{Deserialize, Serialize};

/// Replayed decisions by column (see the module's notes). Every column present has one value per position.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct DecisionColumns {
    /// The decisions' positions in the replayed decision list, ascending.
    pub at: Vec<usize>,
    pub input_index: Option<Vec<usize>>,
    pub selected: Option<Vec<Option<bool>>>,
    pub score: Option<Vec<Option<f64>>>,
    pub jev_rank: Option<Vec<Option<usize>>>,
    pub fusion_score: Option<Vec<Option<f64>>>,
    pub reason: Option<Vec<Reason>>,
    pub conflicting: Option<Vec<bool>>,
    pub skipped_rules: Option<Vec<Vec<String>>>,
}

/// A decision to send: its position, the stored decision of its chunk (if any), and the replayed one.
pub(super) type Row<'a> = (usize, Option<&'a Decision>, &'a Decision);

/// The column of `field`: `None` when every row has a stored decision with the same value.
macro_rules! column {
    ($rows:expr, $field:ident) => {{
        let kept = $rows
            .iter()
            .all(|(_, base, d)| base.is_some_and(|b| b.$field == d.$field));
        (!kept).then(|| $rows.iter().map(|(_, _, d)| d.$field.clone()).collect())
    }};
}

/// Row `k`'s value of `field`: its column's, else the stored decision's (`None` from the caller when neither).
macro_rules! value {
    ($columns:expr, $k:expr, $base:expr, $field:ident) => {
        match &$columns.$field {
            Some(column) => column.get($k)?.clone(),
            None => $base?.$field.clone(),
        }
    };
}

impl DecisionColumns {
    /// The columns of `rows` (positions ascending).
    pub(super) fn new(rows: &[Row<'_>]) -> DecisionColumns {
        DecisionColumns {
            at: rows.iter().map(|r| r.0).collect(),
            input_index: column!(rows, input_index),
            selected: column!(rows, selected),
            score: column!(rows, score),
            jev_rank: column!(rows, jev_rank),
            fusion_score: column!(rows, fusion_score),
            reason: column!(rows, reason),
            conflicting: column!(rows, conflicting),
            skipped_rules: column!(rows, skipped_rules),
        }
    }

    /// The `k`-th listed decision, of chunk `chunk_id`, over `base` (the stored decision of that chunk, if any).
    /// `rank` and `returned` are left for the caller to derive. `None` when a column is short, or absent with
    /// no stored decision to take it from.
    pub(super) fn decision(&self, k: usize, chunk_id: &str, base: Option<&Decision>) -> Option<Decision> {
        Some(Decision {
            chunk_id: chunk_id.to_string(),
            input_index: value!(self, k, base, input_index),
            selected: value!(self, k, base, selected),
            returned: false,
            rank: None,
            score: value!(self, k, base, score),
            jev_rank: value!(self, k, base, jev_rank),
            fusion_score: value!(self, k, base, fusion_score),
            reason: value!(self, k, base, reason),
            conflicting: value!(self, k, base, conflicting),
            skipped_rules: value!(self, k, base, skipped_rules),
        })
    }
}

/// A replay's change list (`policy::diff` of the stored selection and the replayed one) as positions: the chunk,
/// both reasons and the selected flag are read from the two selections on the other side.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ChangePositions {
    /// Positions in the replayed decision list of the chunks whose selected flag or reason changed (or that the
    /// stored selection lacks), in order.
    pub now: Vec<usize>,
    /// Positions in the stored decision list of the chunks the replay no longer decides, in order.
    pub gone: Vec<usize>,
}

impl ChangePositions {
    /// `changes` (as `diff(stored, replayed)` lists them: the replayed chunks in order, then the gone ones in
    /// stored order) as positions, walking both lists once. `None` if a change names a chunk out of that order.
    pub(super) fn new(changes: &[Change], stored: &[Decision], replayed: &[Decision]) -> Option<ChangePositions> {
        let (now, gone): (Vec<&Change>, Vec<&Change>) = changes.iter().partition(|c| c.after_reason.is_some());
        Some(ChangePositions {
            now: walk(&now, replayed)?,
            gone: walk(&gone, stored)?,
        })
    }

    /// The change list these positions stand for, between `stored` and `replayed`; `before(i, id)` is the stored
    /// position of the chunk at replayed position `i`, if the stored selection has it.
    pub(super) fn changes(
        &self,
        stored: &[Decision],
        replayed: &[Decision],
        before: impl Fn(usize, &str) -> Option<usize>,
    ) -> Option<Vec<Change>> {
        let now = self.now.iter().map(|&i| {
            let d = replayed.get(i)?;
            Some(Change {
                chunk_id: d.chunk_id.clone(),
                before_reason: before(i, &d.chunk_id).and_then(|b| stored.get(b)).map(|b| b.reason),
                after_reason: Some(d.reason),
                now_selected: d.is_selected(),
            })
        });
        let gone = self.gone.iter().map(|&i| {
            let d = stored.get(i)?;
            Some(Change {
                chunk_id: d.chunk_id.clone(),
                before_reason: Some(d.reason),
                after_reason: None,
                now_selected: false,
            })
        });
        now.chain(gone).collect()
    }
}

/// The positions in `decisions` of the chunks `changes` name, in order (each after the previous).
fn walk(changes: &[&Change], decisions: &[Decision]) -> Option<Vec<usize>> {
    let mut from = 0;
    (changes.iter())
        .map(|c| {
            let i = from + decisions[from..].iter().position(|d| d.chunk_id == c.chunk_id)?;
            from = i + 1;
            Some(i)
        })
        .collect()
}
