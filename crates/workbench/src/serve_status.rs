//! What a running `ragsift serve` says about itself: its status file in the library's home (address, whether it
//! records, how many selections it served), which the app's status line reads, and the snippets that point an
//! application at it.

use super::Workbench;
use crate::Result;

/// The file in the home where a running `ragsift serve` says what it does, for the app's status line.
const STATUS_FILE: &str = "serve-status.json";

/// What a running `ragsift serve` on this library is doing.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ServeStatus {
    /// Where it listens: `http://127.0.0.1:8000`.
    pub address: String,
    pub pid: u32,
    /// Whether each selection is stored as a run.
    pub recording: bool,
    /// Whether `/v1/*` requires a service token.
    pub token: bool,
    /// Selections served since it started.
    pub served: u64,
    pub started_at: i64,
    /// Whether it also proxies Jev (`--jev-proxy`) for apps that call TypeSafe directly.
    #[serde(default)]
    pub jev_proxy: bool,
}

/// One way to point an application at a running `ragsift serve`, ready to copy.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "specta", derive(specta::Type))]
pub struct ServeSnippet {
    /// Which client: "Spring AI (Jev proxy)", "rag-jev TypeScript client", …
    pub client: String,
    pub text: String,
}

impl ServeStatus {
    /// How each kind of client reaches this service: Spring AI through the Jev proxy (when it runs), rag-jev's
    /// TypeScript client, its LangChain compressor, Dify's provider, and plain HTTP. The token is named, never
    /// written out.
    pub fn snippets(&self) -> Vec<ServeSnippet> {
        let a = &self.address;
        let token = if self.token { "RAG_JEV_API_TOKEN" } else { "" };
        let mut out = Vec::new();
        let mut add = |client: &str, text: String| {
            out.push(ServeSnippet {
                client: client.to_string(),
                text,
            });
        };
        if self.jev_proxy {
            add(
                "Spring AI (JevDocumentFilter, JevDocumentReranker)",
                format!("TYPESAFE_BASE_URL={a}   # the app keeps its own TYPESAFE_API_KEY"),
            );
        }
        let bearer = if self.token {
            ", apiToken: process.env.RAG_JEV_API_TOKEN"
        } else {
            ""
        };
        add(
            "rag-jev TypeScript client",
            format!("const selector = new ContextSelectorClient({{ baseUrl: \"{a}\"{bearer} }});"),
        );
        let py_token = if self.token {
            ", api_token=os.environ[\"RAG_JEV_API_TOKEN\"]"
        } else {
            ""
        };
        add(
            "rag-jev LangChain compressor",
            format!("compressor = JevDocumentCompressor(base_url=\"{a}\"{py_token})"),
        );
        add(
            "Dify (rag-jev rerank provider)",
            format!(
                "base_url: {a}{}",
                if self.token {
                    "\napi_token: <your RAG_JEV_API_TOKEN>"
                } else {
                    ""
                }
            ),
        );
        let header = if self.token {
            format!(" -H \"Authorization: Bearer ${token}\"")
        } else {
            String::new()
        };
        add(
            "HTTP (curl)",
            format!("curl -s {a}/v1/select -H 'Content-Type: application/json'{header} -d @request.json"),
        );
        out
    }
}

/// Writes (atomically) or, with `None`, removes the service's status in `home`.
pub fn write_serve_status(home: &std::path::Path, status: Option<&ServeStatus>) -> Result<()> {
    let path = home.join(STATUS_FILE);
    match status {
        Some(s) => {
            let json = serde_json::to_vec_pretty(s).map_err(|e| crate::Error::Invalid(e.to_string()))?;
            ragsift_core::fsx::write_atomic(&path, &json, ragsift_core::fsx::Access::Shared)
        }
        None => match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(crate::Error::io(&path, e)),
            _ => Ok(()),
        },
    }
}

