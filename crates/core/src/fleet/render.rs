//! The fleet's status for people: a text table (one line per station) and a
//! one-page HTML view (a tile per station, red when it is out of service or
//! judges with a wrong lexicon, its verdicts per hour). Every string from
//! the journal is cut and escaped ([`crate::word::printable`]: no control
//! character reaches a terminal) and, in the page, HTML-escaped
//! ([`html_escape`]). The page is self-contained: inline CSS, no script, no
//! external address.

use super::{LinkBreak, Service, Station, Status};
use jiff::tz::TimeZone;
use jiff::Timestamp;
use std::fmt::Write as _;

/// Characters of a journal string shown, at most.
const SHOWN: usize = 60;

/// `text` from the journal, escaped and cut for a line or a tile.
fn shown(text: &str) -> String {
    crate::word::printable(text, SHOWN)
}

/// `text` with `&`, `<`, `>`, `"` and `'` written as HTML entities.
pub fn html_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A journal time (µs) in `tz`: the time of day when it is `now`'s date,
/// else the date and time; with how long before `now` it was.
pub fn when(us: i64, now: Timestamp, tz: &TimeZone) -> String {
    let Ok(t) = Timestamp::from_microsecond(us) else { return format!("@{us}µs") };
    let (at, today) = (t.to_zoned(tz.clone()), now.to_zoned(tz.clone()));
    let clock = if at.date() == today.date() { at.strftime("%H:%M:%S") } else { at.strftime("%Y-%m-%d %H:%M") };
    let ago = now.as_second() - t.as_second();
    let ago = if ago < 0 { "in the future".to_string() } else { format!("{} ago", span(ago)) };
    format!("{clock} ({ago})")
}

/// `seconds` (not negative) as a director reads a span: `40 s`, `12 min`,
/// `3 h 5 min`, `15 days`.
fn span(seconds: i64) -> String {
    match seconds {
        i64::MIN..=59 => format!("{seconds} s"),
        60..=3599 => format!("{} min", seconds / 60),
        3600..=86_399 => format!("{} h {} min", seconds / 3600, seconds % 3600 / 60),
        86_400..=172_799 => "1 day".to_string(),
        _ => format!("{} days", seconds / 86_400),
    }
}

/// What the LINKS column says.
pub fn links(station: &Station) -> String {
    let mut text = if station.breaks.is_empty() && station.sealed == 0 {
        "ok (no signed record from its log received yet)".to_string()
    } else if station.breaks.is_empty() {
        format!("ok over {} records", station.sealed)
    } else {
        let mut breaks: Vec<String> = station.breaks.iter().map(LinkBreak::to_string).collect();
        if station.more_breaks > 0 {
            breaks.push(format!("and {} more break(s)", station.more_breaks));
        }
        format!("BROKEN: {}", breaks.join("; "))
    };
    if !station.explained.is_empty() {
        // In a director's words: no number a director must look for on a
        // slip; `audit verify` on the station's log says why each one.
        let mut ranges: Vec<String> = station
            .explained
            .iter()
            .map(|r| if r.0 == r.1 { format!("#{}", r.0) } else { format!("#{}–#{}", r.0, r.1) })
            .collect();
        if station.more_explained > 0 {
            ranges.push(format!("{} more range(s)", station.more_explained));
        }
        let (were, never) = if ranges.len() == 1 && station.explained[0].0 == station.explained[0].1 {
            ("was", "it")
        } else {
            ("were", "them")
        };
        let _ = write!(
            text,
            " ({} {were} reserved and never shown, so no slip carries {never}: a power cut or a record that could not be \
             written; audit verify says which)",
            ranges.join(", ")
        );
    }
    text
}

