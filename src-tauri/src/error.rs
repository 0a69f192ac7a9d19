//! The error that crosses IPC: a few codes the UI branches on, and the engine's message in plain words.

use ragsift_workbench::{Error, JudgeCode};
use serde::Serialize;

/// What the UI does differently per code: `setup` → point to set-up/Settings, `auth` → the key field,
/// `unreachable` → the endpoint, `bad_file` → per-file message, `cancelled` → nothing, `stale` → "ask again",
/// `disk_full` → free space (nothing was half-written).
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
    DiskFull,
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
        // Exhaustive over the engine's variants: a new one fails to compile until it is mapped here.
        let code = match &e {
            Error::Encrypted { .. }
            | Error::Corrupt { .. }
            | Error::NoText { .. }
            | Error::TooLarge { .. }
            | Error::Unsupported { .. }
            | Error::Timeout { .. }
            | Error::Hostile { .. } => IpcCode::BadFile,
            Error::Setup(_) | Error::Model(_) | Error::ModelNotFound(_) => IpcCode::Setup,
            Error::Auth(_)
            | Error::Judge {
                code: JudgeCode::ProviderAuth,
                ..
            } => IpcCode::Auth,
            Error::RateLimited(_) | Error::Unreachable(_) | Error::Protocol(_) | Error::Judge { .. } => {
                IpcCode::Unreachable
            }
            Error::Invalid(_) | Error::ContextOverflow { .. } | Error::NotSupported(_) | Error::Busy(_) => {
                IpcCode::Invalid
            }
            Error::NotFound(_) => IpcCode::NotFound,
            Error::Stale(_) => IpcCode::Stale,
            Error::Cancelled => IpcCode::Cancelled,
            Error::DiskFull { .. } => IpcCode::DiskFull,
            e if e.is_disk_full() => IpcCode::DiskFull,
            Error::Io { .. } | Error::Db(_) | Error::Server(_) | Error::Index(_) => IpcCode::Internal,
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
                    code: JudgeCode::ProviderAuth,
                    message: "401".into(),
                },
                IpcCode::Auth,
            ),
            (
                Error::Judge {
                    code: JudgeCode::ProviderTimeout,
                    message: "slow".into(),
                },
                IpcCode::Unreachable,
            ),
            (Error::Stale("changed".into()), IpcCode::Stale),
            (Error::Cancelled, IpcCode::Cancelled),
            (Error::NotFound("run x".into()), IpcCode::NotFound),
            (Error::Index("broken".into()), IpcCode::Internal),
            (Error::Server("relation missing".into()), IpcCode::Internal),
            (Error::NotSupported("logprobs".into()), IpcCode::Invalid),
            (
                Error::ContextOverflow {
                    prompt: 5000,
                    reserve: 256,
                    context: 4096,
                },
                IpcCode::Invalid,
            ),
            (Error::Protocol("bad json".into()), IpcCode::Unreachable),
            (
                Error::DiskFull {
                    path: "settings.json".into(),
                    needed: Some(10),
                    free: Some(0),
                },
                IpcCode::DiskFull,
            ),
            (
                Error::Hostile {
                    path: "a.pdf".into(),
                    reason: "the PDF exhausted the 2048 MiB memory limit while decoding page 3".into(),
                },
                IpcCode::BadFile,
            ),
        ];
        for (error, code) in cases {
            let message = error.to_string();
            let ipc = IpcError::from(error);
            assert_eq!(ipc.code, code, "{message}");
            assert_eq!(ipc.message, message);
        }
    }
}
