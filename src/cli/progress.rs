//! A progress bar on standard error for long work (a simulation, verifying a large log): done out
//! of total, the rate and the time left, drawn by `indicatif` twice a second from half a second on
//! (shorter work draws nothing) and erased at the end. Only on a terminal: nothing is written when
//! standard error is a file or a pipe. Reads a counter the work advances; does no work itself.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How often the bar reads the counter (and, the first time, how long work runs before a bar).
const TICK: Duration = Duration::from_millis(500);

/// Runs `work`, with a bar over `counter` (out of `total` `unit`s) while it runs on a terminal.
pub fn while_running<T>(
    counter: &AtomicU64,
    total: u64,
    unit: &str,
    work: impl FnOnce() -> T,
) -> T {
    while_running_to(counter, &AtomicU64::new(total), unit, work)
}

/// [`while_running`] for work that learns its total as it goes (an export, told by the server):
/// the bar reads `total` at every drawing, and shows nothing while it is 0.
pub fn while_running_to<T>(
    counter: &AtomicU64,
    total: &AtomicU64,
    unit: &str,
    work: impl FnOnce() -> T,
) -> T {
    if !std::io::stderr().is_terminal() {
        return work();
    }
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let bar = scope.spawn(|| follow(counter, &done, total, unit));
        let result = work();
        done.store(true, Ordering::Relaxed);
        // Wake the bar now rather than at its next tick: the work's caller is not kept waiting.
        bar.thread().unpark();
        result
    })
}

/// The bar's template: `[####    ]  42% 420/1000 entries, 210/s, 3s left`, the bar as wide as the
/// terminal leaves room for.
fn template(unit: &str) -> String {
    format!("[{{wide_bar}}] {{percent:>3}}% {{pos}}/{{len}} {unit}, {{rate}}, {{eta}} left")
}

fn style(unit: &str) -> ProgressStyle {
    ProgressStyle::with_template(&template(unit))
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .with_key(
            "rate",
            |state: &indicatif::ProgressState, out: &mut dyn std::fmt::Write| {
                let _ = write!(out, "{:.0}/s", state.per_sec());
            },
        )
        .progress_chars("## ")
}

/// Moves the bar to the counter every [`TICK`] until the work is done, then erases it.
fn follow(counter: &AtomicU64, done: &AtomicBool, total: &AtomicU64, unit: &str) {
    let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr_with_hz(2));
    bar.set_style(style(unit));
    loop {
        std::thread::park_timeout(TICK);
        if done.load(Ordering::Relaxed) {
            break;
        }
        let total = total.load(Ordering::Relaxed);
        if total == 0 {
            continue;
        }
        bar.set_length(total);
        bar.set_position(counter.load(Ordering::Relaxed).min(total));
    }
    bar.finish_and_clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The template is one `indicatif` reads (else the bar would fall back to its default look) and
    /// names the unit; off a terminal (as under the test runner) the work runs, undrawn.
    #[test]
    fn the_bar_shows_the_share_done_the_rate_and_the_time_left() {
        let entries = template("entries");
        assert!(ProgressStyle::with_template(&entries).is_ok(), "{entries}");
        assert!(entries.contains("{pos}/{len} entries, {rate}, {eta} left"));
        let counter = AtomicU64::new(0);
        let answer = while_running(&counter, 10, "hands", || {
            counter.store(10, Ordering::Relaxed);
            42
        });
        assert_eq!(answer, 42);
    }
}
