//! The webview's rendering on a machine without a GPU. WebKitGTK composites its layers with OpenGL; with no GPU (no
//! DRM render node, as in a VM, a remote desktop or a container) that GL is Mesa's llvmpipe, which emulates a GPU
//! on the CPU. Measured under Xvfb on 2 cores (BENCHMARKS.md, "Replay repaint"): llvmpipe's rasterizer took two
//! thirds of the web process's time, and changing one word of the Replay view cost 40–65 ms a frame; drawing
//! without compositing, 16 ms (Skia rasterizing on the CPU inside the compositor: 20–34 ms). Without a render node
//! the app therefore asks WebKitGTK to draw without compositing, unless the user set the variable themselves (`0`
//! keeps compositing). WebKit's WebDriver screenshot does not complete in that mode; the window tests read the X
//! server's framebuffer instead (`src-tauri/tests/e2e/xwd.rs`).

use std::ffi::OsString;
use std::path::Path;

/// The variable WebKitGTK reads to draw without accelerated compositing.
pub const DISABLE_COMPOSITING: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";

/// Whether `dri` (normally `/dev/dri`) holds a DRM render node (`renderD*`) a GPU driver could composite with.
pub fn has_render_node(dri: &Path) -> bool {
    std::fs::read_dir(dri).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
    })
}

/// The variable to set before the webview starts, if any: compositing off when there is no render node and the
/// user has not chosen (`user` reads the environment).
pub fn software_setting(dri: &Path, user: impl Fn(&str) -> Option<OsString>) -> Option<(&'static str, &'static str)> {
    (cfg!(target_os = "linux") && user(DISABLE_COMPOSITING).is_none() && !has_render_node(dri))
        .then_some((DISABLE_COMPOSITING, "1"))
}

/// Applies [`software_setting`] for this machine. Call first thing in `main`, before any thread starts.
pub fn apply() {
    if let Some((key, value)) = software_setting(Path::new("/dev/dri"), |k| std::env::var_os(k)) {
        std::env::set_var(key, value);
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn compositing_goes_off_only_without_a_render_node_and_without_a_user_choice() {
        let dir = tempfile::tempdir().unwrap();
        let none = |_: &str| None;
        let missing = dir.path().join("no-such-dir");
        assert_eq!(software_setting(&missing, none), Some((DISABLE_COMPOSITING, "1")));
        // A card without a render node (a display-only device) does not count.
        std::fs::write(dir.path().join("card0"), b"").unwrap();
        assert!(!has_render_node(dir.path()));
        assert_eq!(software_setting(dir.path(), none), Some((DISABLE_COMPOSITING, "1")));
        std::fs::write(dir.path().join("renderD128"), b"").unwrap();
        assert!(has_render_node(dir.path()));
        assert_eq!(software_setting(dir.path(), none), None);
        // The user's own setting wins, whatever it is.
        let chosen = |k: &str| (k == DISABLE_COMPOSITING).then(|| OsString::from("0"));
        assert_eq!(software_setting(&missing, chosen), None);
    }
}
