//! Drawing the UI with no display: a Slint platform whose only window is a
//! software-rendered frame buffer in memory. Used for `wordjudge screenshot`
//! and for measuring key-to-frame time; the pixels are the software
//! renderer's, the same that reach a Pi's screen through linuxkms.

use slint::platform::software_renderer::{MinimalSoftwareWindow, RepaintBufferType};
use slint::platform::{Platform, WindowAdapter};
use slint::PhysicalSize;
use slint::Rgb8Pixel;
use std::cell::RefCell;
use std::fmt;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

struct HeadlessPlatform {
    window: Rc<MinimalSoftwareWindow>,
    start: Instant,
}

impl Platform for HeadlessPlatform {
    fn create_window_adapter(&self) -> Result<Rc<dyn WindowAdapter>, slint::PlatformError> {
        Ok(self.window.clone())
    }
    fn duration_since_start(&self) -> Duration {
        self.start.elapsed()
    }
}

/// The in-memory screen.
pub struct HeadlessScreen {
    window: Rc<MinimalSoftwareWindow>,
    width: u32,
    height: u32,
    buffer: RefCell<Vec<Rgb8Pixel>>,
}

impl HeadlessScreen {
    /// Makes this process draw into memory at `width`×`height`. Once per
    /// process, before any window is created.
    pub fn install(width: u32, height: u32) -> Result<HeadlessScreen, HeadlessError> {
        let window = MinimalSoftwareWindow::new(RepaintBufferType::NewBuffer);
        slint::platform::set_platform(Box::new(HeadlessPlatform { window: window.clone(), start: Instant::now() }))
            .map_err(HeadlessError::Platform)?;
        Ok(HeadlessScreen {
            window,
            width,
            height,
            buffer: RefCell::new(vec![Rgb8Pixel::default(); (width * height) as usize]),
        })
    }

    /// Sizes the window; call after the component is shown.
    pub fn resize(&self) {
        self.window.set_size(PhysicalSize::new(self.width, self.height));
    }

    /// Renders a full frame if anything changed; returns whether it drew.
    pub fn render(&self) -> bool {
        slint::platform::update_timers_and_animations();
        let mut buffer = self.buffer.borrow_mut();
        let width = self.width as usize;
        self.window.draw_if_needed(|renderer| {
            renderer.render(&mut buffer, width);
        })
    }

    /// Forces the next [`render`](Self::render) to draw.
    pub fn request_redraw(&self) {
        self.window.request_redraw();
    }

    /// The pixel at (x, y) of the last frame, as (r, g, b).
    pub fn pixel(&self, x: u32, y: u32) -> (u8, u8, u8) {
        let p = self.buffer.borrow()[(y * self.width + x) as usize];
        (p.r, p.g, p.b)
    }

    /// The height in pixels of the first glyph of each line of text below
    /// row `from`, top to bottom, on a plain `background`: what a ruler held
    /// to the screen would read as the capital height of a line that
    /// starts with a capital. A line is a band of rows holding ink (pixels
    /// far from the background); its first glyph is the first run of
    /// columns holding ink.
    pub fn first_glyph_heights(&self, from: u32, background: (u8, u8, u8)) -> Vec<u32> {
        let buffer = self.buffer.borrow();
        let ink = |x: u32, y: u32| {
            let p = buffer[(y * self.width + x) as usize];
            let d = |a: u8, b: u8| (i32::from(a) - i32::from(b)).abs();
            d(p.r, background.0) + d(p.g, background.1) + d(p.b, background.2) > 180
        };
        let row_has_ink = |y: u32| (0..self.width).any(|x| ink(x, y));
        let mut heights = Vec::new();
        let mut y = from;
        while y < self.height {
            if !row_has_ink(y) {
                y += 1;
                continue;
            }
            let top = y;
            while y < self.height && row_has_ink(y) {
                y += 1;
            }
            let rows = top..y;
            let column_has_ink = |x: u32| rows.clone().any(|r| ink(x, r));
            let Some(first) = (0..self.width).find(|&x| column_has_ink(x)) else { continue };
            let last = (first..self.width).find(|&x| !column_has_ink(x)).unwrap_or(self.width);
            let inked: Vec<u32> = rows.clone().filter(|&r| (first..last).any(|x| ink(x, r))).collect();
            if let (Some(a), Some(b)) = (inked.first(), inked.last()) {
                heights.push(b - a + 1);
            }
        }
        heights
    }

    /// Writes the last frame as a PNG.
    pub fn write_png(&self, path: &Path) -> Result<(), HeadlessError> {
        let bytes: Vec<u8> = self.buffer.borrow().iter().flat_map(|p| [p.r, p.g, p.b]).collect();
        let mut png_bytes = Vec::new();
        {
            let encoding = |source| HeadlessError::Png { path: path.to_path_buf(), source };
            let mut encoder = png::Encoder::new(&mut png_bytes, self.width, self.height);
            encoder.set_color(png::ColorType::Rgb);
            encoder.set_depth(png::BitDepth::Eight);
            let mut writer = encoder.write_header().map_err(encoding)?;
            writer.write_image_data(&bytes).map_err(encoding)?;
        }
        wordjudge_core::outside_files::write_atomically(path, &png_bytes)
            .map_err(|source| HeadlessError::Write { path: path.to_path_buf(), source })
    }
}

/// Why drawing without a display could not start, or a frame not be saved.
#[derive(Debug)]
pub enum HeadlessError {
    /// Slint refused the in-memory platform (one was already set up).
    Platform(slint::platform::SetPlatformError),
    /// The frame could not be encoded as a PNG.
    Png { path: PathBuf, source: png::EncodingError },
    /// The PNG could not be written.
    Write { path: PathBuf, source: std::io::Error },
}

impl fmt::Display for HeadlessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeadlessError::Platform(e) => write!(f, "cannot set up headless rendering: {e}"),
            HeadlessError::Png { path, source } => write!(f, "{}: {source}", path.display()),
            HeadlessError::Write { path, source } => write!(f, "{}: {source}", path.display()),
        }
    }
}

impl std::error::Error for HeadlessError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            HeadlessError::Platform(e) => Some(e),
            HeadlessError::Png { source, .. } => Some(source),
            HeadlessError::Write { source, .. } => Some(source),
        }
    }
}

/// Sends one key press and release through the window, as a keyboard would.
pub fn press_key(window: &slint::Window, text: &str) {
    use slint::platform::WindowEvent;
    window.dispatch_event(WindowEvent::KeyPressed { text: text.into() });
    window.dispatch_event(WindowEvent::KeyReleased { text: text.into() });
}

/// Types each character of `text` as a key press.
pub fn type_text(window: &slint::Window, text: &str) {
    for c in text.chars() {
        press_key(window, &c.to_string());
    }
}

/// Presses `key` while holding the modifier keys `modifiers` (e.g. Control, Alt, Shift).
pub fn press_chord(window: &slint::Window, modifiers: &[slint::platform::Key], key: &str) {
    use slint::platform::WindowEvent;
    for m in modifiers {
        window.dispatch_event(WindowEvent::KeyPressed { text: (*m).into() });
    }
    press_key(window, key);
    for m in modifiers.iter().rev() {
        window.dispatch_event(WindowEvent::KeyReleased { text: (*m).into() });
    }
}

/// The text of a named key (Tab, Return, Escape, …).
pub fn key_text(key: slint::platform::Key) -> String {
    char::from(key).to_string()
}
