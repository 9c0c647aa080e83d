//! The scheduling priority of work that runs beside serving: lowered on the calling thread, so
//! that the hands being played keep the cores while it runs. `lower` (nice 10) for strategy
//! tables built ahead of need, which a first hand may come to wait for; `idle` for work nobody
//! waits for (the returns' theoretical figures). MUST NOT be used for work a call is blocked on
//! from its start.

/// Lowers this thread's scheduling priority to `nice` 10 (Linux: `nice` is per thread, and the
/// threads it starts inherit it). Elsewhere, nothing.
pub fn lower() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority on the calling thread's id changes only its own scheduling priority.
    unsafe {
        let tid = libc::gettid();
        if libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, 10) != 0 {
            tracing::debug!("could not lower a background thread's priority");
        }
    }
}

/// Puts this thread in Linux's `SCHED_IDLE` class: it runs only on a core nothing else wants, and
/// a serving thread that wakes takes the core from it at once. It still costs serving something
/// (on the two-core machine of `docs/PERFORMANCE.md`, two busy idle-class threads cost a server
/// over half its hands per second): what can be done before the server is ready is
/// (`service/warm.rs`).
/// Elsewhere, or when the class cannot be set, [`lower`].
pub fn idle() {
    #[cfg(target_os = "linux")]
    // SAFETY: sched_setscheduler on the calling thread's id changes only its own scheduling class;
    // the parameter is a plain struct read during the call.
    unsafe {
        let tid = libc::gettid();
        let param = libc::sched_param { sched_priority: 0 };
        if libc::sched_setscheduler(tid, libc::SCHED_IDLE, &param) == 0 {
            return;
        }
    }
    lower();
}
