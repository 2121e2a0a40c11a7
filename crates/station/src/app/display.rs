//! The screen the kiosk draws on, as the config chooses it: how far the
//! picture is turned (`rotation`) and which connector shows it when more
//! than one is connected (`display_output`).
//!
//! Slint's linuxkms backend reads both from its environment when it makes
//! the window, once: `SLINT_KMS_ROTATION` (0, 90, 180 or 270, the picture
//! turned clockwise by the renderer) and `SLINT_DRM_OUTPUT` (a connector's
//! name, `HDMI-A-1`; unset: the first connected connector of the first DRM
//! device that has one). The runner sets them from the config before the
//! backend starts; the config is their one source, so values already in the
//! environment are replaced. A desktop window (winit) reads neither.
//!
//! A `display_output` that names no connector here, or one with nothing
//! plugged in, is not passed on: the backend would refuse to start (and
//! `SLINT_DRM_OUTPUT=list` would end the process). The first connected
//! screen shows the kiosk instead, and the journal, the audit log and the
//! director menu name the connectors there are.

use std::path::Path;
use wordjudge_core::config::Config;

/// The variable the linuxkms backend reads the rotation from.
pub const ROTATION_VAR: &str = "SLINT_KMS_ROTATION";
/// The variable the linuxkms backend reads the connector's name from.
pub const OUTPUT_VAR: &str = "SLINT_DRM_OUTPUT";

/// A display connector as the kernel lists it under `/sys/class/drm`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Connector {
    /// `HDMI-A-1`, `DSI-1`: the name without `cardN-`, as Slint matches it.
    pub name: String,
    pub connected: bool,
}

/// The connectors under `sys_drm` (`/sys/class/drm`: `card1-HDMI-A-1/status`
/// and so on), sorted by name; empty when none can be read.
pub fn connectors(sys_drm: &Path) -> Vec<Connector> {
    let mut found: Vec<Connector> = Vec::new();
    for entry in std::fs::read_dir(sys_drm).into_iter().flatten().flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        // `card1-HDMI-A-1`; `card1` and `renderD128` are devices, and a
        // writeback connector is no screen.
        let Some((card, name)) = file.split_once('-') else { continue };
        if !card.starts_with("card") || name.starts_with("Writeback") {
            continue;
        }
        let Ok(status) = std::fs::read_to_string(entry.path().join("status")) else { continue };
        let connected = status.trim() == "connected";
        match found.iter_mut().find(|c| c.name == name) {
            Some(known) => known.connected |= connected,
            None => found.push(Connector { name: name.to_string(), connected }),
        }
    }
    found.sort_by(|a, b| a.name.cmp(&b.name));
    found
}

/// The connectors as a line for people: `HDMI-A-1 (connected), HDMI-A-2, DSI-1 (connected)`.
pub fn describe(connectors: &[Connector]) -> String {
    if connectors.is_empty() {
        return "none found under /sys/class/drm".into();
    }
    let names: Vec<String> = connectors
        .iter()
        .map(|c| if c.connected { format!("{} (connected)", c.name) } else { c.name.clone() })
        .collect();
    names.join(", ")
}

/// What the kiosk asks of the backend, and what it says about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScreenChoice {
    /// Each variable and its value; `None`: removed from the environment.
    pub env: Vec<(&'static str, Option<String>)>,
    /// For the director menu and the journal: which connector, turned how far.
    pub description: String,
    /// Why the configured connector is not used, naming those there are.
    pub problem: Option<String>,
}

/// The backend's settings for `config` on a machine with `connectors`.
pub fn choose(config: &Config, connectors: &[Connector]) -> ScreenChoice {
    let turned = match config.rotation {
        0 => "not turned".to_string(),
        degrees => format!("turned {degrees}° clockwise"),
    };
    let rotation = (ROTATION_VAR, Some(config.rotation.to_string()));
    let first = |problem: Option<String>| ScreenChoice {
        env: vec![rotation.clone(), (OUTPUT_VAR, None)],
        description: format!("the first connected ({}), {turned}", describe(connectors)),
        problem,
    };
    let Some(wanted) = &config.display_output else { return first(None) };
    let here = connectors.iter().find(|c| &c.name == wanted);
    match here {
        // Nothing readable under /sys/class/drm: the backend decides, and
        // says so if the name is wrong.
        _ if connectors.is_empty() => ScreenChoice {
            env: vec![rotation, (OUTPUT_VAR, Some(wanted.clone()))],
            description: format!("{wanted} (chosen in the settings), {turned}"),
            problem: None,
        },
        Some(c) if c.connected => ScreenChoice {
            env: vec![rotation, (OUTPUT_VAR, Some(wanted.clone()))],
            description: format!("{wanted} (chosen in the settings), {turned}"),
            problem: None,
        },
        Some(_) => first(Some(format!(
            "the screen chosen in the settings ({wanted}) has nothing plugged in: the first connected screen shows the kiosk \
             (connectors here: {})",
            describe(connectors)
        ))),
        None => first(Some(format!(
            "the screen chosen in the settings ({wanted}) is not a connector of this station: the first connected screen shows the \
             kiosk (connectors here: {})",
            describe(connectors)
        ))),
    }
}

