//! Naming a fixed standard-time offset as a time zone polars and pyarrow accept.
//!
//! Weather and estimator series are in a site's local *standard* time (no daylight saving).
//! polars rejects fixed offsets such as `+05:30`, so whole-hour offsets use the IANA `Etc/GMT∓N`
//! zones (sign inverted by POSIX convention) and fractional ones use an IANA zone that has kept
//! that offset without daylight saving over the data years; any other offset falls back to UTC
//! timestamps (the caller then reports UTC).

/// The time zone name for `offset_hours` east of GMT, or `None` when no name keeps that offset
/// without daylight saving.
#[allow(clippy::cast_possible_truncation, reason = "the offset is checked to lie within -12..=14 hours first")]
pub fn standard_time_zone(offset_hours: f64) -> Option<String> {
    if !offset_hours.is_finite() || !(-12.0..=14.0).contains(&offset_hours) {
        return None;
    }
    if offset_hours.fract() == 0.0 {
        let hours = offset_hours as i32;
        return Some(match hours {
            0 => "UTC".to_owned(),
            east if east > 0 => format!("Etc/GMT-{east}"),
            west => format!("Etc/GMT+{}", -west),
        });
    }
    let quarter_hours = (offset_hours * 4.0).round() as i32;
    let name = match quarter_hours {
        22 => "Asia/Kolkata",
        23 => "Asia/Kathmandu",
        26 => "Asia/Yangon",
        18 => "Asia/Kabul",
        38 => "Australia/Darwin",
        35 => "Australia/Eucla",
        -38 => "Pacific/Marquesas",
        _ => return None,
    };
    Some(name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_and_fractional_offsets() {
        assert_eq!(standard_time_zone(-7.0).as_deref(), Some("Etc/GMT+7"));
        assert_eq!(standard_time_zone(9.0).as_deref(), Some("Etc/GMT-9"));
        assert_eq!(standard_time_zone(0.0).as_deref(), Some("UTC"));
        assert_eq!(standard_time_zone(5.5).as_deref(), Some("Asia/Kolkata"));
        assert_eq!(standard_time_zone(-3.5), None);
        assert_eq!(standard_time_zone(f64::NAN), None);
    }
}
