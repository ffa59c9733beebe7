import type { Job } from '../types';

/** A job's progress as a native progress bar with its numbers in words. */
export function JobProgress({ job }: { job: Job }) {
  return (
    <span class="progress">
      <progress max={Math.max(1, job.total)} value={job.processed} aria-label={`${job.id} progress`} />
      <span>
        {job.processed.toLocaleString('en-US')} / {job.total.toLocaleString('en-US')}
        {job.failed > 0 ? `, ${job.failed.toLocaleString('en-US')} failed` : ''}
      </span>
    </span>
  );
}
