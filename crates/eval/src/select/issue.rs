//! One problem with a request, as rag-jev's 422 lists it: pydantic's `loc` and `type`, never the value sent.

use serde::Serialize;
use serde_json::Value;

/// One problem with a request, as rag-jev's 422 lists it: where (`loc`, inside the body), pydantic's error `type`
/// (`kind`), and what, never the value sent.
#[derive(Serialize, Clone, Debug, PartialEq)]
pub struct Issue {
    pub loc: Vec<Value>,
    /// Not in rag-jev's CLI output (`{loc, message}`); its service's 422 adds it as `type`.
    #[serde(skip_serializing)]
    pub kind: String,
    pub message: String,
}

impl Issue {
    pub(super) fn at(loc: &[Value], kind: &str, message: impl Into<String>) -> Issue {
        Issue {
            loc: loc.to_vec(),
            kind: kind.to_string(),
            message: message.into(),
        }
    }

    /// A model validator's refusal (pydantic's `value_error`).
    pub(super) fn value_error(loc: &[Value], message: &str) -> Issue {
        Issue::at(loc, "value_error", format!("Value error, {message}"))
    }
}
