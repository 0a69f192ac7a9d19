//! Blinding: the seeded order of each item's two answers, citations renumbered to the shared evidence, the
//! packet's content hash, and the key kept apart.

use super::ReviewPacketFiles;
use super::{AnswerLabel, ReviewAnswer, ReviewEvidence, ReviewItem, ReviewKey, ReviewKeyItem, ReviewPacket};
use crate::{Error, Result};
use ragsift_core::ids::sha256_hex;
use ragsift_core::rng::SplitMix64;
use ragsift_pipeline::augment::Source;
use ragsift_pipeline::Trace;
use std::collections::BTreeMap;

/// What reviewers are told; it never names the arms.
pub(super) const INSTRUCTIONS: &str = "Judge whether each answer is semantically correct, using the question, \
the reference answers (when given) and the full candidate evidence. Mark separately whether the question or \
reference is ambiguous. An answer is \"unclear\" when the evidence does not support a confident judgment. An \
answer's [n] names passage n of the evidence. Keep the answer key away from reviewers until every answer is \
labelled. This review does not establish citation faithfulness.";

/// Which anonymous answer is the baseline's, for each of `items` items in order: one splitmix64 draw per item
/// (its top bit), so the same seed always gives the same order.
pub fn blind_order(seed: u64, items: usize) -> Vec<AnswerLabel> {
    let mut rng = SplitMix64::new(seed);
    (0..items)
        .map(|_| {
            if rng.next_u64() >> 63 == 0 {
                AnswerLabel::A
            } else {
                AnswerLabel::B
            }
        })
        .collect()
}

/// One run's two answers before blinding.
pub(super) struct Pair {
    pub query: String,
    pub reference: Option<String>,
    pub evidence: Vec<ReviewEvidence>,
    pub selected: String,
    pub baseline: String,
    pub key: ReviewKeyItem,
}

impl Pair {
    /// `run`'s question and evidence, the answer of `selected` (the run itself, or the run that answered it) and
    /// of `baseline`, their citations renumbered to the evidence.
    pub fn new(run: &Trace, selected: &Trace, baseline: &Trace) -> Pair {
        let ids: Vec<&str> = run.candidates.iter().map(|c| c.chunk_id.as_str()).collect();
        let evidence = (run.candidates.iter().enumerate())
            .map(|(i, c)| ReviewEvidence {
                number: i + 1,
                title: if c.title.is_empty() {
                    c.document.clone()
                } else {
                    c.title.clone()
                },
                pages: ragsift_core::page_range(c.page_start, c.page_end),
                text: c.text.clone(),
            })
            .collect();
        let baseline_ids = baseline.selection.returned_ids.clone();
        let selected_ids = selected.selection.returned_ids.clone();
        Pair {
            query: run.query.clone(),
            reference: run.labels.reference_answer.clone().filter(|r| !r.trim().is_empty()),
            evidence,
            selected: renumber(&selected.answer, &selected.sources, &ids),
            baseline: renumber(&baseline.answer, &baseline.sources, &ids),
            key: ReviewKeyItem {
                item_id: String::new(),
                baseline_answer: AnswerLabel::A,
                run_id: run.run_id.clone(),
                selected_run_id: selected.run_id.clone(),
                baseline_run_id: baseline.run_id.clone(),
                same_context: baseline_ids == selected_ids,
                baseline_ids,
                baseline_labelled: run.labels.baseline_ids.is_some(),
                selected_ids,
            },
        }
    }
}

/// `answer`'s `[n]` citations (n numbering `sources`) renumbered to the chunk's place in `evidence` (1-based);
/// a citation naming no source becomes `[?]`, so it cannot point at the wrong passage.
pub(super) fn renumber(answer: &str, sources: &[Source], evidence: &[&str]) -> String {
    let mut out = String::with_capacity(answer.len());
    let mut rest = answer;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || !after[digits..].starts_with(']') {
            out.push('[');
            rest = after;
            continue;
        }
        let number = after[..digits].parse::<usize>().ok();
        let chunk = number
            .and_then(|n| sources.iter().find(|s| s.number == n))
            .map(|s| s.chunk_id.as_str());
        match chunk.and_then(|id| evidence.iter().position(|e| *e == id)) {
            Some(i) => out.push_str(&format!("[{}]", i + 1)),
            None => out.push_str("[?]"),
        }
        rest = &after[digits + 1..];
    }
    out.push_str(rest);
    out
}