/// What the STATE column says: in service or why not, lexicon problems,
/// warnings.
pub fn state(station: &Station, now: Timestamp) -> String {
    let mut parts = Vec::new();
    if let Some((_, first)) = station.refused.first() {
        let count = station.refused.len() as u64 + station.more_refused;
        let first = crate::word::printable(first, 2 * SHOWN);
        parts.push(format!(
            "NOT ITS RECORDS: {count} entr{} refused, the first: {first}",
            if count == 1 { "y" } else { "ies" }
        ));
    }
    if let Some(at) = station.replaced_at {
        let at = Timestamp::from_second(at)
            .map_or_else(|_| "?".to_string(), |t| t.strftime("%Y-%m-%d %H:%M UTC").to_string());
        parts.push(format!("KEY REPLACED at {at} (fleet sign --replace): its records from before"));
        if station.after_replacement > 0 {
            parts.push(format!(
                "STILL SIGNING: {} record(s) made after its key was replaced: the old box, or a copy of its key, is still in use",
                station.after_replacement
            ));
        }
    }
    if station.borrowed_name() {
        parts.push(format!(
            "NAME DIFFERS: its records say {}, its certificate was made for {}",
            shown(&station.name),
            shown(&station.fleet_name)
        ));
    }
    let silent_for = now.as_microsecond() - station.last_heard_us;
    let service = match &station.service {
        Service::In if station.silent(now.as_microsecond()) => match Timestamp::from_microsecond(station.last_heard_us)
        {
            Ok(t) => format!(
                "SILENT since {} UTC: nothing received for {} (a station in the fleet says it is alive every {} min)",
                t.strftime("%Y-%m-%d %H:%M"),
                span(silent_for / 1_000_000),
                super::SIGN_OF_LIFE_EVERY.as_secs() / 60
            ),
            Err(_) => "SILENT".to_string(),
        },
        Service::In => "in service".to_string(),
        Service::Out(why) => format!("OUT OF SERVICE: {}", crate::word::printable(why, 2 * SHOWN)),
        Service::Stopped => "shut down".to_string(),
        Service::Left(at) => match Timestamp::from_microsecond(*at) {
            Ok(t) => format!("left the fleet at {} UTC", t.strftime("%Y-%m-%d %H:%M")),
            Err(_) => "left the fleet".to_string(),
        },
    };
    // A replaced key's line is the past: what service it was in then is not
    // the station's state now.
    if station.replaced_at.is_none() {
        parts.push(service);
    }
    let own = station.fingerprint.as_deref().unwrap_or("");
    for (other, fingerprint) in &station.mismatch {
        parts.push(format!(
            "LEXICON MISMATCH: {} has {}",
            shown(other),
            shown(&fingerprint_shown(fingerprint, &[own]))
        ));
    }
    if station.mismatch.is_empty() && station.wrong_lexicon() {
        parts.push(format!("WRONG LEXICON: {}", shown(station.lexicon_status.as_deref().unwrap_or(""))));
    }
    if station.hosts.len() > 1 {
        let hosts: Vec<String> = station.hosts.iter().map(|h| shown(h)).collect();
        let more = if station.more_hosts > 0 {
            format!(" and {} entries from more", station.more_hosts)
        } else {
            String::new()
        };
        parts.push(format!("records from {} hosts: {}{more}", hosts.len(), hosts.join(", ")));
    }
    match (station.warnings.last(), &station.service) {
        (None, _) => {}
        // The out-of-service reason, already said.
        (Some((_, last)), Service::Out(why)) if last == why => {
            parts.push(format!("{} warning(s)", station.warnings_total))
        }
        (Some((_, last)), _) => parts.push(format!("{} warning(s), last: {}", station.warnings_total, shown(last))),
    }
    parts.join("; ")
}

fn or_dash(value: Option<&str>) -> String {
    value.map(shown).unwrap_or_else(|| "-".into())
}

/// One station's columns, in the table's order.
fn columns(station: &Station, now: Timestamp, tz: &TimeZone) -> [String; 8] {
    [
        if station.replaced_at.is_some() {
            format!("{} (replaced key)", shown(&station.name))
        } else if station.name_differs() {
            format!("{} (certificate {})", shown(&station.name), shown(&station.fleet_name))
        } else {
            shown(&station.name)
        },
        when(station.last_seen_us, now, tz),
        or_dash(station.lexicon.as_deref()),
        or_dash(
            station
                .fingerprint
                .as_deref()
                .map(|fp| {
                    let others: Vec<&str> = station.mismatch.iter().map(|(_, f)| f.as_str()).collect();
                    fingerprint_shown(fp, &others)
                })
                .as_deref(),
        ),
        // The profile's name, as the station's menu shows it; an id this
        // version does not know, as recorded.
        or_dash(station.profile.as_deref().map(|id| crate::profile::find(id).map_or(id, |p| p.name))),
        match station.last_challenge {
            Some((n, at)) => format!("#{n} at {}", when(at, now, tz)),
            None => "-".into(),
        },
        links(station),
        state(station, now),
    ]
}

const HEADINGS: [&str; 8] =
    ["STATION", "LAST SEEN", "LEXICON", "FINGERPRINT", "PROFILE", "LAST CHALLENGE", "LINKS", "STATE"];

/// The note under the table: what the link check covers.
pub const LINKS_NOTE: &str = "A record is shown as a station's only when it carries the line the station wrote in its \
audit log, signed with the audit key paired with that station at `fleet sign`; anything else that names a station is \
refused and named on its line. LINKS checks the records that arrived: each follows the one before it in the station's \
log, none is missing or arrived twice with different contents, and no challenge number is missing between two of them.";

