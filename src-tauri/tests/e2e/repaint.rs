//! Replay repaints in the real window: slider moves made as a drag makes them, and the durations the UI records
//! for each (`performance` measures named `replay-repaint`, from the input event to the frame after the new
//! selection, with its parts `replay-ipc`, `replay-render` and `replay-frame`).

use super::webdriver::Session;
use serde_json::{json, Value};
use std::time::Duration;

/// Forgets the repaints measured so far.
pub fn clear(s: &Session) {
    s.script("performance.clearMeasures('replay-repaint')", json!([]));
}

/// Slider moves in the Replay view, `gap` apart: each sets one threshold (by its slider's test id) as a drag does.
pub fn drag(s: &Session, moves: &[(&str, f64)], gap: Duration) {
    for (slider, v) in moves {
        s.script(
            "const el = document.querySelector(`[data-testid=${arguments[0]}]`);\
             Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(el, arguments[1]);\
             el.dispatchEvent(new Event('input', {bubbles: true}));",
            json!([slider, format!("{v:.2}")]),
        );
        std::thread::sleep(gap);
    }
}

/// The repaints measured since [`clear`], in milliseconds, sorted.
pub struct Repaints {
    pub ms: Vec<f64>,
}

impl Repaints {
    pub fn read(s: &Session) -> Self {
        let mut ms: Vec<f64> = s
            .script(
                "return performance.getEntriesByName('replay-repaint').map(e => e.duration)",
                json!([]),
            )
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_f64).collect())
            .unwrap_or_default();
        ms.sort_by(f64::total_cmp);
        Repaints { ms }
    }
    pub fn median(&self) -> f64 {
        self.ms[self.ms.len() / 2]
    }
    pub fn p95(&self) -> f64 {
        self.ms[(self.ms.len() * 95 / 100).min(self.ms.len() - 1)]
    }
    /// Median, p95, max and count as JSON, with `extra` fields merged in.
    pub fn figure(&self, extra: Value) -> Value {
        let mut f = json!({
            "median": self.median(), "p95": self.p95(), "max": self.ms[self.ms.len() - 1], "n": self.ms.len()
        });
        if let (Some(f), Value::Object(extra)) = (f.as_object_mut(), extra) {
            f.extend(extra);
        }
        f
    }
}

/// The median of each part of a repaint: the IPC round trip, laying the answer over the trace and rendering, the
/// frame.
pub fn median_parts(s: &Session) -> Value {
    s.script(
        "const med = (name) => { const v = performance.getEntriesByName(name).map(e => e.duration).sort((a, b) => a - b);\
           return v.length ? v[v.length >> 1] : null; };\
         return {ipc: med('replay-ipc'), render: med('replay-render'), frame: med('replay-frame')};",
        json!([]),
    )
}
