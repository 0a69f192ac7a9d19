//! The service tokens and who a request comes from. rag-jev has one token (`RAG_JEV_API_TOKEN`); ragsift also
//! reads several from a token file, one `LABEL TOKEN` pair a line, so each application gets its own token and its
//! runs are named by the label rather than by whatever user agent it sends. Every check compares the whole
//! `Authorization` header with every token in constant time, and a token never appears in an error or a log.

use axum::http::{header, HeaderMap, HeaderValue};
use ragsift_workbench::{Error, Result};
use std::collections::HashSet;
use std::path::Path;

/// One accepted token and the label that names its client (`None`: the user agent names it).
#[derive(Clone)]
pub struct ServiceToken {
    pub label: Option<String>,
    token: String,
}

impl std::fmt::Debug for ServiceToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ServiceToken({:?}, <redacted>)", self.label)
    }
}

/// The tokens a request may carry; empty turns auth off (which only a loopback host allows).
#[derive(Debug, Clone, Default)]
pub struct Tokens(Vec<ServiceToken>);

/// What the token check decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    Denied,
    /// Allowed; `label` names the client when its token has one.
    Granted {
        label: Option<String>,
    },
}

impl Tokens {
    /// One unlabelled token (rag-jev's `RAG_JEV_API_TOKEN`); empty or `None` is no token.
    pub fn single(token: Option<String>) -> Tokens {
        Tokens(
            token
                .filter(|t| !t.is_empty())
                .map(|token| ServiceToken { label: None, token })
                .into_iter()
                .collect(),
        )
    }

    /// Whether any token is required.
    pub fn is_set(&self) -> bool {
        !self.0.is_empty()
    }

    /// The labels, in file order.
    pub fn labels(&self) -> Vec<&str> {
        self.0.iter().filter_map(|t| t.label.as_deref()).collect()
    }

    /// Reads a token file that only its owner can read (mode 0600): the token alone, or `LABEL TOKEN` lines
    /// (blank lines and `#` comments skipped). Labels and tokens must be unique; an error names the line, never
    /// its token.
    pub fn read(path: &Path) -> Result<Tokens> {
        ragsift_workbench::fsx::check_secret(path, "the service token file")?;
        let text = ragsift_workbench::read::read_text(path, ragsift_workbench::read::SMALL_MAX_MB)?;
        Tokens::parse(&text).map_err(|m| Error::Invalid(format!("{}: {m}", path.display())))
    }

    fn parse(text: &str) -> std::result::Result<Tokens, String> {
        let lines: Vec<(usize, Vec<&str>)> = (text.lines().enumerate())
            .map(|(i, l)| (i + 1, l.split_whitespace().collect::<Vec<_>>()))
            .filter(|(_, f)| !f.is_empty() && !f[0].starts_with('#'))
            .collect();
        if let [(_, only)] = lines.as_slice() {
            if only.len() == 1 {
                return Ok(Tokens::single(Some(only[0].to_string())));
            }
        }
        if lines.is_empty() {
            return Err("the service token file is empty".into());
        }
        let (mut labels, mut tokens, mut all) = (HashSet::new(), HashSet::new(), Vec::new());
        for (n, fields) in lines {
            let [label, token] = fields.as_slice() else {
                return Err(format!("line {n}: write one `LABEL TOKEN` pair a line"));
            };
            if label.chars().count() > 120 || label.chars().any(char::is_control) {
                return Err(format!("line {n}: a label is at most 120 printable characters"));
            }
            if !labels.insert(*label) {
                return Err(format!("line {n}: the label `{label}` is used twice"));
            }
            if !tokens.insert(*token) {
                return Err(format!("line {n}: this token is given twice"));
            }
            all.push(ServiceToken {
                label: Some(label.to_string()),
                token: token.to_string(),
            });
        }
        Ok(Tokens(all))
    }

    /// rag-jev's check, for each token: the whole `Authorization` header equals `Bearer <token>` (the scheme is
    /// case-sensitive and nothing is trimmed). Every token is compared, in time that depends on the lengths only.
    pub fn check(&self, headers: &HeaderMap) -> Access {
        if self.0.is_empty() {
            return Access::Granted { label: None };
        }
        let got = headers
            .get(header::AUTHORIZATION)
            .map_or(&[][..], HeaderValue::as_bytes);
        let mut matched = None;
        for (i, t) in self.0.iter().enumerate() {
            let equal = constant_time_eq(got, format!("Bearer {}", t.token).as_bytes());
            matched = if equal { Some(i) } else { matched };
        }
        match matched {
            Some(i) => Access::Granted {
                label: self.0[i].label.clone(),
            },
            None => Access::Denied,
        }
    }
}

/// Equal bytes, in time that depends on the lengths only.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let mut diff = a.len() ^ b.len();
    for (i, x) in b.iter().enumerate() {
        diff |= usize::from(a.get(i).copied().unwrap_or(0) ^ x);
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(v: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::AUTHORIZATION, HeaderValue::from_str(v).unwrap());
        h
    }

    #[test]
    fn the_whole_header_must_match() {
        let one = Tokens::single(Some("s3cret".into()));
        assert_eq!(one.check(&with("Bearer s3cret")), Access::Granted { label: None });
        for wrong in [
            "bearer s3cret",
            "Bearer s3cret ",
            "Bearer s3cre",
            "Bearer s3cretx",
            "s3cret",
            "",
        ] {
            assert_eq!(one.check(&with(wrong)), Access::Denied, "{wrong:?}");
        }
        assert_eq!(one.check(&HeaderMap::new()), Access::Denied);
        let open = Tokens::single(Some(String::new()));
        assert!(!open.is_set());
        assert_eq!(
            open.check(&HeaderMap::new()),
            Access::Granted { label: None },
            "no token: auth is off"
        );
    }

    #[test]
    fn a_labelled_token_names_its_client() {
        let tokens = Tokens::parse("# one per application\nbilling  tok-b1\n\nsupport-bot tok-s2\n").unwrap();
        assert_eq!(tokens.labels(), ["billing", "support-bot"]);
        let label = |h: &str| match tokens.check(&with(h)) {
            Access::Granted { label } => label,
            Access::Denied => Some("denied".into()),
        };
        assert_eq!(label("Bearer tok-b1").as_deref(), Some("billing"));
        assert_eq!(label("Bearer tok-s2").as_deref(), Some("support-bot"));
        assert_eq!(label("Bearer tok-s").as_deref(), Some("denied"));
        // The token alone is rag-jev's single token.
        assert_eq!(
            Tokens::parse("  tok-only \n").unwrap().check(&with("Bearer tok-only")),
            Access::Granted { label: None }
        );
    }

    #[test]
    fn a_bad_file_names_the_line_and_never_the_token() {
        let cases = [
            ("a tok-1\nb tok-1\n", "line 2: this token is given twice"),
            ("a tok-1\na tok-2\n", "line 2: the label `a` is used twice"),
            ("a tok-1 extra\n", "line 1: write one `LABEL TOKEN` pair a line"),
            ("a tok-1\nlonely\n", "line 2: write one"),
            ("\n# nothing\n", "empty"),
        ];
        for (text, want) in cases {
            let err = Tokens::parse(text).err().unwrap();
            assert!(err.contains(want), "{text:?}: {err}");
            assert!(!err.contains("tok-"), "{err}");
        }
    }
}
