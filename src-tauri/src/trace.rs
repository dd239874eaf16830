//! Start-up timings for `scripts/bench-app`, printed to stderr when `SKILLDECK_TRACE_STARTUP=1`.
//! Holds the switch and the line format; what is timed is the caller's.

use std::time::Instant;

/// Whether start-up tracing is on.
pub fn on() -> bool {
    std::env::var_os("SKILLDECK_TRACE_STARTUP").is_some_and(|v| v == "1")
}

/// Prints how long after `started` (the process start) `what` happened.
pub fn since_start(started: Instant, what: &str) {
    took(&format!("since start, {what}"), started);
}

/// Prints how long `what` took since `from`.
pub fn took(what: &str, from: Instant) {
    if on() {
        eprintln!("skilldeck-app: trace backend, {what}: {:.1} ms", from.elapsed().as_secs_f64() * 1000.0);
    }
}
