//! The scheduling priority of work that runs beside serving (strategy tables built ahead of need,
//! the returns' theoretical figures): lowered on the calling thread, so that the hands being
//! played keep the cores while it runs. MUST NOT be used for work a caller waits for.

/// Lowers this thread's scheduling priority to `nice` 10 (Linux: `nice` is per thread, and the
/// threads it starts inherit it). Elsewhere, nothing.
pub(crate) fn lower() {
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority on the calling thread's id changes only its own scheduling priority.
    unsafe {
        let tid = libc::gettid();
        if libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, 10) != 0 {
            tracing::debug!("could not lower a background thread's priority");
        }
    }
}
