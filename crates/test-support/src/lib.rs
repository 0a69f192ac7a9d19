//! What the test suites of several crates share, as a dev-dependency (it is never linked into a shipped binary):
//! [`http`], a scripted HTTP/1.1 server on loopback that plays Jev, an OpenAI-compatible server or any other
//! upstream in its documented wire format; [`decision`], stand-in decision-model servers (Ollama's System One
//! endpoint, OpenAI's Decisions API) built on it; and [`files`], the repository's root, its fixtures and a text's
//! words.

pub mod decision;
pub mod files;
pub mod http;
