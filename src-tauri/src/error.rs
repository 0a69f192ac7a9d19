//! The error that crosses IPC: a few codes the UI branches on, and the engine's message in plain words.

use ragsift_engine::Error;
use serde::Serialize;

/// What the UI does differently per code: `setup` → point to set-up/Settings, `auth` → the key field,
/// `unreachable` → the endpoint, `bad_file` → per-file message, `cancelled` → nothing, `stale` → "ask again".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum IpcCode {
    Invalid,
    NotFound,
    Setup,
    BadFile,
    Unreachable,
    Auth,
    Cancelled,
    Stale,
    Internal,
}

#[derive(Debug, Clone, PartialEq, Serialize, specta::Type, thiserror::Error)]
#[error("{message}")]
pub struct IpcError {
    pub code: IpcCode,
    pub message: String,
}

pub type Result<T> = std::result::Result<T, IpcError>;

impl IpcError {
    pub fn internal(message: impl ToString) -> Self {
        IpcError {
            code: IpcCode::Internal,
            message: message.to_string(),
        }
    }
}

impl From<Error> for IpcError {
    fn from(e: Error) -> Self {
        let code = match e.code() {
            "encrypted" | "corrupt" | "no_text" | "too_large" | "unsupported" | "timeout" => IpcCode::BadFile,
            "setup" | "model" | "model_not_found" => IpcCode::Setup,
            "auth" => IpcCode::Auth,
            "rate_limited" | "unreachable" | "protocol" => IpcCode::Unreachable,
            "judge" => match &e {
                Error::Judge { code: "auth", .. } => IpcCode::Auth,
                _ => IpcCode::Unreachable,
            },
            "invalid" | "context_overflow" => IpcCode::Invalid,
            "not_found" => IpcCode::NotFound,
            "stale" => IpcCode::Stale,
            "cancelled" => IpcCode::Cancelled,
            _ => IpcCode::Internal,
        };
        IpcError {
            code,
            message: e.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_errors_map_to_the_codes_the_ui_branches_on() {
        let cases = [
            (Error::Encrypted { path: "a.pdf".into() }, IpcCode::BadFile),
            (Error::Setup("run setup".into()), IpcCode::Setup),
            (Error::Auth("bad key".into()), IpcCode::Auth),
            (Error::Unreachable("down".into()), IpcCode::Unreachable),
            (
                Error::Judge {
                    code: "auth",
                    message: "401".into(),
                },
                IpcCode::Auth,
            ),
            (
                Error::Judge {
                    code: "timeout",
                    message: "slow".into(),
                },
                IpcCode::Unreachable,
            ),
            (Error::Stale("changed".into()), IpcCode::Stale),
            (Error::Cancelled, IpcCode::Cancelled),
            (Error::NotFound("run x".into()), IpcCode::NotFound),
            (Error::Index("broken".into()), IpcCode::Internal),
        ];
        for (error, code) in cases {
            let message = error.to_string();
            let ipc = IpcError::from(error);
            assert_eq!(ipc.code, code, "{message}");
            assert_eq!(ipc.message, message);
        }
    }
}
