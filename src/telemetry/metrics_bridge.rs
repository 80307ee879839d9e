//! The process's `metrics` counters, gauges and histograms (the ones
//! `/metrics` shows) as OpenTelemetry instruments of the same names and
//! labels: a `metrics` recorder that the Prometheus one stands beside
//! (`http::metrics::install_beside`), so both see every update.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use metrics::{
    Counter, CounterFn, Gauge, GaugeFn, Histogram, HistogramFn, Key, KeyName, Metadata, Recorder,
    SharedString, Unit,
};
use opentelemetry::KeyValue;
use opentelemetry::metrics::Meter;

/// A counter over OTLP: `metrics`' increments are added; an absolute value
/// (a count read off elsewhere) adds what it grew by since the last.
struct OtelCounter {
    counter: opentelemetry::metrics::Counter<u64>,
    labels: Vec<KeyValue>,
    last: AtomicU64,
}

impl CounterFn for OtelCounter {
    fn increment(&self, value: u64) {
        self.last.fetch_add(value, Ordering::Relaxed);
        self.counter.add(value, &self.labels);
    }

    fn absolute(&self, value: u64) {
        let before = self.last.fetch_max(value, Ordering::Relaxed);
        if value > before {
            self.counter.add(value - before, &self.labels);
        }
    }
}

/// A gauge over OTLP: its value kept here (increments and decrements are
/// `metrics`'), recorded whole on each change.
struct OtelGauge {
    gauge: opentelemetry::metrics::Gauge<f64>,
    labels: Vec<KeyValue>,
    bits: AtomicU64,
}

impl OtelGauge {
    fn change(&self, by: impl Fn(f64) -> f64) {
        let mut now = self.bits.load(Ordering::Relaxed);
        loop {
            let next = by(f64::from_bits(now)).to_bits();
            match self
                .bits
                .compare_exchange_weak(now, next, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => {
                    self.gauge.record(f64::from_bits(next), &self.labels);
                    return;
                }
                Err(seen) => now = seen,
            }
        }
    }
}

impl GaugeFn for OtelGauge {
    fn increment(&self, value: f64) {
        self.change(|v| v + value);
    }
    fn decrement(&self, value: f64) {
        self.change(|v| v - value);
    }
    fn set(&self, value: f64) {
        self.change(|_| value);
    }
}

struct OtelHistogram {
    histogram: opentelemetry::metrics::Histogram<f64>,
    labels: Vec<KeyValue>,
}

impl HistogramFn for OtelHistogram {
    fn record(&self, value: f64) {
        self.histogram.record(value, &self.labels);
    }
}

/// The instruments made so far, by name and labels (`metrics`' macros
/// register on every use; an absolute counter and a gauge keep their
/// value across uses).
#[derive(Default)]
struct Made {
    counters: HashMap<Key, Arc<OtelCounter>>,
    gauges: HashMap<Key, Arc<OtelGauge>>,
    histograms: HashMap<Key, Arc<OtelHistogram>>,
}

/// The `metrics` recorder that writes to an OpenTelemetry meter.
pub struct OtelRecorder {
    meter: Meter,
    made: Mutex<Made>,
}

impl OtelRecorder {
    pub fn new(meter: Meter) -> OtelRecorder {
        OtelRecorder {
            meter,
            made: Mutex::default(),
        }
    }
}

fn labels(key: &Key) -> Vec<KeyValue> {
    key.labels()
        .map(|l| KeyValue::new(l.key().to_string(), l.value().to_string()))
        .collect()
}

impl Recorder for OtelRecorder {
    fn describe_counter(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_gauge(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}
    fn describe_histogram(&self, _: KeyName, _: Option<Unit>, _: SharedString) {}

    fn register_counter(&self, key: &Key, _: &Metadata<'_>) -> Counter {
        let mut made = crate::lock::lock(&self.made);
        let counter = made.counters.entry(key.clone()).or_insert_with(|| {
            Arc::new(OtelCounter {
                counter: self.meter.u64_counter(key.name().to_string()).build(),
                labels: labels(key),
                last: AtomicU64::new(0),
            })
        });
        Counter::from_arc(counter.clone())
    }

    fn register_gauge(&self, key: &Key, _: &Metadata<'_>) -> Gauge {
        let mut made = crate::lock::lock(&self.made);
        let gauge = made.gauges.entry(key.clone()).or_insert_with(|| {
            Arc::new(OtelGauge {
                gauge: self.meter.f64_gauge(key.name().to_string()).build(),
                labels: labels(key),
                bits: AtomicU64::new(0f64.to_bits()),
            })
        });
        Gauge::from_arc(gauge.clone())
    }

    fn register_histogram(&self, key: &Key, _: &Metadata<'_>) -> Histogram {
        let mut made = crate::lock::lock(&self.made);
        let histogram = made.histograms.entry(key.clone()).or_insert_with(|| {
            Arc::new(OtelHistogram {
                histogram: self.meter.f64_histogram(key.name().to_string()).build(),
                labels: labels(key),
            })
        });
        Histogram::from_arc(histogram.clone())
    }
}
