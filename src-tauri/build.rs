//! Generates the Tauri context: config, capabilities and embedded assets.

fn main() {
    // The UI and icons are embedded when the crate compiles; without these lines cargo would not
    // notice an edit to them and an incremental build would keep serving the old files.
    println!("cargo:rerun-if-changed=../ui");
    println!("cargo:rerun-if-changed=../icons");
    tauri_build::build();
}
