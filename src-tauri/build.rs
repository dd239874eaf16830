//! Generates the Tauri context: config, capabilities and embedded assets.

fn main() {
    tauri_build::build();
}
