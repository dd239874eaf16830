//! The `skilldeck-app` binary: checks for a display, then runs the desktop app.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() -> std::process::ExitCode {
    let started = std::time::Instant::now();
    if let Err(why) = skilldeck_app::display_available() {
        eprintln!("skilldeck-app: {why}");
        return std::process::ExitCode::from(1);
    }
    match skilldeck_app::run(started) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("skilldeck-app: {e}");
            std::process::ExitCode::from(1)
        }
    }
}
