// The current search job, kept in this module so its results stay when the user visits another section; polled
// (`search/status`, `search/results` from the last offset) only while the job runs and the Search section shows.

export const job = { id: null, pattern: "", status: "", total: 0, results: [], added: new Set() };

/** Polls `job` once a second until it stops or `stop()` is called; `onChange()` after each new batch. */
export function poll(api, onChange, onError) {
  let timer = null;
  let stopped = false;
  const tick = async () => {
    if (stopped || job.id === null) return;
    const id = job.id;
    try {
      const answer = await api.get("search/results", { id, offset: job.results.length });
      if (stopped || id !== job.id) return;
      job.results.push(...(answer.results || []));
      job.status = answer.status;
      job.total = answer.total;
      onChange();
      if (answer.status === "Running") timer = setTimeout(tick, 1000);
    } catch (error) {
      if (!stopped) onError(error);
    }
  };
  tick();
  return () => { stopped = true; clearTimeout(timer); };
}
