//! ragsift desktop app entry point.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    // Started as an extraction worker by the app itself: be that, and nothing else.
    if let Some(code) = ragsift_workbench::process::serve_worker_if_asked() {
        std::process::exit(code);
    }
    ragsift_workbench::process::isolate_extraction();
    ragsift_app::run();
}