/// The policy as an application sets it, ready to copy: Spring's `JevDocumentFilter.Policy` for classify (its
/// thresholds in the record's order, compared strictly as Spring and ragsift both do), the community reranker's
/// and Spring AI 2.1's `DecisionDocumentFilter`/`DecisionDocumentReranker` builders with the chosen `failClosed`,
/// `topK` and `minimumScore` for their modes (2.1 publishes no threshold setters: the snippet says which values
/// ragsift used), rag-jev's selection options for its modes (in Python and as request JSON), and how a running
/// `ragsift serve` would apply it.
pub fn policy_snippets(policy: &ragsift_policy::PolicyOptions) -> Vec<ServeSnippet> {
    use ragsift_policy::{Mode, DEFAULT_THRESHOLDS};
    let mut out = Vec::new();
    let mut add = |client: &str, text: String| {
        out.push(ServeSnippet {
            client: client.to_string(),
            text,
        });
    };
    // DEFAULT_THRESHOLDS is in the record's order: injection, contradiction, relevance, evidence.
    let values: Vec<String> = (DEFAULT_THRESHOLDS.iter())
        .map(|(k, d)| format!("{:.2}", policy.thresholds.get(*k).copied().unwrap_or(*d)))
        .collect();
    // The reranker's builder calls with the chosen values (none when left at the default).
    let reranker_calls = {
        let mut calls = String::new();
        if let Some(k) = policy.rerank_top_k {
            calls.push_str(&format!(".topK({k})"));
        }
        if let Some(m) = policy.minimum_score {
            calls.push_str(&format!(".minimumScore({m:.2})"));
        }
        calls
    };
    if matches!(policy.mode, Mode::Classify | Mode::JevChain) {
        add(
            "Spring AI (JevDocumentFilter)",
            format!(
                "new JevDocumentFilter.Policy({}) // injection, contradiction, relevance, evidence",
                values.join(", ")
            ),
        );
    }
    if matches!(policy.mode, Mode::JevRerank | Mode::JevChain) {
        add(
            "Spring AI (JevDocumentReranker)",
            format!("JevDocumentReranker.builder(typeSafeClient){reranker_calls}.build()"),
        );
    }
    if matches!(policy.mode, Mode::DecisionFilter | Mode::DecisionChain) {
        add(
            "Spring AI 2.1 (DecisionDocumentFilter)",
            format!(
                "DecisionDocumentFilter.builder(decisionModel){}.build()\n// Spring AI 2.1 publishes no threshold values \
                 or question wording: ragsift decided with the community filter's ({}; injection, contradiction, \
                 relevance, evidence)",
                if policy.fail_closed { ".failClosed(true)" } else { "" },
                values.join(", ")
            ),
        );
    }
    if matches!(policy.mode, Mode::DecisionRerank | Mode::DecisionChain) {
        add(
            "Spring AI 2.1 (DecisionDocumentReranker)",
            format!("DecisionDocumentReranker.builder(decisionModel){reranker_calls}.build()"),
        );
    }
    if policy.mode.is_rag_jev() {
        let mode = serde_json::to_value(policy.mode)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string));
        let mode = mode.unwrap_or_default();
        let filters = matches!(policy.mode, Mode::Filter | Mode::FilterAndRerank);
        let min = filters.then(|| policy.min_relevance());
        let py = |v: Option<String>| v.unwrap_or_else(|| "None".into());
        let json_or_null = |v: Option<String>| v.unwrap_or_else(|| "null".into());
        let (top_n, budget) = (
            policy.top_n.map(|n| n.to_string()),
            policy.max_context_tokens.map(|n| n.to_string()),
        );
        let min_text = min.map(|m| format!("{m:.2}"));
        add(
            "rag-jev (Python Policy)",
            format!(
                "Policy(mode=\"{mode}\", min_relevance={}, top_n={}, max_context_tokens={}, shadow={})",
                py(min_text.clone()),
                py(top_n.clone()),
                py(budget.clone()),
                if policy.shadow { "True" } else { "False" }
            ),
        );
        add(
            "rag-jev (request JSON)",
            format!(
                "\"mode\": \"{mode}\", \"min_relevance\": {}, \"top_n\": {}, \"max_context_tokens\": {}, \"shadow\": {}",
                json_or_null(min_text),
                json_or_null(top_n),
                json_or_null(budget),
                policy.shadow
            ),
        );
        add(
            "ragsift serve",
            "Save as default policy, then: ragsift serve --policy saved   # applies it to every request".into(),
        );
    }
    out
}

impl Workbench {
    /// How to point each kind of application at the `ragsift serve` running on this library (none without one).
    pub fn serve_snippets(&self) -> Vec<ServeSnippet> {
        self.serve_status().map(|s| s.snippets()).unwrap_or_default()
    }

