//! A progress bar on standard error for long work (a simulation, verifying a large log): done out
//! of total, the rate and the time left, redrawn twice a second from half a second on (shorter
//! work draws nothing) and erased at the end. Only on a terminal: nothing is written when standard
//! error is a file or a pipe. Reads a counter the work advances; does no work itself.

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

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
        let bar = scope.spawn(|| draw(counter, &done, total, unit));
        let result = work();
        done.store(true, Ordering::Relaxed);
        // Wake the bar now rather than at its next tick: the work's caller is not kept waiting.
        bar.thread().unpark();
        result
    })
}

fn draw(counter: &AtomicU64, done: &AtomicBool, total: &AtomicU64, unit: &str) {
    let started = Instant::now();
    let mut err = std::io::stderr();
    let mut drawn = false;
    loop {
        // Half a second first: work shorter than that draws nothing.
        std::thread::park_timeout(Duration::from_millis(500));
        if done.load(Ordering::Relaxed) {
            break;
        }
        let done_now = counter.load(Ordering::Relaxed);
        let total = total.load(Ordering::Relaxed);
        if total == 0 {
            continue;
        }
        let _ = write!(
            err,
            "\r{}   ",
            line(done_now, total, started.elapsed(), unit)
        );
        let _ = err.flush();
        drawn = true;
    }
    if drawn {
        let _ = write!(err, "\r{}\r", " ".repeat(110));
        let _ = err.flush();
    }
}

/// One drawing of the bar: `[####    ]  42.0 % 420 / 1000 entries, 210/s, 3 s left`.
fn line(done: u64, total: u64, elapsed: Duration, unit: &str) -> String {
    const WIDTH: u64 = 40;
    let done = done.min(total);
    let filled = (done * WIDTH).checked_div(total).unwrap_or(WIDTH);
    let per_mille = (done * 1000).checked_div(total).unwrap_or(1000);
    let millis = elapsed.as_millis().max(1);
    let rate = u128::from(done) * 1000 / millis;
    let left = match rate {
        0 => "time left unknown".to_string(),
        rate => format!("{} s left", u128::from(total - done).div_ceil(rate)),
    };
    format!(
        "[{}{}] {:>3}.{} % {done} / {total} {unit}, {rate}/s, {left}",
        "#".repeat(filled as usize),
        " ".repeat((WIDTH - filled) as usize),
        per_mille / 10,
        per_mille % 10,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_shows_the_share_done_the_rate_and_the_time_left() {
        let text = line(420, 1000, Duration::from_secs(2), "entries");
        assert_eq!(
            text,
            format!(
                "[{}{}]  42.0 % 420 / 1000 entries, 210/s, 3 s left",
                "#".repeat(16),
                " ".repeat(24)
            )
        );
        let start = line(0, 50, Duration::from_millis(0), "hands");
        assert!(
            start.ends_with("0 / 50 hands, 0/s, time left unknown"),
            "{start}"
        );
        let nothing_to_do = line(0, 0, Duration::from_secs(1), "entries");
        assert!(nothing_to_do.contains("100.0 %"), "{nothing_to_do}");
    }
}
