//! `ragsift serve`: rag-jev's HTTP service on this library (see the ragsift-serve crate), each served selection
//! kept as a run the app shows within a second.

use crate::chat::ModelArgs;
use ragsift_serve::{Flags, Options};
use ragsift_workbench::{Error, JudgeKind};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct ServeArgs {
    /// The address to bind (default: RAG_JEV_HOST, else 127.0.0.1). Outside loopback a service token is needed.
    #[arg(long)]
    host: Option<String>,
    /// The port (default: PORT, else 8000; 0 picks a free one).
    #[arg(long)]
    port: Option<u16>,
    /// A file (mode 0600) holding the service token, or one `LABEL TOKEN` pair a line: a client is then named by
    /// its token's label. Default: RAG_JEV_API_TOKEN. Without one, auth is off.
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// Never build a judge: live scoring answers 503 (rag-jev's --replay-only).
    #[arg(long)]
    replay_only: bool,
    /// jev, systemone, ollama, openai, local, or auto (the default: Jev with a key, else the local judge).
    #[arg(long)]
    judge: Option<JudgeKind>,
    /// When the judge fails: passthrough (the default: 200, `bypassed`) or raise (502; 504 past the deadline).
    /// Default: RAG_JEV_ON_ERROR.
    #[arg(long)]
    on_error: Option<String>,
    /// Do not store served selections as runs.
    #[arg(long)]
    no_record: bool,
    /// Keep at most this many served runs (default 10,000); the oldest go first, labelled runs stay.
    #[arg(long, value_name = "N")]
    retain_runs: Option<usize>,
    /// Keep no served run older than this many days (labelled runs stay).
    #[arg(long, value_name = "DAYS")]
    retain_days: Option<u32>,
    /// Whose selection options apply: `request` (each request's own, the default) or `saved` (the library's saved
    /// default policy, as Replay's "Save as default policy" left it, read again for every request).
    #[arg(long, value_name = "request|saved")]
    policy: Option<String>,
    /// Also serve `POST /v1/systemone` as a recording proxy to Jev, for applications that call TypeSafe directly
    /// (Spring AI: TYPESAFE_BASE_URL=http://127.0.0.1:PORT). The caller's key is forwarded, never kept.
    #[arg(long)]
    jev_proxy: bool,
    /// The Jev the proxy forwards to (default: TYPESAFE_BASE_URL, else https://api.typesafe.ai); never this service.
    #[arg(long, value_name = "URL", requires = "jev_proxy")]
    jev_upstream: Option<String>,
    #[command(flatten)]
    model: ModelArgs,
}

pub fn run(home: &Path, args: ServeArgs) -> Result<ExitCode, Error> {
    let flags = Flags {
        host: args.host,
        port: args.port,
        token_file: args.token_file,
        replay_only: args.replay_only,
        judge: args.judge,
        on_error: args.on_error,
        no_record: args.no_record,
        retain_runs: args.retain_runs,
        retain_days: args.retain_days,
        policy: args.policy,
        jev_proxy: args.jev_proxy,
        jev_upstream: args.jev_upstream,
    };
    let options = Options::resolve(&flags, |name| std::env::var(name).ok())?;
    let wb = args.model.workbench(home)?;
    let (judge, record) = (options.judge, options.record);
    let auth = if options.tokens.is_set() {
        "token required"
    } else {
        "no token (loopback only)"
    };
    ragsift_serve::run(wb, options, |address| {
        eprintln!(
            "ragsift serve: http://{address} (judge {}, {auth}, {}); Ctrl-C stops",
            judge.as_str(),
            if record { "recording runs" } else { "not recording" }
        );
    })?;
    Ok(ExitCode::SUCCESS)
}
