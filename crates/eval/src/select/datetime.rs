//! Dates and times as pydantic reads and writes them back.

/// An ISO 8601 date and time as pydantic writes it back: `T` between date and time, microseconds only when not
/// zero, `Z` for UTC, other offsets as `±HH:MM`, none when none was given. `None` when it is not one.
pub fn normalized_datetime(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let digits = |r: std::ops::Range<usize>| -> Option<u32> {
        let s = text.get(r)?;
        s.bytes().all(|c| c.is_ascii_digit()).then(|| s.parse().ok())?
    };
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') || b[13] != b':' {
        return None;
    }
    let (year, month, day) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    let (hour, minute, second) = (digits(11..13)?, digits(14..16)?, digits(17..19)?);
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = [31, if leap { 29 } else { 28 }, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    if b[16] != b':' || !(1..=12).contains(&month) || day == 0 || day > days[month as usize - 1] {
        return None;
    }
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let mut rest = &text[19..];
    let mut micros = 0u32;
    if let Some(fraction) = rest.strip_prefix('.').or_else(|| rest.strip_prefix(',')) {
        let n = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 || n > 6 {
            return None;
        }
        micros = format!("{:0<6}", &fraction[..n]).parse().ok()?;
        rest = &fraction[n..];
    }
    let zone = match rest {
        "" => String::new(),
        "Z" | "z" | "+00:00" | "-00:00" => "Z".into(),
        z if z.len() == 6 && matches!(&z[..1], "+" | "-") && &z[3..4] == ":" => {
            let (h, m) = (z[1..3].parse::<u32>().ok()?, z[4..6].parse::<u32>().ok()?);
            if h > 23 || m > 59 || !z[1..3].bytes().chain(z[4..6].bytes()).all(|c| c.is_ascii_digit()) {
                return None;
            }
            z.to_string()
        }
        _ => return None,
    };
    let fraction = if micros == 0 {
        String::new()
    } else {
        format!(".{micros:06}")
    };
    Some(format!(
        "{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}{fraction}{zone}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_written_back_as_pydantic_writes_them() {
        // What pydantic 2 dumps for each input.
        let cases = [
            ("2026-12-04T10:00:00Z", "2026-12-04T10:00:00Z"),
            ("2026-12-04T10:00:00+00:00", "2026-12-04T10:00:00Z"),
            ("2026-12-04T10:00:00.5+01:00", "2026-12-04T10:00:00.500000+01:00"),
            ("2026-12-04T10:00:00", "2026-12-04T10:00:00"),
            ("2026-12-04 10:00:00.000", "2026-12-04T10:00:00"),
        ];
        for (given, written) in cases {
            assert_eq!(normalized_datetime(given).as_deref(), Some(written), "{given}");
        }
        for bad in [
            "2026-02-30T10:00:00",
            "2026-12-04",
            "2026-12-04T24:00:00",
            "2026-12-04T10:00:00+1",
            "x",
        ] {
            assert_eq!(normalized_datetime(bad), None, "{bad}");
        }
    }
}