    /// The `ragsift serve` running on this library, if one is (its status file names a live process).
    pub fn serve_status(&self) -> Option<ServeStatus> {
        let path = self.home().join(STATUS_FILE);
        let text = ragsift_core::read::read_text(&path, ragsift_core::read::SMALL_MAX_MB).ok()?;
        let status: ServeStatus = serde_json::from_str(&text).ok()?;
        std::path::Path::new(&format!("/proc/{}", status.pid))
            .exists()
            .then_some(status)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(token: bool, jev_proxy: bool) -> ServeStatus {
        ServeStatus {
            address: "http://127.0.0.1:8000".into(),
            pid: 1,
            recording: true,
            token,
            served: 0,
            started_at: 0,
            jev_proxy,
        }
    }

    #[test]
    fn a_policy_reads_as_springs_record_or_rag_jevs_options() {
        use ragsift_policy::{Mode, PolicyOptions, IS_RELEVANT};
        let mut spring = PolicyOptions::default();
        spring.thresholds.insert(IS_RELEVANT.into(), 0.6);
        let s = policy_snippets(&spring);
        assert_eq!(s.len(), 1);
        assert!(
            s[0].text
                .starts_with("new JevDocumentFilter.Policy(0.70, 0.70, 0.60, 0.55)"),
            "{}",
            s[0].text
        );
        let filter = PolicyOptions {
            mode: Mode::FilterAndRerank,
            min_relevance: Some(0.35),
            top_n: Some(5),
            ..PolicyOptions::default()
        };
        let s = policy_snippets(&filter);
        assert_eq!(
            s[0].text,
            "Policy(mode=\"filter_and_rerank\", min_relevance=0.35, top_n=5, max_context_tokens=None, shadow=False)"
        );
        assert!(s[1]
            .text
            .contains("\"min_relevance\": 0.35, \"top_n\": 5, \"max_context_tokens\": null"));
        let rerank = PolicyOptions {
            mode: Mode::Rerank,
            min_relevance: Some(0.35),
            ..PolicyOptions::default()
        };
        assert!(
            policy_snippets(&rerank)[0].text.contains("min_relevance=None"),
            "rerank forbids a minimum"
        );
    }

    #[test]
    fn spring_modes_read_as_their_builders() {
        use ragsift_policy::{Mode, PolicyOptions};
        let texts = |p: &PolicyOptions| -> Vec<String> { policy_snippets(p).into_iter().map(|s| s.text).collect() };
        let chain = texts(&PolicyOptions::spring_decision_chain_example());
        assert_eq!(chain.len(), 2, "{chain:?}");
        assert!(chain[0].starts_with("DecisionDocumentFilter.builder(decisionModel).failClosed(true).build()"));
        assert!(chain[0].contains("publishes no threshold values") && chain[0].contains("0.70, 0.70, 0.45, 0.55"));
        assert_eq!(
            chain[1],
            "DecisionDocumentReranker.builder(decisionModel).topK(5).build()"
        );
        let community = texts(&PolicyOptions {
            mode: Mode::JevRerank,
            minimum_score: Some(0.3),
            ..PolicyOptions::default()
        });
        assert_eq!(
            community,
            ["JevDocumentReranker.builder(typeSafeClient).minimumScore(0.30).build()"]
        );
        let jev_chain = texts(&PolicyOptions {
            mode: Mode::JevChain,
            ..PolicyOptions::default()
        });
        assert_eq!(jev_chain.len(), 2);
        assert!(
            jev_chain.iter().all(|t| !t.contains("Policy(mode=")),
            "no rag-jev snippet: {jev_chain:?}"
        );
    }

    #[test]
    fn snippets_name_the_address_and_the_token_variable_never_a_token() {
        let open = status(false, false).snippets();
        assert!(
            open.iter().all(|s| s.text.contains("http://127.0.0.1:8000")),
            "{open:?}"
        );
        assert!(
            !open.iter().any(|s| s.text.contains("TYPESAFE_BASE_URL")),
            "no proxy, no Spring line"
        );
        assert!(
            !open.iter().any(|s| s.text.contains("Authorization")),
            "no token, no header"
        );
        let guarded = status(true, true).snippets();
        assert!(
            guarded[0].text.starts_with("TYPESAFE_BASE_URL=http://127.0.0.1:8000"),
            "{guarded:?}"
        );
        let curl = guarded.iter().find(|s| s.client.starts_with("HTTP")).unwrap();
        assert!(curl.text.contains("Bearer $RAG_JEV_API_TOKEN"), "{}", curl.text);
        assert_eq!(guarded.len(), open.len() + 1);
    }

    #[test]
    fn a_status_file_of_a_dead_process_is_not_a_running_service() {
        let home = tempfile::tempdir().unwrap();
        let wb = Workbench::open(Some(home.path())).unwrap();
        assert_eq!(wb.serve_status(), None);
        let mut live = status(false, false);
        live.pid = std::process::id();
        write_serve_status(home.path(), Some(&live)).unwrap();
        assert_eq!(wb.serve_status(), Some(live));
        let mut dead = status(false, false);
        dead.pid = u32::MAX; // above any pid_max: no such process
        write_serve_status(home.path(), Some(&dead)).unwrap();
        assert_eq!(
            wb.serve_status(),
            None,
            "a kill -9 leaves the file; the app must not show it"
        );
        write_serve_status(home.path(), None).unwrap();
        assert_eq!(wb.serve_status(), None);
    }
}
