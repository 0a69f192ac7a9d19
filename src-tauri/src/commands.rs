//! The app's commands: each pulls the workbench, calls one engine function off the UI thread and maps the error.

use crate::error::{IpcError, Result};
use ragsift_workbench::error::FieldProblem;
use ragsift_workbench::eval::curves::Curve;
use ragsift_workbench::judge_calibration::JudgeCalibrationReport;
use ragsift_workbench::labels::SpanLabel;
use ragsift_workbench::pipeline::{
    labels::RunLabels,
    replay_delta::{ReplayDelta, ReplaySweep},
    Trace,
};
use ragsift_workbench::policy::PolicyOptions;
use ragsift_workbench::progress::IngestEvent;
use ragsift_workbench::review::{ReviewLabel, ReviewPacket};
use ragsift_workbench::tuning::{CaseSource, CompareReport, RunAblation};
use ragsift_workbench::FirstRun;
use ragsift_workbench::{
    AppInfo, AskEvent, AskRequest, CalibrateForm, CalibrationView, EvalRequest, EvalView, JudgeInfo, JudgeKind,
    LibraryActivity, PageView, PolicyForm, ServeSnippet, Workbench,
};
use ragsift_workbench::{DocumentRow, RunSummary};
use ragsift_workbench::{IngestReport, Settings};
use std::collections::BTreeMap;
use std::sync::Arc;
use tauri::ipc::Channel;
use tauri::State;

type Wb<'a> = State<'a, Arc<Workbench>>;

/// Runs engine work on the blocking pool, so the UI thread never waits on I/O or a model.
async fn blocking<T: Send + 'static>(
    wb: &Wb<'_>,
    f: impl FnOnce(&Workbench) -> ragsift_workbench::Result<T> + Send + 'static,
) -> Result<T> {
    let wb = wb.inner().clone();
    tauri::async_runtime::spawn_blocking(move || f(&wb))
        .await
        .map_err(IpcError::internal)?
        .map_err(IpcError::from)
}

#[tauri::command]
#[specta::specta]
pub async fn app_info(wb: Wb<'_>) -> Result<AppInfo> {
    blocking(&wb, |wb| wb.info()).await
}

#[tauri::command]
#[specta::specta]
pub async fn documents(wb: Wb<'_>) -> Result<Vec<DocumentRow>> {
    blocking(&wb, |wb| wb.documents()).await
}

#[tauri::command]
#[specta::specta]
pub async fn library_activity(wb: Wb<'_>) -> Result<LibraryActivity> {
    blocking(&wb, |wb| wb.library_activity()).await
}

/// The policy as an application sets it (Spring's record, rag-jev's options), ready to copy.
#[tauri::command]
#[specta::specta]
pub fn policy_snippets(options: PolicyOptions) -> Vec<ServeSnippet> {
    ragsift_workbench::policy_snippets(&options)
}

/// The first run: the bundled samples on an empty library, and three questions that show the loop.
#[tauri::command]
#[specta::specta]
pub async fn first_run(wb: Wb<'_>) -> Result<FirstRun> {
    blocking(&wb, |wb| wb.first_run()).await
}

/// The files the app was started to open ("Open with ragsift"), handed out once.
#[tauri::command]
#[specta::specta]
pub fn opened_files(opened: tauri::State<'_, crate::OpenedFiles>) -> Vec<String> {
    std::mem::take(&mut *opened.0.lock().unwrap_or_else(|e| e.into_inner()))
}

/// How to point each kind of application at the running `ragsift serve`.
#[tauri::command]
#[specta::specta]
pub async fn serve_snippets(wb: Wb<'_>) -> Result<Vec<ServeSnippet>> {
    blocking(&wb, |wb| Ok(wb.serve_snippets())).await
}

#[tauri::command]
#[specta::specta]
pub async fn ingest(
    wb: Wb<'_>,
    paths: Vec<String>,
    job: String,
    on_event: Channel<IngestEvent>,
) -> Result<IngestReport> {
    blocking(&wb, move |wb| {
        wb.ingest(&paths, &job, &|e| drop(on_event.send(e.clone())))
    })
    .await
}

