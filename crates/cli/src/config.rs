//! `wordjudge config set-pin|show`: the station config from a shell.

use super::{fail, Context};
use std::io::BufRead;
use std::process::ExitCode;
use wordjudge_core::config::{ConfigProblem, ConfigSource};

#[derive(clap::Subcommand, Debug)]
#[command(defer = true)] // built only when chosen: see the `Command` enum in lib.rs
pub enum ConfigCommand {
    /// Set the director PIN: reads it from standard input (twice when it is a terminal) and stores only a salted hash
    SetPin,
    /// Print the config in force (defaults filled in) and any problem with the file
    Show,
    /// Write the last good copy back over a damaged config (what the director's "Restore the last good settings" does at the station)
    Restore,
}

fn read_line(prompt: &str, interactive: bool) -> Option<String> {
    if interactive {
        eprint!("{prompt}");
    }
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line).ok()?;
    Some(line.trim().to_string())
}

/// A line of `config show` as a terminal may show it. TOML escapes control
/// characters in the values itself, but not those that reorder text
/// (U+202E and the like, which a hand-edited `active_lexicon` may hold): a
/// line holding any character `printable` would escape is shown escaped
/// whole, as a comment, so the terminal never acts on it.
fn shown_line(line: &str) -> String {
    let hidden = line.chars().any(|c| {
        let alone = c.to_string();
        c != '"' && c != '\\' && wordjudge_core::word::printable(&alone, 1) != alone
    });
    if hidden {
        format!("# hidden characters escaped: {}", wordjudge_core::word::printable(line, 400))
    } else {
        line.to_string()
    }
}

pub fn run(context: Context, command: ConfigCommand) -> ExitCode {
    let Context { loaded, .. } = context;
    match command {
        ConfigCommand::Show => {
            if let Some(problem) = &loaded.problem {
                eprintln!("wordjudge: {problem}");
            }
            match loaded.source {
                ConfigSource::File => {}
                ConfigSource::LastGood => eprintln!("wordjudge: the last good copy of the config is in force"),
                ConfigSource::Defaults => eprintln!("wordjudge: no config yet: the defaults are in force"),
                ConfigSource::Unusable => eprintln!("wordjudge: no config is in force: the kiosk will not judge"),
            }
            println!("# {}", shown_line(&loaded.path.display().to_string()));
            for line in toml::to_string(&loaded.config).unwrap_or_default().lines() {
                println!("{}", shown_line(line));
            }
            ExitCode::SUCCESS
        }
        ConfigCommand::Restore => {
            if loaded.source != ConfigSource::LastGood {
                return match &loaded.problem {
                    None => fail("the config is not damaged: nothing to restore"),
                    Some(problem) => {
                        fail(format_args!("{problem}; there is no last good copy to restore from (nothing changed)"))
                    }
                };
            }
            match loaded.config.save(&loaded.path) {
                Ok(()) => {
                    println!("the last good copy is written back to {}", loaded.path.display());
                    ExitCode::SUCCESS
                }
                Err(e) => fail(format_args!("cannot write {}: {e}; nothing changed", loaded.path.display())),
            }
        }
        ConfigCommand::SetPin => {
            use std::io::IsTerminal;
            let interactive = std::io::stdin().is_terminal();
            let Some(pin) = read_line("New director PIN (4-12 digits): ", interactive) else {
                return fail("no PIN on standard input");
            };
            if interactive && read_line("Again: ", true).as_deref() != Some(pin.as_str()) {
                return fail("the two PINs differ; nothing changed");
            }
            let hash = match wordjudge_core::pin::hash_pin(&pin) {
                Ok(h) => h,
                Err(e) => return fail(format_args!("{e}; nothing changed")),
            };
            // Only a config read from the file, a fresh station's defaults,
            // or a station whose config and copy are both gone (its audit
            // folder and old PIN known from the guard) may be written back:
            // writing the last good copy over a broken file would hide the
            // director's typo, so that is `config restore`, said out loud.
            match (&loaded.source, &loaded.problem) {
                (ConfigSource::File | ConfigSource::Defaults, _) => {}
                (ConfigSource::Unusable, Some(ConfigProblem::NotFresh { .. })) => {
                    eprintln!("wordjudge: no config and no last good copy: writing a new config that keeps this station's audit folder ({})", loaded.config.audit_dir.display());
                }
                (ConfigSource::LastGood, Some(problem)) => {
                    return fail(format_args!(
                        "{problem}; run `wordjudge config restore` to write the last good copy back, or fix the file (nothing changed)"
                    ))
                }
                (_, Some(problem)) => return fail(format_args!("{problem}; fix the file first (nothing changed)")),
                (_, None) => return fail("the config is not in force; fix the file first (nothing changed)"),
            }
            let mut config = loaded.config;
            config.director_pin_hash = Some(hash);
            match config.save(&loaded.path) {
                Ok(()) => {
                    println!("director PIN set in {}", loaded.path.display());
                    ExitCode::SUCCESS
                }
                Err(e) => fail(format_args!("cannot write {}: {e}; nothing changed", loaded.path.display())),
            }
        }
    }
}
