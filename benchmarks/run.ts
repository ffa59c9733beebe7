// Runs every benchmark suite in one process and prints each table (`pnpm bench`).
import { runBatchBenchmark } from './batch/jobs.js';
import { runBatchLoopDelayBenchmark } from './batch/sandbox-loop-delay.js';
import { runBatchSubmitBenchmark } from './batch/sandbox-submit.js';
import { runBatchVerifyBenchmark } from './batch/verify-job.js';
import { runEmailDisposableBenchmark } from './email/disposable.js';
import { runEmailOfflineBenchmark } from './email/offline.js';
import { runEmailSmtpBenchmark } from './email/smtp.js';
import { runEmailSuggestBenchmark } from './email/suggest.js';
import { runEnrichBenchmark } from './enrich/suite.js';
import { runEnrichTitlesBenchmark } from './enrich/titles.js';
import { runFeedbackSimulationBenchmark } from './feedback/catch-all-simulation.js';
import { runGeoStallBenchmark } from './geo/event-loop.js';
import { runGeoBenchmark } from './geo/lookup.js';
import { runScaleBenchmark } from './scale/suite.js';
import { runHostileBodiesBenchmark } from './server/hostile-bodies.js';
import { runServerBenchmark } from './server/suite.js';

const only = process.argv[2];
const suites: Record<string, () => Promise<unknown>> = {
  geo: runGeoBenchmark,
  'geo-stall': runGeoStallBenchmark,
  'email-offline': runEmailOfflineBenchmark,
  'email-smtp': runEmailSmtpBenchmark,
  'email-disposable': runEmailDisposableBenchmark,
  'email-suggest': runEmailSuggestBenchmark,
  batch: runBatchBenchmark,
  'batch-verify': runBatchVerifyBenchmark,
  'batch-submit': runBatchSubmitBenchmark,
  'batch-loop-delay': runBatchLoopDelayBenchmark,
  server: runServerBenchmark,
  'hostile-bodies': runHostileBodiesBenchmark,
  enrich: runEnrichBenchmark,
  'enrich-titles': runEnrichTitlesBenchmark,
  scale: runScaleBenchmark,
  'feedback-simulation': runFeedbackSimulationBenchmark,
};
for (const [name, run] of Object.entries(suites)) {
  if (only && only !== name) continue;
  await run();
}
