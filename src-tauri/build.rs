// The app's commands get permissions of their own ("allow-<command>"), granted to the main
// window in src-tauri/capabilities/default.json: nothing else is reachable over IPC. Both files
// are made from the command table (crates/pi-session-app/src/commands/table.rs) by
// scripts/bindings.
include!("commands.gen.rs");

fn main() {
    println!("cargo:rerun-if-changed=src-tauri/commands.gen.rs");
    tauri_build::try_build(
        tauri_build::Attributes::new()
            .capabilities_path_pattern("./src-tauri/capabilities/**/*")
            .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS)),
    )
    .expect("tauri build script");
}
