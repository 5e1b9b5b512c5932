//! The process's parser threads for large climate CSV bodies: each parses one chunk of a shared
//! body in place and appends its rows to the rows before it (see `ParserThread`).

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, OnceLock};
use std::time::{Duration, Instant};

use super::{count_newlines, parse_rows, ClimateCsvError, RowLayout, Rows, SharedBody, FIRST_DATA_LINE};

/// A thread kept for the life of the process to parse chunks of large shared bodies. Starting
/// a thread per body cost more than it saved on small virtual machines: creating it, waiting
/// until it ran, and its fresh malloc arena faulting in every page it wrote; a sleeping thread
/// keeps its arena. Waking one on an idle core is still slow there, so a parse claims its
/// threads and wakes them before it reads the header, and every wait between the threads
/// spins first (at most [`SPIN`]). A thread appends its rows to the rows before them itself:
/// its rows are in its core's cache, and the calling thread copying them from another core was
/// its largest cost. A thread is claimed for one chunk, so concurrent parses (the zip reader's
/// workers) never wait for each other: whoever finds no idle thread parses alone. The threads
/// belong to the process that started them: a forked child, which has none of them, parses
/// alone.
pub(super) struct ParserThread {
    jobs: mpsc::Sender<ParserJob>,
    busy: AtomicBool,
}

/// Longest a thread spins for a message it expects soon before it sleeps.
const SPIN: Duration = Duration::from_micros(300);

/// What a [`ParserThread`] is sent: a wake-up (its chunk follows soon) or the chunk.
enum ParserJob {
    Wake,
    Chunk(ChunkJob),
}

/// One chunk for a [`ParserThread`]: the shared body and the chunk's range in it, the layout,
/// the rows before the chunk (sent once they are parsed) and where to answer.
struct ChunkJob {
    body: SharedBody,
    chunk: Range<usize>,
    layout: Arc<RowLayout>,
    rows_before: mpsc::Receiver<Rows>,
    reply: mpsc::SyncSender<Result<(Rows, usize), ClimateCsvError>>,
}

/// A chunk a claimed [`ParserThread`] parses; joining it frees the thread.
pub(super) struct PendingChunk {
    thread: &'static ParserThread,
    rows_before: mpsc::SyncSender<Rows>,
    answer: mpsc::Receiver<Result<(Rows, usize), ClimateCsvError>>,
}

/// The next message on `receiver`, spinning for it first (see [`SPIN`]).
fn receive_soon<T>(receiver: &mpsc::Receiver<T>) -> Result<T, mpsc::RecvError> {
    let start = Instant::now();
    while start.elapsed() < SPIN {
        match receiver.try_recv() {
            Ok(message) => return Ok(message),
            Err(mpsc::TryRecvError::Empty) => std::hint::spin_loop(),
            Err(mpsc::TryRecvError::Disconnected) => return Err(mpsc::RecvError),
        }
    }
    receiver.recv()
}