#[tauri::command]
#[specta::specta]
pub fn cancel(wb: Wb<'_>, job: String) -> bool {
    wb.jobs.cancel(&job)
}

#[tauri::command]
#[specta::specta]
pub async fn remove_document(wb: Wb<'_>, id: String) -> Result<DocumentRow> {
    blocking(&wb, move |wb| wb.remove_document(&id)).await
}

#[tauri::command]
#[specta::specta]
pub async fn rename_document(wb: Wb<'_>, id: String, title: String) -> Result<DocumentRow> {
    blocking(&wb, move |wb| wb.rename_document(&id, &title)).await
}

#[tauri::command]
#[specta::specta]
pub async fn page(wb: Wb<'_>, document_id: String, page: u32) -> Result<PageView> {
    blocking(&wb, move |wb| wb.page(&document_id, page)).await
}

#[tauri::command]
#[specta::specta]
pub async fn page_image(wb: Wb<'_>, document_id: String, page: u32) -> Result<Option<String>> {
    blocking(&wb, move |wb| wb.page_image(&document_id, page)).await
}

#[tauri::command]
#[specta::specta]
pub async fn ask(wb: Wb<'_>, request: AskRequest, job: String, on_event: Channel<AskEvent>) -> Result<Trace> {
    let events = Arc::new(move |e| drop(on_event.send(e)));
    blocking(&wb, move |wb| wb.ask(&request, &job, events)).await
}

#[tauri::command]
#[specta::specta]
pub async fn runs(wb: Wb<'_>, limit: u32) -> Result<Vec<RunSummary>> {
    blocking(&wb, move |wb| wb.runs(limit)).await
}

#[tauri::command]
#[specta::specta]
pub async fn run(wb: Wb<'_>, id: String) -> Result<Trace> {
    blocking(&wb, move |wb| wb.run(&id).map(|t| (*t).clone())).await
}

/// Async, so never on the UI thread: a replay of the cached run is a pure function of cached judgments
/// (microseconds), but another run is loaded from SQLite first. Only what differs from the run's stored
/// selection crosses IPC (`ReplayDelta`); the UI lays it over the trace it holds. With `calibrated`, the thresholds
/// are in calibrated probability and are read through the judge's stored fit in the same call.
#[tauri::command]
#[specta::specta]
pub async fn replay(wb: Wb<'_>, run_id: String, options: PolicyOptions, calibrated: bool) -> Result<ReplayDelta> {
    blocking(&wb, move |wb| wb.replay_delta(&run_id, &options, calibrated)).await
}

/// `options` as the replay form shows them for a run, with the run's judge's defaults beside them.
#[tauri::command]
#[specta::specta]
pub async fn policy_form(wb: Wb<'_>, run_id: String, options: PolicyOptions) -> Result<PolicyForm> {
    blocking(&wb, move |wb| wb.policy_form(&run_id, &options)).await
}

/// The run's replays over every value of one threshold's slider, chained (`ReplaySweep`): a drag over that slider
/// then replays without a round trip per move.
#[tauri::command]
#[specta::specta]
pub async fn replay_sweep(
    wb: Wb<'_>,
    run_id: String,
    options: PolicyOptions,
    key: String,
    values: Vec<f64>,
) -> Result<ReplaySweep> {
    blocking(&wb, move |wb| wb.replay_sweep(&run_id, &options, &key, values)).await
}

#[tauri::command]
#[specta::specta]
pub async fn regenerate(
    wb: Wb<'_>,
    run_id: String,
    options: PolicyOptions,
    job: String,
    on_event: Channel<AskEvent>,
) -> Result<Trace> {
    let events = Arc::new(move |e| drop(on_event.send(e)));
    blocking(&wb, move |wb| wb.regenerate(&run_id, &options, &job, events)).await
}

#[tauri::command]
#[specta::specta]
pub fn settings(wb: Wb<'_>) -> Settings {
    wb.settings()
}

/// Empties the judgment cache; the number of cached answers dropped.
#[tauri::command]
#[specta::specta]
pub async fn clear_judgment_cache(wb: Wb<'_>) -> Result<u32> {
    blocking(&wb, |wb| wb.clear_judgment_cache()).await
}

