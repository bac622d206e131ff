//! The engine an MCP server asks, on a thread of its own: the MCP handler runs on an async
//! runtime and must be `Send + Sync`, while an engine (natively, or the component with its
//! host sources) is neither required to be nor shareable. Each request sends the thread a
//! job and awaits its answer; jobs run one at a time, in the order they came.

use crate::Backend;
use std::sync::mpsc;

/// A job for the engine thread.
type Job = Box<dyn FnOnce(&mut dyn Backend) + Send>;

/// What the engine thread is asked: run a job, or build its engine again (the answer says
/// whether the new one replaced the old).
enum Message {
    Run(Job),
    Rebuild(Box<dyn FnOnce(Result<(), String>) + Send>),
}

/// The handle of the engine thread: dropping every clone of it ends the thread.
#[derive(Clone)]
pub(crate) struct EngineThread {
    messages: mpsc::Sender<Message>,
}

/// The engine thread stopped, or the job panicked: no answer.
#[derive(Debug)]
pub(crate) struct Stopped;

impl EngineThread {
    /// Builds the engine with `make` on a new thread; its error is returned here. `make`
    /// builds it again when asked ([`EngineThread::rebuild`]).
    pub(crate) fn start(
        make: impl Fn() -> Result<Box<dyn Backend>, String> + Send + 'static,
    ) -> Result<EngineThread, String> {
        let (messages, inbox) = mpsc::channel::<Message>();
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
                for message in inbox {
                    // A job that panics answers nothing (its caller gets `Stopped`); the
                    // engine goes on with the next one.
                    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match message {
                        Message::Run(job) => job(engine.as_mut()),
                        // The old engine serves on when the new one cannot be built.
                        Message::Rebuild(answer) => answer(make().map(|new| engine = new)),
                    }));
                }
            })
            .map_err(|e| format!("could not start the engine thread: {e}"))?;
        built.recv().map_err(|_| "the engine thread stopped while building".to_owned())??;
        Ok(EngineThread { messages })
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
        self.messages.send(Message::Run(job)).map_err(|_| Stopped)?;
        answered.await.map_err(|_| Stopped)
    }

    /// Builds the engine again (the skills read anew from their sources); on an error the
    /// old engine stays.
    pub(crate) async fn rebuild(&self) -> Result<Result<(), String>, Stopped> {
        let (answer, answered) = tokio::sync::oneshot::channel();
        let reply = Box::new(move |built| {
            let _ = answer.send(built);
        });
        self.messages.send(Message::Rebuild(reply)).map_err(|_| Stopped)?;
        answered.await.map_err(|_| Stopped)
    }
}