/// The lines about entries no paired station signed and none is named by.
pub fn unattributed(status: &Status) -> Vec<String> {
    let mut out: Vec<String> = status
        .unattributed
        .iter()
        .map(|what| {
            format!("REFUSED, NO PAIRED STATION: {}", crate::word::printable(what, 4 * SHOWN).replace("\\\"", "\""))
        })
        .collect();
    if status.more_unattributed > 0 {
        out.push(format!("REFUSED, NO PAIRED STATION: and {} more entries", status.more_unattributed));
    }
    if status.paired == 0 {
        out.push(
            "NO PAIRED STATION: the CA folder holds no station's audit key (`fleet sign` pairs them; give the \
                  event's CA folder with --ca-dir)"
                .to_string(),
        );
    }
    out
}

/// The text view: a heading line, one line per station, the mismatches and
/// the note.
pub fn text(status: &Status, now: Timestamp, tz: &TimeZone) -> String {
    let rows: Vec<[String; 8]> = status.stations.iter().map(|s| columns(s, now, tz)).collect();
    let mut widths = HEADINGS.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String]| {
        let mut out = String::new();
        for (i, cell) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                out.push_str(cell);
            } else {
                let _ = write!(out, "{cell:<w$}  ", w = widths[i]);
            }
        }
        out.trim_end().to_string() + "\n"
    };
    let mut out = format!(
        "fleet status at {}: {} station(s), {} journal entries read\n",
        now.to_zoned(tz.clone()).strftime("%Y-%m-%d %H:%M:%S %Z"),
        status.stations.len(),
        status.entries
    );
    out.push_str(&line(&HEADINGS.map(String::from)));
    for row in &rows {
        out.push_str(&line(row));
    }
    for m in mismatches(status).into_iter().chain(unattributed(status)) {
        let _ = writeln!(out, "{m}");
    }
    let _ = writeln!(out, "{LINKS_NOTE}");
    out
}

/// A lexicon fingerprint as the stations and the publishers show it: its
/// first 8 hex digits, unless another fingerprint it is compared with starts
/// the same (two lists made to share 8 digits): then whole, so a mismatch is
/// never shown as two equal codes.
pub fn fingerprint_shown(fingerprint: &str, compared_with: &[&str]) -> String {
    let short = fingerprint.get(..8).unwrap_or(fingerprint);
    let clash = compared_with.iter().any(|other| *other != fingerprint && other.get(..8) == Some(short));
    if clash {
        fingerprint.to_string()
    } else {
        short.to_string()
    }
}

/// One line per lexicon id judged with more than one fingerprint.
pub fn mismatches(status: &Status) -> Vec<String> {
    let mut by_id: std::collections::BTreeMap<&str, Vec<String>> = Default::default();
    for s in status.stations.iter().filter(|s| !s.mismatch.is_empty()) {
        let (Some(id), Some(fp)) = (&s.lexicon, &s.fingerprint) else { continue };
        let others: Vec<&str> = s.mismatch.iter().map(|(_, f)| f.as_str()).collect();
        by_id.entry(id).or_default().push(format!("{} at {}", shown(&fingerprint_shown(fp, &others)), shown(&s.name)));
    }
    by_id
        .into_iter()
        .map(|(id, at)| {
            format!("LEXICON MISMATCH: {} is judged with different word lists: {}", shown(id), at.join(", "))
        })
        .collect()
}

const CSS: &str = "body{font-family:sans-serif;margin:1em;background:#f4f4f4;color:#111}\
h1{font-size:1.4em;margin:0 0 .2em}p.at{margin:0 0 1em;color:#444}\
.tiles{display:flex;flex-wrap:wrap;gap:1em}\
.tile{background:#fff;border:3px solid #2e7d32;border-radius:8px;padding:.6em .9em;width:22em}\
.tile.alarm{border-color:#c62828;background:#ffebee}\
.tile h2{margin:0 0 .3em;font-size:1.2em}.tile.alarm h2{color:#c62828}\
dl{display:grid;grid-template-columns:auto 1fr;gap:.1em .6em;margin:0 0 .5em}dt{color:#555}dd{margin:0;overflow-wrap:anywhere}\
.bad{color:#c62828;font-weight:bold}\
table{border-collapse:collapse;font-size:.9em}td{padding:0 .4em 0 0}\
.bar{display:inline-block;height:.8em}.a{background:#2e7d32}.u{background:#c62828}\
p.note,p.mm{max-width:60em;color:#444}p.mm{color:#c62828;font-weight:bold}";

