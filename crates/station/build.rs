//! Compiles the kiosk's `.slint` files into Rust at build time.
//!
//! Fonts are embedded as files (DejaVu Sans, `ui/fonts/`), so the same glyphs
//! are drawn on a Pi with no fonts installed, on a desktop and in a headless
//! screenshot, at whatever size the screen height asks for. Test builds keep
//! Slint's element debug info, which the UI tests need to find what is shown.
fn main() {
    let test_build = std::env::var("PROFILE").as_deref() == Ok("debug");
    let config = slint_build::CompilerConfiguration::new()
        .embed_resources(slint_build::EmbedResourcesKind::EmbedFiles)
        .with_debug_info(test_build);
    slint_build::compile_with_config("../../ui/app.slint", config).expect("ui/app.slint must compile");
}