/// The packet (items `q1`, `q2`, … in run order, each answer pair ordered by [`blind_order`]) and its key.
pub(super) fn assemble(pairs: Vec<Pair>, seed: u64) -> ReviewPacketFiles {
    let order = blind_order(seed, pairs.len());
    let mut items = Vec::with_capacity(pairs.len());
    let mut keys = Vec::with_capacity(pairs.len());
    for (i, (pair, baseline_answer)) in pairs.into_iter().zip(order).enumerate() {
        let item_id = format!("q{}", i + 1);
        let answers = BTreeMap::from([
            (
                baseline_answer.as_str().to_string(),
                ReviewAnswer { text: pair.baseline },
            ),
            (
                baseline_answer.other().as_str().to_string(),
                ReviewAnswer { text: pair.selected },
            ),
        ]);
        items.push(ReviewItem {
            item_id: item_id.clone(),
            query: pair.query,
            reference_answers: pair.reference.into_iter().collect(),
            full_candidate_evidence: pair.evidence,
            answers,
        });
        keys.push(ReviewKeyItem {
            item_id,
            baseline_answer,
            ..pair.key
        });
    }
    let mut packet = ReviewPacket {
        packet_id: String::new(),
        status: "unreviewed".into(),
        instructions: INSTRUCTIONS.into(),
        items,
    };
    packet.packet_id = packet.content_id();
    let key = ReviewKey {
        packet_id: packet.packet_id.clone(),
        seed,
        items: keys,
    };
    ReviewPacketFiles { packet, key }
}

impl ReviewPacket {
    /// The hash of the packet's instructions and items (sha256 of their JSON, 16 hex digits).
    pub fn content_id(&self) -> String {
        let content = serde_json::json!({ "instructions": self.instructions, "items": self.items });
        sha256_hex(content.to_string().as_bytes())[..16].to_string()
    }

    /// Refuses a packet whose content no longer matches its id, with no items, or an item without exactly the
    /// answers A and B.
    pub fn verify(&self) -> Result<()> {
        if self.items.is_empty() {
            return Err(Error::Invalid("the review packet has no answers".into()));
        }
        if self.content_id() != self.packet_id {
            return Err(Error::Invalid(format!(
                "the review packet does not match its id {}: it was edited after it was made",
                self.packet_id
            )));
        }
        let mut seen = std::collections::BTreeSet::new();
        for item in &self.items {
            if !seen.insert(item.item_id.as_str()) {
                return Err(Error::Invalid(format!(
                    "review item {} appears twice in the packet: each item needs its own id",
                    item.item_id
                )));
            }
            if !item.answers.keys().map(String::as_str).eq(["A", "B"]) {
                return Err(Error::Invalid(format!(
                    "review item {} must have exactly the answers A and B",
                    item.item_id
                )));
            }
        }
        Ok(())
    }
}

