//! The physical quantity a question asks for ("the lowest supply voltage", "the peak reflow temperature") and
//! whether a sentence states a figure in one of its units: a datasheet's answer is a figure with its unit, and a
//! figure in another unit (the current beside the voltage asked for) is not the answer.

/// A physical quantity, by the units it is stated in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dimension {
    Voltage,
    Current,
    Power,
    Frequency,
    Temperature,
    /// Junction-to-ambient and the like: °C/W, K/W.
    ThermalResistance,
    Resistance,
    Capacitance,
    Pressure,
    /// A delay, a duration, a latency.
    Time,
}

/// The words that name each quantity in a question, tried in order (thermal resistance before resistance and
/// temperature). A cue matches whole words.
const CUES: &[(&[&str], Dimension)] = &[
    (&["thermal resistance"], Dimension::ThermalResistance),
    (&["voltage", "voltages"], Dimension::Voltage),
    (
        &["current", "currents", "current consumption", "current draw"],
        Dimension::Current,
    ),
    (
        &["power consumption", "power dissipation", "power draw", "wattage"],
        Dimension::Power,
    ),
    (
        &[
            "frequency",
            "frequencies",
            "clock rate",
            "clock speed",
            "clock frequency",
            "sampling rate",
            "sample rate",
        ],
        Dimension::Frequency,
    ),
    (&["temperature", "temperatures"], Dimension::Temperature),
    (
        &["resistance", "resistor", "impedance", "pull-up", "pull-down"],
        Dimension::Resistance,
    ),
    (&["capacitance", "capacitor"], Dimension::Capacitance),
    (&["pressure"], Dimension::Pressure),
    (
        &[
            "delay",
            "latency",
            "duration",
            "timeout",
            "settling time",
            "start-up time",
            "startup time",
            "conversion time",
            "response time",
            "rise time",
            "fall time",
            "wake-up time",
        ],
        Dimension::Time,
    ),
];

/// Words after "current" that make it mean "present" (the current version), not an electric current.
const NOT_ELECTRIC: &[&str] = &[
    "version",
    "release",
    "state",
    "value",
    "values",
    "setting",
    "settings",
    "directory",
    "page",
    "position",
    "implementation",
    "time",
    "line",
    "user",
    "node",
    "mode",
];

/// The quantity `question` (lower-cased) names, if any.
pub fn asked_dimension(question: &str) -> Option<Dimension> {
    let words: Vec<&str> = question
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .filter(|w| !w.is_empty())
        .collect();
    let at = |cue: &str| {
        let cue: Vec<&str> = cue.split(' ').collect();
        (0..words.len())
            .find(|&i| words[i..].starts_with(&cue))
            .map(|i| (i, cue.len()))
    };
    CUES.iter().find_map(|(cues, d)| {
        cues.iter().find_map(|c| at(c)).and_then(|(i, n)| {
            let next = words.get(i + n).copied().unwrap_or("");
            (*d != Dimension::Current || !NOT_ELECTRIC.contains(&next)).then_some(*d)
        })
    })
}

/// Characters that may lead a figure and are stripped before its unit is read ("3.6V", "±0.12hPa", "−40°C").
fn is_figure(c: char) -> bool {
    c.is_ascii_digit()
        || matches!(
            c,
            '.' | ',' | '+' | '-' | '−' | '–' | '±' | '~' | '≈' | '<' | '>' | '≤' | '≥'
        )
}

/// SI prefixes as datasheets write them (micro as µ, μ or u).
const PREFIXES: &[&str] = &["", "p", "n", "u", "µ", "μ", "m", "k", "M", "G"];

/// Whether `unit` (one token, figures stripped) is `base` with an SI prefix.
fn prefixed(unit: &str, base: &str) -> bool {
    PREFIXES.iter().any(|p| unit.strip_prefix(p) == Some(base))
}

