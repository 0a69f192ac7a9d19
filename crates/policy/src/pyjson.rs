//! The bytes of Python's `json.dumps(value, sort_keys=True)` (default separators, `ensure_ascii`, floats as
//! `repr`), so what is hashed here equals what rag-jev hashes in Python: its policy versions and fingerprints.

use serde_json::Value;
use sha2::{Digest, Sha256};
use std::fmt::Write as _;

/// The first 16 hex digits of the SHA-256 of `json.dumps(value, sort_keys=True)`.
pub(crate) fn sha256_prefix(value: &Value) -> String {
    let digest = Sha256::digest(python_json_dumps(value).as_bytes());
    digest.iter().take(8).fold(String::new(), |mut hex, b| {
        let _ = write!(hex, "{b:02x}");
        hex
    })
}

/// Python's `json.dumps(value, sort_keys=True)` with every other option at its default.
pub fn python_json_dumps(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value);
    out
}

fn write_value(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => write!(out, "{i}").unwrap_or(()),
            (_, Some(u)) => write!(out, "{u}").unwrap_or(()),
            _ => out.push_str(&python_float_repr(n.as_f64().unwrap_or(f64::NAN))),
        },
        Value::String(s) => write_str(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0)); // UTF-8 byte order is code point order, as in Python
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_str(out, key);
                out.push_str(": ");
                write_value(out, item);
            }
            out.push('}');
        }
    }
}

/// Python's `json.dumps(s)` of one string: quoted, with `ensure_ascii` escapes.
pub fn python_json_string(s: &str) -> String {
    let mut out = String::new();
    write_str(&mut out, s);
    out
}

/// `ensure_ascii=True`: printable ASCII as is, short escapes for `"` `\` `\b` `\f` `\n` `\r` `\t`, everything else
/// (controls, DEL, non-ASCII) as lowercase `\uXXXX`, beyond the BMP as a UTF-16 surrogate pair.
fn write_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            ' '..='~' => out.push(c),
            _ => {
                for unit in c.encode_utf16(&mut [0u16; 2]) {
                    write!(out, "\\u{unit:04x}").unwrap_or(());
                }
            }
        }
    }
    out.push('"');
}

/// Python's `repr(float)`: the shortest digits that round-trip, positional when the decimal exponent is in
/// [-4, 16) (with `.0` for integral values), else `d.ddde±XX`; `NaN` and `Infinity` as `json.dumps` writes them.
pub fn python_float_repr(x: f64) -> String {
    if x.is_nan() {
        return "NaN".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    let sci = format!("{x:e}"); // shortest round-trip digits, e.g. "-1.25e-7", "0e0"
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let (sign, mantissa) = mantissa.strip_prefix('-').map_or(("", mantissa), |m| ("-", m));
    let digits: String = mantissa.chars().filter(|&c| c != '.').collect();
    let point = exp + 1; // the decimal point falls after this many digits
    let body = if point > -4 && point <= 16 {
        let n = digits.len() as i32;
        if point <= 0 {
            format!("0.{}{digits}", "0".repeat(-point as usize))
        } else if point >= n {
            format!("{digits}{}.0", "0".repeat((point - n) as usize))
        } else {
            format!("{}.{}", &digits[..point as usize], &digits[point as usize..])
        }
    } else {
        let (first, rest) = digits.split_at(1);
        let dot = if rest.is_empty() { "" } else { "." };
        let exp_sign = if exp < 0 { '-' } else { '+' };
        format!("{first}{dot}{rest}e{exp_sign}{:02}", exp.unsigned_abs())
    };
    format!("{sign}{body}")
}
