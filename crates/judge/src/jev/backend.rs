//! Which decision-model server a judge speaks to, as Spring AI 2.1 names them: TypeSafe's Jev, any other System One
//! server, Ollama's System One endpoint, or OpenAI's Decisions API; with each one's defaults, wire, limits and
//! base-URL rules.

use super::JevError;

/// A decision-model backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Backend {
    /// TypeSafe's Jev (System One at `api.typesafe.ai`, a key required).
    #[default]
    Jev,
    /// Any other System One server (laya-serve, llmman, a proxy); the key is optional on loopback.
    SystemOne,
    /// Ollama 0.35+ with a local decision model: System One's shape under Ollama's stricter limits, no key.
    Ollama,
    /// OpenAI's Decisions API: `POST /v1/decisions`, ordered question arrays, per-question refusals.
    OpenAi,
}

/// The two request and answer shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// `state` plus a `questions` object, answered by an `answers` object.
    SystemOne,
    /// `input` plus a `questions` array, answered by an `answers` array in order.
    OpenAi,
}

/// Ollama's limits on `/v1/systemone` (its `decision/systemone.go`): 1–64 questions, a 64 KiB text body.
pub const OLLAMA_MAX_QUESTIONS: usize = 64;
/// One byte over this gives Ollama's 413.
pub const OLLAMA_MAX_BODY: usize = 64 * 1024;

impl Backend {
    /// Every backend, in the order settings list them.
    pub const ALL: [Backend; 4] = [Backend::Jev, Backend::SystemOne, Backend::Ollama, Backend::OpenAi];

    /// Its name in judge names, settings and on the command line (`spring.ai.model.decision`'s values, and `jev`).
    pub fn as_str(self) -> &'static str {
        match self {
            Backend::Jev => "jev",
            Backend::SystemOne => "systemone",
            Backend::Ollama => "ollama",
            Backend::OpenAi => "openai",
        }
    }

    /// How messages name the server.
    pub fn label(self) -> &'static str {
        match self {
            Backend::Jev => "Jev",
            Backend::SystemOne => "the System One server",
            Backend::Ollama => "Ollama",
            Backend::OpenAi => "OpenAI's Decisions API",
        }
    }

    pub fn wire(self) -> Wire {
        match self {
            Backend::OpenAi => Wire::OpenAi,
            _ => Wire::SystemOne,
        }
    }

    /// The base URL used when none is configured.
    pub fn default_base_url(self) -> &'static str {
        match self {
            Backend::Jev | Backend::SystemOne => super::DEFAULT_BASE_URL,
            Backend::Ollama => "http://localhost:11434",
            Backend::OpenAi => "https://api.openai.com",
        }
    }

    /// The model used when none is configured (Spring's defaults; Ollama's is the local decision model its docs use).
    pub fn default_model(self) -> &'static str {
        match self {
            Backend::Jev | Backend::SystemOne => super::DEFAULT_MODEL,
            Backend::Ollama => "d1-omni:600m",
            Backend::OpenAi => "gpt-6-luna",
        }
    }

    /// The environment variable that holds the key when none is named.
    pub fn default_key_env(self) -> &'static str {
        match self {
            Backend::Jev | Backend::SystemOne => "TYPESAFE_API_KEY",
            Backend::Ollama => "OLLAMA_API_KEY",
            Backend::OpenAi => "OPENAI_API_KEY",
        }
    }

    /// The path the wire is posted to under the base URL.
    pub fn endpoint_path(self) -> &'static str {
        match self.wire() {
            Wire::SystemOne => "/v1/systemone",
            Wire::OpenAi => "/v1/decisions",
        }
    }

    /// The backend of a name (`jev`, `systemone`, `ollama`, `openai`).
    pub fn parse(name: &str) -> Option<Backend> {
        Backend::ALL.into_iter().find(|b| b.as_str() == name)
    }

    /// The endpoint for a base URL given with or without the endpoint's path (`http://h:11434`,
    /// `http://h:11434/v1`, `http://h:11434/v1/systemone/`): the path is never added twice.
    pub fn endpoint(self, base_url: &str) -> String {
        let mut base = base_url.trim().trim_end_matches('/');
        let path = self.endpoint_path();
        if let Some(stripped) = base.strip_suffix(path) {
            base = stripped;
        } else if let Some(stripped) = base.strip_suffix("/v1") {
            base = stripped;
        }
        format!("{}{path}", base.trim_end_matches('/'))
    }

    /// Checks a request against the server's documented limits before it is sent (Ollama's: 1–64 questions, a
    /// 64 KiB body), so that a too-large passage gets a clear error rather than the server's bare 413.
    pub fn check_limits(self, questions: usize, body_bytes: usize) -> Result<(), JevError> {
        if self != Backend::Ollama {
            return Ok(());
        }
        if !(1..=OLLAMA_MAX_QUESTIONS).contains(&questions) {
            return Err(JevError::InvalidRequest {
                message: format!(
                    "Ollama accepts 1 to {OLLAMA_MAX_QUESTIONS} questions a request; this one has {questions}"
                ),
            });
        }
        if body_bytes > OLLAMA_MAX_BODY {
            return Err(JevError::InvalidRequest {
                message: format!(
                    "the request is {body_bytes} bytes and Ollama accepts at most {OLLAMA_MAX_BODY} (64 KiB): \
                     use smaller chunks or fewer passages a request"
                ),
            });
        }
        Ok(())
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