impl ParserThread {
    /// The process's parser threads: one fewer than its cores (the caller parses too), at most
    /// 7, started on first use; none in a forked child.
    fn all() -> &'static [ParserThread] {
        static THREADS: OnceLock<(u32, Vec<ParserThread>)> = OnceLock::new();
        let (process, threads) = THREADS.get_or_init(|| {
            let cores = std::thread::available_parallelism().map_or(1, usize::from).clamp(1, 8);
            (std::process::id(), (1..cores).filter_map(|_| ParserThread::start()).collect())
        });
        if *process == std::process::id() {
            threads
        } else {
            &[]
        }
    }

    fn start() -> Option<ParserThread> {
        let (jobs, received) = mpsc::channel::<ParserJob>();
        std::thread::Builder::new()
            .name("sunflux-csv".into())
            .spawn(move || {
                // The rows of the last chunk (moved out, their vectors kept): allocating them
                // anew for each chunk and freeing them here faulted their pages in again.
                let mut rows = Rows::with_capacity(0, 0);
                let mut woken = false;
                loop {
                    let job = if woken { receive_soon(&received) } else { received.recv() };
                    match job {
                        Ok(ParserJob::Wake) => woken = true,
                        Ok(ParserJob::Chunk(job)) => {
                            woken = false;
                            rows = ParserThread::run(job, rows);
                        }
                        Err(_) => return,
                    }
                }
            })
            .ok()?;
        Some(ParserThread { jobs, busy: AtomicBool::new(false) })
    }

    /// Parses the job's chunk into `rows` (emptied first), appends them to the rows before it
    /// and answers; gives back `rows`' vectors.
    #[allow(clippy::indexing_slicing, reason = "a job's chunk is a range of its body, from cut_rows")]
    fn run(job: ChunkJob, mut rows: Rows) -> Rows {
        let bytes = &(*job.body).as_ref()[..job.chunk.end];
        let lines = count_newlines(&bytes[job.chunk.start..]);
        rows.reset(lines + 1, job.layout.value_columns);
        let parsed = parse_rows(bytes, job.chunk.start, FIRST_DATA_LINE, &job.layout, rows);
        // The body is let go before answering, so the caller drops it last.
        drop(job.body);
        let (answer, rows) = match parsed {
            Ok(mut rows) => match receive_soon(&job.rows_before) {
                Ok(mut before) => {
                    before.append(&mut rows);
                    (Ok((before, lines)), rows)
                }
                // The rows before failed: the caller ignores the answer.
                Err(_) => (Ok((Rows::with_capacity(0, 0), lines)), rows),
            },
            Err(error) => (Err(error), Rows::with_capacity(0, 0)),
        };
        // The caller may have stopped waiting; then nobody needs the answer.
        let _ = job.reply.send(answer);
        rows
    }

    fn release(&self) {
        self.busy.store(false, Ordering::Release);
    }

    /// Hands the data lines `chunk` of `body` to this claimed thread.
    pub(super) fn parse(&'static self, body: &SharedBody, chunk: Range<usize>, layout: &Arc<RowLayout>) -> PendingChunk {
        let (reply, answer) = mpsc::sync_channel(1);
        let (rows_before, rows_before_received) = mpsc::sync_channel(1);
        let job = ChunkJob {
            body: Arc::clone(body),
            chunk,
            layout: Arc::clone(layout),
            rows_before: rows_before_received,
            reply,
        };
        // A thread that panicked has dropped its receiver: the job, and so the reply sender, is
        // dropped here and `join` reports it.
        let _ = self.jobs.send(ParserJob::Chunk(job));
        PendingChunk { thread: self, rows_before, answer }
    }
}

impl PendingChunk {
    /// The rows before the chunk with the chunk's appended (by its thread), and the line ends
    /// of the chunk; its error lines moved down by the `lines_before` it. With the rows
    /// before failed, only waits for the thread. The thread is idle again; one that stopped
    /// stays claimed.
    pub(super) fn join(
        self,
        before: Result<Rows, ClimateCsvError>,
        lines_before: usize,
    ) -> Result<(Rows, usize), ClimateCsvError> {
        let stopped = || ClimateCsvError::Malformed { line: 0, message: "a parser thread stopped".into() };
        let before = before.map(|rows| {
            // A thread that answered already (its chunk failed) does not take them.
            let _ = self.rows_before.send(rows);
        });
        drop(self.rows_before);
        let answer = receive_soon(&self.answer).map_err(|_| stopped())?;
        self.thread.release();
        before?;
        answer.map_err(|error| error.lines_later(lines_before))
    }
}

/// Parser threads claimed (and woken) for one parse; those not given a chunk are released
/// when this is dropped.
#[derive(Default)]
pub(super) struct Helpers {
    threads: Vec<&'static ParserThread>,
}

impl Helpers {
    /// The parser threads that are idle now, claimed and woken.
    pub(super) fn claim_idle() -> Helpers {
        let threads = ParserThread::all()
            .iter()
            .filter(|thread| thread.busy.compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed).is_ok())
            .inspect(|thread| {
                // A thread that panicked does not wake; `PendingChunk::join` reports it.
                let _ = thread.jobs.send(ParserJob::Wake);
            })
            .collect();
        Helpers { threads }
    }

    /// How many threads are claimed and not yet given a chunk.
    pub(super) fn count(&self) -> usize {
        self.threads.len()
    }

    pub(super) fn take(&mut self) -> Option<&'static ParserThread> {
        self.threads.pop()
    }
}

impl Drop for Helpers {
    fn drop(&mut self) {
        self.threads.iter().for_each(|thread| thread.release());
    }
}
