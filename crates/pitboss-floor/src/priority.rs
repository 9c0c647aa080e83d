//! The scheduling priority of work that runs beside serving: lowered on the calling thread, so
//! that the hands being played keep the cores while it runs: strategy tables built ahead of need,
//! which a first hand may come to wait for; the returns' theoretical figures, which the returns'
//! alerts wait for. Lowered (`nice` 10), never to Linux's `SCHED_IDLE` class: a server busy on
//! every core would never run such work, and its alerts would never open (measured in
//! `docs/PERFORMANCE.md`, the idle class bought serving nothing over `nice` 10). MUST NOT be used
//! for work a call is blocked on from its start.

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