impl ReviewKey {
    /// Refuses a key made for another packet, or one that does not cover exactly the packet's items.
    pub fn check(&self, packet: &ReviewPacket) -> Result<()> {
        if self.packet_id != packet.packet_id {
            return Err(Error::Invalid(format!(
                "the key is for packet {}, not {}",
                self.packet_id, packet.packet_id
            )));
        }
        let keyed: Vec<&str> = self.items.iter().map(|k| k.item_id.as_str()).collect();
        let items: Vec<&str> = packet.items.iter().map(|i| i.item_id.as_str()).collect();
        if keyed != items {
            return Err(Error::Invalid(format!(
                "the key for packet {} does not list the packet's items",
                self.packet_id
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A pair with made-up runs: the baseline answer says `base-N`, the selected one `sel-N`.
    pub fn pair(n: usize) -> Pair {
        Pair {
            query: format!("question {n}?"),
            reference: n.is_multiple_of(2).then(|| format!("reference {n}")),
            evidence: vec![ReviewEvidence {
                number: 1,
                title: "doc".into(),
                pages: "p. 1".into(),
                text: format!("passage {n}"),
            }],
            selected: format!("sel-{n}"),
            baseline: format!("base-{n}"),
            key: ReviewKeyItem {
                item_id: String::new(),
                baseline_answer: AnswerLabel::A,
                run_id: format!("run{n}"),
                selected_run_id: format!("run{n}"),
                baseline_run_id: format!("baserun{n}"),
                baseline_ids: vec!["c1".into(), "c2".into()],
                baseline_labelled: false,
                selected_ids: vec!["c1".into()],
                same_context: false,
            },
        }
    }

    pub fn files(n: usize, seed: u64) -> ReviewPacketFiles {
        assemble((1..=n).map(pair).collect(), seed)
    }

    #[test]
    fn the_seeded_order_repeats_and_uses_both_sides() {
        assert_eq!(blind_order(7, 64), blind_order(7, 64));
        assert_ne!(blind_order(7, 64), blind_order(8, 64), "another seed, another order");
        for seed in [0, 1, 42, u64::MAX] {
            let order = blind_order(seed, 32);
            let a = order.iter().filter(|s| **s == AnswerLabel::A).count();
            assert!((4..=28).contains(&a), "seed {seed}: baseline is A {a} times of 32");
        }
        // splitmix64's published first output for seed 0 (its reference test vector).
        assert_eq!(SplitMix64::new(0).next_u64(), 0xe220_a839_7b1d_cdaf);
    }

    #[test]
    fn the_packet_hides_the_arms_and_the_key_names_them() {
        let f = files(12, 3);
        let order = blind_order(3, 12);
        let json = serde_json::to_string(&f.packet).unwrap().to_lowercase();
        for word in ["baseline", "selected", "run1", "baserun", "seed"] {
            assert!(!json.contains(word), "the packet names `{word}`");
        }
        for ((item, key), side) in f.packet.items.iter().zip(&f.key.items).zip(order) {
            let n = &item.item_id[1..];
            assert_eq!(key.item_id, item.item_id);
            assert_eq!(key.baseline_answer, side);
            assert_eq!(item.answers[side.as_str()].text, format!("base-{n}"));
            assert_eq!(item.answers[side.other().as_str()].text, format!("sel-{n}"));
            assert_eq!(key.baseline_run_id, format!("baserun{n}"));
        }
        assert_eq!(f.key.packet_id, f.packet.packet_id);
        assert_eq!(files(12, 3), f, "the same inputs and seed make the same packet");
        assert_ne!(files(12, 4).packet.packet_id, f.packet.packet_id);
    }

    #[test]
    fn an_edited_packet_or_a_foreign_key_is_refused() {
        let f = files(3, 1);
        f.packet.verify().unwrap();
        f.key.check(&f.packet).unwrap();
        let mut edited = f.packet.clone();
        edited.items[0].answers.get_mut("A").unwrap().text.push('!');
        assert!(edited.verify().unwrap_err().to_string().contains("edited"));
        let other = files(2, 1);
        assert!(other.key.check(&f.packet).is_err());
        let mut empty = f.packet.clone();
        empty.items.clear();
        empty.packet_id = empty.content_id();
        assert!(empty.verify().is_err());
    }

    /// Two items under one id (re-hashed so the id matches) would let "complete" hide an unlabelled answer.
    #[test]
    fn a_packet_with_a_duplicate_item_id_is_refused() {
        let mut twice = files(3, 1).packet;
        twice.items[1].item_id = twice.items[0].item_id.clone();
        twice.packet_id = twice.content_id();
        let err = twice.verify().unwrap_err().to_string();
        assert!(err.contains("appears twice"), "{err}");
    }

    #[test]
    fn citations_are_renumbered_to_the_evidence() {
        let source = |number: usize, id: &str| Source {
            number,
            chunk_id: id.into(),
            document: String::new(),
            title: String::new(),
            page_start: 1,
            page_end: 1,
            text: String::new(),
        };
        let sources = [source(1, "c3"), source(2, "c1")];
        let evidence = ["c1", "c2", "c3"];
        assert_eq!(
            renumber("“x” [1] (p. 1) and [2]; [9] [a] [ [12", &sources, &evidence),
            "“x” [3] (p. 1) and [1]; [?] [a] [ [12"
        );
        assert_eq!(renumber("no citations", &[], &evidence), "no citations");
    }
}
