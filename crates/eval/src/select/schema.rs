//! rag-jev's request models as its service checks them: pydantic in FastAPI's lax (Python) mode, field by field in
//! declaration order, then unknown fields, each problem with pydantic's `type` and `loc`, and never the value sent.
//! A body that passes comes back normalised (`"0.5"` → `0.5`, `"yes"` → `true`, a Unix time → its ISO text), ready
//! for serde; the models' own rules (`value_error`) are checked afterwards, on the typed value.
//!
//! Long because it is one table-driven checker of every field of rag-jev's models; the tables are read by `openapi.json` too.

use super::issue::Issue;
use serde_json::{Map, Number, Value};

/// One field of a model: its name, its type, and whether it must be present.
pub struct Field {
    pub name: &'static str,
    pub ty: Ty,
    pub required: bool,
}

/// The field types rag-jev's contract uses.
pub enum Ty {
    /// `str` with `min_length` and `max_length` (characters).
    Str {
        min: usize,
        max: usize,
    },
    /// `float`, optionally bounded; `finite` for `allow_inf_nan=False`.
    Float {
        ge: Option<f64>,
        le: Option<f64>,
        finite: bool,
    },
    /// `int`, optionally bounded; `strict` refuses anything but a JSON integer.
    Int {
        ge: Option<i64>,
        le: Option<i64>,
        strict: bool,
    },
    Bool,
    /// `Literal["a", "b"]`.
    Literal(&'static [&'static str]),
    /// `Literal[1]`.
    LiteralInt(i64),
    /// `list[T]` with an optional `max_length`.
    List(&'static Ty, Option<usize>),
    /// A nested model (`extra="forbid"`).
    Model(&'static [Field]),
    /// `dict[str, T]`.
    Dict(&'static Ty),
    /// `JsonValue`: anything JSON.
    Json,
    /// `datetime`: ISO 8601 text or a Unix time.
    DateTime,
    /// `T | None`.
    Nullable(&'static Ty),
}

const fn f(name: &'static str, ty: Ty, required: bool) -> Field {
    Field { name, ty, required }
}

const ANY_STR: Ty = Ty::Str {
    min: 0,
    max: usize::MAX,
};
const PROBABILITY: Ty = Ty::Float {
    ge: Some(0.0),
    le: Some(1.0),
    finite: true,
};
const FLOAT: Ty = Ty::Float {
    ge: None,
    le: None,
    finite: false,
};
const COUNT: Ty = Ty::Int {
    ge: Some(0),
    le: None,
    strict: false,
};
const IDS: Ty = Ty::List(&ANY_STR, None);
const SOURCE: Ty = Ty::Literal(&["live", "fixture"]);

/// rag-jev 0.2.0's `Mode` (the service here also takes `fusion`, from rag-jev's later code; the message is 0.2.0's).
pub const MODES: &[&str] = &["filter", "rerank", "filter_and_rerank"];

/// rag-jev's `Document`.
pub const DOCUMENT: &[Field] = &[
    f("id", Ty::Str { min: 1, max: 256 }, true),
    f("text", Ty::Str { min: 1, max: 60_000 }, true),
    f("metadata", Ty::Dict(&Ty::Json), false),
    f("group_id", Ty::Nullable(&Ty::Str { min: 1, max: 256 }), false),
    f("pinned", Ty::Bool, false),
];

/// rag-jev's `Policy` fields (its `SelectRequest` opens with them).
macro_rules! policy_fields {
    () => {
        [
            f("mode", Ty::Literal(MODES), false),
            f("min_relevance", Ty::Nullable(&PROBABILITY), false),
            f(
                "top_n",
                Ty::Nullable(&Ty::Int {
                    ge: Some(1),
                    le: Some(256),
                    strict: true,
                }),
                false,
            ),
            f(
                "max_context_tokens",
                Ty::Nullable(&Ty::Int {
                    ge: Some(1),
                    le: Some(1_000_000),
                    strict: true,
                }),
                false,
            ),
            f("shadow", Ty::Bool, false),
            f(
                "relevance_guidance",
                Ty::Nullable(&Ty::Str { min: 1, max: 2000 }),
                false,
            ),
        ]
    };
}

/// rag-jev's `Policy`.
pub const POLICY: &[Field] = &policy_fields!();

const fn select_request() -> [Field; 10] {
    let [a, b, c, d, e, g] = policy_fields!();
    [
        a,
        b,
        c,
        d,
        e,
        g,
        f("scoring_strategy", Ty::Literal(&["independent", "contextual"]), false),
        f("query", Ty::Str { min: 1, max: 8000 }, true),
        f("retrieval_query", Ty::Nullable(&Ty::Str { min: 1, max: 8000 }), false),
        f("documents", Ty::List(&Ty::Model(DOCUMENT), Some(256)), true),
    ]
}

/// rag-jev's `SelectRequest`.
pub const SELECT_REQUEST: &[Field] = &select_request();

const JUDGMENT: &[Field] = &[
    f("relevance", PROBABILITY, true),
    f(
        "model",
        Ty::Str {
            min: 1,
            max: usize::MAX,
        },
        true,
    ),
    f("input_tokens", COUNT, false),
    f("output_tokens", COUNT, false),
];

const USAGE: &[Field] = &[
    f("input_tokens", COUNT, false),
    f("output_tokens", COUNT, false),
    f("completed_documents", COUNT, false),
    f("complete", Ty::Bool, false),
];

/// rag-jev's `ScoredRun` (a `StudyRequest` with its judgments).
pub const SCORED_RUN: &[Field] = &[
    f("request", Ty::Model(SELECT_REQUEST), true),
    f("relevant_ids", Ty::Nullable(&IDS), false),
    f("baseline_ids", Ty::Nullable(&IDS), false),
    f("schema_version", Ty::LiteralInt(1), false),
    f("created_at", Ty::DateTime, true),
    f("source", SOURCE, true),
    f("prompt_version", ANY_STR, false),
    f("input_hash", ANY_STR, true),
    f("judgments", Ty::List(&Ty::Model(JUDGMENT), Some(256)), true),
    f(
        "scoring_elapsed_ms",
        Ty::Float {
            ge: Some(0.0),
            le: None,
            finite: true,
        },
        true,
    ),
    f("scoring_usage", Ty::Nullable(&Ty::Model(USAGE)), false),
];

const OPTIONAL_COUNT: Ty = Ty::Nullable(&COUNT);
const OPTIONAL_STR: Ty = Ty::Nullable(&ANY_STR);

const ANSWER: &[Field] = &[
    f("text", ANY_STR, true),
    f("status", Ty::Literal(&["generated", "no_context", "error"]), true),
    f("model", OPTIONAL_STR, false),
    f("elapsed_ms", FLOAT, false),
    f("input_tokens", OPTIONAL_COUNT, false),
    f("output_tokens", OPTIONAL_COUNT, false),
    f("cached_input_tokens", OPTIONAL_COUNT, false),
    f("citations", IDS, false),
    f("unknown_citations", IDS, false),
    f("source_map", Ty::Dict(&ANY_STR), false),
    f("error_code", OPTIONAL_STR, false),
    f("finish_reason", OPTIONAL_STR, false),
    f("settings", Ty::Dict(&Ty::Json), false),
];

const COMPARISON: &[Field] = &[
    f("input_hash", ANY_STR, true),
    f("policy_version", ANY_STR, true),
    f("baseline", Ty::Model(ANSWER), true),
    f("selected", Ty::Model(ANSWER), true),
    f("baseline_ids", IDS, true),
    f("selected_ids", IDS, true),
    f("selection_source", SOURCE, true),
    f("baseline_stage_ms", FLOAT, true),
    f("selected_stage_ms", FLOAT, true),
    f("selection_original_ms", FLOAT, true),
    f("baseline_cost_usd", Ty::Nullable(&FLOAT), true),
    f("selected_cost_usd", Ty::Nullable(&FLOAT), true),
    f("selection_cost_usd", Ty::Nullable(&FLOAT), true),
    f("cost_basis", ANY_STR, false),
    f("timing_basis", ANY_STR, false),
    f("citation_check", ANY_STR, false),
];

/// rag-jev's `ReplayRequest` (`POST /v1/replay`).
pub const REPLAY_REQUEST: &[Field] = &[
    f("record", Ty::Model(SCORED_RUN), true),
    f("policy", Ty::Model(POLICY), true),
];

/// rag-jev's `ReplayBundle` (`POST /v1/import`).
pub const REPLAY_BUNDLE: &[Field] = &[
    f("record", Ty::Model(SCORED_RUN), true),
    f("policy", Ty::Model(POLICY), true),
    f("comparison", Ty::Nullable(&Ty::Model(COMPARISON)), false),
];

/// rag-jev's `StudyRequest` (`POST /v1/runs`).
pub const STUDY_REQUEST: &[Field] = &[
    f("request", Ty::Model(SELECT_REQUEST), true),
    f("relevant_ids", Ty::Nullable(&IDS), false),
    f("baseline_ids", Ty::Nullable(&IDS), false),
];

/// `body` checked as the model `fields`: the normalised body, or every issue (`loc` inside the body). A missing
/// body (`None`, or JSON `null`) is pydantic's `missing`.
pub fn check(body: Option<&Value>, fields: &'static [Field]) -> Result<Value, Vec<Issue>> {
    let mut issues = Vec::new();
    let checked = match body {
        None | Some(Value::Null) => {
            issues.push(issue(&[], "missing", "Field required"));
            None
        }
        Some(v) => value(v, &Ty::Model(fields), &mut Vec::new(), &mut issues),
    };
    match checked {
        Some(v) if issues.is_empty() => Ok(v),
        _ => Err(issues),
    }
}

/// A checked, normalised `value` as `T`. The check has already refused what serde would, so a failure here is a
/// disagreement between the two, reported without the value.
pub fn typed<T: serde::de::DeserializeOwned>(value: Value, loc: &[Value]) -> Result<T, Vec<Issue>> {
    serde_json::from_value(value).map_err(|_| vec![issue(loc, "model_type", "Input is invalid")])
}

fn issue(loc: &[Value], kind: &str, message: impl Into<String>) -> Issue {
    Issue {
        loc: loc.to_vec(),
        kind: kind.to_string(),
        message: message.into(),
    }
}

/// `v` checked as `ty` at `loc`: its normalised form, or `None` with the issues pushed.
fn value(v: &Value, ty: &Ty, loc: &mut Vec<Value>, issues: &mut Vec<Issue>) -> Option<Value> {
    let mut fail = |kind: &str, message: String| {
        issues.push(issue(loc, kind, message));
        None
    };
    match ty {
        Ty::Nullable(inner) => match v {
            Value::Null => Some(Value::Null),
            v => value(v, inner, loc, issues),
        },
        Ty::Json => Some(v.clone()),
        Ty::Str { min, max } => match v {
            Value::String(s) => {
                let n = s.chars().count();
                if n < *min {
                    let unit = if *min == 1 { "character" } else { "characters" };
                    fail("string_too_short", format!("String should have at least {min} {unit}"))
                } else if n > *max {
                    let unit = if *max == 1 { "character" } else { "characters" };
                    fail("string_too_long", format!("String should have at most {max} {unit}"))
                } else {
                    Some(v.clone())
                }
            }
            _ => fail("string_type", "Input should be a valid string".into()),
        },
        Ty::Float { ge, le, finite } => {
            let x = match v {
                Value::Number(n) => n.as_f64().unwrap_or(f64::NAN),
                Value::Bool(b) => f64::from(u8::from(*b)),
                Value::String(s) => match s.trim().parse::<f64>() {
                    Ok(x) => x,
                    Err(_) => {
                        let m = "Input should be a valid number, unable to parse string as a number";
                        return fail("float_parsing", m.into());
                    }
                },
                _ => return fail("float_type", "Input should be a valid number".into()),
            };
            if *finite && !x.is_finite() {
                return fail("finite_number", "Input should be a finite number".into());
            }
            if let Some(min) = ge.filter(|min| x < *min) {
                return fail(
                    "greater_than_equal",
                    format!("Input should be greater than or equal to {}", python_number(min)),
                );
            }
            if let Some(max) = le.filter(|max| x > *max) {
                return fail(
                    "less_than_equal",
                    format!("Input should be less than or equal to {}", python_number(max)),
                );
            }
            Some(Number::from_f64(x).map_or(Value::Null, Value::Number))
        }
        Ty::Int { ge, le, strict } => {
            let n = match (v, strict) {
                (Value::Number(n), _) if n.is_i64() || n.is_u64() => n.as_i64().unwrap_or(i64::MAX),
                (_, true) => return fail("int_type", "Input should be a valid integer".into()),
                (Value::Number(n), false) => {
                    let x = n.as_f64().unwrap_or(f64::NAN);
                    if x.fract() != 0.0 || !x.is_finite() {
                        let m = "Input should be a valid integer, got a number with a fractional part";
                        return fail("int_from_float", m.into());
                    }
                    x as i64
                }
                (Value::Bool(b), false) => i64::from(*b),
                (Value::String(s), false) => match s.trim().parse::<i64>() {
                    Ok(n) => n,
                    Err(_) => {
                        let m = "Input should be a valid integer, unable to parse string as an integer";
                        return fail("int_parsing", m.into());
                    }
                },
                _ => return fail("int_type", "Input should be a valid integer".into()),
            };
            if let Some(min) = ge.filter(|min| n < *min) {
                return fail(
                    "greater_than_equal",
                    format!("Input should be greater than or equal to {min}"),
                );
            }
            if let Some(max) = le.filter(|max| n > *max) {
                return fail(
                    "less_than_equal",
                    format!("Input should be less than or equal to {max}"),
                );
            }
            Some(Value::from(n))
        }
        Ty::Bool => {
            let parsed = match v {
                Value::Bool(b) => Some(*b),
                Value::Number(n) => match n.as_f64() {
                    Some(0.0) => Some(false),
                    Some(1.0) => Some(true),
                    _ => None,
                },
                Value::String(s) => match s.to_ascii_lowercase().as_str() {
                    "0" | "off" | "f" | "false" | "n" | "no" => Some(false),
                    "1" | "on" | "t" | "true" | "y" | "yes" => Some(true),
                    _ => None,
                },
                _ => return fail("bool_type", "Input should be a valid boolean".into()),
            };
            match parsed {
                Some(b) => Some(Value::Bool(b)),
                None => fail(
                    "bool_parsing",
                    "Input should be a valid boolean, unable to interpret input".into(),
                ),
            }
        }
        Ty::Literal(allowed) => match v.as_str() {
            Some(s) if allowed.contains(&s) => Some(v.clone()),
            // `fusion`, from rag-jev's later code, where the literal is `mode`'s.
            Some("fusion") if *allowed == MODES => Some(v.clone()),
            _ => fail("literal_error", format!("Input should be {}", one_of(allowed))),
        },
        Ty::LiteralInt(expected) => match v.as_i64() {
            Some(n) if n == *expected && v.is_number() => Some(v.clone()),
            _ => fail("literal_error", format!("Input should be {expected}")),
        },
        Ty::List(item, max) => {
            let Value::Array(items) = v else {
                return fail("list_type", "Input should be a valid list".into());
            };
            if let Some(max) = max.filter(|max| items.len() > *max) {
                return fail(
                    "too_long",
                    format!(
                        "List should have at most {max} items after validation, not {}",
                        items.len()
                    ),
                );
            }
            let mut out = Vec::with_capacity(items.len());
            for (i, x) in items.iter().enumerate() {
                loc.push(i.into());
                out.push(value(x, item, loc, issues));
                loc.pop();
            }
            out.into_iter().collect::<Option<Vec<_>>>().map(Value::Array)
        }
        Ty::Dict(item) => {
            let Value::Object(entries) = v else {
                return fail("dict_type", "Input should be a valid dictionary".into());
            };
            let mut out = Map::new();
            let mut ok = true;
            for (k, x) in entries {
                loc.push(k.as_str().into());
                match value(x, item, loc, issues) {
                    Some(x) => {
                        out.insert(k.clone(), x);
                    }
                    None => ok = false,
                }
                loc.pop();
            }
            ok.then_some(Value::Object(out))
        }
        Ty::DateTime => match v {
            Value::String(s) if is_date(s) => Some(Value::String(format!("{s}T00:00:00"))),
            Value::String(s) => match super::datetime::normalized_datetime(s) {
                Some(_) => Some(v.clone()),
                None => fail(
                    "datetime_from_date_parsing",
                    "Input should be a valid datetime or date, unable to parse input".into(),
                ),
            },
            Value::Number(n) => match n.as_f64().and_then(unix_time) {
                Some(text) => Some(Value::String(text)),
                None => fail("datetime_parsing", "Input should be a valid datetime".into()),
            },
            _ => fail("datetime_type", "Input should be a valid datetime".into()),
        },
        Ty::Model(fields) => {
            let Value::Object(object) = v else {
                return fail(
                    "model_attributes_type",
                    "Input should be a valid dictionary or object to extract fields from".into(),
                );
            };
            let mut out = Map::new();
            let mut ok = true;
            for field in fields.iter() {
                loc.push(field.name.into());
                match object.get(field.name) {
                    Some(x) => match value(x, &field.ty, loc, issues) {
                        Some(x) => {
                            out.insert(field.name.to_string(), x);
                        }
                        None => ok = false,
                    },
                    None if field.required => {
                        issues.push(issue(loc, "missing", "Field required"));
                        ok = false;
                    }
                    None => {}
                }
                loc.pop();
            }
            for key in object.keys().filter(|k| !fields.iter().any(|f| f.name == k.as_str())) {
                loc.push(key.as_str().into());
                issues.push(issue(loc, "extra_forbidden", "Extra inputs are not permitted"));
                loc.pop();
                ok = false;
            }
            ok.then_some(Value::Object(out))
        }
    }
}

/// A date alone (`YYYY-MM-DD`), which pydantic takes as its midnight.
fn is_date(s: &str) -> bool {
    s.len() == 10 && super::datetime::normalized_datetime(&format!("{s}T00:00:00")).is_some()
}

/// The JSON Schema (draft 2020-12, as OpenAPI 3.1 uses it) of the model `fields`: the same table the checks run
/// from, so the published schema and the service cannot disagree.
pub fn json_schema(fields: &'static [Field]) -> Value {
    schema_of(&Ty::Model(fields))
}

fn schema_of(ty: &Ty) -> Value {
    let mut s = Map::new();
    let mut put = |k: &str, v: Value| {
        s.insert(k.to_string(), v);
    };
    match ty {
        Ty::Str { min, max } => {
            put("type", "string".into());
            if *min > 0 {
                put("minLength", (*min).into());
            }
            if *max < usize::MAX {
                put("maxLength", (*max).into());
            }
        }
        Ty::Float { ge, le, .. } => {
            put("type", "number".into());
            bounds(&mut put, ge.map(Value::from), le.map(Value::from));
        }
        Ty::Int { ge, le, .. } => {
            put("type", "integer".into());
            bounds(&mut put, ge.map(Value::from), le.map(Value::from));
        }
        Ty::Bool => put("type", "boolean".into()),
        Ty::Literal(allowed) => {
            let mut values: Vec<Value> = allowed.iter().map(|a| Value::from(*a)).collect();
            if *allowed == MODES {
                values.push("fusion".into());
            }
            put("enum", Value::Array(values));
        }
        Ty::LiteralInt(n) => put("const", (*n).into()),
        Ty::List(item, max) => {
            put("type", "array".into());
            put("items", schema_of(item));
            if let Some(m) = max {
                put("maxItems", (*m).into());
            }
        }
        Ty::Model(fields) => {
            put("type", "object".into());
            let properties: Map<String, Value> = (fields.iter())
                .map(|f| (f.name.to_string(), schema_of(&f.ty)))
                .collect();
            put("properties", Value::Object(properties));
            let required: Vec<Value> = (fields.iter()).filter(|f| f.required).map(|f| f.name.into()).collect();
            put("required", Value::Array(required));
            put("additionalProperties", false.into());
        }
        Ty::Dict(item) => {
            put("type", "object".into());
            put("additionalProperties", schema_of(item));
        }
        Ty::Json => {}
        Ty::DateTime => {
            put("type", "string".into());
            put("format", "date-time".into());
        }
        Ty::Nullable(inner) => put(
            "anyOf",
            Value::Array(vec![schema_of(inner), serde_json::json!({"type": "null"})]),
        ),
    }
    Value::Object(s)
}

fn bounds(put: &mut impl FnMut(&str, Value), min: Option<Value>, max: Option<Value>) {
    if let Some(min) = min {
        put("minimum", min);
    }
    if let Some(max) = max {
        put("maximum", max);
    }
}

/// pydantic's literal list: `'a'`, `'a' or 'b'`, `'a', 'b' or 'c'`.
fn one_of(allowed: &[&str]) -> String {
    let quoted: Vec<String> = allowed.iter().map(|a| format!("'{a}'")).collect();
    match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// A bound as Python prints it in pydantic's message (`0`, `1`, `0.5`).
fn python_number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e16 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

/// A Unix time (seconds, or milliseconds past 2e10 as pydantic reads it) as pydantic writes the datetime.
pub fn unix_time(t: f64) -> Option<String> {
    let seconds = if t.abs() > 2e10 { t / 1000.0 } else { t };
    if !seconds.is_finite() || seconds.abs() > 2.5e11 {
        return None;
    }
    let micros = (seconds * 1e6).round() as i64;
    let (days, rest) = (micros.div_euclid(86_400_000_000), micros.rem_euclid(86_400_000_000));
    let (y, m, d) = civil(days);
    let (h, min, s, us) = (
        rest / 3_600_000_000,
        rest / 60_000_000 % 60,
        rest / 1_000_000 % 60,
        rest % 1_000_000,
    );
    let fraction = if us == 0 { String::new() } else { format!(".{us:06}") };
    Some(format!("{y:04}-{m:02}-{d:02}T{h:02}:{min:02}:{s:02}{fraction}Z"))
}

/// The civil date of `days` since 1970-01-01 (Howard Hinnant's algorithm).
fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests;
