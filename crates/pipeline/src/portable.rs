//! Portable runs: one run exported as an integrity-checked JSON file (a replay file), imported on another
//! machine, where it replays from its own judgments with no library, no key and no judge call. The file carries
//! the trace, its fingerprint, the versions that made it, its sizes and the SHA-256 of the trace; an import that
//! does not check out on any of them is refused and stores nothing.

use super::Trace;
use crate::{Error, Result};
use ragsift_core::ids::sha256_hex;
use serde::{Deserialize, Serialize};

/// The `format` of a run file.
pub const RUN_FILE_FORMAT: &str = "ragsift-run";
/// The run-file layout this build writes and reads.
pub const RUN_FILE_VERSION: u32 = 1;
/// The largest run file read or written: the one JSON limit, [`ragsift_core::read::JSON_MAX_MB`] (a run of
/// 2,000 candidates with their text is a few MB).
pub const MAX_RUN_FILE_BYTES: usize = (ragsift_core::read::JSON_MAX_MB as usize) << 20;

/// Counts that must match the trace inside.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[serde(deny_unknown_fields)]
pub struct RunSizes {
    pub candidates: u32,
    pub judgments: u32,
    pub decisions: u32,
    pub variants: u32,
}

impl RunSizes {
    fn of(trace: &Trace) -> RunSizes {
        let n = |len: usize| u32::try_from(len).unwrap_or(u32::MAX);
        RunSizes {
            candidates: n(trace.candidates.len()),
            judgments: n(trace.judge.judgments.len()),
            decisions: n(trace.selection.decisions.len()),
            variants: n(trace.variants.len()),
        }
    }
}

/// A run file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunFile {
    pub format: String,
    pub schema_version: u32,
    /// The ragsift version that exported it.
    pub ragsift_version: String,
    pub exported_at: i64,
    pub run_id: String,
    pub judge: String,
    pub prompt_version: String,
    pub policy_version: String,
    pub fingerprint: String,
    pub sizes: RunSizes,
    /// SHA-256 of the trace as compact JSON.
    pub sha256: String,
    pub trace: Trace,
}

fn trace_digest(trace: &Trace) -> Result<String> {
    let json = serde_json::to_string(trace).map_err(|e| Error::Invalid(format!("run {}: {e}", trace.run_id)))?;
    Ok(sha256_hex(json.as_bytes()))
}

/// `trace` as a run file (pretty JSON).
pub fn export(trace: &Trace) -> Result<String> {
    let file = RunFile {
        format: RUN_FILE_FORMAT.into(),
        schema_version: RUN_FILE_VERSION,
        ragsift_version: env!("CARGO_PKG_VERSION").into(),
        exported_at: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64),
        run_id: trace.run_id.clone(),
        judge: trace.judge.judge.clone(),
        prompt_version: trace.judge.prompt_version.clone(),
        policy_version: trace.selection.policy_version.clone(),
        fingerprint: trace.fingerprint.clone(),
        sizes: RunSizes::of(trace),
        sha256: trace_digest(trace)?,
        trace: trace.clone(),
    };
    let text = serde_json::to_string_pretty(&file).map_err(|e| Error::Invalid(format!("run {}: {e}", trace.run_id)))?;
    // What is exported must import: the same limit both ways.
    if text.len() + 1 > MAX_RUN_FILE_BYTES {
        return Err(Error::Invalid(format!(
            "run {}: its file would be {} MB, over the {} MB limit of run files",
            trace.run_id,
            text.len() >> 20,
            MAX_RUN_FILE_BYTES >> 20
        )));
    }
    Ok(text)
}

