//! The engine an MCP server asks, on a thread of its own: the MCP handler runs on an async
//! runtime and must be `Send + Sync`, while an engine (natively, or the component with its
//! host sources) is neither required to be nor shareable. Each request sends the thread a
//! job and awaits its answer; jobs run one at a time, in the order they came.

use crate::Backend;
use std::sync::mpsc;

/// A job for the engine thread.
type Job = Box<dyn FnOnce(&mut dyn Backend) + Send>;

/// The handle of the engine thread: dropping every clone of it ends the thread.
#[derive(Clone)]
pub(crate) struct EngineThread {
    jobs: mpsc::Sender<Job>,
}

/// The engine thread stopped, or the job panicked: no answer.
#[derive(Debug)]
pub(crate) struct Stopped;

impl EngineThread {
    /// Builds the engine with `make` on a new thread; its error is returned here.
    pub(crate) fn start(
        make: impl FnOnce() -> Result<Box<dyn Backend>, String> + Send + 'static,
    ) -> Result<EngineThread, String> {
        let (jobs, inbox) = mpsc::channel::<Job>();
        let (ready, built) = mpsc::channel();
        std::thread::Builder::new()
            .name("skillwire-engine".to_owned())
            .spawn(move || {
                let mut engine = match make() {
                    Ok(engine) => engine,
                    Err(e) => {
                        let _ = ready.send(Err(e));
                        return;
                    }
                };
                let _ = ready.send(Ok(()));
                for job in inbox {
                    // A job that panics answers nothing (its caller gets `Stopped`); the
                    // engine goes on with the next one.
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(engine.as_mut())));
                }
            })
            .map_err(|e| format!("could not start the engine thread: {e}"))?;
        built.recv().map_err(|_| "the engine thread stopped while building".to_owned())??;
        Ok(EngineThread { jobs })
    }

    /// Runs `job` on the engine and returns what it returned.
    pub(crate) async fn run<T: Send + 'static>(
        &self,
        job: impl FnOnce(&mut dyn Backend) -> T + Send + 'static,
    ) -> Result<T, Stopped> {
        let (answer, answered) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move |engine| {
            let _ = answer.send(job(engine));
        });
        self.jobs.send(job).map_err(|_| Stopped)?;
        answered.await.map_err(|_| Stopped)
    }
}
