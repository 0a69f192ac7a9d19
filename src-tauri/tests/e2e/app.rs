//! Launching the real app for the window tests: Xvfb on a free display, tauri-driver with WebKitWebDriver, the app
//! with its own home; every child is killed when the test ends, however it ends.
#![allow(dead_code)]

use crate::webdriver::{Session, DROPPED};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Children killed when the test ends, however it ends.
pub struct Kill(pub Vec<Child>);

impl Drop for Kill {
    fn drop(&mut self) {
        for c in &mut self.0 {
            // Each child leads its own process group (see `launch`): the group goes too, so the WebKitWebDriver
            // that tauri-driver started does not outlive the test holding its port and the test's output pipe.
            let group = format!("-{}", c.id());
            let _ = (Command::new("kill").args(["-KILL", "--", &group]))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

pub fn repo() -> PathBuf {
    Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| env!("CARGO_MANIFEST_DIR").into())).join("..")
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

pub fn tool(name: &str) -> PathBuf {
    let home_bin = std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo/bin").join(name));
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).map(|d| d.join(name)).collect::<Vec<_>>())
        .unwrap_or_default()
        .into_iter()
        .chain(home_bin)
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("{name} not found: run ./scripts/setup.sh (it installs the window-test tools)"))
}

/// Where the screenshots go.
pub struct Shots(pub PathBuf);

impl Shots {
    pub fn take(&self, s: &Session, name: &str) {
        std::fs::write(self.0.join(format!("{name}.png")), s.screenshot()).unwrap();
    }
}

/// Xvfb on a display number no X server holds (no lock file, no socket). Another process may take the same number
/// between the check and the start (Xvfb then exits at once): the next free number is tried.
fn start_xvfb(fbdir: &Path) -> (String, Child) {
    let free = |n: &u32| {
        !Path::new(&format!("/tmp/.X{n}-lock")).exists() && !Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
    };
    let first = 90 + u32::from(free_port()) % 400;
    for n in (first..1000).filter(free).take(20) {
        let display = format!(":{n}");
        let mut xvfb = Command::new(tool("Xvfb"))
            .args([&display, "-screen", "0", "1280x800x24", "-nolisten", "tcp", "-fbdir"])
            .arg(fbdir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb");
        std::thread::sleep(Duration::from_millis(500));
        match xvfb.try_wait() {
            Ok(None) => return (display, xvfb),
            _ => eprintln!("Xvfb could not take {display}; trying another display"),
        }
    }
    panic!("Xvfb did not start on any free display")
}

/// The real app in its own X display, driven through tauri-driver; its children die with it.
pub struct App {
    pub session: Session,
    _kids: Kill,
    _fb: tempfile::TempDir,
    pub app: String,
}

/// Serialises the window tests: two apps at once on two cores would starve each other's models.
pub static WINDOWS: std::sync::Mutex<()> = std::sync::Mutex::new(());

pub fn skip() -> bool {
    let skip = std::env::var_os("RAGSIFT_SKIP_WINDOW_TEST").is_some();
    if skip {
        eprintln!("RAGSIFT_SKIP_WINDOW_TEST is set: skipping the real-window test");
    }
    skip
}

/// What every window test starts from: the one-window lock, a fresh home, and the screenshot folder.
pub struct WindowTest {
    _one: std::sync::MutexGuard<'static, ()>,
    pub home: tempfile::TempDir,
    pub shots: Shots,
}

/// [`WindowTest`], or `None` when the window tests are skipped ([`skip`]).
pub fn window_test() -> Option<WindowTest> {
    if skip() {
        return None;
    }
    let one = WINDOWS.lock().unwrap_or_else(|e| e.into_inner());
    let shots = Shots(repo().join("test-artifacts/e2e"));
    std::fs::create_dir_all(&shots.0).unwrap();
    Some(WindowTest {
        _one: one,
        home: tempfile::tempdir().unwrap(),
        shots,
    })
}

/// Starts Xvfb on a free display, tauri-driver, and the app with `RAGSIFT_HOME=home` and the given environment.
pub fn launch(home: &Path, env: &[(&str, &str)]) -> App {
    // The screen is also kept as a file (screenshots read it: `Session::framebuffer`).
    let fb = tempfile::tempdir().unwrap();
    let mut kids = Kill(Vec::new());
    let (display, xvfb) = start_xvfb(fb.path());
    kids.0.push(xvfb);
    let (port, native) = (free_port(), free_port());
    let mut driver = Command::new(tool("tauri-driver"));
    driver
        .args(["--port", &port.to_string(), "--native-port", &native.to_string()])
        .arg("--native-driver")
        .arg(tool("WebKitWebDriver"))
        .env("DISPLAY", &display)
        .env("RAGSIFT_HOME", home)
        .env_remove("TYPESAFE_API_KEY");
    for (k, v) in env {
        driver.env(k, v);
    }
    std::os::unix::process::CommandExt::process_group(&mut driver, 0);
    kids.0.push(driver.spawn().expect("tauri-driver"));
    let url = format!("http://127.0.0.1:{port}");
    // tauri-driver, and the WebKitWebDriver it starts behind it, both listening.
    let up = Instant::now();
    for (p, what) in [(port, "tauri-driver"), (native, "WebKitWebDriver")] {
        while std::net::TcpStream::connect(("127.0.0.1", p)).is_err() {
            assert!(up.elapsed() < Duration::from_secs(20), "{what} did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    // RAGSIFT_APP_BIN runs the same test against another build (e.g. the release binary, for BENCHMARKS.md).
    let app = std::env::var("RAGSIFT_APP_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_ragsift-app").to_string());
    // A session request that gets no answer (WebKitWebDriver closed the connection while starting the app: seen
    // once in six CI runs) is made again, twice at most; an answer, even an error, is final.
    let mut dropped = 0;
    let mut session = loop {
        match Session::start(&url, &app, Duration::from_secs(90)) {
            Ok(s) => break s,
            Err(e) if dropped < 2 && e.starts_with(DROPPED) => {
                dropped += 1;
                eprintln!("asking WebKitWebDriver again: {e}");
                std::thread::sleep(Duration::from_secs(1));
            }
            Err(e) => panic!("app session: {e}"),
        }
    };
    session.framebuffer = Some(fb.path().join("Xvfb_screen0"));
    App {
        session,
        _kids: kids,
        _fb: fb,
        app,
    }
}
