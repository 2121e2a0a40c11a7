//! What a joined station writes for the system, from what it joined: its
//! name in the fleet, the uploader's environment and the wired network.
//! Each is made of checked values only, so none can say more than it
//! should to the unit that reads it.

use super::Joined;

/// A station's name in the fleet from its own name (`Table 3` →
/// `table-3`): one DNS label, as certificates and the laptop's files need.
pub fn fleet_name(station_name: &str) -> String {
    let mut name = String::new();
    for c in station_name.chars() {
        if c.is_ascii_alphanumeric() {
            name.push(c.to_ascii_lowercase());
        } else if !name.ends_with('-') && !name.is_empty() {
            name.push('-');
        }
    }
    let name: String = name.trim_end_matches('-').chars().take(63).collect();
    let name = name.trim_end_matches('-').to_string();
    if name.is_empty() {
        "station".into()
    } else {
        name
    }
}

/// [`super::UPLOAD_ENV`]'s text: the one setting the uploader's unit takes from it.
/// The URL was checked by [`crate::fleet::stick::FleetFile::check`] (https, a host name or an
/// IPv4 address, a port), so it holds no character a unit's environment
/// file would read otherwise.
pub fn upload_env(joined: &Joined) -> String {
    format!(
        "# Written when this station joined the fleet of {}.\nWORDJUDGE_FLEET_URL={}\n",
        joined.event.replace('\n', " "),
        joined.upload_url
    )
}

/// [`super::NETWORK_FILE`]'s text: wired Ethernet only, the stick's address or
/// DHCP, and nothing else a network brings by default (no IPv6 link-local
/// address or router advertisements, no LLMNR or mDNS: nothing to answer).
/// The address and gateway were checked by [`crate::fleet::stick::FleetFile::check`].
pub fn wired_network(joined: &Joined) -> String {
    let mut text = format!(
        "# Written when this station joined the fleet of {}: wired Ethernet only.\n\
         [Match]\nType=ether\n\n[Network]\n",
        joined.event.replace('\n', " ")
    );
    match (&joined.address, &joined.gateway) {
        (Some(address), gateway) => {
            text.push_str(&format!("Address={address}\n"));
            if let Some(gateway) = gateway {
                text.push_str(&format!("Gateway={gateway}\n"));
            }
        }
        (None, _) => text.push_str("DHCP=ipv4\n"),
    }
    text.push_str("LinkLocalAddressing=no\nIPv6AcceptRA=no\nLLMNR=no\nMulticastDNS=no\n");
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::stick;

    fn joined(address: Option<&str>, gateway: Option<&str>) -> Joined {
        Joined {
            station: "wj-01".into(),
            event: "Nationals 2026".into(),
            upload_url: "https://192.168.10.2:19532".into(),
            ca_sha256: "ab".repeat(32),
            certificate_sha256: "cd".repeat(32),
            laptop_sha256: None,
            not_after: "Dec 31 00:00:00 2027 GMT".into(),
            address: address.map(String::from),
            gateway: gateway.map(String::from),
        }
    }

    #[test]
    fn the_wired_network_is_the_sticks_address_or_dhcp_and_nothing_more() {
        let fixed = wired_network(&joined(Some("192.168.10.21/24"), Some("192.168.10.1")));
        let lines: Vec<&str> = fixed.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(
            lines,
            [
                "[Match]",
                "Type=ether",
                "",
                "[Network]",
                "Address=192.168.10.21/24",
                "Gateway=192.168.10.1",
                "LinkLocalAddressing=no",
                "IPv6AcceptRA=no",
                "LLMNR=no",
                "MulticastDNS=no"
            ]
        );
        let dhcp = wired_network(&joined(None, None));
        assert!(dhcp.contains("\nDHCP=ipv4\n") && !dhcp.contains("Address="), "{dhcp}");
        let odd = wired_network(&Joined { event: "two\nlines".into(), ..joined(None, None) });
        assert_eq!(odd.lines().filter(|l| l.starts_with('[')).count(), 2, "{odd}");
    }

    #[test]
    fn fleet_names_are_one_dns_label_made_from_the_stations_name() {
        for (name, want) in [
            ("Table 3", "table-3"),
            ("Boot test", "boot-test"),
            ("  Salle Ü — 12 ", "salle-12"),
            ("---", "station"),
            ("", "station"),
        ] {
            assert_eq!(fleet_name(name), want, "{name:?}");
            assert!(stick::station_name_is_valid(&fleet_name(name)));
        }
        let long = fleet_name(&"ab ".repeat(40));
        assert!(long.len() <= 63 && stick::station_name_is_valid(&long), "{long}");
    }

    #[test]
    fn upload_env_names_the_url_and_nothing_else() {
        let env = upload_env(&Joined { event: "a\nWORDJUDGE_FLEET_URL=https://evil:1".into(), ..joined(None, None) });
        let settings: Vec<&str> = env.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(settings, ["WORDJUDGE_FLEET_URL=https://192.168.10.2:19532"]);
    }
}
