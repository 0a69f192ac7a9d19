//! The bytes of Python's `json.dumps(value, sort_keys=True)` (default separators, `ensure_ascii`, floats as
//! `repr`), so a version hashed here equals the one rag-jev hashes in Python.

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fmt::Write;

/// A JSON value as Python's `json` module writes it.
pub(crate) enum Value {
    Null,
    Bool(bool),
    Int(u64),
    Float(f64),
    Str(String),
    List(Vec<Value>),
    /// Keys sorted by code point (UTF-8 byte order is code-point order), as `sort_keys=True`.
    Map(BTreeMap<String, Value>),
}

/// The first 16 hex digits of the SHA-256 of `json.dumps(value, sort_keys=True)`.
pub(crate) fn sha256_prefix(value: &Value) -> String {
    let mut text = String::new();
    dump(value, &mut text);
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().take(8).fold(String::new(), |mut hex, b| {
        let _ = write!(hex, "{b:02x}");
        hex
    })
}

/// Appends `json.dumps(value, sort_keys=True)` to `out`.
pub(crate) fn dump(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(n) => {
            let _ = write!(out, "{n}");
        }
        Value::Float(x) => out.push_str(&float_repr(*x)),
        Value::Str(s) => string(s, out),
        Value::List(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                dump(item, out);
            }
            out.push(']');
        }
        Value::Map(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                string(key, out);
                out.push_str(": ");
                dump(item, out);
            }
            out.push('}');
        }
    }
}

/// A string literal with `ensure_ascii`: non-ASCII as `\uXXXX` (UTF-16 surrogate pairs above the BMP).
fn string(s: &str, out: &mut String) {
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
            c if c.is_ascii() && !c.is_ascii_control() => out.push(c),
            c => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
        }
    }
    out.push('"');
}

/// Python's `repr(float)`: the shortest round-tripping digits, fixed notation for decimal exponents -5 < e < 16
/// (with `.0` for whole numbers), else `d.ddde-05` style. Non-finite values never reach a version.
pub(crate) fn float_repr(x: f64) -> String {
    if !x.is_finite() {
        return if x.is_nan() {
            "NaN".into()
        } else if x > 0.0 {
            "Infinity".into()
        } else {
            "-Infinity".into()
        };
    }
    // Rust's `{:e}` is also the shortest round-trip: "-1.25e-5", "3e0".
    let sci = format!("{x:e}");
    let (mantissa, exponent) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (sign, mantissa) = mantissa.strip_prefix('-').map_or(("", mantissa), |m| ("-", m));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if !(-5 < exponent && exponent < 16) {
        let (head, tail) = digits.split_at(1);
        let dot = if tail.is_empty() {
            String::new()
        } else {
            format!(".{tail}")
        };
        let esign = if exponent < 0 { '-' } else { '+' };
        return format!("{sign}{head}{dot}e{esign}{:02}", exponent.unsigned_abs());
    }
    if exponent < 0 {
        let zeros = "0".repeat(exponent.unsigned_abs() as usize - 1);
        return format!("{sign}0.{zeros}{digits}");
    }
    let point = exponent as usize + 1;
    if digits.len() <= point {
        format!("{sign}{digits}{}.0", "0".repeat(point - digits.len()))
    } else {
        format!("{sign}{}.{}", &digits[..point], &digits[point..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python_repr() {
        // Each right-hand side is what CPython 3 prints for `repr(x)`.
        let cases: &[(f64, &str)] = &[
            (0.0, "0.0"),
            (1.0, "1.0"),
            (0.2, "0.2"),
            (0.45, "0.45"),
            (0.1 + 0.2, "0.30000000000000004"),
            (0.1999999999, "0.1999999999"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (0.000012345, "1.2345e-05"),
            (123.5, "123.5"),
            (1e15, "1000000000000000.0"),
            (1e16, "1e+16"),
            (-2.5, "-2.5"),
        ];
        for &(x, want) in cases {
            assert_eq!(float_repr(x), want, "{x:e}");
        }
    }

    #[test]
    fn dumps_matches_python_byte_for_byte() {
        let map = BTreeMap::from([
            (
                "b".to_string(),
                Value::List(vec![Value::Int(1), Value::Null, Value::Bool(true)]),
            ),
            ("a".to_string(), Value::Str("é\"\n\u{1F600}".into())),
        ]);
        let mut out = String::new();
        dump(&Value::Map(map), &mut out);
        // json.dumps({"b": [1, None, True], "a": "é\"\n😀"}, sort_keys=True)
        assert_eq!(out, r#"{"a": "\u00e9\"\n\ud83d\ude00", "b": [1, null, true]}"#);
    }
}