/// The HTML view: one self-contained page.
pub fn html(status: &Status, now: Timestamp, tz: &TimeZone) -> String {
    html_reloading(status, now, tz, None)
}

/// [`html`], with the browser told to load the page again every `seconds`
/// (while `fleet status --watch` writes it again): a director leaves the
/// page open and it stays current without a script.
pub fn html_reloading(status: &Status, now: Timestamp, tz: &TimeZone, seconds: Option<u64>) -> String {
    let e = |s: &str| html_escape(s);
    let mut out = String::new();
    let at = now.to_zoned(tz.clone()).strftime("%Y-%m-%d %H:%M:%S %Z").to_string();
    let refresh = seconds.map(|s| format!("<meta http-equiv=\"refresh\" content=\"{s}\">")).unwrap_or_default();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">{refresh}<title>wordjudge fleet status</title>\
         <style>{CSS}</style></head><body>\n<h1>Fleet status</h1><p class=\"at\">at {}: {} station(s)</p>\n",
        e(&at),
        status.stations.len()
    );
    for m in mismatches(status).into_iter().chain(unattributed(status)) {
        let _ = writeln!(out, "<p class=\"mm\">{}</p>", e(&m));
    }
    out.push_str("<div class=\"tiles\">\n");
    for s in &status.stations {
        let [name, seen, lexicon, fingerprint, profile, last, links, state] = columns(s, now, tz);
        let alarm = s.alarm() || s.silent(now.as_microsecond());
        let class = if alarm { "tile alarm" } else { "tile" };
        let bad = |flag: bool| if flag { " class=\"bad\"" } else { "" };
        let _ = write!(
            out,
            "<section class=\"{class}\"><h2>{}</h2><dl>\
             <dt>Last seen</dt><dd>{}</dd><dt>Lexicon</dt><dd{}>{} {}</dd><dt>Profile</dt><dd>{}</dd>\
             <dt>Last challenge</dt><dd>{}</dd><dt>Links</dt><dd{}>{}</dd><dt>State</dt><dd{}>{}</dd></dl>",
            e(&name),
            e(&seen),
            bad(s.wrong_lexicon()),
            e(&lexicon),
            e(&fingerprint),
            e(&profile),
            e(&last),
            bad(!s.breaks.is_empty()),
            e(&links),
            bad(alarm),
            e(&state)
        );
        out.push_str(&hours(s, tz));
        out.push_str("</section>\n");
    }
    let _ = write!(out, "</div>\n<p class=\"note\">{}</p>\n</body></html>\n", e(LINKS_NOTE));
    out
}

/// Hours shown on a tile, at most (the latest).
const HOURS: usize = 8;

/// A tile's verdicts per hour: ✓ and ✗ counts with bars.
fn hours(station: &Station, tz: &TimeZone) -> String {
    if station.per_hour.is_empty() {
        return "<p>No verdicts received.</p>".into();
    }
    let latest: Vec<_> = station.per_hour.iter().rev().take(HOURS).collect();
    let most = latest.iter().map(|(_, (a, u))| a + u).max().unwrap_or(1).max(1);
    let mut out = String::from("<table><caption>Verdicts per hour</caption>");
    for (hour, (a, u)) in latest.into_iter().rev() {
        let label = Timestamp::from_second(*hour)
            .map(|t| t.to_zoned(tz.clone()).strftime("%m-%d %H:00").to_string())
            .unwrap_or_default();
        let width = |n: u64| n * 120 / most;
        let _ = write!(
            out,
            "<tr><td>{label}</td><td>✓ {a}</td><td>✗ {u}</td><td><span class=\"bar a\" style=\"width:{}px\"></span>\
             <span class=\"bar u\" style=\"width:{}px\"></span></td></tr>",
            width(*a),
            width(*u)
        );
    }
    out.push_str("</table>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_escaping_leaves_no_markup() {
        assert_eq!(html_escape("<b a=\"x\">'&'</b>"), "&lt;b a=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/b&gt;");
        assert_eq!(html_escape("ÉTÉ ✓"), "ÉTÉ ✓");
    }

    #[test]
    fn spans_read_in_the_largest_unit_that_fits() {
        let cases = [
            (0, "0 s"),
            (59, "59 s"),
            (60, "1 min"),
            (3599, "59 min"),
            (3600, "1 h 0 min"),
            (90_061, "1 day"),
            (172_800, "2 days"),
        ];
        for (seconds, words) in cases {
            assert_eq!(span(seconds), words, "{seconds} s");
        }
        // A station silent for fifteen days is not "22393 min".
        assert_eq!(span(15 * 86_400 + 33 * 60), "15 days");
    }
}