/// Whether one token is a unit of `d`.
fn is_unit(unit: &str, d: Dimension) -> bool {
    let lower = unit.to_lowercase();
    match d {
        Dimension::Voltage => {
            prefixed(unit, "V") || ["volt", "volts", "vdc", "vac", "vpp", "vrms"].contains(&lower.as_str())
        }
        Dimension::Current => prefixed(unit, "A") || ["amp", "amps", "ampere", "amperes"].contains(&lower.as_str()),
        Dimension::Power => prefixed(unit, "W") || ["watt", "watts", "dbm"].contains(&lower.as_str()),
        Dimension::Frequency => PREFIXES.iter().any(|p| lower == format!("{}hz", p.to_lowercase())),
        Dimension::Temperature => [
            "°c",
            "ºc",
            "°f",
            "ºf",
            "℃",
            "celsius",
            "fahrenheit",
            "kelvin",
            "degrees",
        ]
        .contains(&lower.as_str()),
        Dimension::ThermalResistance => ["°c/w", "ºc/w", "k/w", "℃/w"].contains(&lower.as_str()),
        Dimension::Resistance => {
            prefixed(unit, "\u{3a9}")
                || prefixed(unit, "\u{2126}")
                || ["ohm", "ohms", "kohm", "mohm"].contains(&lower.as_str())
        }
        Dimension::Capacitance => prefixed(unit, "F") || lower == "farad",
        Dimension::Pressure => {
            ["pa", "hpa", "kpa", "mpa", "bar", "mbar", "psi", "torr", "mmhg"].contains(&lower.as_str())
        }
        Dimension::Time => {
            prefixed(unit, "s")
                || [
                    "sec", "secs", "second", "seconds", "min", "mins", "minute", "minutes", "hour", "hours", "us",
                ]
                .contains(&lower.as_str())
        }
    }
}

/// Whether `sentence` states a figure and a unit of `d` (in the same token, "3.6V", or apart, as a table row
/// written "Max: 3.6; Unit: V" has them).
pub fn states(sentence: &str, d: Dimension) -> bool {
    let figure = sentence.chars().any(|c| c.is_ascii_digit());
    figure
        && sentence
            .split(|c: char| c.is_whitespace() || matches!(c, ';' | ':' | '(' | ')' | '[' | ']' | '='))
            .map(|t| t.trim_start_matches(is_figure).trim_end_matches(['.', ',']))
            .filter(|t| !t.is_empty())
            .any(|t| is_unit(t, d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_name_their_quantity() {
        let d = |q: &str| asked_dimension(&q.to_lowercase());
        assert_eq!(
            d("What is the lowest VDD supply voltage the BMP280 can run from?"),
            Some(Dimension::Voltage)
        );
        assert_eq!(
            d("What is the junction-to-ambient thermal resistance of the package?"),
            Some(Dimension::ThermalResistance)
        );
        assert_eq!(
            d("What peak reflow soldering temperature is it rated for?"),
            Some(Dimension::Temperature)
        );
        assert_eq!(d("What is the sleep current?"), Some(Dimension::Current));
        assert_eq!(d("What is the current version of the library?"), None);
        assert_eq!(
            d("What resistor value goes on the REXT pin?"),
            Some(Dimension::Resistance)
        );
        assert_eq!(d("What is the algorithmic delay of Speex?"), Some(Dimension::Time));
        assert_eq!(d("What hashing scheme does it use?"), None);
    }

    #[test]
    fn sentences_state_a_figure_in_a_fitting_unit() {
        assert!(states("The supply ranges from 1.71 V to 3.6V.", Dimension::Voltage));
        assert!(states(
            "Parameter: Supply voltage; Min: 1.71; Max: 3.6; Unit: V",
            Dimension::Voltage
        ));
        assert!(!states("Sleep current is 0.1 µA typical.", Dimension::Voltage));
        assert!(states("Sleep current is 0.1 µA typical.", Dimension::Current));
        assert!(states("Peak reflow at 260°C for 10 s.", Dimension::Temperature));
        assert!(states("θJA is 47.84 °C/W.", Dimension::ThermalResistance));
        assert!(!states("θJA is 47.84 °C/W.", Dimension::Temperature));
        assert!(states("Use a 6.49 kΩ resistor.", Dimension::Resistance));
        assert!(states("The delay is 34 ms.", Dimension::Time));
        assert!(states("It runs at 10 MHz.", Dimension::Frequency));
        assert!(
            !states("The voltage is stated in volts.", Dimension::Voltage),
            "no figure"
        );
        assert!(states("A 100nF capacitor.", Dimension::Capacitance));
        assert!(states("Range 300 to 1100 hPa.", Dimension::Pressure));
    }
}