/// Puts the choice into this process's environment, where the linuxkms
/// backend reads it. Call before the backend starts, while the process has
/// one thread.
pub fn apply(choice: &ScreenChoice) {
    for (name, value) in &choice.env {
        match value {
            Some(value) => std::env::set_var(name, value),
            None => std::env::remove_var(name),
        }
    }
}

/// The size in pixels of the desktop's screen a window opens on: the X
/// server's primary monitor (RandR), else its first, else the whole root
/// window; `None` without an X display. Slint's winit backend has no
/// portable way to ask before the window is made (its winit access needs
/// a feature that also builds Wayland support), so the kiosk asks the X
/// server itself, as winit does.
pub fn desktop_screen_size() -> Option<(u32, u32)> {
    use x11rb::connection::Connection;
    use x11rb::protocol::randr::ConnectionExt as _;
    let (conn, screen) = x11rb::connect(None).ok()?;
    let root = conn.setup().roots.get(screen)?;
    let whole = (u32::from(root.width_in_pixels), u32::from(root.height_in_pixels));
    let monitors = conn.randr_get_monitors(root.root, true).ok().and_then(|c| c.reply().ok());
    let monitor = monitors.and_then(|m| {
        let primary = m.monitors.iter().find(|m| m.primary).cloned();
        primary.or_else(|| m.monitors.into_iter().next())
    });
    match monitor {
        Some(m) if m.width > 0 && m.height > 0 => Some((u32::from(m.width), u32::from(m.height))),
        _ => Some(whole),
    }
}

/// The size a desktop window opens at: the window's own (`preferred`), cut
/// down to the `screen` it opens on.
pub fn window_size_within(preferred: (u32, u32), screen: (u32, u32)) -> (u32, u32) {
    (preferred.0.min(screen.0), preferred.1.min(screen.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sysfs(entries: &[(&str, &str)]) -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        for (name, status) in entries {
            std::fs::create_dir_all(root.path().join(name)).unwrap();
            if !status.is_empty() {
                std::fs::write(root.path().join(name).join("status"), format!("{status}\n")).unwrap();
            }
        }
        root
    }

    #[test]
    fn a_desktop_window_is_never_larger_than_its_screen() {
        assert_eq!(window_size_within((1280, 720), (800, 480)), (800, 480));
        assert_eq!(window_size_within((1280, 720), (1024, 768)), (1024, 720));
        assert_eq!(window_size_within((1280, 720), (3840, 2160)), (1280, 720), "never grown");
    }

    #[test]
    fn connectors_are_read_by_their_kernel_names() {
        let sys = sysfs(&[
            ("card0", ""),
            ("renderD128", ""),
            ("card1-HDMI-A-1", "connected"),
            ("card1-HDMI-A-2", "disconnected"),
            ("card2-DSI-1", "connected"),
            ("card1-Writeback-1", "unknown"),
        ]);
        let found = connectors(sys.path());
        let names: Vec<(&str, bool)> = found.iter().map(|c| (c.name.as_str(), c.connected)).collect();
        assert_eq!(names, [("DSI-1", true), ("HDMI-A-1", true), ("HDMI-A-2", false)]);
        assert_eq!(describe(&found), "DSI-1 (connected), HDMI-A-1 (connected), HDMI-A-2");
        assert!(connectors(&sys.path().join("nothing")).is_empty());
    }

    #[test]
    fn the_config_chooses_the_rotation_and_a_connected_output_only() {
        let here = [
            Connector { name: "DSI-1".into(), connected: true },
            Connector { name: "HDMI-A-1".into(), connected: true },
            Connector { name: "HDMI-A-2".into(), connected: false },
        ];
        let mut config = Config::default();
        let choice = choose(&config, &here);
        assert_eq!(choice.env, [(ROTATION_VAR, Some("0".into())), (OUTPUT_VAR, None)]);
        assert_eq!(choice.problem, None);
        assert!(choice.description.contains("the first connected"), "{}", choice.description);

        config.rotation = 90;
        config.display_output = Some("HDMI-A-1".into());
        let choice = choose(&config, &here);
        assert_eq!(choice.env, [(ROTATION_VAR, Some("90".into())), (OUTPUT_VAR, Some("HDMI-A-1".into()))]);
        assert_eq!(choice.description, "HDMI-A-1 (chosen in the settings), turned 90° clockwise");

        for (wanted, why) in [("HDMI-A-2", "has nothing plugged in"), ("DPI-1", "is not a connector of this station")] {
            config.display_output = Some(wanted.into());
            let choice = choose(&config, &here);
            assert_eq!(choice.env[1], (OUTPUT_VAR, None), "{wanted}: the backend's own choice");
            let problem = choice.problem.unwrap();
            assert!(problem.contains(why), "{problem}");
            assert!(problem.contains("DSI-1 (connected), HDMI-A-1 (connected), HDMI-A-2"), "{problem}");
        }
        // Nothing readable: passed on, the backend says if it is wrong.
        config.display_output = Some("DSI-2".into());
        assert_eq!(choose(&config, &[]).env[1], (OUTPUT_VAR, Some("DSI-2".into())));
    }
}