/// Every problem with a draft of the settings, by field: the Settings form shows Rust's rules, never a copy.
#[tauri::command]
#[specta::specta]
pub fn check_settings(wb: Wb<'_>, settings: Settings) -> Vec<FieldProblem> {
    wb.check_settings(&settings)
}

#[tauri::command]
#[specta::specta]
pub async fn save_settings(wb: Wb<'_>, settings: Settings) -> Result<Settings> {
    blocking(&wb, move |wb| wb.save_settings(settings)).await
}

#[tauri::command]
#[specta::specta]
pub async fn set_judge_key(wb: Wb<'_>, key: Option<String>) -> Result<JudgeInfo> {
    blocking(&wb, move |wb| wb.set_judge_key(key.as_deref())).await
}

/// A stored run's candidates judged again by the judge of `kind`: a new run.
#[tauri::command]
#[specta::specta]
pub async fn rejudge_run(wb: Wb<'_>, run_id: String, kind: JudgeKind) -> Result<Trace> {
    blocking(&wb, move |wb| wb.rejudge_run(&run_id, kind)).await
}

/// Two runs' judgments compared per question: κ, disagreements, accuracy against labels.
#[tauri::command]
#[specta::specta]
pub async fn compare_judges(wb: Wb<'_>, a: String, b: String) -> Result<ragsift_workbench::JudgeComparison> {
    blocking(&wb, move |wb| wb.compare_judges(&a, &b)).await
}

/// Every judge Settings offers, with its defaults.
#[tauri::command]
#[specta::specta]
pub fn judge_choices() -> Vec<ragsift_workbench::JudgeChoice> {
    ragsift_workbench::judge_choices()
}

/// One small call to the decision model `judge` describes (not saved): Settings' *Test connection*.
#[tauri::command]
#[specta::specta]
pub async fn test_judge(wb: Wb<'_>, judge: ragsift_workbench::JudgeSettings) -> Result<ragsift_workbench::JudgeProbe> {
    blocking(&wb, move |wb| wb.test_judge(&judge)).await
}

#[tauri::command]
#[specta::specta]
pub async fn save_default_policy(wb: Wb<'_>, options: PolicyOptions) -> Result<Settings> {
    blocking(&wb, move |wb| wb.save_default_policy(options)).await
}

#[tauri::command]
#[specta::specta]
pub async fn evaluate(wb: Wb<'_>, request: EvalRequest, job: String) -> Result<EvalView> {
    blocking(&wb, move |wb| wb.evaluate(&request, &job)).await
}

/// Another retriever's candidates (rag-jev's request or one eval case, pasted) judged and stored as a run.
#[tauri::command]
#[specta::specta]
pub async fn import_candidates(wb: Wb<'_>, json: String, judge: JudgeKind) -> Result<Trace> {
    blocking(&wb, move |wb| wb.import_candidates(&json, judge)).await
}

/// [`import_candidates`] from a JSON file.
#[tauri::command]
#[specta::specta]
pub async fn import_candidates_file(wb: Wb<'_>, path: String, judge: JudgeKind) -> Result<Trace> {
    blocking(&wb, move |wb| wb.import_candidates_file(&path, judge)).await
}

#[tauri::command]
#[specta::specta]
pub async fn set_run_labels(wb: Wb<'_>, run_id: String, labels: RunLabels) -> Result<Trace> {
    blocking(&wb, move |wb| wb.set_run_labels(&run_id, labels)).await
}

/// Writes the run as a portable file at `path`; returns the path.
#[tauri::command]
#[specta::specta]
pub async fn export_run(wb: Wb<'_>, run_id: String, path: String) -> Result<String> {
    blocking(&wb, move |wb| wb.export_run_to(&run_id, &path)).await
}

#[tauri::command]
#[specta::specta]
pub async fn import_run(wb: Wb<'_>, path: String) -> Result<RunSummary> {
    blocking(&wb, move |wb| wb.import_run_file(&path)).await
}

