// Compile-time contract between the UI's strict types (./types) and the generated bindings (./bindings): every
// UI type must be assignable to the generated one and name exactly the same fields. `tsc` (npm run build) fails
// when the Rust side changes a shape the UI relies on.
import type * as G from "./bindings";
import type * as U from "./types";

type Assignable<A, B> = [A] extends [B] ? true : false;
type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
type Check<A, B> = Assignable<A, B> extends true ? SameKeys<A, B> : false;
type Ok<T extends true> = T;

export type Contract = [
  Ok<Check<U.AppInfo, G.AppInfo>>,
  Ok<Check<U.AskEvent, G.AskEvent>>,
  Ok<Check<U.AskOptions, G.AskOptions>>,
  Ok<Check<U.AskRequest, G.AskRequest>>,
  Ok<Check<U.Candidate, G.Candidate>>,
  Ok<Check<U.CandidateJudgment, G.CandidateJudgment>>,
  Ok<Check<U.CaseRow, G.CaseRow>>,
  Ok<Check<U.Change, G.Change>>,
  Ok<Check<U.ChatMessage, G.ChatMessage>>,
  Ok<Check<U.ChatSettings, G.ChatSettings>>,
  Ok<Check<U.Decision, G.Decision>>,
  Ok<Check<U.DocumentRow, G.DocumentRow>>,
  Ok<Check<U.EvalPolicy, G.EvalPolicy>>,
  Ok<Check<U.EvalReport, G.EvalReport>>,
  Ok<Check<U.EvalRequest, G.EvalRequest>>,
  Ok<Check<U.EvalView, G.EvalView>>,
  Ok<Check<U.FileReport, G.FileReport>>,
  Ok<Check<U.IngestEvent, G.IngestEvent>>,
  Ok<Check<U.IngestReport, G.IngestReport>>,
  Ok<Check<U.IpcCode, G.IpcCode>>,
  Ok<Check<U.IpcError, G.IpcError>>,
  Ok<Check<U.JudgeInfo, G.JudgeInfo>>,
  Ok<Check<U.JudgeOutcome, G.JudgeOutcome>>,
  Ok<Check<U.JudgeSettings, G.JudgeSettings>>,
  Ok<Check<U.JudgeStatus, G.JudgeStatus>>,
  Ok<Check<U.Metrics, G.Metrics>>,
  Ok<Check<U.Mode, G.Mode>>,
  Ok<Check<U.PageChunk, G.PageChunk>>,
  Ok<Check<U.PageView, G.PageView>>,
  Ok<Check<U.PipelineDefaults, G.PipelineDefaults>>,
  Ok<Check<U.PolicyOptions, G.PolicyOptions>>,
  Ok<Check<U.Provenance, G.Provenance>>,
  Ok<Check<U.Reason, G.Reason>>,
  Ok<Check<U.Replay, G.Replay>>,
  Ok<Check<U.Role, G.Role>>,
  Ok<Check<U.RunSummary, G.RunSummary>>,
  Ok<Check<U.ScoringUsage, G.ScoringUsage>>,
  Ok<Check<U.SearchMode, G.SearchMode>>,
  Ok<Check<U.Selection, G.Selection>>,
  Ok<Check<U.Settings, G.Settings>>,
  Ok<Check<U.Source, G.Source>>,
  Ok<Check<U.StoreInfo, G.StoreInfo>>,
  Ok<Check<U.StoreKind, G.StoreKind>>,
  Ok<Check<U.StageQuery, G.StageQuery>>,
  Ok<Check<U.Status, G.Status>>,
  Ok<Check<U.Summary, G.Summary>>,
  Ok<Check<U.Sweep, G.Sweep>>,
  Ok<Check<U.SweepPoint, G.SweepPoint>>,
  Ok<Check<U.Trace, G.Trace>>,
  Ok<Check<U.Usage, G.Usage>>,
  Ok<Check<U.VariantHit, G.VariantHit>>,
  Ok<Check<U.VariantHits, G.VariantHits>>,
];
