//! Numbers as people read them in a report or on screen.

/// `8420` as `8,420`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `2873.94` as `2,873.9`: thousands, and tenths (negative and
/// non-finite numbers as 0).
pub fn thousands_tenths(x: f64) -> String {
    let tenths = if x.is_finite() && x > 0.0 {
        (x * 10.0).round() as u64
    } else {
        0
    };
    format!("{}.{}", thousands(tenths / 10), tenths % 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_of_three() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(8420), "8,420");
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(u64::MAX), "18,446,744,073,709,551,615");
    }

    #[test]
    fn tenths() {
        assert_eq!(thousands_tenths(0.0), "0.0");
        assert_eq!(thousands_tenths(154.04), "154.0");
        assert_eq!(thousands_tenths(2873.94), "2,873.9");
        assert_eq!(thousands_tenths(1_234_567.96), "1,234,568.0");
        assert_eq!(thousands_tenths(f64::NAN), "0.0");
    }
}

/// `1 tool`, `2 tools`, `1,204 tools`: a count with its noun, singular
/// for one.
pub fn counted(n: usize, noun: &str) -> String {
    let s = if n == 1 { "" } else { "s" };
    format!("{} {noun}{s}", thousands(n as u64))
}

#[cfg(test)]
mod counted_tests {
    #[test]
    fn one_is_singular() {
        assert_eq!(super::counted(1, "tool"), "1 tool");
        assert_eq!(super::counted(0, "tool"), "0 tools");
        assert_eq!(super::counted(1204, "tool"), "1,204 tools");
    }
}

/// `90868376` as `90.9 MB` (decimal units, as download sizes are said).
pub fn bytes(n: u64) -> String {
    match n {
        0..1_000 => format!("{n} B"),
        1_000..1_000_000 => format!("{} kB", thousands_tenths(n as f64 / 1e3)),
        1_000_000..1_000_000_000 => format!("{} MB", thousands_tenths(n as f64 / 1e6)),
        _ => format!("{} GB", thousands_tenths(n as f64 / 1e9)),
    }
}

#[cfg(test)]
mod bytes_tests {
    #[test]
    fn decimal_units() {
        assert_eq!(super::bytes(12), "12 B");
        assert_eq!(super::bytes(466_247), "466.2 kB");
        assert_eq!(super::bytes(90_868_376), "90.9 MB");
        assert_eq!(super::bytes(2_500_000_000), "2.5 GB");
    }
}