/// rag-jev's calibration: the grid on the development split, the frozen choice (written before any held-out
/// scoring), the held-out table with its paired bootstrap intervals.
#[tauri::command]
#[specta::specta]
pub async fn calibrate(wb: Wb<'_>, form: CalibrateForm, job: String) -> Result<CalibrationView> {
    blocking(&wb, move |wb| wb.calibrate_view(&form, &job)).await
}

#[tauri::command]
#[specta::specta]
pub async fn open_review_packet(wb: Wb<'_>, path: String) -> Result<ReviewPacket> {
    blocking(&wb, move |wb| wb.open_review_packet(&path)).await
}

/// Writes the reviewer's labels as CSV at `path`; returns the path.
#[tauri::command]
#[specta::specta]
pub async fn export_review_labels(
    wb: Wb<'_>,
    packet: ReviewPacket,
    labels: Vec<ReviewLabel>,
    path: String,
) -> Result<String> {
    blocking(&wb, move |wb| wb.export_review_labels(&packet, &labels, &path)).await
}

/// Marks a run's chunk as holding relevant evidence (or not), as spans that survive re-chunking.
#[tauri::command]
#[specta::specta]
pub async fn label_chunk(wb: Wb<'_>, run_id: String, chunk_id: String, relevant: bool) -> Result<Vec<SpanLabel>> {
    blocking(&wb, move |wb| wb.label_chunk(&run_id, &chunk_id, relevant)).await
}

/// Marks a character range of a page (the Page view's selection) as evidence for a run's question.
#[tauri::command]
#[specta::specta]
pub async fn label_span(
    wb: Wb<'_>,
    run_id: String,
    document_id: String,
    page: u32,
    char_start: u32,
    char_end: u32,
) -> Result<SpanLabel> {
    blocking(&wb, move |wb| {
        wb.label_span(&run_id, &document_id, page, char_start, char_end, true)
    })
    .await
}

#[tauri::command]
#[specta::specta]
pub async fn labels(wb: Wb<'_>, question: Option<String>) -> Result<Vec<SpanLabel>> {
    blocking(&wb, move |wb| wb.labels(question.as_deref())).await
}

#[tauri::command]
#[specta::specta]
pub async fn remove_label(wb: Wb<'_>, id: String) -> Result<SpanLabel> {
    blocking(&wb, move |wb| wb.remove_label(&id)).await
}

#[tauri::command]
#[specta::specta]
pub async fn update_label(wb: Wb<'_>, id: String, relevant: bool) -> Result<SpanLabel> {
    blocking(&wb, move |wb| wb.update_label(&id, relevant)).await
}

/// Fits each question's calibration for the judges of `kind` from the labelled runs, and stores it.
#[tauri::command]
#[specta::specta]
pub async fn calibrate_judge(wb: Wb<'_>, kind: JudgeKind) -> Result<JudgeCalibrationReport> {
    blocking(&wb, move |wb| wb.calibrate_judge(kind)).await
}

/// Per candidate of a run, the calibrated probability per question (empty without a stored fit).
#[tauri::command]
#[specta::specta]
pub async fn calibrated_scores(wb: Wb<'_>, run_id: String) -> Result<Vec<BTreeMap<String, f64>>> {
    blocking(&wb, move |wb| wb.calibrated_scores(wb.run(&run_id)?.as_ref())).await
}

/// Operating curves of labelled runs, from their cached judgments.
#[tauri::command]
#[specta::specta]
pub async fn run_curves(wb: Wb<'_>, run_ids: Vec<String>) -> Result<Vec<Curve>> {
    blocking(&wb, move |wb| wb.run_curves(&run_ids)).await
}

/// What each query variant of a run adds.
#[tauri::command]
#[specta::specta]
pub async fn ablate(wb: Wb<'_>, run_id: String) -> Result<RunAblation> {
    blocking(&wb, move |wb| wb.ablate(&run_id)).await
}

/// Two configurations (JSON) over the same labelled questions (the library's labels, or a cases file), judgments
/// reused through the cache.
#[tauri::command]
#[specta::specta]
pub async fn compare(wb: Wb<'_>, cases: CaseSource, a: String, b: String, job: String) -> Result<CompareReport> {
    blocking(&wb, move |wb| wb.compare_json(&cases, &a, &b, &job)).await
}