/// Reads and checks a run file: format and layout version, the checksum, the fingerprint (recomputed from the
/// query and candidates), the versions and the sizes. Returns the trace as stored, read as one made today
/// ([`Trace::upgrade_stored`], after the checks, which are of the file as exported).
pub fn read(bytes: &[u8]) -> Result<Trace> {
    let refuse = |m: String| Err(Error::Invalid(format!("not an importable run: {m}")));
    if bytes.len() > MAX_RUN_FILE_BYTES {
        return refuse(format!(
            "{} bytes is over the {} MB limit",
            bytes.len(),
            MAX_RUN_FILE_BYTES >> 20
        ));
    }
    let value: serde_json::Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => return refuse(format!("not JSON ({e})")),
    };
    match (
        value.get("format").and_then(|f| f.as_str()),
        value.get("schema_version").and_then(|v| v.as_u64()),
    ) {
        (Some(RUN_FILE_FORMAT), Some(v)) if v == u64::from(RUN_FILE_VERSION) => {}
        (Some(RUN_FILE_FORMAT), v) => {
            return refuse(format!(
                "run file layout {} (this ragsift reads layout {RUN_FILE_VERSION})",
                v.map_or("unknown".into(), |v| v.to_string())
            ))
        }
        _ => {
            return refuse(format!(
                "no \"format\": \"{RUN_FILE_FORMAT}\" (export runs with `ragsift runs export`)"
            ))
        }
    }
    let file: RunFile = match serde_json::from_value(value) {
        Ok(f) => f,
        Err(e) => return refuse(format!("unreadable ({e})")),
    };
    let mut trace = file.trace;
    if trace_digest(&trace)? != file.sha256 {
        return refuse("its SHA-256 does not match: the run was changed after export".into());
    }
    let recomputed = super::trace::fingerprint(&trace.query, &trace.candidates);
    if recomputed != trace.fingerprint || recomputed != file.fingerprint {
        return refuse("its fingerprint does not match its query and candidates".into());
    }
    let checks = [
        ("run id", &file.run_id, &trace.run_id),
        ("judge", &file.judge, &trace.judge.judge),
        ("prompt version", &file.prompt_version, &trace.judge.prompt_version),
        ("policy version", &file.policy_version, &trace.selection.policy_version),
    ];
    if let Some((what, outer, inner)) = checks.iter().find(|(_, a, b)| a != b) {
        return refuse(format!("its {what} says '{outer}' but the run holds '{inner}'"));
    }
    if RunSizes::of(&trace) != file.sizes {
        return refuse(format!(
            "its sizes {:?} do not match the run's {:?}",
            file.sizes,
            RunSizes::of(&trace)
        ));
    }
    if trace.selection.decisions.len() != trace.candidates.len() {
        return refuse("one decision per candidate is required".into());
    }
    if let Err(e) = trace.labels.validate(&trace.candidates) {
        return refuse(e);
    }
    if let Err(e) = ragsift_core::ids::check_run_id(&trace.run_id).and_then(|()| check_numbers(&trace)) {
        return refuse(e);
    }
    trace.upgrade_stored();
    Ok(trace)
}

/// Every chunk id is one, and every judgment is a probability (finite, 0 to 1), as the Jev parser and the local judge guarantee for runs
/// made here; a re-hashed file with 5.0 or −3.0 would otherwise pass a 0.9 filter it should fail. Scores are finite.
fn check_numbers(trace: &Trace) -> std::result::Result<(), String> {
    // Every chunk id has the one grammar of chunk ids (rag-jev's: 1 to 256 characters, not blank).
    let ids = (trace.candidates.iter().map(|c| &c.chunk_id)).chain(trace.judge.judgments.iter().map(|j| &j.chunk_id));
    for id in ids {
        ragsift_core::ids::check_id(ragsift_core::ids::IdKind::Chunk, id)?;
    }
    for j in &trace.judge.judgments {
        if let Some((question, p)) = j.scores.iter().find(|(_, p)| !(0.0..=1.0).contains(*p)) {
            return Err(format!(
                "chunk {}'s judgment '{question}' is {p}, not a probability between 0 and 1",
                j.chunk_id
            ));
        }
    }
    match trace.candidates.iter().find(|c| !c.score.is_finite()) {
        Some(c) => Err(format!("chunk {}'s retrieval score is {}", c.chunk_id, c.score)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::{export, read, trace_digest, RunFile};
    use crate::synthetic::{judged_run, SyntheticRun};

    /// A run file of `trace` after `edit`, re-hashed as a forger would, so only the content checks stand.
    fn forged(edit: impl Fn(&mut RunFile)) -> Vec<u8> {
        let trace = judged_run(3, &SyntheticRun::default()).unwrap();
        let mut file: RunFile = serde_json::from_str(&export(&trace).unwrap()).unwrap();
        edit(&mut file);
        file.sha256 = trace_digest(&file.trace).unwrap();
        serde_json::to_vec(&file).unwrap()
    }

    #[test]
    fn judgments_outside_zero_to_one_are_refused_at_the_boundaries() {
        for (p, ok) in [
            (0.0, true),
            (1.0, true),
            (1.0 + 1e-12, false),
            (-0.0, true),
            (-1e-12, false),
        ] {
            let bytes = forged(|f| {
                let answers = &mut f.trace.judge.judgments[1].scores;
                let key = answers.keys().next().unwrap().clone();
                answers.insert(key, p);
            });
            assert_eq!(read(&bytes).is_ok(), ok, "{p}");
        }
        for p in [5.0, -3.0] {
            let err = read(&forged(|f| {
                let answers = &mut f.trace.judge.judgments[0].scores;
                let key = answers.keys().next().unwrap().clone();
                answers.insert(key, p);
            }))
            .unwrap_err()
            .to_string();
            assert!(err.contains("not a probability between 0 and 1"), "{err}");
        }
    }

    #[test]
    fn run_ids_that_are_paths_wildcards_or_escapes_are_refused() {
        for bad in ["%", "", "../x", "a\u{1b}[31m"] {
            let bytes = forged(|f| {
                f.run_id = bad.to_string();
                f.trace.run_id = bad.to_string();
            });
            let err = read(&bytes).unwrap_err().to_string();
            assert!(err.contains("run id"), "{bad:?}: {err}");
            assert!(!err.contains('\u{1b}'), "the escape is not printed raw");
        }
        assert!(read(&forged(|_| {})).is_ok());
    }
}
