//! TypeScript bindings for every type that crosses IPC (engine and shell), written by ts-rs into
//! `ui/src/lib/bindings/`, and the commands that carry them (`Commands.ts`, from [`crate::ipc`]). A test regenerates them into a temp dir and fails on any difference.

use std::path::Path;

use ts_rs::{Config, ExportError, TS};

/// Writes every IPC type (and what it references) as `<Type>.ts` into `dir`.
pub fn export_all(dir: &Path) -> Result<(), ExportError> {
    let cfg = Config::new().with_out_dir(dir);
    // Engine types.
    corral_engine::Listing::export_all(&cfg)?;
    corral_engine::ListingSoFar::export_all(&cfg)?;
    corral_engine::ErrorPayload::export_all(&cfg)?;
    corral_engine::SessionDetails::export_all(&cfg)?;
    corral_engine::model::AgentSummary::export_all(&cfg)?;
    corral_engine::model::SessionSummary::export_all(&cfg)?;
    corral_engine::model::DirectoryGroup::export_all(&cfg)?;
    corral_engine::model::MessagePage::export_all(&cfg)?;
    corral_engine::model::SessionTranscript::export_all(&cfg)?;
    corral_engine::model::Attribution::export_all(&cfg)?;
    corral_engine::renames::Renamed::export_all(&cfg)?;
    corral_engine::adopt::AdoptableSession::export_all(&cfg)?;
    corral_engine::adopt::AdoptResult::export_all(&cfg)?;
    corral_engine::adopt::ReleaseResult::export_all(&cfg)?;
    corral_engine::import::ImportTarget::export_all(&cfg)?;
    corral_engine::import::ImportPlan::export_all(&cfg)?;
    corral_engine::import::ImportReport::export_all(&cfg)?;
    corral_engine::import::ImportProgress::export_all(&cfg)?;
    corral_engine::placement::PlacementMode::export_all(&cfg)?;
    corral_engine::runs::RunSummary::export_all(&cfg)?;
    corral_engine::quarantine::DeleteRequest::export_all(&cfg)?;
    corral_engine::quarantine::DeletePlan::export_all(&cfg)?;
    corral_engine::quarantine::DeleteProgress::export_all(&cfg)?;
    corral_engine::quarantine::DeleteReport::export_all(&cfg)?;
    corral_engine::quarantine::QuarantineRun::export_all(&cfg)?;
    corral_engine::storage::StorageReport::export_all(&cfg)?;
    corral_engine::costs::CostReport::export_all(&cfg)?;
    corral_engine::reopen::RecentWork::export_all(&cfg)?;
    corral_engine::reopen::GitState::export_all(&cfg)?;
    corral_engine::reopen::ReopenChoice::export_all(&cfg)?;
    corral_engine::reopen::ReopenOutcome::export_all(&cfg)?;
    corral_engine::reopen::ReopenReport::export_all(&cfg)?;
    corral_engine::quarantine::EmptyReport::export_all(&cfg)?;
    corral_engine::runs::UndoPlan::export_all(&cfg)?;
    corral_engine::runs::UndoReport::export_all(&cfg)?;
    corral_engine::catalog::PageAt::export_all(&cfg)?;
    corral_engine::search::SearchResults::export_all(&cfg)?;
    corral_engine::search::IndexStatus::export_all(&cfg)?;
    corral_engine::search::TranscriptMatches::export_all(&cfg)?;
    corral_engine::desktop::Report::export_all(&cfg)?;
    corral_engine::desktop::RestoreRequest::export_all(&cfg)?;
    corral_engine::desktop::RestorePreview::export_all(&cfg)?;
    corral_engine::desktop::RestoreReport::export_all(&cfg)?;
    corral_engine::desktop::RestoreProgress::export_all(&cfg)?;
    corral_engine::lost_questions::LostQuestion::export_all(&cfg)?;
    corral_engine::live::LiveNow::export_all(&cfg)?;
    corral_engine::resume::ResumeOutcome::export_all(&cfg)?;
    corral_engine::export::ExportRequest::export_all(&cfg)?;
    corral_engine::model::ModelUsage::export_all(&cfg)?;
    corral_engine::model::AttachmentData::export_all(&cfg)?;
    corral_engine::export::ExportSummary::export_all(&cfg)?;
    // Shell types.
    crate::settings::Settings::export_all(&cfg)?;
    crate::settings::SettingsPatch::export_all(&cfg)?;
    crate::events::SessionsChanged::export_all(&cfg)?;
    crate::events::FilesDropped::export_all(&cfg)?;
    // The commands themselves (crate::ipc).
    std::fs::write(dir.join("Commands.ts"), crate::ipc::commands_ts())?;
    Ok(())
}
