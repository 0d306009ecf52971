//! Times as formats write them: nanoseconds since the Unix epoch as RFC 3339 text in UTC (pprof's
//! `time_nanos` and a JFR chunk's start, as a profile's timestamp), and back; the date of a day,
//! which GHC's `-px` header writes too; an interval written in words for people to read
//! (`every 1 millisecond`); and a time a format writes as a float of a unit in the whole ns a
//! profile's timeline holds.

use std::time::Duration;

/// `value` (of `unit_ns` ns each: 1e3 for µs, 1e6 for ms) in whole nanoseconds, where an i64 holds
/// them (292 years either side); `None` for NaN, the infinities and times past that, which no
/// timeline can place.
pub(crate) fn whole_nanoseconds(value: f64, unit_ns: f64) -> Option<i64> {
    let ns = value * unit_ns;
    // NaN and the infinities are not within it either.
    let within = ns.abs() < 9e18;
    if !within {
        return None;
    }
    // Most times are whole already (V8's µs, a trace's): a cast, not a call to round per sample.
    let truncated = ns as i64;
    Some(if truncated as f64 == ns { truncated } else { ns.round() as i64 })
}

/// `nanos` since the Unix epoch as an RFC 3339 UTC time with nanoseconds
/// (`2026-11-25T09:29:47.000000001Z`).
pub(crate) fn format_time(nanos: i64) -> String {
    let seconds = nanos.div_euclid(1_000_000_000);
    let (days, second_of_day) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let (year, month, day) = civil_from_days(days);
    let (hour, minute, second) = (second_of_day / 3600, second_of_day % 3600 / 60, second_of_day % 60);
    let fraction = nanos.rem_euclid(1_000_000_000);
    format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{fraction:09}Z")
}

/// A time as [`format_time`] writes it, back in nanoseconds since the Unix epoch.
pub(crate) fn parse_time(text: &str) -> Option<i64> {
    let field = |range: std::ops::Range<usize>| text.get(range)?.parse::<i64>().ok();
    let (year, month, day) = (field(0..4)?, field(5..7)?, field(8..10)?);
    let (hour, minute, second, fraction) = (field(11..13)?, field(14..16)?, field(17..19)?, field(20..29)?);
    let days = days_from_civil(year, u32::try_from(month).ok()?, u32::try_from(day).ok()?);
    let seconds = ((days * 24 + hour) * 60 + minute) * 60 + second;
    let nanos = seconds.checked_mul(1_000_000_000)?.checked_add(fraction)?;
    // Only the very text format_time writes: anything else (another zone, a field out of range) is no such time.
    (format_time(nanos) == text).then_some(nanos)
}

/// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's algorithm).
pub(crate) fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 { shifted_month + 3 } else { shifted_month - 9 };
    (year_of_era + era * 400 + i64::from(month <= 2), month, day)
}

/// The day counted from 1970-01-01 of a proleptic Gregorian date ([`civil_from_days`] undone).
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let (month, day) = (i64::from(month), i64::from(day));
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year.rem_euclid(400);
    let day_of_year = (153 * (if month > 2 { month - 3 } else { month + 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The interval `text` says in words, a number, a space and its unit of time (`1 millisecond`,
/// `10 microseconds`, `0.5 seconds`, as [`crate::model::nanoseconds_per`] names units): none for
/// another unit or something after it, a number that is none, or an interval that is not from a
/// nanosecond to 10^15 (11 days), where a profile's interval would be a slip.
pub(crate) fn interval_in_words(text: &str) -> Option<Duration> {
    let (number, unit) = text.split_once(' ').unwrap_or((text, ""));
    let nanos = number.parse::<f64>().ok()? * crate::model::nanoseconds_per(unit)? as f64;
    (1.0..1e15).contains(&nanos).then(|| Duration::from_nanos(nanos.round() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_is_rounded_to_the_nearest_nanosecond_where_an_i64_holds_it() {
        assert_eq!(whole_nanoseconds(13_143.0, 1e3), Some(13_143_000));
        assert_eq!(whole_nanoseconds(-20.0, 1e6), Some(-20_000_000));
        // Halves away from zero, as f64::round.
        assert_eq!(whole_nanoseconds(2.5, 1.0), Some(3));
        assert_eq!(whole_nanoseconds(-2.5, 1.0), Some(-3));
        assert_eq!(whole_nanoseconds(1.4999, 1.0), Some(1));
        assert_eq!(whole_nanoseconds(8.99e15, 1e3), Some(8_990_000_000_000_000_000));
        for past in [9e15, -9e15, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(whole_nanoseconds(past, 1e3), None, "{past}");
        }
    }

    #[test]
    fn times_are_rfc_3339_in_utc_and_read_back() {
        // 1 s before and after the epoch, and a leap day (date(1) -d @951782400 says 2000-02-29).
        assert_eq!(format_time(0), "1970-01-01T00:00:00.000000000Z");
        assert_eq!(format_time(-1), "1969-12-31T23:59:59.999999999Z");
        assert_eq!(format_time(951_782_400_000_000_005), "2000-02-29T00:00:00.000000005Z");
        for nanos in [0, -1, 951_782_400_000_000_005, 1_764_063_000_123_456_789, i64::MAX / 2] {
            assert_eq!(parse_time(&format_time(nanos)), Some(nanos));
        }
        assert_eq!(parse_time("2000-02-30T00:00:00.000000000Z"), None);
        assert_eq!(parse_time("Thu Oct 25 10:51 2018"), None);
    }

    #[test]
    fn an_interval_in_words_is_a_number_and_its_unit() {
        assert_eq!(interval_in_words("1 millisecond"), Some(Duration::from_millis(1)));
        assert_eq!(interval_in_words("10 microseconds"), Some(Duration::from_micros(10)));
        assert_eq!(interval_in_words("2 seconds"), Some(Duration::from_secs(2)));
        assert_eq!(interval_in_words("0.5 millisecond"), Some(Duration::from_micros(500)));
        assert_eq!(interval_in_words("1.0004 microsecond"), Some(Duration::from_nanos(1000)));
        assert_eq!(interval_in_words("1 minute"), Some(Duration::from_secs(60)));
        assert_eq!(interval_in_words("1 metre"), None);
        assert_eq!(interval_in_words("1 millisecond (wall)"), None);
        assert_eq!(interval_in_words("one millisecond"), None);
        assert_eq!(interval_in_words("millisecond"), None);
        assert_eq!(interval_in_words("0.0005 microsecond"), None);
        assert_eq!(interval_in_words("1000000 seconds"), None);
    }
}
