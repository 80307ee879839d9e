//! Whether traces and metrics go out over OTLP, read from the standard
//! OpenTelemetry variables: off unless an OTLP endpoint is named, and off
//! whatever else is set when `OTEL_SDK_DISABLED` is `true`. A value this
//! build cannot honour (another protocol, another exporter) is an error
//! that names the variable and its value, never a silent fallback.

use thiserror::Error;

/// The variables read here, for the documentation and the errors.
pub const ENDPOINT: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";
pub const TRACES_ENDPOINT: &str = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT";
pub const METRICS_ENDPOINT: &str = "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT";
pub const DISABLED: &str = "OTEL_SDK_DISABLED";
const PROTOCOLS: [&str; 3] = [
    "OTEL_EXPORTER_OTLP_PROTOCOL",
    "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
    "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL",
];
const TRACES_EXPORTER: &str = "OTEL_TRACES_EXPORTER";
const METRICS_EXPORTER: &str = "OTEL_METRICS_EXPORTER";

/// What the variables ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Wanted {
    pub traces: bool,
    pub metrics: bool,
}

impl Wanted {
    /// Whether anything goes out at all.
    pub fn any(self) -> bool {
        self.traces || self.metrics
    }
}

/// A variable this build cannot honour.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum TelemetryError {
    #[error(
        "{var}={value:?}: toolsift sends OTLP as http/protobuf only (set {var}=http/protobuf, or leave it unset)"
    )]
    Protocol { var: &'static str, value: String },
    #[error("{var}={value:?}: toolsift exports over OTLP only (set {var}=otlp or none)")]
    Exporter { var: &'static str, value: String },
    #[error(
        "{var} is set, but this build of toolsift has no OpenTelemetry exporter (it was built without the `otel` feature): unset the OTEL_EXPORTER_OTLP_* variables, or use a build with it"
    )]
    NotBuilt { var: &'static str },
    #[error("the OTLP {signal} exporter could not be made: {reason}")]
    Exporting {
        signal: &'static str,
        reason: String,
    },
}

/// What `var` (read through `get`) asks: set and not empty.
fn named(get: &impl Fn(&str) -> Option<String>, var: &str) -> bool {
    get(var).is_some_and(|v| !v.trim().is_empty())
}

/// Whether a signal's exporter variable lets it go out: unset or `otlp`
/// yes, `none` no, anything else an error.
fn exporter_on(
    get: &impl Fn(&str) -> Option<String>,
    var: &'static str,
) -> Result<bool, TelemetryError> {
    match get(var).map(|v| v.trim().to_ascii_lowercase()) {
        None => Ok(true),
        Some(v) if v.is_empty() || v == "otlp" => Ok(true),
        Some(v) if v == "none" => Ok(false),
        Some(_) => Err(TelemetryError::Exporter {
            var,
            value: get(var).unwrap_or_default(),
        }),
    }
}

/// What the variables read by `get` ask for.
pub fn wanted(get: impl Fn(&str) -> Option<String>) -> Result<Wanted, TelemetryError> {
    if get(DISABLED).is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
        return Ok(Wanted::default());
    }
    let base = named(&get, ENDPOINT);
    let wanted = Wanted {
        traces: (base || named(&get, TRACES_ENDPOINT)) && exporter_on(&get, TRACES_EXPORTER)?,
        metrics: (base || named(&get, METRICS_ENDPOINT)) && exporter_on(&get, METRICS_EXPORTER)?,
    };
    if wanted.any() {
        for var in PROTOCOLS {
            match get(var) {
                Some(v) if !v.trim().is_empty() && v.trim() != "http/protobuf" => {
                    return Err(TelemetryError::Protocol { var, value: v });
                }
                _ => {}
            }
        }
    }
    Ok(wanted)
}

/// What the process's environment asks for.
pub fn from_env() -> Result<Wanted, TelemetryError> {
    wanted(|var| std::env::var(var).ok())
}

/// The variable that turned a signal on, for a build without exporters.
pub fn which_on(get: impl Fn(&str) -> Option<String>) -> &'static str {
    [ENDPOINT, TRACES_ENDPOINT, METRICS_ENDPOINT]
        .into_iter()
        .find(|v| named(&get, v))
        .unwrap_or(ENDPOINT)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |var| pairs.iter().find(|(k, _)| k == var).map(|(_, v)| v.clone())
    }

    #[test]
    fn nothing_goes_out_unless_an_endpoint_is_named() {
        assert_eq!(wanted(env(&[])), Ok(Wanted::default()));
        assert_eq!(
            wanted(env(&[("OTEL_SERVICE_NAME", "gw")])),
            Ok(Wanted::default())
        );
        let both = Wanted {
            traces: true,
            metrics: true,
        };
        assert_eq!(
            wanted(env(&[(ENDPOINT, "http://127.0.0.1:4318")])),
            Ok(both)
        );
        let traces = wanted(env(&[(TRACES_ENDPOINT, "http://127.0.0.1:4318/v1/traces")]));
        assert_eq!(
            traces,
            Ok(Wanted {
                traces: true,
                metrics: false
            })
        );
    }

    #[test]
    fn disabled_wins_and_none_turns_one_signal_off() {
        let off = env(&[(ENDPOINT, "http://x:4318"), (DISABLED, "TRUE")]);
        assert_eq!(wanted(off), Ok(Wanted::default()));
        let not_off = env(&[(ENDPOINT, "http://x:4318"), (DISABLED, "false")]);
        assert!(wanted(not_off).unwrap().any());
        let no_metrics = env(&[(ENDPOINT, "http://x:4318"), (METRICS_EXPORTER, "none")]);
        assert_eq!(
            wanted(no_metrics),
            Ok(Wanted {
                traces: true,
                metrics: false
            })
        );
    }

    #[test]
    fn another_protocol_or_exporter_is_refused_by_name_and_value() {
        let grpc = env(&[(ENDPOINT, "http://x:4317"), (PROTOCOLS[0], "grpc")]);
        let e = wanted(grpc).unwrap_err();
        assert_eq!(
            e.to_string(),
            "OTEL_EXPORTER_OTLP_PROTOCOL=\"grpc\": toolsift sends OTLP as http/protobuf only (set OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf, or leave it unset)"
        );
        let zipkin = env(&[(ENDPOINT, "http://x:4318"), (TRACES_EXPORTER, "zipkin")]);
        assert!(
            wanted(zipkin)
                .unwrap_err()
                .to_string()
                .starts_with("OTEL_TRACES_EXPORTER=\"zipkin\"")
        );
        // Unused, a protocol is no error: nothing goes out.
        assert_eq!(
            wanted(env(&[(PROTOCOLS[0], "grpc")])),
            Ok(Wanted::default())
        );
    }
}
