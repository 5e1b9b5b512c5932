//! The one process-wide tokio runtime, created on first use, shared by the sync API (block_on),
//! the async API (awaitables) and the embedded service. A runtime does not survive `fork()`:
//! only the forking thread exists in the child, so we refuse to use it there instead of hanging.

use std::sync::OnceLock;

use tokio::runtime::Runtime;

use crate::error::{Error, Result};

struct Owned {
    runtime: Runtime,
    pid: u32,
}

static RUNTIME: OnceLock<std::result::Result<Owned, String>> = OnceLock::new();

/// Worker threads: the machines this runs on are small, and the work is I/O bound.
const WORKER_THREADS: usize = 2;

/// The shared runtime, or an error in a forked child of the process that created it.
pub fn runtime() -> Result<&'static Runtime> {
    let owned = RUNTIME
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(WORKER_THREADS)
                .thread_name("sunflux-io")
                .enable_all()
                .build()
                .map(|runtime| Owned { runtime, pid: std::process::id() })
                .map_err(|e| format!("could not start the sunflux I/O runtime: {e}"))
        })
        .as_ref()
        .map_err(|message| Error::Transport(message.clone()))?;
    if owned.pid != std::process::id() {
        return Err(Error::Transport(
            "sunflux was started in a parent process and cannot run in this forked child (its I/O threads do not \
             survive fork). Use multiprocessing with the 'spawn' or 'forkserver' start method, or create the \
             first sunflux client inside each worker."
                .into(),
        ));
    }
    Ok(&owned.runtime)
}
