//! Two `metrics` recorders as one: the Prometheus recorder behind
//! `/metrics` and another beside it (the OTLP exporter's), each update
//! handed to both.

use std::sync::Arc;

use metrics::{
    Counter, CounterFn, Gauge, GaugeFn, Histogram, HistogramFn, Key, KeyName, Metadata, Recorder,
    SharedString, Unit,
};

/// The two recorders.
pub(crate) struct Beside<A, B> {
    pub(crate) first: A,
    pub(crate) second: B,
}

struct Both<T>(T, T);

impl CounterFn for Both<Counter> {
    fn increment(&self, value: u64) {
        self.0.increment(value);
        self.1.increment(value);
    }
    fn absolute(&self, value: u64) {
        self.0.absolute(value);
        self.1.absolute(value);
    }
}

impl GaugeFn for Both<Gauge> {
    fn increment(&self, value: f64) {
        self.0.increment(value);
        self.1.increment(value);
    }
    fn decrement(&self, value: f64) {
        self.0.decrement(value);
        self.1.decrement(value);
    }
    fn set(&self, value: f64) {
        self.0.set(value);
        self.1.set(value);
    }
}

impl HistogramFn for Both<Histogram> {
    fn record(&self, value: f64) {
        self.0.record(value);
        self.1.record(value);
    }
}

impl<A: Recorder, B: Recorder> Recorder for Beside<A, B> {
    fn describe_counter(&self, key: KeyName, unit: Option<Unit>, description: SharedString) {
        self.first
            .describe_counter(key.clone(), unit, description.clone());
        self.second.describe_counter(key, unit, description);
    }

    fn describe_gauge(&self, key: KeyName, unit: Option<Unit>, description: SharedString) {
        self.first
            .describe_gauge(key.clone(), unit, description.clone());
        self.second.describe_gauge(key, unit, description);
    }

    fn describe_histogram(&self, key: KeyName, unit: Option<Unit>, description: SharedString) {
        self.first
            .describe_histogram(key.clone(), unit, description.clone());
        self.second.describe_histogram(key, unit, description);
    }

    fn register_counter(&self, key: &Key, metadata: &Metadata<'_>) -> Counter {
        Counter::from_arc(Arc::new(Both(
            self.first.register_counter(key, metadata),
            self.second.register_counter(key, metadata),
        )))
    }

    fn register_gauge(&self, key: &Key, metadata: &Metadata<'_>) -> Gauge {
        Gauge::from_arc(Arc::new(Both(
            self.first.register_gauge(key, metadata),
            self.second.register_gauge(key, metadata),
        )))
    }

    fn register_histogram(&self, key: &Key, metadata: &Metadata<'_>) -> Histogram {
        Histogram::from_arc(Arc::new(Both(
            self.first.register_histogram(key, metadata),
            self.second.register_histogram(key, metadata),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use metrics_exporter_prometheus::PrometheusBuilder;

    #[test]
    fn every_update_reaches_both_recorders() {
        let first = PrometheusBuilder::new().build_recorder();
        let second = PrometheusBuilder::new().build_recorder();
        let (a, b) = (first.handle(), second.handle());
        let both = Beside { first, second };
        metrics::with_local_recorder(&both, || {
            metrics::counter!("beside_total", "k" => "v").increment(2);
            metrics::counter!("beside_total", "k" => "v").increment(1);
            metrics::gauge!("beside_gauge").set(7.0);
        });
        for handle in [a, b] {
            let text = handle.render();
            assert!(text.contains("beside_total{k=\"v\"} 3"), "{text}");
            assert!(text.contains("beside_gauge 7"), "{text}");
        }
    }
}
