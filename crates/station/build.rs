//! Compiles the kiosk's `.slint` files into Rust at build time.
//!
//! Fonts are embedded as files (DejaVu Sans, `ui/fonts/`), so the same glyphs
//! are drawn on a Pi with no fonts installed, on a desktop and in a headless
//! screenshot, at whatever size the screen height asks for. Test builds keep
//! Slint's element debug info, which the UI tests need to find what is shown;
//! so does a release build with `WORDJUDGE_SLINT_ELEMENTS=1`, for the touch
//! bench that finds its targets the same way (benches/kiosk_touch.rs).
fn main() {
    println!("cargo:rerun-if-env-changed=WORDJUDGE_SLINT_ELEMENTS");
    let test_build = std::env::var("PROFILE").as_deref() == Ok("debug");
    let asked = std::env::var("WORDJUDGE_SLINT_ELEMENTS").as_deref() == Ok("1");
    let config = slint_build::CompilerConfiguration::new()
        .embed_resources(slint_build::EmbedResourcesKind::EmbedFiles)
        .with_debug_info(test_build || asked);
    slint_build::compile_with_config("../../ui/app.slint", config).expect("ui/app.slint must compile");
}
